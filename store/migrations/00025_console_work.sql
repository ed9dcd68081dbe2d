-- +goose Up
-- The console's work: who has a review in hand, the audit trail shown on
-- a case page, and the events staff actions on reviews raise.
CREATE TABLE public.review_assignments (
    check_id    uuid PRIMARY KEY REFERENCES public.checks (id) ON DELETE CASCADE,
    tenant_id   uuid NOT NULL,
    staff_id    uuid NOT NULL,
    assigned_by uuid NOT NULL,
    assigned_at timestamptz NOT NULL,
    FOREIGN KEY (tenant_id, staff_id) REFERENCES public.staff (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX review_assignments_staff ON public.review_assignments (tenant_id, staff_id);
ALTER TABLE public.review_assignments ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.review_assignments FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON public.review_assignments
    USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid)
    WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);
GRANT SELECT, INSERT, UPDATE (staff_id, assigned_by, assigned_at), DELETE ON public.review_assignments TO kycflow_app;

-- The inbox's filters (a list, a top score) read two facts of an aml
-- check in review kept beside its data, not its hits parsed per row: the
-- lists of its alerting hits and their top score (NULL out of review).
ALTER TABLE public.checks ADD COLUMN review_lists text[], ADD COLUMN review_top real;
-- +goose StatementBegin
CREATE FUNCTION public.checks_review_facts() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF NEW.type = 'aml' AND NEW.status = 'awaiting_review' THEN
        SELECT coalesce(array_agg(DISTINCT h->>'list') FILTER (WHERE coalesce(h->>'list', '') <> ''), '{}'), max((h->>'score')::real)
        INTO NEW.review_lists, NEW.review_top
        FROM json_array_elements(NEW.data::json->'hits') h WHERE (h->>'alerting')::boolean;
    ELSE
        NEW.review_lists := NULL;
        NEW.review_top := NULL;
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER checks_review_facts BEFORE INSERT OR UPDATE OF status, data ON public.checks
    FOR EACH ROW EXECUTE FUNCTION public.checks_review_facts();
UPDATE public.checks SET data = data WHERE type = 'aml' AND status = 'awaiting_review';

-- A case page shows the audit trail of its record: the api reads it
-- (its own tenant's rows only, as everywhere).
GRANT SELECT ON public.audit_log TO kycflow_app;
CREATE INDEX audit_log_record ON public.audit_log (tenant_id, record_id, created_at);

-- +goose StatementBegin
-- review.assigned, review.decided, review.approved: a staff member's
-- action on an aml review, an event as well as an audit row (ids only:
-- the check, its customer, the staff member).
CREATE FUNCTION public.staff_review_event() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    INSERT INTO public.events (tenant_id, type, subject_kind, subject_id, data)
    SELECT NEW.tenant_id, NEW.action, 'customer', c.customer_id,
        json_build_object('check', json_build_object('id', c.id, 'type', c.type, 'status', c.status),
            'subject', json_build_object('kind', 'customer', 'id', c.customer_id),
            'staff_id', NEW.staff_id, 'detail', NEW.detail)
    FROM public.checks c WHERE c.tenant_id = NEW.tenant_id AND c.id = NEW.record_id AND c.customer_id IS NOT NULL;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER staff_review_event AFTER INSERT ON public.audit_log
    FOR EACH ROW WHEN (NEW.staff_id IS NOT NULL AND NEW.action IN ('review.assigned', 'review.decided', 'review.approved'))
    EXECUTE FUNCTION public.staff_review_event();

-- +goose Down
DROP TRIGGER staff_review_event ON public.audit_log;
DROP FUNCTION public.staff_review_event();
DROP INDEX public.audit_log_record;
DROP TRIGGER checks_review_facts ON public.checks;
DROP FUNCTION public.checks_review_facts();
ALTER TABLE public.checks DROP COLUMN review_top, DROP COLUMN review_lists;
REVOKE SELECT ON public.audit_log FROM kycflow_app;
DROP TABLE public.review_assignments;
