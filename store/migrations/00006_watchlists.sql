-- +goose Up
-- Sanctions and PEP lists, shared by all tenants: each import of a list
-- file is a version (its content hash makes re-importing the same file a
-- no-op); its entities are kept as the parsers produce them.
CREATE TABLE watchlist_versions (
    id            bigserial PRIMARY KEY,
    list          text NOT NULL,
    format        text NOT NULL,
    content_hash  bytea NOT NULL,
    entities      integer NOT NULL,
    names         integer NOT NULL,
    imported_at   timestamptz NOT NULL DEFAULT now(),
    -- Set once the rescreening of customers against this version is done.
    rescreened_at timestamptz,
    UNIQUE (list, content_hash)
);

CREATE TABLE watchlist_entities (
    version_id bigint NOT NULL REFERENCES watchlist_versions (id) ON DELETE CASCADE,
    entity_id  text NOT NULL,
    -- A hash of data, to tell changed entities between versions cheaply.
    data_hash  bytea NOT NULL,
    data       jsonb NOT NULL,
    PRIMARY KEY (version_id, entity_id)
);

GRANT SELECT ON watchlist_versions, watchlist_entities TO kycflow_app;

-- A hit at or above the tenant's threshold fails the aml check.
ALTER TABLE tenants ADD COLUMN aml_threshold real NOT NULL DEFAULT 0.88
    CHECK (aml_threshold > 0 AND aml_threshold <= 1);
GRANT UPDATE (rescreened_at) ON watchlist_versions TO kycflow_app;

-- +goose Down
ALTER TABLE tenants DROP COLUMN aml_threshold;
DROP TABLE watchlist_entities;
DROP TABLE watchlist_versions;
