-- +goose Up
-- Authentication in one round trip and no transaction: the tenant owning the
-- host and the active key with this hash. No row: unknown host. A row with a
-- null key_id: the key is unknown, revoked or another tenant's. Runs as the
-- owner because the tenant is not known (nor set) before it answers.
-- +goose StatementBegin
CREATE FUNCTION authenticate(p_host text, p_hash bytea)
RETURNS TABLE (tenant_id uuid, key_id uuid)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
    used timestamptz;
BEGIN
    SELECT h.tenant_id INTO tenant_id FROM tenant_hosts h WHERE h.host = p_host;
    IF tenant_id IS NULL THEN
        RETURN;
    END IF;
    SELECT k.id, k.last_used_at INTO key_id, used FROM api_keys k
    WHERE k.tenant_id = authenticate.tenant_id AND k.hash = p_hash AND k.revoked_at IS NULL;
    -- Use is recorded at minute granularity: a write per request would cost more than the request.
    IF key_id IS NOT NULL AND (used IS NULL OR used < now() - interval '1 minute') THEN
        UPDATE api_keys SET last_used_at = now() WHERE id = key_id;
    END IF;
    RETURN NEXT;
END $$;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION authenticate(text, bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION authenticate(text, bytea) TO kycflow_app;

-- +goose Down
DROP FUNCTION authenticate(text, bytea);
