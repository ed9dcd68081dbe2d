-- +goose Up
-- Synchronous screening (POST /api/v1/screen) runs in the api process: it
-- loads the lists, which are public data shared by every tenant.
GRANT SELECT ON public.watchlist_versions, public.watchlist_entities TO kycflow_app;
-- When a worker first loaded a version (GET /api/v1/watchlists).
ALTER TABLE public.watchlist_versions ADD COLUMN loaded_at timestamptz;
GRANT UPDATE (loaded_at) ON public.watchlist_versions TO kycflow_worker;
-- The lists a tenant screens against; NULL: every list.
ALTER TABLE public.tenants ADD COLUMN aml_lists text[];
-- What an audit row says beyond its action (a screening's counts).
ALTER TABLE public.audit_log ADD COLUMN detail jsonb;

-- +goose Down
ALTER TABLE public.audit_log DROP COLUMN detail;
ALTER TABLE public.tenants DROP COLUMN aml_lists;
REVOKE UPDATE (loaded_at) ON public.watchlist_versions FROM kycflow_worker;
ALTER TABLE public.watchlist_versions DROP COLUMN loaded_at;
REVOKE SELECT ON public.watchlist_versions, public.watchlist_entities FROM kycflow_app;
