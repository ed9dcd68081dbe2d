-- +goose Up
-- A tenant's records are paged newest first by (tenant_id, id), which the
-- unique constraint on (tenant_id, id) already indexes: a btree is read
-- backwards as fast as forwards. The descending copies only cost every
-- create an index insertion.
DROP INDEX IF EXISTS public.businesses_page;
DROP INDEX IF EXISTS public.customers_page;

-- +goose Down
CREATE INDEX businesses_page ON public.businesses (tenant_id, id DESC);
CREATE INDEX customers_page ON public.customers (tenant_id, id DESC);
