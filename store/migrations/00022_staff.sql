-- +goose Up
-- The console's staff: accounts per tenant with a role, their invitations
-- and sessions (hashes of the tokens only), and their actions in the audit
-- log beside the API keys'.
CREATE TABLE public.staff (
    id            uuid PRIMARY KEY,
    tenant_id     uuid NOT NULL REFERENCES public.tenants (id) ON DELETE CASCADE,
    email         text NOT NULL CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 254),
    role          text NOT NULL CHECK (role IN ('viewer', 'reviewer', 'support', 'admin')),
    status        text NOT NULL CHECK (status IN ('invited', 'active', 'disabled')),
    -- argon2id, PHC string; NULL until the invitation is accepted.
    password_hash text,
    -- The TOTP secret, sealed (AES-GCM) under the key named.
    totp_key_id   text,
    totp_sealed   bytea,
    -- The last TOTP step used: a code is good once.
    totp_step     bigint NOT NULL DEFAULT 0,
    -- Wrong passwords or codes in a row, and the lock-out they earned.
    failures      integer NOT NULL DEFAULT 0,
    locked_until  timestamptz,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    UNIQUE (tenant_id, email),
    UNIQUE (tenant_id, id)
);

CREATE TABLE public.staff_invitations (
    token_hash bytea PRIMARY KEY,
    tenant_id  uuid NOT NULL,
    staff_id   uuid NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz,
    FOREIGN KEY (tenant_id, staff_id) REFERENCES public.staff (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX staff_invitations_staff ON public.staff_invitations (tenant_id, staff_id);

CREATE TABLE public.staff_sessions (
    token_hash bytea PRIMARY KEY,
    tenant_id  uuid NOT NULL,
    staff_id   uuid NOT NULL,
    -- The CSRF token every form of the session carries (random, not
    -- derived from the cookie).
    csrf       text NOT NULL,
    created_at timestamptz NOT NULL,
    seen_at    timestamptz NOT NULL,
    ended_at   timestamptz,
    FOREIGN KEY (tenant_id, staff_id) REFERENCES public.staff (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX staff_sessions_staff ON public.staff_sessions (tenant_id, staff_id);

-- A staff member's actions are audited as API keys' are: who, what, on
-- which record, when — ids only.
ALTER TABLE public.audit_log ADD COLUMN staff_id uuid;

-- +goose StatementBegin
DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['staff', 'staff_invitations', 'staff_sessions'] LOOP
        EXECUTE format('ALTER TABLE public.%I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE public.%I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format($p$CREATE POLICY tenant_isolation ON public.%I
            USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid)
            WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid)$p$, t);
    END LOOP;
END $$;
-- +goose StatementEnd

-- The api signs staff in (the tenant known from the host), keeps their
-- sessions and lets admins manage staff; the worker has no business here.
GRANT SELECT, INSERT ON public.staff, public.staff_invitations, public.staff_sessions TO kycflow_app;
GRANT UPDATE (role, status, password_hash, totp_key_id, totp_sealed, totp_step, failures, locked_until, updated_at) ON public.staff TO kycflow_app;
GRANT UPDATE (used_at) ON public.staff_invitations TO kycflow_app;
GRANT UPDATE (seen_at, ended_at) ON public.staff_sessions TO kycflow_app;

-- +goose Down
ALTER TABLE public.audit_log DROP COLUMN staff_id;
DROP TABLE public.staff_sessions, public.staff_invitations, public.staff;
