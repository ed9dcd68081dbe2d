-- +goose Up
-- idscan from photos of the document: each upload is an attempt, its
-- images sealed (AES-GCM, the key named per image so keys can rotate) and
-- kept for the tenant's retention after the check ends.
ALTER TABLE public.tenants
    ADD COLUMN idscan_typed boolean NOT NULL DEFAULT true,
    ADD COLUMN idscan_max_attempts integer NOT NULL DEFAULT 5 CHECK (idscan_max_attempts BETWEEN 1 AND 20),
    ADD COLUMN image_retention interval NOT NULL DEFAULT interval '30 days' CHECK (image_retention >= interval '0'),
    -- Accepted documents: document codes ("P", "I", "ID") or a code and an
    -- issuing state ("P:NLD"); NULL accepts every document.
    ADD COLUMN idscan_documents text[];

CREATE TABLE public.document_attempts (
    tenant_id  uuid NOT NULL,
    check_id   uuid NOT NULL REFERENCES public.checks (id) ON DELETE CASCADE,
    n          integer NOT NULL CHECK (n >= 1),
    status     text NOT NULL CHECK (status IN ('reading', 'read', 'retake')),
    reason     text,
    -- What the reader measured of the photo (sizes, sharpness, glare):
    -- never a character of the document.
    quality    jsonb,
    created_at timestamptz NOT NULL,
    read_at    timestamptz,
    PRIMARY KEY (tenant_id, check_id, n)
);

CREATE TABLE public.document_images (
    tenant_id    uuid NOT NULL,
    check_id     uuid NOT NULL,
    n            integer NOT NULL CHECK (n >= 1), -- within the check: 1, 2, …
    attempt      integer NOT NULL,
    content_type text NOT NULL CHECK (content_type IN ('image/jpeg', 'image/png')),
    bytes        integer NOT NULL,
    width        integer NOT NULL,
    height       integer NOT NULL,
    -- The EXIF orientation the camera recorded, read before the metadata
    -- was stripped.
    orientation  integer NOT NULL CHECK (orientation BETWEEN 1 AND 8),
    sha256       bytea NOT NULL, -- of the image (metadata stripped), before sealing
    key_id       text NOT NULL,
    sealed       bytea NOT NULL,
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, check_id, n),
    FOREIGN KEY (tenant_id, check_id, attempt) REFERENCES public.document_attempts ON DELETE CASCADE
);
CREATE INDEX document_images_attempt ON public.document_images (tenant_id, check_id, attempt);

-- +goose StatementBegin
DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['document_attempts', 'document_images'] LOOP
        EXECUTE format('ALTER TABLE public.%I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE public.%I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format($p$CREATE POLICY tenant_isolation ON public.%I
            USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid)
            WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid)$p$, t);
    END LOOP;
END $$;
-- +goose StatementEnd

-- The api takes uploads in and shows the tenant's staff the images; the
-- worker reads them, records each attempt's outcome, and erases the images
-- of a tenant that keeps none.
GRANT SELECT, INSERT ON public.document_attempts, public.document_images TO kycflow_app;
GRANT SELECT ON public.document_attempts, public.document_images TO kycflow_worker;
GRANT UPDATE (status, reason, quality, read_at) ON public.document_attempts TO kycflow_worker;
GRANT DELETE ON public.document_images TO kycflow_worker;

-- +goose StatementBegin
-- Every tenant's images past their retention: the check ended (completed,
-- failed, expired or cancelled) longer ago than the tenant keeps images.
-- The housekeeping schedule calls it; it runs as its owner (who bypasses
-- row-level security), takes no argument, and deletes images only.
CREATE FUNCTION public.document_images_erase()
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
REVOKE ALL ON FUNCTION public.document_images_erase() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.document_images_erase() TO kycflow_worker;

-- A photo's upload reaches the workflow through the outbox.
ALTER TABLE public.outbox DROP CONSTRAINT outbox_action_check;
ALTER TABLE public.outbox ADD CONSTRAINT outbox_action_check CHECK (action IN ('start', 'cancel', 'retry', 'verified', 'deliver', 'document'));

-- +goose Down
ALTER TABLE public.outbox DROP CONSTRAINT outbox_action_check;
ALTER TABLE public.outbox ADD CONSTRAINT outbox_action_check CHECK (action IN ('start', 'cancel', 'retry', 'verified', 'deliver'));
DROP FUNCTION public.document_images_erase();
DROP TABLE public.document_images;
DROP TABLE public.document_attempts;
ALTER TABLE public.tenants DROP COLUMN idscan_documents, DROP COLUMN image_retention,
    DROP COLUMN idscan_max_attempts, DROP COLUMN idscan_typed;
