-- +goose Up
-- Webhooks: a tenant's endpoints, and one delivery per event and endpoint
-- (plus any redeliveries), each attempt recorded. An event's deliveries
-- are written by a trigger in the event's own transaction; the relay finds
-- them (announced_at null) and wakes their endpoints' dispatchers.

CREATE TABLE public.webhook_endpoints (
    id                  uuid PRIMARY KEY,
    tenant_id           uuid NOT NULL REFERENCES public.tenants (id) ON DELETE CASCADE,
    url                 text NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
    -- Event names as subscribed: exact types, 'check.*' or '*'.
    events              text[] NOT NULL CHECK (cardinality(events) > 0),
    description         text CHECK (length(description) <= 500),
    -- Signing secrets, sealed with the operator's key (AES-GCM, bound to
    -- the endpoint id); the previous one signs too until it expires.
    secret              bytea NOT NULL,
    previous_secret     bytea,
    previous_expires_at timestamptz,
    disabled_at         timestamptz,
    disabled_reason     text,
    -- Set by a failed attempt, cleared by a delivered one: a recovering
    -- endpoint's waiting deliveries are then tried at once.
    failing_since       timestamptz,
    -- While it fails, one waiting delivery is tried by then (the probe):
    -- the failure that sets it takes the probe.
    next_probe_at       timestamptz,
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL,
    UNIQUE (tenant_id, id)
);
CREATE INDEX webhook_endpoints_tenant ON public.webhook_endpoints (tenant_id, id);

CREATE TABLE public.webhook_deliveries (
    id               uuid PRIMARY KEY DEFAULT public.uuid_v7(),
    -- seq orders deliveries to an endpoint; a subject's wait for its
    -- earlier ones.
    seq              bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    tenant_id        uuid NOT NULL,
    endpoint_id      uuid NOT NULL,
    event_id         uuid NOT NULL REFERENCES public.events (id) ON DELETE CASCADE,
    subject_id       uuid,
    -- 1 for the first delivery of an event to an endpoint, then one more
    -- per redelivery asked for.
    number           integer NOT NULL DEFAULT 1,
    status           text NOT NULL DEFAULT 'pending'
                     CHECK (status IN ('pending', 'retrying', 'delivered', 'failed', 'cancelled')),
    attempts         integer NOT NULL DEFAULT 0,
    first_attempt_at timestamptz,
    next_attempt_at  timestamptz,
    -- An attempt in progress holds the delivery until then (a crashed
    -- worker's hold runs out).
    claimed_until    timestamptz,
    -- When the relay told the endpoint's dispatcher; null: not yet (the
    -- delivery is the relay's to announce, as an outbox row would be).
    announced_at     timestamptz,
    finished_at      timestamptz,
    created_at       timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    updated_at       timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(),
    -- No foreign key to the endpoint: its row would be locked (key share)
    -- by every transaction that writes an event, which costs creates a
    -- tenth of their throughput. Deleting an endpoint deletes its
    -- deliveries itself; one written concurrently is found orphaned and
    -- ended by its step.
    UNIQUE (endpoint_id, event_id, number)
);
CREATE INDEX webhook_deliveries_endpoint ON public.webhook_deliveries (tenant_id, endpoint_id, id);
-- The head of a subject's line, and a recovering endpoint's waiting ones.
CREATE INDEX webhook_deliveries_open ON public.webhook_deliveries (endpoint_id, subject_id, seq)
    WHERE status IN ('pending', 'retrying');
CREATE INDEX webhook_deliveries_event ON public.webhook_deliveries (event_id);
-- The dispatcher's walk of an endpoint's pending deliveries, oldest first;
-- the probe's look for a retry due soon.
CREATE INDEX webhook_deliveries_pending ON public.webhook_deliveries (endpoint_id, seq) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_unannounced ON public.webhook_deliveries (id) WHERE announced_at IS NULL;
CREATE INDEX webhook_deliveries_retrying ON public.webhook_deliveries (endpoint_id, next_attempt_at) WHERE status = 'retrying';

CREATE TABLE public.webhook_attempts (
    delivery_id uuid NOT NULL REFERENCES public.webhook_deliveries (id) ON DELETE CASCADE,
    tenant_id   uuid NOT NULL,
    attempt     integer NOT NULL,
    at          timestamptz NOT NULL,
    status_code integer,
    duration_ms integer NOT NULL,
    error       text,
    -- The start of the receiver's answer, never more than 1 KiB.
    response    bytea CHECK (length(response) <= 1024),
    PRIMARY KEY (delivery_id, attempt)
);

-- +goose StatementBegin
DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['webhook_endpoints', 'webhook_deliveries', 'webhook_attempts'] LOOP
        EXECUTE format('ALTER TABLE public.%I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE public.%I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format($p$CREATE POLICY tenant_isolation ON public.%I
            USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid)
            WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid)$p$, t);
    END LOOP;
END $$;
-- +goose StatementEnd

-- Outbox rows now also start the workflows of deliveries that failed
-- their first attempt: no check id.
ALTER TABLE public.outbox ALTER COLUMN check_id DROP NOT NULL;
ALTER TABLE public.outbox DROP CONSTRAINT outbox_action_check;
ALTER TABLE public.outbox ADD CONSTRAINT outbox_action_check CHECK (action IN ('start', 'cancel', 'retry', 'verified', 'deliver'));

-- +goose StatementBegin
-- An event's fan-out: one delivery per live endpoint of its tenant that
-- subscribed to it. Nothing else is written in the event's transaction.
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
CREATE TRIGGER event_fanout AFTER INSERT ON public.events
    FOR EACH ROW EXECUTE FUNCTION public.event_fanout();

-- +goose StatementBegin
-- The relay's announcement of new deliveries, across tenants: marks up to
-- max_rows of them announced and returns their endpoints, once each. The
-- caller signals the dispatchers in the same transaction and rolls back if
-- it cannot, so no delivery is marked without its dispatcher woken.
CREATE FUNCTION public.webhook_announce(max_rows integer)
RETURNS TABLE (tenant_id uuid, endpoint_id uuid)
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    WITH a AS (SELECT d.id FROM public.webhook_deliveries d WHERE d.announced_at IS NULL
               ORDER BY d.id LIMIT max_rows FOR UPDATE SKIP LOCKED),
         u AS (UPDATE public.webhook_deliveries d SET announced_at = pg_catalog.now() FROM a WHERE d.id = a.id
               RETURNING d.tenant_id, d.endpoint_id)
    SELECT DISTINCT u.tenant_id, u.endpoint_id FROM u
$$;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION public.webhook_announce(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.webhook_announce(integer) TO kycflow_worker;

-- The api manages endpoints, lists deliveries and asks for redeliveries;
-- both processes fan events out (the triggers run as them); the worker
-- delivers: reads secrets, records attempts, and disables an endpoint that
-- answered 410 or marks it failing.
GRANT SELECT, INSERT, DELETE ON public.webhook_endpoints TO kycflow_app;
GRANT UPDATE (secret, previous_secret, previous_expires_at, updated_at) ON public.webhook_endpoints TO kycflow_app;
GRANT SELECT ON public.webhook_endpoints TO kycflow_worker;
GRANT UPDATE (disabled_at, disabled_reason, failing_since, next_probe_at, updated_at) ON public.webhook_endpoints TO kycflow_worker;
GRANT SELECT, INSERT ON public.webhook_deliveries TO kycflow_app, kycflow_worker;
GRANT UPDATE (status, attempts, first_attempt_at, next_attempt_at, claimed_until, announced_at, finished_at, updated_at) ON public.webhook_deliveries TO kycflow_worker;
GRANT DELETE ON public.webhook_deliveries TO kycflow_app;
GRANT SELECT ON public.webhook_attempts TO kycflow_app;
GRANT SELECT, INSERT ON public.webhook_attempts TO kycflow_worker;

-- +goose Down
DROP FUNCTION public.webhook_announce(integer);
DROP TRIGGER event_fanout ON public.events;
DROP FUNCTION public.event_fanout();
DELETE FROM public.outbox WHERE action = 'deliver';
ALTER TABLE public.outbox DROP CONSTRAINT outbox_action_check;
ALTER TABLE public.outbox ADD CONSTRAINT outbox_action_check CHECK (action IN ('start', 'cancel', 'retry', 'verified'));
ALTER TABLE public.outbox ALTER COLUMN check_id SET NOT NULL;
DROP TABLE public.webhook_attempts;
DROP TABLE public.webhook_deliveries;
DROP TABLE public.webhook_endpoints;
