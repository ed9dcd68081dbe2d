-- +goose Up
-- Two foreign keys to tenants that other rules already imply. Each cost
-- every new row a lookup (and a share lock) of its tenant's row: three of
-- the four such lookups of a create.
--   - A check's tenant is its subject's: the composite keys (tenant_id,
--     business_id) and (tenant_id, customer_id), with the CHECK that a check
--     has exactly one subject, hold it to a business or customer of that
--     tenant, whose own key holds it to the tenant; a tenant's checks still
--     go with its records.
--   - Only triggers write events, from a record or check of the tenant, and
--     row-level security admits no other tenant's. An event outlives its
--     record (redacted) and is removed with its retention (events_prune),
--     as an event of a removed tenant now would be.
ALTER TABLE public.checks DROP CONSTRAINT checks_tenant_id_fkey;
ALTER TABLE public.events DROP CONSTRAINT events_tenant_id_fkey;

-- +goose Down
-- NOT VALID: events of a tenant removed meanwhile stay until their
-- retention, and the keys hold for every row written from now on.
ALTER TABLE public.checks ADD CONSTRAINT checks_tenant_id_fkey
    FOREIGN KEY (tenant_id) REFERENCES public.tenants (id) ON DELETE CASCADE NOT VALID;
ALTER TABLE public.events ADD CONSTRAINT events_tenant_id_fkey
    FOREIGN KEY (tenant_id) REFERENCES public.tenants (id) ON DELETE CASCADE NOT VALID;
