-- +goose Up
-- Verification links of idin/idscan checks: one per check, a random token
-- of which only the SHA-256 is kept. Expiry comes from the tenant's setting.
ALTER TABLE tenants ADD COLUMN link_ttl interval NOT NULL DEFAULT interval '7 days'
    CHECK (link_ttl > interval '0');

CREATE TABLE links (
    check_id    uuid PRIMARY KEY REFERENCES checks (id) ON DELETE CASCADE,
    tenant_id   uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    customer_id uuid NOT NULL,
    type        text NOT NULL CHECK (type IN ('idin', 'idscan')),
    token_hash  bytea NOT NULL UNIQUE,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    used_at     timestamptz,
    revoked_at  timestamptz,
    -- What the person submitted (an MRZ, a bank transaction id): read by the
    -- check's workflow, which keeps none of it in Temporal's history.
    submission  json
);
CREATE INDEX links_tenant ON links (tenant_id);
ALTER TABLE links ENABLE ROW LEVEL SECURITY;
ALTER TABLE links FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON links
    USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid)
    WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);
GRANT SELECT, INSERT, UPDATE, DELETE ON links TO kycflow_app;

-- The verification page knows only the token: this finds whose link it is.
-- +goose StatementBegin
CREATE FUNCTION link_by_token(p_hash bytea)
RETURNS TABLE (tenant_id uuid, check_id uuid)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
    SELECT l.tenant_id, l.check_id FROM links l WHERE l.token_hash = p_hash
$$;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION link_by_token(bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION link_by_token(bytea) TO kycflow_app;

-- A person's submission reaches the workflow through the outbox.
ALTER TABLE outbox DROP CONSTRAINT outbox_action_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_action_check CHECK (action IN ('start', 'cancel', 'retry', 'verified'));

-- +goose Down
ALTER TABLE outbox DROP CONSTRAINT outbox_action_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_action_check CHECK (action IN ('start', 'cancel', 'retry'));
DROP FUNCTION link_by_token(bytea);
DROP TABLE links;
ALTER TABLE tenants DROP COLUMN link_ttl;
