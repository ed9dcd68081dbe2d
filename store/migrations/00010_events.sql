-- +goose Up
-- Events: every change a tenant hears about, written by triggers in the
-- transaction of the change itself, so no code path can change a check's
-- status, or create or delete a record, without its event (nor the
-- reverse). The triggers run as the caller (no SECURITY DEFINER): row-level
-- security keeps each event in its tenant.

-- +goose StatementBegin
-- A version 7 UUID (RFC 9562): 48 bits of Unix milliseconds, then random
-- bits, so ids sort by time like the ids the Go code makes.
CREATE FUNCTION public.uuid_v7() RETURNS uuid
LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
    SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
        PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
        FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid
$$;
-- +goose StatementEnd

-- +goose StatementBegin
-- A timestamp as the API writes it: UTC, microseconds, a Z.
CREATE FUNCTION public.wire_time(t timestamptz) RETURNS text
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
$$;
-- +goose StatementEnd

-- +goose StatementBegin
-- A check as the API returns it on reads, keys in the same order (json,
-- not jsonb, keeps them). An e2e test holds the two renderings equal.
CREATE FUNCTION public.check_json(c public.checks) RETURNS json
LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT json_build_object('id', c.id, 'type', c.type, 'status', c.status, 'validated', c.validated,
        'data', c.data, 'error', c.error, 'created_at', public.wire_time(c.created_at),
        'updated_at', public.wire_time(c.updated_at), 'completed_at', public.wire_time(c.completed_at))
$$;
-- +goose StatementEnd

CREATE TABLE public.events (
    id           uuid PRIMARY KEY DEFAULT public.uuid_v7(),
    -- seq orders a subject's events as they were written (ids from the
    -- clock may tie within a millisecond); deliveries keep this order.
    seq          bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    tenant_id    uuid NOT NULL REFERENCES public.tenants (id) ON DELETE CASCADE,
    type         text NOT NULL,
    subject_kind text CHECK (subject_kind IN ('business', 'customer')),
    subject_id   uuid,
    data         json NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp()
);
CREATE INDEX events_tenant ON public.events (tenant_id, id);
CREATE INDEX events_subject ON public.events (tenant_id, subject_id, id);
CREATE INDEX events_created ON public.events (created_at);
ALTER TABLE public.events ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.events FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON public.events
    USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid)
    WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);

-- +goose StatementBegin
CREATE FUNCTION public.check_event() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    kind    text := CASE WHEN NEW.customer_id IS NULL THEN 'business' ELSE 'customer' END;
    subject uuid := coalesce(NEW.business_id, NEW.customer_id);
BEGIN
    INSERT INTO public.events (tenant_id, type, subject_kind, subject_id, data)
    VALUES (NEW.tenant_id, 'check.' || NEW.status, kind, subject,
        json_build_object('check', public.check_json(NEW), 'subject', json_build_object('kind', kind, 'id', subject)));
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER check_event_insert AFTER INSERT ON public.checks
    FOR EACH ROW EXECUTE FUNCTION public.check_event();
CREATE TRIGGER check_event_update AFTER UPDATE OF status ON public.checks
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION public.check_event();

-- +goose StatementBegin
-- Record events carry ids only: a receiver reads the record with a GET.
CREATE FUNCTION public.record_event() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    kind text := CASE TG_TABLE_NAME WHEN 'businesses' THEN 'business' ELSE 'customer' END;
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO public.events (tenant_id, type, subject_kind, subject_id, data)
        VALUES (NEW.tenant_id, kind || '.created', kind, NEW.id, json_build_object(kind, json_build_object('id', NEW.id)));
    ELSE
        INSERT INTO public.events (tenant_id, type, subject_kind, subject_id, data)
        VALUES (OLD.tenant_id, kind || '.deleted', kind, OLD.id, json_build_object(kind, json_build_object('id', OLD.id)));
        -- The record's personal data does not outlive it in its events:
        -- their checks keep ids, type and status; data and error go.
        UPDATE public.events e SET data = (SELECT json_build_object('check', json_build_object(
                'id', c -> 'id', 'type', c -> 'type', 'status', c -> 'status', 'validated', c -> 'validated',
                'data', NULL, 'error', NULL, 'created_at', c -> 'created_at', 'updated_at', c -> 'updated_at',
                'completed_at', c -> 'completed_at'), 'subject', e.data -> 'subject')
            FROM (SELECT e.data -> 'check') AS x(c))
        WHERE e.tenant_id = OLD.tenant_id AND e.subject_id = OLD.id AND e.type LIKE 'check.%';
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER record_event AFTER INSERT OR DELETE ON public.businesses
    FOR EACH ROW EXECUTE FUNCTION public.record_event();
CREATE TRIGGER record_event AFTER INSERT OR DELETE ON public.customers
    FOR EACH ROW EXECUTE FUNCTION public.record_event();

-- Both processes write events through the triggers; the api lists them and
-- redacts a deleted record's; the worker reads them to deliver.
GRANT SELECT, INSERT ON public.events TO kycflow_app, kycflow_worker;
GRANT UPDATE (data) ON public.events TO kycflow_app;
GRANT EXECUTE ON FUNCTION public.uuid_v7(), public.wire_time(timestamptz), public.check_json(public.checks)
    TO kycflow_app, kycflow_worker;

-- +goose StatementBegin
-- Events are kept 30 days; the worker prunes every tenant's.
CREATE FUNCTION public.events_prune(older_than interval)
RETURNS bigint
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    WITH d AS (DELETE FROM public.events WHERE created_at < pg_catalog.now() - older_than RETURNING 1)
    SELECT count(*) FROM d
$$;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION public.events_prune(interval) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.events_prune(interval) TO kycflow_worker;

-- +goose Down
DROP FUNCTION public.events_prune(interval);
DROP TRIGGER record_event ON public.customers;
DROP TRIGGER record_event ON public.businesses;
DROP FUNCTION public.record_event();
DROP TRIGGER check_event_update ON public.checks;
DROP TRIGGER check_event_insert ON public.checks;
DROP FUNCTION public.check_event();
DROP TABLE public.events;
DROP FUNCTION public.check_json(public.checks);
DROP FUNCTION public.wire_time(timestamptz);
DROP FUNCTION public.uuid_v7();
