-- +goose Up
-- The outbox's lag for /metrics: how long the oldest unsent row has waited
-- (0 when the outbox is empty). The worker role cannot read the outbox, so
-- a definer function answers this one number, across tenants.
-- +goose StatementBegin
CREATE FUNCTION public.outbox_lag() RETURNS double precision
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT COALESCE((SELECT EXTRACT(EPOCH FROM pg_catalog.now() - o.created_at)::double precision
                     FROM public.outbox o ORDER BY o.id LIMIT 1), 0)
$$;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION public.outbox_lag() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.outbox_lag() TO kycflow_worker;

-- +goose Down
DROP FUNCTION public.outbox_lag();
