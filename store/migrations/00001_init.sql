-- +goose Up
-- The application connects as kycflow_app: it owns nothing, has no BYPASSRLS,
-- and sees a tenant's rows only after set_config('app.tenant_id', ...) in its
-- transaction. The role is created by `kycflow migrate` before this runs.

-- Global tables: tenants and their hostnames, read by the app to route requests.
CREATE TABLE tenants (
    id         uuid PRIMARY KEY,
    name       text NOT NULL,
    sandbox    boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE tenant_hosts (
    host      text PRIMARY KEY CHECK (host = lower(host)),
    tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE
);
CREATE INDEX tenant_hosts_tenant ON tenant_hosts (tenant_id);

-- Tenant tables: every one carries tenant_id and is under forced RLS.
CREATE TABLE api_keys (
    id           uuid PRIMARY KEY,
    tenant_id    uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    prefix       text NOT NULL,
    hash         bytea NOT NULL UNIQUE,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at   timestamptz
);
CREATE INDEX api_keys_tenant ON api_keys (tenant_id);

CREATE TABLE businesses (
    id          uuid PRIMARY KEY,
    tenant_id   uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    name        text NOT NULL,
    address     text,
    street      text,
    housenumber text,
    addition    text,
    postalcode  text,
    city        text,
    country_id  integer NOT NULL,
    iban_number text,
    coc_number  text NOT NULL,
    vat_number  text,
    is_active   boolean NOT NULL DEFAULT true,
    inactive_at timestamptz,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    UNIQUE (tenant_id, id)
);
-- Keyset pagination: newest first within a tenant.
CREATE INDEX businesses_page ON businesses (tenant_id, id DESC);

CREATE TABLE customers (
    id                  uuid PRIMARY KEY,
    tenant_id           uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    business_id         uuid,
    notes               jsonb,
    initials            text,
    firstname           text,
    lastname            text,
    name                text NOT NULL,
    email               text NOT NULL,
    gender              text,
    birthdate           date,
    nationality_id      integer,
    document_number     text,
    document_expiration timestamptz,
    document_type       integer,
    phone               text,
    address             text,
    street              text,
    housenumber         text,
    addition            text,
    postalcode          text,
    city                text,
    country_id          integer NOT NULL,
    iban_number         text,
    mails               boolean NOT NULL DEFAULT true,
    is_active           boolean NOT NULL DEFAULT true,
    inactive_at         timestamptz,
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL,
    UNIQUE (tenant_id, id),
    -- A customer can only point at a business of its own tenant; deleting the
    -- business clears the link and nothing else.
    FOREIGN KEY (tenant_id, business_id) REFERENCES businesses (tenant_id, id)
        ON DELETE SET NULL (business_id)
);
CREATE INDEX customers_page ON customers (tenant_id, id DESC);
CREATE INDEX customers_business_page ON customers (tenant_id, business_id, id DESC)
    WHERE business_id IS NOT NULL;

CREATE TABLE checks (
    id           uuid PRIMARY KEY,
    tenant_id    uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    business_id  uuid,
    customer_id  uuid,
    type         text NOT NULL,
    status       text NOT NULL DEFAULT 'queued'
                 CHECK (status IN ('queued', 'running', 'awaiting_input', 'completed',
                                   'failed', 'expired', 'cancelled')),
    validated    boolean,
    data         jsonb,
    error        jsonb,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    completed_at timestamptz,
    CHECK ((business_id IS NULL) <> (customer_id IS NULL)),
    -- Deleting a record erases its checks (personal data gone).
    FOREIGN KEY (tenant_id, business_id) REFERENCES businesses (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, customer_id) REFERENCES customers (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX checks_business ON checks (tenant_id, business_id, type, id DESC) WHERE business_id IS NOT NULL;
CREATE INDEX checks_customer ON checks (tenant_id, customer_id, type, id DESC) WHERE customer_id IS NOT NULL;

-- Transactional outbox: workflow starts, cancellations and retries committed
-- with the data they belong to; the relay carries them to Temporal. Ids only.
CREATE TABLE outbox (
    id         bigserial PRIMARY KEY,
    tenant_id  uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    check_id   uuid NOT NULL,
    action     text NOT NULL CHECK (action IN ('start', 'cancel', 'retry')),
    payload    jsonb NOT NULL,
    attempts   integer NOT NULL DEFAULT 0,
    not_before timestamptz NOT NULL DEFAULT now(),
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX outbox_due ON outbox (not_before, id);

-- Wake the relay on commit (notifications are delivered at commit, folded per
-- transaction).
-- +goose StatementBegin
CREATE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('kycflow_outbox', '');
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER outbox_notify AFTER INSERT ON outbox
    FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify();

-- Audit trail without personal data.
CREATE TABLE audit_log (
    id          uuid PRIMARY KEY,
    tenant_id   uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    action      text NOT NULL,
    record_kind text NOT NULL,
    record_id   uuid NOT NULL,
    api_key_id  uuid,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_tenant ON audit_log (tenant_id, created_at);

-- Row-level security, forced so that even the owner obeys it; an unset
-- app.tenant_id matches nothing.
-- +goose StatementBegin
DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['api_keys', 'businesses', 'customers', 'checks', 'outbox', 'audit_log'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format($p$CREATE POLICY tenant_isolation ON %I
            USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid)
            WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid)$p$, t);
    END LOOP;
END $$;
-- +goose StatementEnd

-- The relay works across tenants, so it goes through these two narrow
-- functions, which run as their owner (who bypasses RLS) and touch the outbox only.
-- +goose StatementBegin
CREATE FUNCTION outbox_claim(max_rows integer)
RETURNS TABLE (id bigint, tenant_id uuid, check_id uuid, action text, payload jsonb, attempts integer)
LANGUAGE sql SECURITY DEFINER SET search_path = public AS $$
    SELECT o.id, o.tenant_id, o.check_id, o.action, o.payload, o.attempts
    FROM outbox o
    WHERE o.not_before <= now()
    ORDER BY o.id
    LIMIT max_rows
    FOR UPDATE SKIP LOCKED
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE FUNCTION outbox_settle(done bigint[], failed bigint[], delay interval)
RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = public AS $$
    DELETE FROM outbox WHERE id = ANY(done);
    UPDATE outbox SET attempts = attempts + 1, not_before = now() + delay WHERE id = ANY(failed);
$$;
-- +goose StatementEnd

REVOKE ALL ON ALL TABLES IN SCHEMA public FROM PUBLIC;
REVOKE ALL ON FUNCTION outbox_claim(integer), outbox_settle(bigint[], bigint[], interval) FROM PUBLIC;
GRANT SELECT ON tenants, tenant_hosts TO kycflow_app;
GRANT SELECT, UPDATE ON api_keys TO kycflow_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON businesses, customers, checks TO kycflow_app;
GRANT INSERT ON outbox TO kycflow_app;
GRANT USAGE ON SEQUENCE outbox_id_seq TO kycflow_app;
GRANT SELECT, INSERT ON audit_log TO kycflow_app;
GRANT EXECUTE ON FUNCTION outbox_claim(integer), outbox_settle(bigint[], bigint[], interval) TO kycflow_app;

-- +goose Down
DROP TABLE audit_log, outbox, checks, customers, businesses, api_keys, tenant_hosts, tenants;
DROP FUNCTION outbox_claim(integer);
DROP FUNCTION outbox_settle(bigint[], bigint[], interval);
DROP FUNCTION outbox_notify();
