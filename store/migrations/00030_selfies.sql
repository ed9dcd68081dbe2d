-- +goose Up
-- The person behind the document: after the document's photo is read, a
-- tenant that asks for a selfie has the person take a few frames that
-- answer a challenge drawn for the attempt; the worker decides liveness
-- and the face match and completes the check. Frames are biometric data:
-- sealed like document images, kept and erased as they are.
ALTER TABLE public.tenants
    -- off: no selfie; on: liveness a signal (consider) and the face match
    -- decides; required: liveness must pass too.
    ADD COLUMN idscan_selfie text NOT NULL DEFAULT 'off' CHECK (idscan_selfie IN ('off', 'on', 'required')),
    -- The face match's thresholds, as similarities (1 less the faces'
    -- distance): clear at or above the first, fail under the second.
    ADD COLUMN face_match_clear numeric(4, 3) NOT NULL DEFAULT 0.5 CHECK (face_match_clear BETWEEN 0 AND 1),
    ADD COLUMN face_match_fail numeric(4, 3) NOT NULL DEFAULT 0.4 CHECK (face_match_fail BETWEEN 0 AND 1),
    ADD CHECK (face_match_fail <= face_match_clear);

-- A document read while a selfie is still to come: the check's result as
-- the document alone gives it, sealed with the image keys, until the
-- selfie completes the check (then cleared).
ALTER TABLE public.document_attempts
    ADD COLUMN draft_key_id text,
    ADD COLUMN draft bytea;

CREATE TABLE public.selfie_attempts (
    tenant_id  uuid NOT NULL,
    check_id   uuid NOT NULL REFERENCES public.checks (id) ON DELETE CASCADE,
    n          integer NOT NULL CHECK (n >= 1),
    -- The challenge drawn for this attempt, and the nonce an upload
    -- answers it with.
    steps      text[] NOT NULL CHECK (cardinality(steps) BETWEEN 1 AND 3),
    nonce      text NOT NULL CHECK (length(nonce) = 32),
    status     text NOT NULL CHECK (status IN ('awaiting', 'reading', 'done', 'retake')),
    reason     text,
    created_at timestamptz NOT NULL,
    uploaded_at timestamptz,
    read_at    timestamptz,
    PRIMARY KEY (tenant_id, check_id, n)
);

CREATE TABLE public.selfie_frames (
    tenant_id    uuid NOT NULL,
    check_id     uuid NOT NULL,
    attempt      integer NOT NULL,
    n            integer NOT NULL CHECK (n >= 1), -- within the attempt
    content_type text NOT NULL CHECK (content_type IN ('image/jpeg', 'image/png')),
    bytes        integer NOT NULL,
    width        integer NOT NULL,
    height       integer NOT NULL,
    orientation  integer NOT NULL CHECK (orientation BETWEEN 1 AND 8),
    sha256       bytea NOT NULL,
    key_id       text NOT NULL,
    sealed       bytea NOT NULL,
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, check_id, attempt, n),
    FOREIGN KEY (tenant_id, check_id, attempt) REFERENCES public.selfie_attempts ON DELETE CASCADE
);

-- +goose StatementBegin
DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['selfie_attempts', 'selfie_frames'] LOOP
        EXECUTE format('ALTER TABLE public.%I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE public.%I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format($p$CREATE POLICY tenant_isolation ON public.%I
            USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid)
            WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid)$p$, t);
    END LOOP;
END $$;
-- +goose StatementEnd

-- The api takes the frames in (an awaiting attempt's status moves to
-- reading); the worker draws the challenges, decides, and erases the
-- frames of a tenant that keeps no images.
GRANT SELECT ON public.selfie_attempts TO kycflow_app;
GRANT UPDATE (status, uploaded_at) ON public.selfie_attempts TO kycflow_app;
GRANT SELECT, INSERT ON public.selfie_frames TO kycflow_app;
GRANT SELECT, INSERT ON public.selfie_attempts TO kycflow_worker;
GRANT UPDATE (status, reason, read_at) ON public.selfie_attempts TO kycflow_worker;
GRANT SELECT, DELETE ON public.selfie_frames TO kycflow_worker;
GRANT UPDATE (draft_key_id, draft) ON public.document_attempts TO kycflow_worker;

-- +goose StatementBegin
-- Images and selfie frames past their tenant's retention, as before.
CREATE OR REPLACE FUNCTION public.document_images_erase()
RETURNS bigint
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    WITH ended AS (
        SELECT c.tenant_id, c.id FROM public.checks c JOIN public.tenants t ON t.id = c.tenant_id
        WHERE coalesce(c.completed_at, CASE WHEN c.status = 'failed' THEN c.updated_at END) + t.image_retention <= pg_catalog.now()),
    d AS (
        DELETE FROM public.document_images i USING ended e
        WHERE i.tenant_id = e.tenant_id AND i.check_id = e.id
        RETURNING 1),
    f AS (
        DELETE FROM public.selfie_frames s USING ended e
        WHERE s.tenant_id = e.tenant_id AND s.check_id = e.id
        RETURNING 1)
    SELECT (SELECT count(*) FROM d) + (SELECT count(*) FROM f)
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
          AND coalesce(c.completed_at, CASE WHEN c.status = 'failed' THEN c.updated_at END) + t.image_retention <= pg_catalog.now()
        RETURNING 1)
    SELECT count(*) FROM d
$$;
-- +goose StatementEnd
DROP TABLE public.selfie_frames;
DROP TABLE public.selfie_attempts;
ALTER TABLE public.document_attempts DROP COLUMN draft, DROP COLUMN draft_key_id;
ALTER TABLE public.tenants DROP COLUMN face_match_fail, DROP COLUMN face_match_clear, DROP COLUMN idscan_selfie;
