-- +goose Up
-- The review of aml hits: a check whose hits alert waits in
-- awaiting_review for a compliance officer's decisions.
ALTER TABLE public.checks DROP CONSTRAINT checks_status_check;
ALTER TABLE public.checks ADD CONSTRAINT checks_status_check
    CHECK (status IN ('queued', 'running', 'awaiting_input', 'awaiting_review', 'completed',
                      'failed', 'expired', 'cancelled'));
-- The review queue, oldest first.
CREATE INDEX checks_awaiting_review ON public.checks (tenant_id, id) WHERE status = 'awaiting_review';

-- How long a check waits for its review before it expires, hits kept.
ALTER TABLE public.tenants ADD COLUMN aml_review_window interval NOT NULL DEFAULT '30 days'
    CHECK (aml_review_window >= interval '1 minute');

-- One row per decision: the audit trail (ids, decision, reviewer, time, no
-- names) and the memory of false positives. A false positive is
-- remembered for the customer, the entity and the entity's listed data
-- (entity_hash) as screened with the customer's data (query_hash): a
-- change to either makes the hit alert again. The rows outlive the check
-- and the customer (no foreign keys): deleting the customer clears the
-- note, the only free text.
CREATE TABLE public.aml_reviews (
    id          uuid PRIMARY KEY DEFAULT public.uuid_v7(),
    tenant_id   uuid NOT NULL REFERENCES public.tenants (id) ON DELETE CASCADE,
    check_id    uuid NOT NULL,
    customer_id uuid NOT NULL,
    entity_id   text NOT NULL,
    entity_hash text NOT NULL,
    query_hash  text NOT NULL,
    decision    text NOT NULL CHECK (decision IN ('false_positive', 'true_match')),
    reviewer    text NOT NULL,
    note        text,
    decided_at  timestamptz NOT NULL,
    -- A hit is decided once, whatever races to decide it.
    UNIQUE (check_id, entity_id)
);
CREATE INDEX aml_reviews_memory ON public.aml_reviews (tenant_id, customer_id, entity_id, decided_at DESC);
ALTER TABLE public.aml_reviews ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.aml_reviews FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON public.aml_reviews
    USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid)
    WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);

-- +goose StatementBegin
-- check.reviewed: one event per check a statement's decisions reviewed,
-- with the check as it then is and the decisions (ids, no notes).
CREATE FUNCTION public.review_event() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    INSERT INTO public.events (tenant_id, type, subject_kind, subject_id, data)
    SELECT c.tenant_id, 'check.reviewed', 'customer', c.customer_id,
        json_build_object('check', public.check_json(c),
            'subject', json_build_object('kind', 'customer', 'id', c.customer_id),
            'review', json_build_object('reviewer', r.reviewer, 'decisions', r.decisions))
    FROM (SELECT n.tenant_id, n.check_id, min(n.reviewer) AS reviewer,
                 json_agg(json_build_object('entity_id', n.entity_id, 'decision', n.decision,
                     'decided_at', public.wire_time(n.decided_at)) ORDER BY n.entity_id) AS decisions
          FROM added n GROUP BY n.tenant_id, n.check_id) r
    JOIN public.checks c ON c.tenant_id = r.tenant_id AND c.id = r.check_id
    ORDER BY c.id;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER review_event AFTER INSERT ON public.aml_reviews
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION public.review_event();

-- +goose StatementBegin
CREATE FUNCTION public.review_forget_notes() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    UPDATE public.aml_reviews SET note = NULL
    WHERE tenant_id = OLD.tenant_id AND customer_id = OLD.id AND note IS NOT NULL;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER review_forget_notes AFTER DELETE ON public.customers
    FOR EACH ROW EXECUTE FUNCTION public.review_forget_notes();

-- The worker records decisions (the review update runs in the check's
-- workflow) and reads them when screening; the api deletes customers.
GRANT SELECT, INSERT ON public.aml_reviews TO kycflow_worker;
GRANT SELECT, UPDATE (note) ON public.aml_reviews TO kycflow_app;

-- +goose Down
DROP TRIGGER review_forget_notes ON public.customers;
DROP FUNCTION public.review_forget_notes();
DROP TRIGGER review_event ON public.aml_reviews;
DROP FUNCTION public.review_event();
DROP TABLE public.aml_reviews;
ALTER TABLE public.tenants DROP COLUMN aml_review_window;
DROP INDEX public.checks_awaiting_review;
UPDATE public.checks SET status = 'expired' WHERE status = 'awaiting_review';
ALTER TABLE public.checks DROP CONSTRAINT checks_status_check;
ALTER TABLE public.checks ADD CONSTRAINT checks_status_check
    CHECK (status IN ('queued', 'running', 'awaiting_input', 'completed',
                      'failed', 'expired', 'cancelled'));
