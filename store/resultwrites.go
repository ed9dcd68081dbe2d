package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kycflow/kycflow/check"
)

// CountResultWrites installs triggers that log every write of a check's
// result (its data changing, other than the uploads an idscan check shows
// while it waits) in result_writes, and of an upload's outcome in
// attempt_writes, so that a result written twice shows: the fault campaign
// (`kycflow chaos`) and the worker-kill test read them. A diagnostic for a
// test database, installed by the owner role; no migration creates it.
func (s *Store) CountResultWrites(ctx context.Context) error {
	for _, q := range []string{
		`CREATE TABLE IF NOT EXISTS result_writes (check_id uuid, status text, at timestamptz DEFAULT clock_timestamp())`,
		`CREATE OR REPLACE FUNCTION result_writes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
		 BEGIN INSERT INTO public.result_writes (check_id, status) VALUES (NEW.id, NEW.status); RETURN NULL; END $$`,
		`CREATE OR REPLACE TRIGGER result_writes AFTER UPDATE ON checks FOR EACH ROW
		 WHEN (OLD.data::text IS DISTINCT FROM NEW.data::text AND NEW.status <> 'awaiting_input') EXECUTE FUNCTION result_writes()`,
		`CREATE TABLE IF NOT EXISTS attempt_writes (check_id uuid, n int, status text, at timestamptz DEFAULT clock_timestamp())`,
		`CREATE OR REPLACE FUNCTION attempt_writes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
		 BEGIN INSERT INTO public.attempt_writes (check_id, n, status) VALUES (NEW.check_id, NEW.n, NEW.status); RETURN NULL; END $$`,
		`CREATE OR REPLACE TRIGGER attempt_writes AFTER UPDATE ON document_attempts FOR EACH ROW
		 WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.read_at IS DISTINCT FROM NEW.read_at) EXECUTE FUNCTION attempt_writes()`,
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

// UploadAudit is what the database says of the idscan checks of a set of
// customers and their uploads.
type UploadAudit struct {
	Checks    int `db:"checks"`    // idscan checks of the customers
	Final     int `db:"final"`     // … in a final status
	Waiting   int `db:"waiting"`   // … still awaiting input, their last upload sent back
	Attempts  int `db:"attempts"`  // uploads recorded
	Reading   int `db:"reading"`   // … never read (left `reading`)
	Twice     int `db:"twice"`     // uploads whose outcome was written more than once
	Results   int `db:"results"`   // idscan checks whose result was written more than once
	Unwritten int `db:"unwritten"` // uploads read without their outcome's write seen
}

// AuditUploads checks the customers' idscan checks and uploads against the
// write counters (CountResultWrites must have run before they were
// created), across tenants: the fault campaign's census.
func (s *Store) AuditUploads(ctx context.Context, customers []uuid.UUID) (UploadAudit, error) {
	var a UploadAudit
	err := s.db.GetContext(ctx, &a, `WITH c AS (SELECT id, status FROM checks WHERE customer_id = ANY($1) AND type = 'idscan'),
			a AS (SELECT d.* FROM document_attempts d JOIN c ON c.id = d.check_id)
		SELECT (SELECT count(*) FROM c) AS checks,
			(SELECT count(*) FROM c WHERE status IN ('completed', 'expired', 'cancelled')) AS final,
			(SELECT count(*) FROM c WHERE status = 'awaiting_input' AND (SELECT a.status FROM a WHERE a.check_id = c.id ORDER BY n DESC LIMIT 1) = 'retake') AS waiting,
			(SELECT count(*) FROM a) AS attempts,
			(SELECT count(*) FROM a WHERE status = 'reading') AS reading,
			(SELECT count(*) FROM (SELECT 1 FROM attempt_writes w JOIN c ON c.id = w.check_id GROUP BY w.check_id, w.n HAVING count(*) > 1) d) AS twice,
			(SELECT count(*) FROM (SELECT 1 FROM result_writes w JOIN c ON c.id = w.check_id GROUP BY w.check_id HAVING count(*) > 1) d) AS results,
			(SELECT count(*) FROM a WHERE status <> 'reading' AND NOT EXISTS (SELECT 1 FROM attempt_writes w WHERE w.check_id = a.check_id AND w.n = a.n)) AS unwritten`,
		pq.Array(customers))
	if err != nil {
		return a, fmt.Errorf("audit uploads: %w", err)
	}
	return a, nil
}
