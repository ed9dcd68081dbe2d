package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kycflow/kycflow/check"
)

// CountResultWrites installs a trigger that logs every write of a check's
// result (its data changing) in result_writes, so that a result written
// twice shows: the fault campaign (`kycflow chaos`) and the worker-kill
// test read it. A diagnostic for a test database, installed by the owner
// role; no migration creates it.
func (s *Store) CountResultWrites(ctx context.Context) error {
	for _, q := range []string{
		`CREATE TABLE IF NOT EXISTS result_writes (check_id uuid, status text, at timestamptz DEFAULT clock_timestamp())`,
		`CREATE OR REPLACE FUNCTION result_writes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
		 BEGIN INSERT INTO public.result_writes (check_id, status) VALUES (NEW.id, NEW.status); RETURN NULL; END $$`,
		`CREATE OR REPLACE TRIGGER result_writes AFTER UPDATE ON checks FOR EACH ROW
		 WHEN (OLD.data::text IS DISTINCT FROM NEW.data::text) EXECUTE FUNCTION result_writes()`,
	} {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("result-write counter: %w", err)
		}
	}
	return nil
}

// ResultWrites are the statuses written with one check's result, in order.
func (s *Store) ResultWrites(ctx context.Context, checkID uuid.UUID) ([]check.Status, error) {
	var out []check.Status
	err := s.db.SelectContext(ctx, &out, `SELECT status FROM result_writes WHERE check_id = $1 ORDER BY at`, checkID)
	return out, err
}

// CheckProgress is one check of the businesses a census asks about.
type CheckProgress struct {
	Status check.Status `db:"status"`
	// ToFinal is creation to completion, 0 while not completed.
	ToFinal time.Duration `db:"-"`
	Secs    *float64      `db:"secs"`
}

// ChecksOfBusinesses reads the checks of the given businesses, across
// tenants (a diagnostic for the owner role: the fault campaign's census).
func (s *Store) ChecksOfBusinesses(ctx context.Context, ids []uuid.UUID) ([]CheckProgress, error) {
	var rows []CheckProgress
	if err := s.db.SelectContext(ctx, &rows, `SELECT c.status, EXTRACT(EPOCH FROM c.completed_at - c.created_at)::float8 AS secs
		FROM checks c WHERE c.business_id = ANY($1)`, pq.Array(ids)); err != nil {
		return nil, fmt.Errorf("read checks: %w", err)
	}
	for i := range rows {
		if rows[i].Secs != nil {
			rows[i].ToFinal = time.Duration(*rows[i].Secs * float64(time.Second))
		}
	}
	return rows, nil
}

// ResultAudit is what the result-write counter and the businesses table
// say about a set of businesses.
type ResultAudit struct {
	Found     int // businesses that exist
	Twice     int // checks whose result was written more than once
	Unwritten int // completed checks whose result write was never seen (the counter asleep)
}

// AuditResults checks the businesses against the result-write counter
// (CountResultWrites must have run before their checks were written).
func (s *Store) AuditResults(ctx context.Context, ids []uuid.UUID) (ResultAudit, error) {
	var a ResultAudit
	err := s.db.GetContext(ctx, &a, `SELECT
		(SELECT count(*) FROM businesses WHERE id = ANY($1)) AS found,
		(SELECT count(*) FROM (SELECT w.check_id FROM result_writes w JOIN checks c ON c.id = w.check_id
			WHERE c.business_id = ANY($1) GROUP BY w.check_id HAVING count(*) > 1) d) AS twice,
		(SELECT count(*) FROM checks c WHERE c.business_id = ANY($1) AND c.status = $2
			AND NOT EXISTS (SELECT 1 FROM result_writes w WHERE w.check_id = c.id)) AS unwritten`, pq.Array(ids), check.Completed)
	if err != nil {
		return a, fmt.Errorf("audit results: %w", err)
	}
	return a, nil
}
