-- +goose Up
-- Per tenant: whether a watchlist hit whose birth date or nationality
-- contradicts the customer's is dropped (for verified customer data)
-- rather than only scored lower.
ALTER TABLE tenants ADD COLUMN aml_hard_conflict boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE tenants DROP COLUMN aml_hard_conflict;
