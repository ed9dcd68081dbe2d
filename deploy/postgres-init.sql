-- Runs once, when the postgres volume is first initialised (docker-compose.yml).
-- kycflow gets its own database next to Temporal's (temporal, temporal_visibility,
-- which temporalio/auto-setup creates itself). `kycflow migrate` then creates
-- the schema and the kycflow_app role.
CREATE DATABASE kycflow;
