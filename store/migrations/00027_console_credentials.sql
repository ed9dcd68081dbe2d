-- +goose Up
-- Console credentials as strong as API keys against SQL as the api's
-- role: the api may no longer write staff, invitations or sessions, nor
-- read the hashes of invitation and session tokens or the accounts'
-- secrets. Everything it does with them goes through the definer
-- functions below, which allow only the moves the console makes: a
-- session begins only after a sign-in or an enrolment, an account is
-- created, re-invited, given a role or disabled only by a live session of
-- one of the tenant's admins. The hashes the api passes are keyed with
-- STAFF_KEY, which the database never holds: a row written with a chosen
-- hash opens nothing, since no one without the key knows a token that
-- hashes to it.
REVOKE ALL ON public.staff, public.staff_invitations, public.staff_sessions FROM kycflow_app;
GRANT SELECT (id, tenant_id, email, role, status, created_at, updated_at) ON public.staff TO kycflow_app;

-- The hashes were plain SHA-256: none of them is good any more (staff
-- sign in again; unused invitations are sent again).
DELETE FROM public.staff_sessions;
UPDATE public.staff_invitations SET used_at = now() WHERE used_at IS NULL;

-- The lock-out counts wrong sign-ins per address and client (a keyed hash
-- of both, never either in clear), not per account: a stranger who locks
-- an address out locks out only themselves, and an address without an
-- account is counted as one with.
ALTER TABLE public.staff DROP COLUMN failures, DROP COLUMN locked_until;
CREATE TABLE public.staff_signin_guard (
    tenant_id    uuid NOT NULL REFERENCES public.tenants (id) ON DELETE CASCADE,
    key          bytea NOT NULL CHECK (length(key) = 32),
    failures     integer NOT NULL,
    locked_until timestamptz,
    updated_at   timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, key)
);
CREATE INDEX staff_signin_guard_updated ON public.staff_signin_guard (updated_at);
ALTER TABLE public.staff_signin_guard ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.staff_signin_guard FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON public.staff_signin_guard
    USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid)
    WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);

-- +goose StatementBegin
-- The staff member whose live session's token hashes to p_token, if they
-- are an active member of the tenant with one of the roles given (NULL:
-- any): who acts, for the functions below. Not callable by the api.
CREATE FUNCTION public.console_actor(p_tenant uuid, p_token bytea, p_roles text[])
RETURNS uuid
LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT st.id FROM public.staff_sessions s JOIN public.staff st ON st.tenant_id = s.tenant_id AND st.id = s.staff_id
    WHERE s.tenant_id = p_tenant AND s.token_hash = p_token AND s.ended_at IS NULL
      AND s.seen_at > pg_catalog.now() - interval '30 minutes' AND s.created_at > pg_catalog.now() - interval '12 hours'
      AND st.status = 'active' AND (p_roles IS NULL OR st.role = ANY (p_roles))
$$;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION public.console_actor(uuid, bytea, text[]) FROM PUBLIC;

-- +goose StatementBegin
-- The live session of the tenant's whose cookie hashes to p_token, its
-- staff member active; its last use is now. Nothing for a session ended,
-- idle 30 minutes, 12 hours old, another tenant's or unknown.
CREATE FUNCTION public.console_session(p_tenant uuid, p_token bytea)
RETURNS TABLE (staff_id uuid, csrf text, created_at timestamptz, seen_at timestamptz)
LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    UPDATE public.staff_sessions s SET seen_at = pg_catalog.now()
    WHERE s.tenant_id = p_tenant AND s.token_hash = p_token AND s.staff_id = public.console_actor(p_tenant, p_token, NULL)
    RETURNING s.staff_id, s.csrf, s.created_at, s.seen_at
$$;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION public.console_session(uuid, bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.console_session(uuid, bytea) TO kycflow_app;

-- +goose StatementBegin
-- Signing out: ends the session p_token hashes to, or with p_everywhere
-- every session of its staff member. Ending is all it can do.
CREATE FUNCTION public.console_session_end(p_tenant uuid, p_token bytea, p_everywhere boolean)
RETURNS void
LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    UPDATE public.staff_sessions s SET ended_at = pg_catalog.now()
    WHERE s.tenant_id = p_tenant AND s.ended_at IS NULL AND (s.token_hash = p_token OR p_everywhere AND s.staff_id =
        (SELECT o.staff_id FROM public.staff_sessions o WHERE o.tenant_id = p_tenant AND o.token_hash = p_token))
$$;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION public.console_session_end(uuid, bytea, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.console_session_end(uuid, bytea, boolean) TO kycflow_app;

-- +goose StatementBegin
-- A sign-in's first half, before the password is verified: it counts the
-- attempt as a failure of its guard (the address and the client) at once,
-- so that attempts sent together cannot all be verified before the first
-- failure is counted. From the fifth failure in a row the guard is locked
-- for 15 minutes, and every attempt while it is locked locks it again
-- (locked: true, and nothing of the account). Otherwise it answers the
-- account that signs in with the address, if there is one: its id, the
-- password's hash and the sealed second factor, and the audit row that
-- records the attempt as failed until the second half says otherwise.
-- The api verifies; the database cannot (the hash is peppered and the
-- second factor sealed with STAFF_KEY).
CREATE FUNCTION public.console_signin_begin(p_tenant uuid, p_email text, p_guard bytea)
RETURNS TABLE (locked boolean, staff_id uuid, password_hash text, totp_key_id text, totp_sealed bytea, totp_step bigint, audit_id uuid)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    g public.staff_signin_guard;
    t timestamptz := pg_catalog.now();
BEGIN
    INSERT INTO public.staff_signin_guard AS x (tenant_id, key, failures, updated_at) VALUES (p_tenant, p_guard, 0, t)
    ON CONFLICT (tenant_id, key) DO NOTHING;
    SELECT * INTO g FROM public.staff_signin_guard x WHERE x.tenant_id = p_tenant AND x.key = p_guard FOR UPDATE;
    locked := coalesce(g.locked_until > t, false);
    UPDATE public.staff_signin_guard x SET failures = x.failures + 1, updated_at = t,
        locked_until = CASE WHEN locked OR x.failures + 1 >= 5 THEN t + interval '15 minutes' ELSE x.locked_until END
    WHERE x.tenant_id = p_tenant AND x.key = p_guard;
    IF locked THEN
        RETURN NEXT;
        RETURN;
    END IF;
    SELECT s.id, s.password_hash, s.totp_key_id, s.totp_sealed, s.totp_step
    INTO staff_id, password_hash, totp_key_id, totp_sealed, totp_step
    FROM public.staff s WHERE s.tenant_id = p_tenant AND s.email = p_email AND s.status = 'active' AND s.password_hash IS NOT NULL;
    IF staff_id IS NOT NULL THEN
        audit_id := public.uuid_v7();
        INSERT INTO public.audit_log (id, tenant_id, action, record_kind, record_id, staff_id, created_at)
        VALUES (audit_id, p_tenant, 'staff.sign_in_failed', 'staff', staff_id, staff_id, t);
    END IF;
    RETURN NEXT;
END $$;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION public.console_signin_begin(uuid, text, bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.console_signin_begin(uuid, text, bytea) TO kycflow_app;

-- +goose StatementBegin
-- A sign-in's second half, once the api has verified the password and a
-- code of TOTP step p_step: the code is spent (a step of now's or the next,
-- newer than the last spent: a code works once), the guard cleared, the
-- attempt's audit row a sign-in, and the session begun. False, and the
-- attempt stays a failure, when the step is not one it may spend. What a
-- caller without the password gains by calling it: a session whose token
-- it cannot know, a guard it cannot name cleared, and the account's codes
-- spent up to the next step (a minute's wait at most).
CREATE FUNCTION public.console_signin_end(p_tenant uuid, p_guard bytea, p_staff uuid, p_audit uuid, p_step bigint, p_session bytea, p_csrf text)
RETURNS boolean
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    t timestamptz := pg_catalog.now();
    now_step bigint := floor(extract(epoch FROM pg_catalog.now()) / 30)::bigint;
BEGIN
    IF p_step < now_step - 1 OR p_step > now_step + 1 THEN
        RETURN false;
    END IF;
    UPDATE public.staff s SET totp_step = p_step, updated_at = t
    WHERE s.tenant_id = p_tenant AND s.id = p_staff AND s.status = 'active' AND s.totp_step < p_step;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    UPDATE public.staff_signin_guard x SET failures = 0, locked_until = NULL, updated_at = t WHERE x.tenant_id = p_tenant AND x.key = p_guard;
    UPDATE public.audit_log l SET action = 'staff.signed_in'
    WHERE l.tenant_id = p_tenant AND l.id = p_audit AND l.staff_id = p_staff AND l.action = 'staff.sign_in_failed';
    INSERT INTO public.staff_sessions (token_hash, tenant_id, staff_id, csrf, created_at, seen_at)
    VALUES (p_session, p_tenant, p_staff, p_csrf, t, t);
    RETURN true;
END $$;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION public.console_signin_end(uuid, bytea, uuid, uuid, bigint, bytea, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.console_signin_end(uuid, bytea, uuid, uuid, bigint, bytea, text) TO kycflow_app;

-- +goose StatementBegin
-- The staff member an unused, unexpired invitation whose token hashes to
-- p_hash is for, still invited.
CREATE FUNCTION public.console_invitation(p_tenant uuid, p_hash bytea)
RETURNS TABLE (staff_id uuid, email text, role text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT s.id, s.email, s.role FROM public.staff_invitations i JOIN public.staff s ON s.tenant_id = i.tenant_id AND s.id = i.staff_id
    WHERE i.tenant_id = p_tenant AND i.token_hash = p_hash AND i.used_at IS NULL AND i.expires_at > pg_catalog.now() AND s.status = 'invited'
$$;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION public.console_invitation(uuid, bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.console_invitation(uuid, bytea) TO kycflow_app;

-- +goose StatementBegin
-- Accepting an invitation: used once, its staff member made active with
-- the password's hash and the sealed second factor (proved by a code of
-- step p_step, now's or the next), and signed in. NULL when the
-- invitation is not (or no longer) good.
CREATE FUNCTION public.console_enrol(p_tenant uuid, p_hash bytea, p_password_hash text, p_totp_key_id text, p_totp_sealed bytea,
    p_step bigint, p_session bytea, p_csrf text)
RETURNS uuid
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    t timestamptz := pg_catalog.now();
    now_step bigint := floor(extract(epoch FROM pg_catalog.now()) / 30)::bigint;
    member uuid;
BEGIN
    IF p_step < now_step - 1 OR p_step > now_step + 1 OR p_password_hash IS NULL OR p_totp_sealed IS NULL THEN
        RETURN NULL;
    END IF;
    UPDATE public.staff_invitations i SET used_at = t
    WHERE i.tenant_id = p_tenant AND i.token_hash = p_hash AND i.used_at IS NULL AND i.expires_at > t
    RETURNING i.staff_id INTO member;
    IF member IS NULL THEN
        RETURN NULL;
    END IF;
    UPDATE public.staff s SET status = 'active', password_hash = p_password_hash, totp_key_id = p_totp_key_id,
        totp_sealed = p_totp_sealed, totp_step = p_step, updated_at = t
    WHERE s.tenant_id = p_tenant AND s.id = member AND s.status = 'invited';
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    INSERT INTO public.staff_sessions (token_hash, tenant_id, staff_id, csrf, created_at, seen_at)
    VALUES (p_session, p_tenant, member, p_csrf, t, t);
    RETURN member;
END $$;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION public.console_enrol(uuid, bytea, text, text, bytea, bigint, bytea, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.console_enrol(uuid, bytea, text, text, bytea, bigint, bytea, text) TO kycflow_app;

-- +goose StatementBegin
-- An admin's changes to the tenant's staff, each by a live session of an
-- active admin (p_actor: its token's hash), never on the admin themselves;
-- anyone else is refused with insufficient_privilege. Inviting creates
-- the account, invited, with an invitation good for 72 hours (a taken
-- address: unique_violation); re-inviting voids an invited account's
-- invitations for a new one; a role is changed on an account not
-- disabled; disabling is for good: its sessions end and its invitations
-- stop working. The id of the account changed; NULL when there is no
-- such account, or none that this change applies to.
CREATE FUNCTION public.console_staff_change(p_tenant uuid, p_actor bytea, p_do text, p_staff uuid, p_email text, p_role text, p_hash bytea)
RETURNS uuid
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    t timestamptz := pg_catalog.now();
    admin uuid := public.console_actor(p_tenant, p_actor, ARRAY['admin']);
    member uuid;
BEGIN
    IF admin IS NULL OR admin = p_staff THEN
        RAISE EXCEPTION 'not an admin''s session, or a change of their own' USING ERRCODE = 'insufficient_privilege';
    END IF;
    CASE p_do
    WHEN 'invite' THEN
        member := public.uuid_v7();
        INSERT INTO public.staff (id, tenant_id, email, role, status, created_at, updated_at)
        VALUES (member, p_tenant, p_email, p_role, 'invited', t, t);
    WHEN 'reinvite' THEN
        SELECT s.id INTO member FROM public.staff s WHERE s.tenant_id = p_tenant AND s.id = p_staff AND s.status = 'invited' FOR UPDATE;
        UPDATE public.staff_invitations i SET used_at = t WHERE i.tenant_id = p_tenant AND i.staff_id = member AND i.used_at IS NULL;
    WHEN 'role' THEN
        UPDATE public.staff s SET role = p_role, updated_at = t WHERE s.tenant_id = p_tenant AND s.id = p_staff AND s.status <> 'disabled'
        RETURNING s.id INTO member;
    WHEN 'disable' THEN
        UPDATE public.staff s SET status = 'disabled', updated_at = t WHERE s.tenant_id = p_tenant AND s.id = p_staff
        RETURNING s.id INTO member;
        UPDATE public.staff_sessions x SET ended_at = t WHERE x.tenant_id = p_tenant AND x.staff_id = member AND x.ended_at IS NULL;
        UPDATE public.staff_invitations i SET used_at = t WHERE i.tenant_id = p_tenant AND i.staff_id = member AND i.used_at IS NULL;
    ELSE
        RAISE EXCEPTION 'no such change: %', p_do USING ERRCODE = 'invalid_parameter_value';
    END CASE;
    IF member IS NOT NULL AND p_do IN ('invite', 'reinvite') THEN
        INSERT INTO public.staff_invitations (token_hash, tenant_id, staff_id, expires_at) VALUES (p_hash, p_tenant, member, t + interval '72 hours');
    END IF;
    RETURN member;
END $$;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION public.console_staff_change(uuid, bytea, text, uuid, text, text, bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.console_staff_change(uuid, bytea, text, uuid, text, text, bytea) TO kycflow_app;

-- +goose StatementBegin
-- The worker's housekeeping: guards untouched for a day are forgotten
-- (a lock-out lasts 15 minutes). Takes no argument.
CREATE FUNCTION public.staff_signin_guard_prune()
RETURNS bigint
LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    WITH d AS (DELETE FROM public.staff_signin_guard g WHERE g.updated_at < pg_catalog.now() - interval '1 day' RETURNING 1)
    SELECT count(*) FROM d
$$;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION public.staff_signin_guard_prune() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.staff_signin_guard_prune() TO kycflow_worker;

-- +goose Down
DROP FUNCTION public.staff_signin_guard_prune();
DROP FUNCTION public.console_staff_change(uuid, bytea, text, uuid, text, text, bytea);
DROP FUNCTION public.console_enrol(uuid, bytea, text, text, bytea, bigint, bytea, text);
DROP FUNCTION public.console_invitation(uuid, bytea);
DROP FUNCTION public.console_signin_end(uuid, bytea, uuid, uuid, bigint, bytea, text);
DROP FUNCTION public.console_signin_begin(uuid, text, bytea);
DROP FUNCTION public.console_session_end(uuid, bytea, boolean);
DROP FUNCTION public.console_session(uuid, bytea);
DROP FUNCTION public.console_actor(uuid, bytea, text[]);
DROP TABLE public.staff_signin_guard;
ALTER TABLE public.staff ADD COLUMN failures integer NOT NULL DEFAULT 0, ADD COLUMN locked_until timestamptz;
REVOKE ALL ON public.staff FROM kycflow_app;
GRANT SELECT, INSERT ON public.staff, public.staff_invitations, public.staff_sessions TO kycflow_app;
GRANT UPDATE (role, status, password_hash, totp_key_id, totp_sealed, totp_step, failures, locked_until, updated_at) ON public.staff TO kycflow_app;
GRANT UPDATE (used_at) ON public.staff_invitations TO kycflow_app;
GRANT UPDATE (seen_at, ended_at) ON public.staff_sessions TO kycflow_app;
