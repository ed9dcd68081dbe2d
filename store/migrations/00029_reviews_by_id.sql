-- +goose Up
-- Four eyes compares who authenticated a review, not the name it was sent
-- with, and the check's workflow is told ids only: a review is kept here
-- as submitted (its reviewer's name, its notes), and the workflow is sent
-- its id and who it is by.

-- The names API reviews claim, one id per name as NameKey reads it, per
-- tenant: the same name claimed through two keys is one person to four
-- eyes.
CREATE TABLE public.reviewer_names (
    tenant_id uuid NOT NULL REFERENCES public.tenants (id) ON DELETE CASCADE,
    name_key  text NOT NULL CHECK (length(name_key) BETWEEN 1 AND 800),
    id        uuid NOT NULL UNIQUE,
    PRIMARY KEY (tenant_id, name_key)
);

-- A review as submitted: by a staff member's session (staff_id), or by an
-- API key (api_key_id) in a name (reviewer, name_id); its decisions with
-- their notes. Gone with its check.
CREATE TABLE public.review_submissions (
    id         uuid PRIMARY KEY,
    tenant_id  uuid NOT NULL REFERENCES public.tenants (id) ON DELETE CASCADE,
    check_id   uuid NOT NULL REFERENCES public.checks (id) ON DELETE CASCADE,
    staff_id   uuid,
    api_key_id uuid,
    name_id    uuid,
    reviewer   text NOT NULL CHECK (length(reviewer) BETWEEN 1 AND 800),
    decisions  jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    CHECK (staff_id IS NOT NULL AND api_key_id IS NULL AND name_id IS NULL
        OR staff_id IS NULL AND api_key_id IS NOT NULL AND name_id IS NOT NULL)
);
CREATE INDEX review_submissions_check ON public.review_submissions (tenant_id, check_id);

-- +goose StatementBegin
DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['reviewer_names', 'review_submissions'] LOOP
        EXECUTE format('ALTER TABLE public.%I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE public.%I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format($p$CREATE POLICY tenant_isolation ON public.%I
            USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid)
            WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid)$p$, t);
    END LOOP;
END $$;
-- +goose StatementEnd

-- Who authenticated each decision and its approval, and the approver's
-- note (cleared with the customer, as the decider's is).
ALTER TABLE public.aml_reviews ADD COLUMN reviewer_by jsonb, ADD COLUMN approved_via jsonb, ADD COLUMN approval_note text;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.review_forget_notes() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    UPDATE public.aml_reviews SET note = NULL, approval_note = NULL
    WHERE tenant_id = OLD.tenant_id AND customer_id = OLD.id AND (note IS NOT NULL OR approval_note IS NOT NULL);
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- The api keeps submissions and names; the worker reads a submission
-- when it records the review.
GRANT SELECT, INSERT ON public.reviewer_names, public.review_submissions TO kycflow_app;
GRANT SELECT ON public.review_submissions TO kycflow_worker;
GRANT UPDATE (approval_note) ON public.aml_reviews TO kycflow_app;

-- +goose Down
REVOKE UPDATE (approval_note) ON public.aml_reviews FROM kycflow_app;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.review_forget_notes() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    UPDATE public.aml_reviews SET note = NULL
    WHERE tenant_id = OLD.tenant_id AND customer_id = OLD.id AND note IS NOT NULL;
    RETURN NULL;
END $$;
-- +goose StatementEnd
ALTER TABLE public.aml_reviews DROP COLUMN approval_note, DROP COLUMN approved_via, DROP COLUMN reviewer_by;
DROP TABLE public.review_submissions, public.reviewer_names;
