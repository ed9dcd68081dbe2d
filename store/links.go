package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/kycflow/kycflow/check"
)

// Link is a verification link of an idin or idscan check, without its token
// (only the token's SHA-256 is stored).
type Link struct {
	CheckID    uuid.UUID  `db:"check_id"`
	TenantID   uuid.UUID  `db:"tenant_id"`
	CustomerID uuid.UUID  `db:"customer_id"`
	Type       check.Type `db:"type"`
	CreatedAt  time.Time  `db:"created_at"`
	ExpiresAt  time.Time  `db:"expires_at"`
	UsedAt     *time.Time `db:"used_at"`
	RevokedAt  *time.Time `db:"revoked_at"`
	Submission JSON       `db:"submission"`
}

const linkCols = `check_id, tenant_id, customer_id, type, created_at, expires_at, used_at, revoked_at, submission`

// LinkState is what a link's holder may do with it.
type LinkState string

// Link states, in the order they are decided.
const (
	LinkOpen    LinkState = "open"    // usable
	LinkUsed    LinkState = "used"    // submitted once; links work once
	LinkRevoked LinkState = "revoked" // superseded by a newer check, or the check was cancelled
	LinkExpired LinkState = "expired" // past its expiry, or the check expired
)

// State decides what the link allows, given its check's status, at now.
func (l Link) State(checkStatus check.Status, now time.Time) LinkState {
	switch {
	case l.UsedAt != nil:
		return LinkUsed
	case l.RevokedAt != nil || checkStatus == check.Cancelled:
		return LinkRevoked
	case !now.Before(l.ExpiresAt) || checkStatus == check.Expired:
		return LinkExpired
	case checkStatus == check.Completed:
		return LinkUsed
	}
	return LinkOpen
}

// newToken returns a random link token (256 bits, URL-safe) and its hash.
func newToken() (string, []byte) {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand panics rather than return short)
	token := base64.RawURLEncoding.EncodeToString(b)
	return token, hashToken(token)
}

func hashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// IssueLink gives the check's link a fresh token, creating the link when it
// has none, and returns the token with the link. A link already used or
// revoked is returned as is with no token. Used to mail a link: a retried
// mail step re-issues, so only the token in the last mail works.
func (s *Store) IssueLink(ctx context.Context, ref check.Ref) (string, Link, error) {
	var l Link
	token, hash := newToken()
	err := s.inTenant(ctx, ref.TenantID, func(tx *sqlx.Tx) error {
		err := tx.GetContext(ctx, &l, `INSERT INTO links (check_id, tenant_id, customer_id, type, token_hash, created_at, expires_at)
			SELECT c.id, c.tenant_id, c.customer_id, c.type, $3, $4::timestamptz, $4::timestamptz + (SELECT link_ttl FROM tenants WHERE id = $1)
			FROM checks c WHERE c.tenant_id = $1 AND c.id = $2
			ON CONFLICT (check_id) DO UPDATE SET token_hash = EXCLUDED.token_hash
				WHERE links.used_at IS NULL AND links.revoked_at IS NULL
			RETURNING `+linkCols, ref.TenantID, ref.CheckID, hash, now())
		if errors.Is(err, sql.ErrNoRows) {
			// Either the check is gone or its link may no longer change.
			token = ""
			return tx.GetContext(ctx, &l, `SELECT `+linkCols+` FROM links WHERE tenant_id = $1 AND check_id = $2`, ref.TenantID, ref.CheckID)
		}
		return err
	})
	return token, l, err
}

// GetLink reads a check's link; ErrNotFound when it has none.
func (s *Store) GetLink(ctx context.Context, ref check.Ref) (Link, error) {
	var l Link
	err := s.inTenant(ctx, ref.TenantID, func(tx *sqlx.Tx) error {
		return tx.GetContext(ctx, &l, `SELECT `+linkCols+` FROM links WHERE tenant_id = $1 AND check_id = $2`, ref.TenantID, ref.CheckID)
	})
	return l, err
}

// LinkView is what the verification page needs about a link.
type LinkView struct {
	Link
	Check      Check
	TenantName string
	Customer   Customer
}

// LinkByToken finds the link a token opens, with its check, customer and
// tenant name. ErrNotFound for an unknown token (never issued, re-issued,
// or its record deleted).
func (s *Store) LinkByToken(ctx context.Context, token string) (LinkView, error) {
	var v LinkView
	ids, err := s.linkOf(ctx, token)
	if err != nil {
		return v, err
	}
	err = s.inTenant(ctx, ids.TenantID, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &v.Link, `SELECT `+linkCols+` FROM links WHERE tenant_id = $1 AND check_id = $2`, ids.TenantID, ids.CheckID); err != nil {
			return err
		}
		if err := tx.GetContext(ctx, &v.Check, `SELECT `+checkCols+` FROM checks WHERE tenant_id = $1 AND id = $2`, ids.TenantID, ids.CheckID); err != nil {
			return err
		}
		if err := tx.GetContext(ctx, &v.Customer, `SELECT `+customerCols+` FROM customers WHERE tenant_id = $1 AND id = $2`, ids.TenantID, v.CustomerID); err != nil {
			return err
		}
		return tx.GetContext(ctx, &v.TenantName, `SELECT name FROM tenants WHERE id = $1`, ids.TenantID)
	})
	return v, err
}

// linkIDs names the link a token opens.
type linkIDs struct {
	TenantID uuid.UUID `db:"tenant_id"`
	CheckID  uuid.UUID `db:"check_id"`
}

// linkOf finds whose link a token is (the one lookup across tenants).
func (s *Store) linkOf(ctx context.Context, token string) (linkIDs, error) {
	var ids linkIDs
	err := s.db.GetContext(ctx, &ids, `SELECT tenant_id, check_id FROM link_by_token($1)`, hashToken(token))
	return ids, classify(err)
}

// LinkClosedError is what SubmitLink and SetLinkPending return for a link
// that is used, revoked or expired: State says which.
type LinkClosedError struct{ State LinkState }

func (e *LinkClosedError) Error() string { return "store: link " + string(e.State) }

// SubmitLink records what the person submitted through an open link, uses
// the link up, and queues the `verified` signal to the check's workflow, in
// one transaction. A closed link gives a *LinkClosedError.
func (s *Store) SubmitLink(ctx context.Context, token string, submission JSON) error {
	ids, err := s.linkOf(ctx, token)
	if err != nil {
		return err
	}
	err = s.inTenant(ctx, ids.TenantID, func(tx *sqlx.Tx) error {
		at := now()
		c, err := lockOpenLink(ctx, tx, ids, at)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE links SET used_at = $3, submission = $4 WHERE tenant_id = $1 AND check_id = $2`,
			ids.TenantID, ids.CheckID, at, submission); err != nil {
			return err
		}
		return enqueue(ctx, tx, c.Ref(), ActionVerified)
	})
	if err == nil {
		s.wakeRelay()
	}
	return err
}

// lockOpenLink locks the link's row and returns its check, or a
// *LinkClosedError unless the link is still open at `at`.
func lockOpenLink(ctx context.Context, tx *sqlx.Tx, ids linkIDs, at time.Time) (Check, error) {
	var l Link
	var c Check
	if err := tx.GetContext(ctx, &l, `SELECT `+linkCols+` FROM links WHERE tenant_id = $1 AND check_id = $2 FOR UPDATE`, ids.TenantID, ids.CheckID); err != nil {
		return c, err
	}
	if err := tx.GetContext(ctx, &c, `SELECT `+checkCols+` FROM checks WHERE tenant_id = $1 AND id = $2`, ids.TenantID, ids.CheckID); err != nil {
		return c, err
	}
	if st := l.State(c.Status, at); st != LinkOpen {
		return c, &LinkClosedError{State: st}
	}
	return c, nil
}

// ExpireCheck marks an awaiting check `expired` when its link was not used;
// applied is false when the person submitted in time (or the check moved on).
func (s *Store) ExpireCheck(ctx context.Context, ref check.Ref) (applied bool, status check.Status, err error) {
	err = s.inTenant(ctx, ref.TenantID, func(tx *sqlx.Tx) error {
		at := now()
		err := tx.GetContext(ctx, &status, `UPDATE checks SET status = 'expired', updated_at = $3, completed_at = $3
			WHERE tenant_id = $1 AND id = $2 AND status IN ('running', 'awaiting_input')
			  AND NOT EXISTS (SELECT 1 FROM links WHERE tenant_id = $1 AND check_id = $2 AND used_at IS NOT NULL)
			RETURNING status`, ref.TenantID, ref.CheckID, at)
		if err == nil {
			applied = true
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		return tx.GetContext(ctx, &status, `SELECT status FROM checks WHERE tenant_id = $1 AND id = $2`, ref.TenantID, ref.CheckID)
	})
	if applied {
		s.wakeRelay() // its event's deliveries
	}
	return applied, status, err
}

// SetLinkPending keeps state of an open link's unfinished submission (an
// iDIN transaction the person is away at their bank for) without using the
// link up. A closed link gives a *LinkClosedError.
func (s *Store) SetLinkPending(ctx context.Context, token string, pending JSON) error {
	ids, err := s.linkOf(ctx, token)
	if err != nil {
		return err
	}
	return s.inTenant(ctx, ids.TenantID, func(tx *sqlx.Tx) error {
		if _, err := lockOpenLink(ctx, tx, ids, now()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE links SET submission = $3 WHERE tenant_id = $1 AND check_id = $2`, ids.TenantID, ids.CheckID, pending)
		return err
	})
}

// SetLinkSubmission replaces a used link's submission: the verify step keeps
// a provider answer it cannot ask for twice (iDIN discloses data once).
func (s *Store) SetLinkSubmission(ctx context.Context, ref check.Ref, submission JSON) error {
	return s.inTenant(ctx, ref.TenantID, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE links SET submission = $3 WHERE tenant_id = $1 AND check_id = $2`, ref.TenantID, ref.CheckID, submission)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}
