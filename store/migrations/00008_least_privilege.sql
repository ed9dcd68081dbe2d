-- +goose Up
-- Least privilege per process (docs/SECURITY.md has the matrix): the API
-- runs as kycflow_app, the worker as kycflow_worker; everything is owned by
-- kycflow_owner (no superuser), which the migrations run as.
--
-- The SECURITY DEFINER functions run as kycflow_owner. Each one names its
-- tables with their schema and puts pg_temp last on its search_path: a caller
-- who shadows a table with a temporary one (with a trigger, a rule or a
-- view calling a function) is then never read, and nothing of the caller's
-- runs with the owner's rights.

REVOKE ALL ON ALL TABLES IN SCHEMA public FROM PUBLIC, kycflow_app, kycflow_worker;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM PUBLIC, kycflow_app, kycflow_worker;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA public FROM PUBLIC, kycflow_app, kycflow_worker;
-- Functions created later are not executable by everyone by default.
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.authenticate(p_host text, p_hash bytea)
RETURNS TABLE (tenant_id uuid, key_id uuid)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    used timestamptz;
BEGIN
    SELECT h.tenant_id INTO tenant_id FROM public.tenant_hosts h WHERE h.host = p_host;
    IF tenant_id IS NULL THEN
        RETURN;
    END IF;
    SELECT k.id, k.last_used_at INTO key_id, used FROM public.api_keys k
    WHERE k.tenant_id = authenticate.tenant_id AND k.hash = p_hash AND k.revoked_at IS NULL;
    -- Use is recorded at minute granularity: a write per request would cost more than the request.
    IF key_id IS NOT NULL AND (used IS NULL OR used < pg_catalog.now() - interval '1 minute') THEN
        UPDATE public.api_keys SET last_used_at = pg_catalog.now() WHERE id = key_id;
    END IF;
    RETURN NEXT;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.link_by_token(p_hash bytea)
RETURNS TABLE (tenant_id uuid, check_id uuid)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT l.tenant_id, l.check_id FROM public.links l WHERE l.token_hash = p_hash
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.outbox_claim(max_rows integer)
RETURNS TABLE (id bigint, tenant_id uuid, check_id uuid, action text, payload jsonb, attempts integer)
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT o.id, o.tenant_id, o.check_id, o.action, o.payload, o.attempts
    FROM public.outbox o
    WHERE o.not_before <= pg_catalog.now()
    ORDER BY o.id
    LIMIT max_rows
    FOR UPDATE SKIP LOCKED
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.outbox_settle(done bigint[], failed bigint[], delay interval)
RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    DELETE FROM public.outbox WHERE id = ANY(done);
    UPDATE public.outbox SET attempts = attempts + 1, not_before = pg_catalog.now() + delay WHERE id = ANY(failed);
$$;
-- +goose StatementEnd

REVOKE ALL ON FUNCTION public.authenticate(text, bytea), public.link_by_token(bytea),
    public.outbox_claim(integer), public.outbox_settle(bigint[], bigint[], interval) FROM PUBLIC;

-- The API: records, checks and links of the tenant it authenticated, the
-- outbox to queue work, the audit trail to append to.
GRANT EXECUTE ON FUNCTION public.authenticate(text, bytea), public.link_by_token(bytea) TO kycflow_app;
GRANT SELECT ON public.tenants TO kycflow_app;
GRANT SELECT, INSERT, DELETE ON public.businesses, public.customers TO kycflow_app;
-- Row locks (SELECT ... FOR UPDATE) need an UPDATE grant; one column is enough.
GRANT UPDATE (updated_at) ON public.businesses, public.customers TO kycflow_app;
GRANT SELECT, INSERT, UPDATE ON public.checks, public.links TO kycflow_app;
GRANT INSERT ON public.outbox TO kycflow_app;
GRANT USAGE ON SEQUENCE public.outbox_id_seq TO kycflow_app;
GRANT INSERT ON public.audit_log TO kycflow_app;

-- The worker: what the check activities read and write, the watchlists, and
-- the relay's two functions (the only way to see other tenants' outbox rows).
GRANT EXECUTE ON FUNCTION public.outbox_claim(integer), public.outbox_settle(bigint[], bigint[], interval) TO kycflow_worker;
GRANT SELECT ON public.tenants TO kycflow_worker;
GRANT SELECT, UPDATE ON public.businesses, public.customers TO kycflow_worker;
GRANT SELECT, INSERT, UPDATE ON public.checks, public.links TO kycflow_worker;
GRANT INSERT ON public.outbox TO kycflow_worker;
GRANT USAGE ON SEQUENCE public.outbox_id_seq TO kycflow_worker;
GRANT SELECT ON public.watchlist_versions, public.watchlist_entities TO kycflow_worker;
GRANT UPDATE (rescreened_at) ON public.watchlist_versions TO kycflow_worker;

-- +goose Down
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM kycflow_worker;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM kycflow_worker;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA public FROM kycflow_worker;
