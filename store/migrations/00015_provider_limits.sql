-- +goose Up
-- Provider limits are promises to the providers, so they hold across every
-- worker process: the turns and in-flight slots live here, not in a
-- process. Neither table is granted to anyone; the worker reaches them only
-- through the three definer functions below.

-- provider_turns: the next free turn per provider and scope (a VIES member
-- state, or '' for one limit per provider). Calls are spaced by reserving
-- turns in order (a generic cell rate algorithm: one row update per call).
CREATE TABLE public.provider_turns (
    provider text NOT NULL,
    scope    text NOT NULL,
    next_at  timestamptz NOT NULL,
    PRIMARY KEY (provider, scope)
);

-- provider_slots: in-flight leases. A holder renews its lease while its call
-- lasts and ends it when the call is done; the lease of a holder that died
-- mid-call runs out at held_until, seconds later.
CREATE TABLE public.provider_slots (
    provider   text NOT NULL,
    scope      text NOT NULL,
    slot       integer NOT NULL,
    holder     uuid,
    held_until timestamptz NOT NULL,
    PRIMARY KEY (provider, scope, slot)
);

-- provider_turn reserves the next turn spaced p_spacing after the previous
-- one and returns the seconds to wait for it (<= 0: call now), or NULL
-- without reserving when the turn is further away than p_max_wait.
-- +goose StatementBegin
CREATE FUNCTION public.provider_turn(p_provider text, p_scope text, p_spacing interval, p_max_wait interval)
RETURNS double precision
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    wait double precision;
BEGIN
    IF pg_catalog.length(p_provider) NOT BETWEEN 1 AND 32 OR pg_catalog.length(p_scope) > 32
       OR p_spacing <= '0'::interval OR p_spacing > '1 minute'::interval
       OR p_max_wait < '0'::interval OR p_max_wait > '1 hour'::interval THEN
        RAISE EXCEPTION 'provider_turn: argument out of range' USING ERRCODE = '22023';
    END IF;
    INSERT INTO public.provider_turns AS t (provider, scope, next_at)
    VALUES (p_provider, p_scope, pg_catalog.clock_timestamp() + p_spacing)
    ON CONFLICT (provider, scope) DO UPDATE
        SET next_at = GREATEST(t.next_at, pg_catalog.clock_timestamp()) + p_spacing
        WHERE t.next_at <= pg_catalog.clock_timestamp() + p_max_wait
    RETURNING EXTRACT(EPOCH FROM t.next_at - p_spacing - pg_catalog.clock_timestamp())::double precision INTO wait;
    RETURN wait;
END
$$;
-- +goose StatementEnd

-- provider_slot_take leases the lowest free one of p_slots slots to p_holder
-- for p_ttl and returns its number, or NULL when all are held.
-- +goose StatementBegin
CREATE FUNCTION public.provider_slot_take(p_provider text, p_scope text, p_slots integer, p_holder uuid, p_ttl interval)
RETURNS integer
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    taken integer;
BEGIN
    IF pg_catalog.length(p_provider) NOT BETWEEN 1 AND 32 OR pg_catalog.length(p_scope) > 32
       OR p_slots NOT BETWEEN 1 AND 64 OR p_holder IS NULL
       OR p_ttl <= '0'::interval OR p_ttl > '1 hour'::interval THEN
        RAISE EXCEPTION 'provider_slot_take: argument out of range' USING ERRCODE = '22023';
    END IF;
    INSERT INTO public.provider_slots (provider, scope, slot, held_until)
    SELECT p_provider, p_scope, s, '-infinity' FROM pg_catalog.generate_series(0, p_slots - 1) s
    ON CONFLICT DO NOTHING;
    UPDATE public.provider_slots p SET holder = p_holder, held_until = pg_catalog.clock_timestamp() + p_ttl
    WHERE (p.provider, p.scope, p.slot) = (
        SELECT f.provider, f.scope, f.slot FROM public.provider_slots f
        WHERE f.provider = p_provider AND f.scope = p_scope AND f.slot < p_slots
          AND f.held_until < pg_catalog.clock_timestamp()
        ORDER BY f.slot LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING p.slot INTO taken;
    RETURN taken;
END
$$;
-- +goose StatementEnd

-- provider_slot_keep renews p_holder's lease of a slot for p_ttl, or ends it
-- with p_ttl 0, and says whether p_holder still held it (a lease that ran
-- out and went to another holder is left alone).
-- +goose StatementBegin
CREATE FUNCTION public.provider_slot_keep(p_provider text, p_scope text, p_slot integer, p_holder uuid, p_ttl interval)
RETURNS boolean
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF p_ttl < '0'::interval OR p_ttl > '1 hour'::interval THEN
        RAISE EXCEPTION 'provider_slot_keep: argument out of range' USING ERRCODE = '22023';
    END IF;
    UPDATE public.provider_slots SET held_until = pg_catalog.clock_timestamp() + p_ttl
    WHERE provider = p_provider AND scope = p_scope AND slot = p_slot AND holder = p_holder
      AND held_until >= pg_catalog.clock_timestamp();
    RETURN FOUND;
END
$$;
-- +goose StatementEnd

REVOKE ALL ON TABLE public.provider_turns, public.provider_slots FROM PUBLIC;
REVOKE ALL ON FUNCTION public.provider_turn(text, text, interval, interval) FROM PUBLIC;
REVOKE ALL ON FUNCTION public.provider_slot_take(text, text, integer, uuid, interval) FROM PUBLIC;
REVOKE ALL ON FUNCTION public.provider_slot_keep(text, text, integer, uuid, interval) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.provider_turn(text, text, interval, interval) TO kycflow_worker;
GRANT EXECUTE ON FUNCTION public.provider_slot_take(text, text, integer, uuid, interval) TO kycflow_worker;
GRANT EXECUTE ON FUNCTION public.provider_slot_keep(text, text, integer, uuid, interval) TO kycflow_worker;

-- +goose Down
DROP FUNCTION public.provider_slot_keep(text, text, integer, uuid, interval);
DROP FUNCTION public.provider_slot_take(text, text, integer, uuid, interval);
DROP FUNCTION public.provider_turn(text, text, interval, interval);
DROP TABLE public.provider_slots;
DROP TABLE public.provider_turns;
