-- +goose Up
-- A check's data and error are documents the API returns as written, in
-- their documented key order; jsonb would reorder keys (shortest first).
-- Nothing queries inside them.
ALTER TABLE checks ALTER COLUMN data TYPE json USING data::json;
ALTER TABLE checks ALTER COLUMN error TYPE json USING error::json;

-- +goose Down
ALTER TABLE checks ALTER COLUMN data TYPE jsonb USING data::jsonb;
ALTER TABLE checks ALTER COLUMN error TYPE jsonb USING error::jsonb;
