WITH tenant AS MATERIALIZED (
    -- Every insert takes its tenant_id from here, so set_config has run
    -- before any row meets the row-level security policies.
    SELECT set_config('app.tenant_id', $1, true)::uuid AS id
),
{{- if .New}}
subject AS (
    INSERT INTO {{.Table}} (tenant_id, {{.Columns}})
    SELECT tenant.id, {{.RColumns}}
    FROM jsonb_populate_recordset(NULL::{{.Table}}, $8::jsonb) AS r, tenant
    RETURNING id
),
{{- end}}
input AS (
    SELECT * FROM unnest($2::uuid[], $3::uuid[], $4::text[], $5::jsonb[], $6::bytea[], $7::timestamptz[])
        AS t(id, subject, type, payload, link_hash, at)
),
c AS (
    INSERT INTO checks (id, tenant_id, {{.SubjectColumn}}, type, status, created_at, updated_at)
    SELECT input.id, tenant.id, input.subject, input.type, 'queued', input.at, input.at
    FROM input, tenant
{{- if .New}}
    -- Counting the subjects reads their insert to its end before the first
    -- check is written, so each subject's created event precedes its
    -- checks'.
    WHERE (SELECT count(*) FROM subject) > 0
{{- end}}
    RETURNING id
),
l AS (
    INSERT INTO links (check_id, tenant_id, customer_id, type, token_hash, created_at, expires_at)
    SELECT input.id, tenant.id, input.subject, input.type, input.link_hash, input.at,
           input.at + (SELECT link_ttl FROM tenants WHERE id = tenant.id)
    FROM input JOIN c USING (id), tenant
    WHERE octet_length(input.link_hash) > 0
)
INSERT INTO outbox (tenant_id, check_id, action, payload)
SELECT tenant.id, input.id, 'start', payload FROM input, tenant
{{- if .New}}
WHERE (SELECT count(*) FROM subject) > 0
{{- end}}
