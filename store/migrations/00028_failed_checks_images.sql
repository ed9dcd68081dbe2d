-- +goose Up
-- A check that failed (its provider or reader gave up; support may retry
-- it) never completes: its images were never erased. Its retention runs
-- from its last change, as a completed one's from its completion; a retry
-- after that finds no image and asks for a new photo.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.document_images_erase()
RETURNS bigint
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    WITH d AS (
        DELETE FROM public.document_images i
        USING public.checks c, public.tenants t
        WHERE c.id = i.check_id AND c.tenant_id = i.tenant_id AND t.id = i.tenant_id
          AND coalesce(c.completed_at, CASE WHEN c.status = 'failed' THEN c.updated_at END) + t.image_retention <= pg_catalog.now()
        RETURNING 1)
    SELECT count(*) FROM d
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.document_images_erase()
RETURNS bigint
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    WITH d AS (
        DELETE FROM public.document_images i
        USING public.checks c, public.tenants t
        WHERE c.id = i.check_id AND c.tenant_id = i.tenant_id AND t.id = i.tenant_id
          AND c.completed_at IS NOT NULL
          AND c.completed_at + t.image_retention <= pg_catalog.now()
        RETURNING 1)
    SELECT count(*) FROM d
$$;
-- +goose StatementEnd
