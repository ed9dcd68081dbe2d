-- +goose Up
-- The review of a selfie's face match: an idscan check whose selfie is
-- between the tenant's thresholds waits in awaiting_review for a person's
-- decision (same_person or different_person), under the tenant's four
-- eyes as aml hits are. One row per decision in force: the audit trail
-- (ids, decision, reviewer, times, notes). entity_id is the sub-check
-- decided, so check.reviewed events say what aml reviews' say. The rows
-- outlive the check and the customer, as aml reviews do; deleting the
-- customer clears the notes, the only free text.
CREATE TABLE public.face_reviews (
    id            uuid PRIMARY KEY DEFAULT public.uuid_v7(),
    tenant_id     uuid NOT NULL REFERENCES public.tenants (id) ON DELETE CASCADE,
    check_id      uuid NOT NULL,
    customer_id   uuid NOT NULL,
    entity_id     text NOT NULL DEFAULT 'face_match' CHECK (entity_id = 'face_match'),
    decision      text NOT NULL CHECK (decision IN ('same_person', 'different_person')),
    reviewer      text NOT NULL CHECK (length(reviewer) BETWEEN 1 AND 800),
    note          text,
    decided_at    timestamptz NOT NULL,
    approved_by   text CHECK (approved_by IS NULL OR length(approved_by) BETWEEN 1 AND 800),
    approved_at   timestamptz,
    approval_note text,
    reviewer_by   jsonb,
    approved_via  jsonb,
    -- A face match is decided once, whatever races to decide it.
    UNIQUE (check_id)
);
CREATE INDEX face_reviews_customer ON public.face_reviews (tenant_id, customer_id);
ALTER TABLE public.face_reviews ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.face_reviews FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON public.face_reviews
    USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid)
    WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);

-- check.reviewed, as for aml decisions (review_event reads entity_id,
-- decision, decided_at and reviewer of the rows added).
CREATE TRIGGER face_review_event AFTER INSERT ON public.face_reviews
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION public.review_event();

-- +goose StatementBegin
CREATE FUNCTION public.face_review_forget_notes() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    UPDATE public.face_reviews SET note = NULL, approval_note = NULL
    WHERE tenant_id = OLD.tenant_id AND customer_id = OLD.id AND (note IS NOT NULL OR approval_note IS NOT NULL);
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER face_review_forget_notes AFTER DELETE ON public.customers
    FOR EACH ROW EXECUTE FUNCTION public.face_review_forget_notes();

-- The worker records decisions (the review update runs in the check's
-- workflow); the api reads them and deletes customers.
GRANT SELECT, INSERT ON public.face_reviews TO kycflow_worker;
GRANT SELECT, UPDATE (note, approval_note) ON public.face_reviews TO kycflow_app;

-- +goose Down
DROP TRIGGER face_review_forget_notes ON public.customers;
DROP FUNCTION public.face_review_forget_notes();
DROP TRIGGER face_review_event ON public.face_reviews;
DROP TABLE public.face_reviews;
