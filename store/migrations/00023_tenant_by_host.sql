-- +goose Up
-- +goose StatementBegin
-- The console knows its tenant by the host it is reached at, before anyone
-- signs in: the api may not read tenant_hosts (authenticate() resolves a
-- host with a key), so this answers that one question — which tenant owns
-- the host — and nothing else.
CREATE FUNCTION public.tenant_by_host(p_host text)
RETURNS uuid
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT h.tenant_id FROM public.tenant_hosts h WHERE h.host = p_host
$$;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION public.tenant_by_host(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.tenant_by_host(text) TO kycflow_app;

-- +goose Down
DROP FUNCTION public.tenant_by_host(text);
