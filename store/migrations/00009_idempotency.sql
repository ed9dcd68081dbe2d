-- +goose Up
-- Idempotency keys: a tenant's POST with an Idempotency-Key is answered
-- once; a repeat gets the stored answer for 24 hours. status is null while
-- the first request is in flight.
CREATE TABLE public.idempotency_keys (
    tenant_id    uuid NOT NULL REFERENCES public.tenants (id) ON DELETE CASCADE,
    key          text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
    request_hash bytea NOT NULL,
    status       integer,
    body         bytea,
    created_at   timestamptz NOT NULL,
    completed_at timestamptz,
    PRIMARY KEY (tenant_id, key)
);
CREATE INDEX idempotency_keys_created ON public.idempotency_keys (created_at);
ALTER TABLE public.idempotency_keys ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.idempotency_keys FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON public.idempotency_keys
    USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid)
    WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);
-- The api records and answers from them; the worker prunes expired ones
-- (across tenants, so through a definer function).
GRANT SELECT, INSERT, UPDATE, DELETE ON public.idempotency_keys TO kycflow_app;

-- +goose StatementBegin
CREATE FUNCTION public.idempotency_prune(older_than interval)
RETURNS bigint
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    WITH d AS (DELETE FROM public.idempotency_keys WHERE created_at < pg_catalog.now() - older_than RETURNING 1)
    SELECT count(*) FROM d
$$;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION public.idempotency_prune(interval) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.idempotency_prune(interval) TO kycflow_worker;

-- +goose Down
DROP FUNCTION public.idempotency_prune(interval);
DROP TABLE public.idempotency_keys;
