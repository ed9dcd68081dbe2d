-- +goose Up
-- The api processes cache successful authentications for a few seconds
-- (store/authcache.go). Any change to keys or hosts — a revocation above
-- all — tells every cache to forget what it holds, on commit.
-- +goose StatementBegin
CREATE FUNCTION public.auth_changed() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    PERFORM pg_catalog.pg_notify('kycflow_auth', '');
    RETURN NULL;
END $$;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION public.auth_changed() FROM PUBLIC;
-- authenticate() records a key's use once a minute: that is no change.
CREATE TRIGGER auth_key_changed AFTER UPDATE ON public.api_keys FOR EACH ROW
    WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.hash <> NEW.hash OR OLD.tenant_id <> NEW.tenant_id)
    EXECUTE FUNCTION public.auth_changed();
CREATE TRIGGER auth_keys_gone AFTER DELETE OR TRUNCATE ON public.api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION public.auth_changed();
CREATE TRIGGER auth_hosts_changed AFTER UPDATE OR DELETE OR TRUNCATE ON public.tenant_hosts
    FOR EACH STATEMENT EXECUTE FUNCTION public.auth_changed();

-- +goose Down
DROP TRIGGER auth_hosts_changed ON public.tenant_hosts;
DROP TRIGGER auth_keys_gone ON public.api_keys;
DROP TRIGGER auth_key_changed ON public.api_keys;
DROP FUNCTION public.auth_changed();
