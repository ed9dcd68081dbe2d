-- +goose Up
-- Four eyes on aml decisions: a tenant's setting (NULL: on for live
-- tenants, off for sandbox ones), and who approved each decision.
ALTER TABLE public.tenants ADD COLUMN aml_four_eyes boolean;
ALTER TABLE public.aml_reviews
    ADD COLUMN approved_by text CHECK (approved_by IS NULL OR length(approved_by) BETWEEN 1 AND 200),
    ADD COLUMN approved_at timestamptz;

-- +goose Down
ALTER TABLE public.aml_reviews DROP COLUMN approved_at, DROP COLUMN approved_by;
ALTER TABLE public.tenants DROP COLUMN aml_four_eyes;
