-- +goose Up
-- +goose StatementBegin
-- uuid_v7() gives every event its id, so it runs once per event row. As a
-- SQL function with a sub-select it could not be inlined, and each call
-- started its own small executor: in a batched create that was 7 % of the
-- machine's CPU. In PL/pgSQL its two expressions are evaluated directly.
-- Same bits as before (milliseconds, version 7, the fraction of the
-- millisecond in 12 bits, variant and random bits from gen_random_uuid).
-- No SET clause, which would re-resolve the search path on every call: it
-- runs as its caller (a column default), and every function in it is
-- schema-qualified.
CREATE OR REPLACE FUNCTION public.uuid_v7() RETURNS uuid
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    ms numeric := extract(epoch FROM pg_catalog.clock_timestamp()) * 1000;
BEGIN
    RETURN pg_catalog.encode(substring(pg_catalog.int8send(pg_catalog.floor(ms)::bigint) FROM 3)
        || pg_catalog.int2send((28672 | pg_catalog.floor((ms - pg_catalog.floor(ms)) * 4096)::integer)::smallint)
        || substring(pg_catalog.uuid_send(pg_catalog.gen_random_uuid()) FROM 9), 'hex')::uuid;
END $$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.uuid_v7() RETURNS uuid
LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
    SELECT encode(substring(int8send(floor(t.ms)::bigint) FROM 3)
        || int2send((28672 | floor((t.ms - floor(t.ms)) * 4096)::integer)::smallint)
        || substring(uuid_send(gen_random_uuid()) FROM 9), 'hex')::uuid
    FROM (SELECT extract(epoch FROM clock_timestamp()) * 1000 AS ms) AS t
$$;
-- +goose StatementEnd
