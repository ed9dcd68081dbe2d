-- +goose Up
-- Creates write their events once per statement instead of once per row, so
-- a statement that stores many records (the api's batched creates) runs each
-- trigger once. The guarantee is the same: no insert of a record or a check
-- without its event, in its transaction. A change of a check's status keeps
-- its row trigger (a trigger on a column list cannot see transition tables),
-- and so does a deletion, whose redaction is per record. And event ids now
-- sort in the order the events were written.

-- +goose StatementBegin
-- Event ids sort as the events were written: after the milliseconds, the 12
-- bits RFC 9562 leaves to the implementation carry the fraction of the
-- millisecond (its "method 3"), so events written a microsecond apart or
-- more sort in order, and consecutive statements are always further apart.
-- Before, ids within one millisecond sorted at random, and GET /events could
-- list a check's cancellation after the check that superseded it.
CREATE OR REPLACE FUNCTION public.uuid_v7() RETURNS uuid
LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
    SELECT encode(substring(int8send(floor(t.ms)::bigint) FROM 3)
        || int2send((28672 | floor((t.ms - floor(t.ms)) * 4096)::integer)::smallint)
        || substring(uuid_send(gen_random_uuid()) FROM 9), 'hex')::uuid
    FROM (SELECT extract(epoch FROM clock_timestamp()) * 1000 AS ms) AS t
$$;
-- +goose StatementEnd

-- +goose StatementBegin
-- wire_time and check_json carry no SET clause so the planner inlines them
-- into the statements that call them (a function with SET is a call per
-- row); every name in them is qualified, so a caller's search_path cannot
-- redirect them.
CREATE OR REPLACE FUNCTION public.wire_time(t timestamptz) RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT pg_catalog.to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.check_json(c public.checks) RETURNS json
LANGUAGE sql STABLE AS $$
    SELECT pg_catalog.json_build_object('id', c.id, 'type', c.type, 'status', c.status, 'validated', c.validated,
        'data', c.data, 'error', c.error, 'created_at', public.wire_time(c.created_at),
        'updated_at', public.wire_time(c.updated_at), 'completed_at', public.wire_time(c.completed_at))
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION public.checks_created() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    INSERT INTO public.events (tenant_id, type, subject_kind, subject_id, data)
    SELECT n.tenant_id, 'check.' || n.status, s.kind, s.id,
        json_build_object('check', public.check_json(n), 'subject', json_build_object('kind', s.kind, 'id', s.id))
    FROM created n, LATERAL (SELECT CASE WHEN n.customer_id IS NULL THEN 'business' ELSE 'customer' END AS kind,
                                    coalesce(n.business_id, n.customer_id) AS id) s
    ORDER BY n.id;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION public.records_created() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    kind text := CASE TG_TABLE_NAME WHEN 'businesses' THEN 'business' ELSE 'customer' END;
BEGIN
    INSERT INTO public.events (tenant_id, type, subject_kind, subject_id, data)
    SELECT n.tenant_id, kind || '.created', kind, n.id, json_build_object(kind, json_build_object('id', n.id))
    FROM created n ORDER BY n.id;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION public.events_fanout() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    INSERT INTO public.webhook_deliveries (tenant_id, endpoint_id, event_id, subject_id)
    SELECT n.tenant_id, e.id, n.id, n.subject_id FROM created n
    JOIN public.webhook_endpoints e ON e.tenant_id = n.tenant_id AND e.disabled_at IS NULL
     AND ('*' = ANY (e.events) OR n.type = ANY (e.events) OR ('check.*' = ANY (e.events) AND n.type LIKE 'check.%'))
    ORDER BY n.seq, e.id;
    RETURN NULL;
END $$;
-- +goose StatementEnd

DROP TRIGGER check_event_insert ON public.checks;
CREATE TRIGGER checks_created AFTER INSERT ON public.checks
    REFERENCING NEW TABLE AS created FOR EACH STATEMENT EXECUTE FUNCTION public.checks_created();
DROP TRIGGER record_event ON public.businesses;
DROP TRIGGER record_event ON public.customers;
CREATE TRIGGER records_created AFTER INSERT ON public.businesses
    REFERENCING NEW TABLE AS created FOR EACH STATEMENT EXECUTE FUNCTION public.records_created();
CREATE TRIGGER records_created AFTER INSERT ON public.customers
    REFERENCING NEW TABLE AS created FOR EACH STATEMENT EXECUTE FUNCTION public.records_created();
-- record_event now answers deletions only (its insert branch no longer runs).
CREATE TRIGGER record_event AFTER DELETE ON public.businesses
    FOR EACH ROW EXECUTE FUNCTION public.record_event();
CREATE TRIGGER record_event AFTER DELETE ON public.customers
    FOR EACH ROW EXECUTE FUNCTION public.record_event();
DROP TRIGGER event_fanout ON public.events;
CREATE TRIGGER events_fanout AFTER INSERT ON public.events
    REFERENCING NEW TABLE AS created FOR EACH STATEMENT EXECUTE FUNCTION public.events_fanout();
DROP FUNCTION public.event_fanout();

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.uuid_v7() RETURNS uuid
LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
    SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
        PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
        FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid
$$;
-- +goose StatementEnd
-- The qualified bodies are as right with the SET clause back.
ALTER FUNCTION public.wire_time(timestamptz) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION public.check_json(public.checks) SET search_path = pg_catalog, public, pg_temp;
-- +goose StatementBegin
CREATE FUNCTION public.event_fanout() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    INSERT INTO public.webhook_deliveries (tenant_id, endpoint_id, event_id, subject_id)
    SELECT NEW.tenant_id, e.id, NEW.id, NEW.subject_id FROM public.webhook_endpoints e
    WHERE e.tenant_id = NEW.tenant_id AND e.disabled_at IS NULL
      AND ('*' = ANY (e.events) OR NEW.type = ANY (e.events) OR ('check.*' = ANY (e.events) AND NEW.type LIKE 'check.%'))
    ORDER BY e.id;
    RETURN NULL;
END $$;
-- +goose StatementEnd
DROP TRIGGER events_fanout ON public.events;
CREATE TRIGGER event_fanout AFTER INSERT ON public.events
    FOR EACH ROW EXECUTE FUNCTION public.event_fanout();
DROP TRIGGER record_event ON public.customers;
DROP TRIGGER record_event ON public.businesses;
DROP TRIGGER records_created ON public.customers;
DROP TRIGGER records_created ON public.businesses;
CREATE TRIGGER record_event AFTER INSERT OR DELETE ON public.businesses
    FOR EACH ROW EXECUTE FUNCTION public.record_event();
CREATE TRIGGER record_event AFTER INSERT OR DELETE ON public.customers
    FOR EACH ROW EXECUTE FUNCTION public.record_event();
DROP TRIGGER checks_created ON public.checks;
CREATE TRIGGER check_event_insert AFTER INSERT ON public.checks
    FOR EACH ROW EXECUTE FUNCTION public.check_event();
DROP FUNCTION public.events_fanout();
DROP FUNCTION public.records_created();
DROP FUNCTION public.checks_created();
