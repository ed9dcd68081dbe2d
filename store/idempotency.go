package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
)

// IdempotencyTTL is how long an idempotency key's answer is kept.
const IdempotencyTTL = 24 * time.Hour

// idempotencyStale is how long a request may hold its key in flight: a
// process that died mid-request does not block the key for a day.
const idempotencyStale = 5 * time.Minute

// IdempotentAnswer is a stored answer, or the state of its request.
type IdempotentAnswer struct {
	// Claimed: this request holds the key now, and must Complete or
	// Release it.
	Claimed bool
	// Mismatch: the key was used with a different request.
	Mismatch bool
	// InFlight: the first request with the key has not answered yet.
	InFlight bool
	// Status and Body: the answer to replay.
	Status int
	Body   []byte
}

// ClaimIdempotencyKey claims a tenant's key for a request (by its hash), or
// tells what became of the key's first request. A key older than
// IdempotencyTTL, or left in flight longer than a request may take, is
// claimed afresh.
func (s *Store) ClaimIdempotencyKey(ctx context.Context, tenantID uuid.UUID, key string, requestHash []byte) (IdempotentAnswer, error) {
	var a IdempotentAnswer
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		at := now()
		var row struct {
			Hash      []byte     `db:"request_hash"`
			Status    *int       `db:"status"`
			Body      []byte     `db:"body"`
			CreatedAt time.Time  `db:"created_at"`
			Completed *time.Time `db:"completed_at"`
		}
		err := tx.GetContext(ctx, &row, `INSERT INTO idempotency_keys (tenant_id, key, request_hash, created_at)
			VALUES ($1, $2, $3, $4)
			ON CONFLICT (tenant_id, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, status = NULL, body = NULL,
				created_at = EXCLUDED.created_at, completed_at = NULL
			WHERE idempotency_keys.created_at < $5 OR (idempotency_keys.status IS NULL AND idempotency_keys.created_at < $6)
			RETURNING request_hash, status, body, created_at, completed_at`,
			tenantID, key, requestHash, at, at.Add(-IdempotencyTTL), at.Add(-idempotencyStale))
		if err == nil {
			a.Claimed = true
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		// Someone else's: read it (locked by its holder's insert until commit).
		if err := tx.GetContext(ctx, &row, `SELECT request_hash, status, body, created_at, completed_at
			FROM idempotency_keys WHERE tenant_id = $1 AND key = $2`, tenantID, key); err != nil {
			return err
		}
		switch {
		case string(row.Hash) != string(requestHash):
			a.Mismatch = true
		case row.Status == nil:
			a.InFlight = true
		default:
			a.Status, a.Body = *row.Status, row.Body
		}
		return nil
	})
	return a, err
}

// CompleteIdempotencyKey stores the answer to a claimed key's request.
func (s *Store) CompleteIdempotencyKey(ctx context.Context, tenantID uuid.UUID, key string, status int, body []byte) error {
	return s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE idempotency_keys SET status = $3, body = $4, completed_at = $5
			WHERE tenant_id = $1 AND key = $2 AND status IS NULL`, tenantID, key, status, body, now())
		return err
	})
}

// ReleaseIdempotencyKey frees a claimed key whose request ended without an
// answer worth keeping (a server error, a client gone): a retry runs again.
func (s *Store) ReleaseIdempotencyKey(ctx context.Context, tenantID uuid.UUID, key string) error {
	return s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE tenant_id = $1 AND key = $2 AND status IS NULL`, tenantID, key)
		return err
	})
}

// PruneIdempotencyKeys deletes every tenant's keys past IdempotencyTTL
// (the worker's role, through idempotency_prune).
func (s *Store) PruneIdempotencyKeys(ctx context.Context) (int64, error) {
	return s.prune(ctx, "idempotency_prune", IdempotencyTTL)
}

// prune calls one of the definer functions that delete, across tenants,
// what is older than ttl, and returns how many rows went.
func (s *Store) prune(ctx context.Context, fn string, ttl time.Duration) (int64, error) {
	var n int64
	err := s.db.GetContext(ctx, &n, `SELECT `+fn+`(make_interval(secs => $1))`, ttl.Seconds())
	return n, classify(err)
}
