package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/kycflow/kycflow/check"
)

// Staff is a tenant's staff member, as the console knows them.
type Staff struct {
	ID           uuid.UUID  `db:"id"`
	TenantID     uuid.UUID  `db:"tenant_id"`
	Email        string     `db:"email"`
	Role         check.Role `db:"role"`
	Status       string     `db:"status"` // check.StaffInvited, StaffActive, StaffDisabled
	PasswordHash *string    `db:"password_hash"`
	TOTPKeyID    *string    `db:"totp_key_id"`
	TOTPSealed   []byte     `db:"totp_sealed"`
	TOTPStep     int64      `db:"totp_step"`
	Failures     int        `db:"failures"`
	LockedUntil  *time.Time `db:"locked_until"`
	CreatedAt    time.Time  `db:"created_at"`
	UpdatedAt    time.Time  `db:"updated_at"`
}

const staffCols = `id, tenant_id, email, role, status, password_hash, totp_key_id, totp_sealed, totp_step, failures, locked_until, created_at, updated_at`

// InvitationTTL is how long an invitation link stays good.
const InvitationTTL = 72 * time.Hour

// ErrStaffExists: the tenant has a staff member with that address.
var ErrStaffExists = fmt.Errorf("%w: a staff member with this address exists", ErrConflict)

// CreateStaff adds an invited staff member and their invitation, whose
// token hashes to tokenHash, good for InvitationTTL.
func (s *Store) CreateStaff(ctx context.Context, tenantID uuid.UUID, email string, role check.Role, tokenHash []byte) (Staff, error) {
	var st Staff
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		t := now()
		err := tx.GetContext(ctx, &st, `INSERT INTO staff (id, tenant_id, email, role, status, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING `+staffCols, NewID(), tenantID, email, role, check.StaffInvited, t)
		var pqErr *pq.Error
		if errors.As(err, &pqErr) && pqErr.Code == "23505" {
			return ErrStaffExists
		}
		if err != nil {
			return err
		}
		return invite(ctx, tx, st, tokenHash, t)
	})
	return st, err
}

func invite(ctx context.Context, tx *sqlx.Tx, st Staff, tokenHash []byte, t time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO staff_invitations (token_hash, tenant_id, staff_id, expires_at) VALUES ($1, $2, $3, $4)`,
		tokenHash, st.TenantID, st.ID, t.Add(InvitationTTL))
	return err
}

// Reinvite gives a staff member who has not accepted their invitation a
// new one (the old ones no longer work).
func (s *Store) Reinvite(ctx context.Context, tenantID uuid.UUID, email string, tokenHash []byte) (Staff, error) {
	var st Staff
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		err := tx.GetContext(ctx, &st, `SELECT `+staffCols+` FROM staff WHERE tenant_id = $1 AND email = $2 FOR UPDATE`, tenantID, email)
		if err != nil {
			return err
		}
		if st.Status != check.StaffInvited {
			return fmt.Errorf("%w: %s is %s, not invited", ErrConflict, email, st.Status)
		}
		t := now()
		if _, err := tx.ExecContext(ctx, `UPDATE staff_invitations SET used_at = $3 WHERE tenant_id = $1 AND staff_id = $2 AND used_at IS NULL`, tenantID, st.ID, t); err != nil {
			return err
		}
		return invite(ctx, tx, st, tokenHash, t)
	})
	return st, err
}

// ListStaff is the tenant's staff, by address.
func (s *Store) ListStaff(ctx context.Context, tenantID uuid.UUID) ([]Staff, error) {
	var out []Staff
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		return tx.SelectContext(ctx, &out, `SELECT `+staffCols+` FROM staff WHERE tenant_id = $1 ORDER BY email`, tenantID)
	})
	return out, err
}

// StaffByEmail is the tenant's staff member with that address.
func (s *Store) StaffByEmail(ctx context.Context, tenantID uuid.UUID, email string) (Staff, error) {
	var st Staff
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		return tx.GetContext(ctx, &st, `SELECT `+staffCols+` FROM staff WHERE tenant_id = $1 AND email = $2`, tenantID, email)
	})
	return st, err
}

// DisableStaff disables a staff member for good: their sessions end and
// their invitations stop working, in the same transaction.
func (s *Store) DisableStaff(ctx context.Context, tenantID uuid.UUID, email string) (Staff, error) {
	var st Staff
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		t := now()
		err := tx.GetContext(ctx, &st, `UPDATE staff SET status = $3, updated_at = $4 WHERE tenant_id = $1 AND email = $2 RETURNING `+staffCols,
			tenantID, email, check.StaffDisabled, t)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE staff_sessions SET ended_at = $3 WHERE tenant_id = $1 AND staff_id = $2 AND ended_at IS NULL`, tenantID, st.ID, t); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE staff_invitations SET used_at = $3 WHERE tenant_id = $1 AND staff_id = $2 AND used_at IS NULL`, tenantID, st.ID, t)
		return err
	})
	return st, err
}

// SetStaffRole changes a staff member's role; a disabled one stays as
// they are (ErrConflict).
func (s *Store) SetStaffRole(ctx context.Context, tenantID, staffID uuid.UUID, role check.Role) (Staff, error) {
	var st Staff
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		err := tx.GetContext(ctx, &st, `UPDATE staff SET role = $3, updated_at = $4 WHERE tenant_id = $1 AND id = $2 AND status <> $5 RETURNING `+staffCols,
			tenantID, staffID, role, now(), check.StaffDisabled)
		if errors.Is(classify(err), ErrNotFound) {
			return fmt.Errorf("%w: no such staff member, or disabled", ErrConflict)
		}
		return err
	})
	return st, err
}

// Invitation is the staff member an unused, unexpired invitation whose
// token hashes to tokenHash is for; ErrNotFound for any other token.
func (s *Store) Invitation(ctx context.Context, tenantID uuid.UUID, tokenHash []byte) (Staff, error) {
	var st Staff
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		return tx.GetContext(ctx, &st, `SELECT `+prefixed("s", staffCols)+` FROM staff_invitations i JOIN staff s ON s.tenant_id = i.tenant_id AND s.id = i.staff_id
			WHERE i.tenant_id = $1 AND i.token_hash = $2 AND i.used_at IS NULL AND i.expires_at > $3 AND s.status = $4`,
			tenantID, tokenHash, now(), check.StaffInvited)
	})
	return st, err
}

// Enrolment is what accepting an invitation sets: the password's hash and
// the second factor's sealed secret with the step of the code that proved
// it.
type Enrolment struct {
	PasswordHash string
	TOTPKeyID    string
	TOTPSealed   []byte
	TOTPStep     int64
}

// AcceptInvitation uses the invitation (once: a second use finds
// ErrNotFound) and makes its staff member active with e.
func (s *Store) AcceptInvitation(ctx context.Context, tenantID uuid.UUID, tokenHash []byte, e Enrolment) (Staff, error) {
	var st Staff
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		t := now()
		var staffID uuid.UUID
		err := tx.GetContext(ctx, &staffID, `UPDATE staff_invitations SET used_at = $3
			WHERE tenant_id = $1 AND token_hash = $2 AND used_at IS NULL AND expires_at > $3 RETURNING staff_id`, tenantID, tokenHash, t)
		if err != nil {
			return err
		}
		return tx.GetContext(ctx, &st, `UPDATE staff SET status = $3, password_hash = $4, totp_key_id = $5, totp_sealed = $6, totp_step = $7,
			failures = 0, locked_until = NULL, updated_at = $8
			WHERE tenant_id = $1 AND id = $2 AND status = $9 RETURNING `+staffCols,
			tenantID, staffID, check.StaffActive, e.PasswordHash, e.TOTPKeyID, e.TOTPSealed, e.TOTPStep, t, check.StaffInvited)
	})
	return st, err
}

// prefixed qualifies each of a comma-separated column list with a table
// alias.
func prefixed(alias, cols string) string {
	return alias + "." + strings.ReplaceAll(cols, ", ", ", "+alias+".")
}

// Session lifetimes: a session ends after SessionIdle without a request,
// and SessionAbsolute after it began, whatever its use.
const (
	SessionIdle     = 30 * time.Minute
	SessionAbsolute = 12 * time.Hour
)

// Session is a signed-in staff member's session.
type Session struct {
	TenantID  uuid.UUID `db:"tenant_id"`
	StaffID   uuid.UUID `db:"staff_id"`
	CSRF      string    `db:"csrf"`
	CreatedAt time.Time `db:"created_at"`
	SeenAt    time.Time `db:"seen_at"`
	Staff     Staff     `db:"-"`
}

// CreateSession begins a session for an active staff member, whose cookie
// hashes to tokenHash and whose forms carry csrf.
func (s *Store) CreateSession(ctx context.Context, tenantID, staffID uuid.UUID, tokenHash []byte, csrf string) error {
	return s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		t := now()
		res, err := tx.ExecContext(ctx, `INSERT INTO staff_sessions (token_hash, tenant_id, staff_id, csrf, created_at, seen_at)
			SELECT $1, tenant_id, id, $3, $4, $4 FROM staff WHERE tenant_id = $2 AND id = $5 AND status = $6`,
			tokenHash, tenantID, csrf, t, staffID, check.StaffActive)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return ErrNotFound
		}
		return nil
	})
}

// SessionByToken is the live session whose cookie hashes to tokenHash,
// its staff member active; its last use is now. ErrNotFound for a session
// ended, idle too long, too old, or another tenant's.
func (s *Store) SessionByToken(ctx context.Context, tenantID uuid.UUID, tokenHash []byte) (Session, error) {
	var ses Session
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		t := now()
		err := tx.GetContext(ctx, &ses, `UPDATE staff_sessions SET seen_at = $3
			WHERE tenant_id = $1 AND token_hash = $2 AND ended_at IS NULL AND seen_at > $4 AND created_at > $5
			RETURNING tenant_id, staff_id, csrf, created_at, seen_at`,
			tenantID, tokenHash, t, t.Add(-SessionIdle), t.Add(-SessionAbsolute))
		if err != nil {
			return err
		}
		ses.Staff, err = byID[Staff](ctx, tx, "staff", staffCols, tenantID, ses.StaffID)
		if err == nil && ses.Staff.Status != check.StaffActive {
			return ErrNotFound
		}
		return err
	})
	return ses, err
}

// EndSession ends the session whose cookie hashes to tokenHash (signing
// out); EndSessions every session of a staff member (signing out
// everywhere).
func (s *Store) EndSession(ctx context.Context, tenantID uuid.UUID, tokenHash []byte) error {
	return s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE staff_sessions SET ended_at = $3 WHERE tenant_id = $1 AND token_hash = $2 AND ended_at IS NULL`, tenantID, tokenHash, now())
		return err
	})
}

func (s *Store) EndSessions(ctx context.Context, tenantID, staffID uuid.UUID) error {
	return s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE staff_sessions SET ended_at = $3 WHERE tenant_id = $1 AND staff_id = $2 AND ended_at IS NULL`, tenantID, staffID, now())
		return err
	})
}

// Lock-out: after MaxSignInFailures wrong passwords or codes in a row an
// account is locked for LockOut, and until a sign-in succeeds each
// further failure (while locked or after) locks it for LockOut again.
const (
	MaxSignInFailures = 5
	LockOut           = 15 * time.Minute
)

// SignInFailed counts a wrong password or code against a staff member and
// locks the account at MaxSignInFailures.
func (s *Store) SignInFailed(ctx context.Context, tenantID, staffID uuid.UUID) error {
	return s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		t := now()
		_, err := tx.ExecContext(ctx, `UPDATE staff SET failures = failures + 1, updated_at = $3,
			locked_until = CASE WHEN failures + 1 >= $4 THEN $3::timestamptz + $5::interval ELSE locked_until END
			WHERE tenant_id = $1 AND id = $2`, tenantID, staffID, t, MaxSignInFailures, interval(LockOut))
		return err
	})
}

// SignedIn records a sign-in with the TOTP step its code was of (a code is
// good once) and clears the failures; ErrNotFound when the step is not
// newer than the last used (the code replayed meanwhile).
func (s *Store) SignedIn(ctx context.Context, tenantID, staffID uuid.UUID, step int64) error {
	return s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE staff SET failures = 0, locked_until = NULL, totp_step = $3, updated_at = $4
			WHERE tenant_id = $1 AND id = $2 AND totp_step < $3`, tenantID, staffID, step, now())
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return ErrNotFound
		}
		return nil
	})
}
