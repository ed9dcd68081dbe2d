package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/kycflow/kycflow/check"
)

// Staff is a tenant's staff member, as the console knows them: the api
// reads these columns only; the account's secrets reach it through a
// sign-in (SignInBegin).
type Staff struct {
	ID        uuid.UUID  `db:"id"`
	TenantID  uuid.UUID  `db:"tenant_id"`
	Email     string     `db:"email"`
	Role      check.Role `db:"role"`
	Status    string     `db:"status"` // check.StaffInvited, StaffActive, StaffDisabled
	CreatedAt time.Time  `db:"created_at"`
	UpdatedAt time.Time  `db:"updated_at"`
}

const staffCols = `id, tenant_id, email, role, status, created_at, updated_at`

// InvitationTTL is how long an invitation link stays good (the console's
// functions hold the same figure: TestConsoleTimesAsDeclared).
const InvitationTTL = 72 * time.Hour

// ErrStaffExists: the tenant has a staff member with that address.
var ErrStaffExists = fmt.Errorf("%w: a staff member with this address exists", ErrConflict)

// ErrNotAllowed: a console change asked by a session that may not make it
// (not a live session of one of the tenant's admins, or a change of their
// own account).
var ErrNotAllowed = errors.New("not allowed")

// staffError maps what the console's functions raise.
func staffError(err error) error {
	var pqErr *pq.Error
	if errors.As(err, &pqErr) {
		switch pqErr.Code {
		case "23505":
			return ErrStaffExists
		case "42501":
			return ErrNotAllowed
		}
	}
	return err
}

// The operator's side (DATABASE_ADMIN_URL, `kycflow staff`): these write
// the tables directly, which only the owner and superusers may.

// CreateStaff adds an invited staff member and their invitation, whose
// token hashes to tokenHash, good for InvitationTTL.
func (s *Store) CreateStaff(ctx context.Context, tenantID uuid.UUID, email string, role check.Role, tokenHash []byte) (Staff, error) {
	var st Staff
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		t := now()
		err := tx.GetContext(ctx, &st, `INSERT INTO staff (id, tenant_id, email, role, status, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING `+staffCols, NewID(), tenantID, email, role, check.StaffInvited, t)
		if err != nil {
			return staffError(err)
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

// The console's side: each through one of the definer functions of
// migration 00027, which allow the console's moves and no others.

// Actor is a console session acting: its tenant and its cookie's hash,
// which the database checks is a live session of an admin.
type Actor struct {
	TenantID uuid.UUID
	Session  []byte
}

// StaffChange is one change an admin makes to the tenant's staff.
type StaffChange string

// The changes.
const (
	StaffInvite   StaffChange = "invite"   // a new account, invited (Email, Role, the invitation's hash)
	StaffReinvite StaffChange = "reinvite" // an invited account's new invitation (ID, the hash)
	StaffRole     StaffChange = "role"     // a new role (ID, Role)
	StaffDisable  StaffChange = "disable"  // disabled for good (ID)
)

// ChangeStaff makes an admin's change; the staff member afterwards.
// ErrNotAllowed for a session that is not a live admin's or a change of
// their own; ErrStaffExists for an address taken; ErrConflict for an
// account the change does not apply to (disabled, or not invited for a
// new invitation).
func (s *Store) ChangeStaff(ctx context.Context, by Actor, do StaffChange, id uuid.UUID, email string, role check.Role, tokenHash []byte) (Staff, error) {
	var st Staff
	err := s.inTenant(ctx, by.TenantID, func(tx *sqlx.Tx) error {
		var changed *uuid.UUID
		err := tx.GetContext(ctx, &changed, `SELECT public.console_staff_change($1, $2, $3, $4, nullif($5, ''), nullif($6, ''), $7)`,
			by.TenantID, by.Session, string(do), nilIfZero(id), email, string(role), tokenHash)
		if err != nil {
			return staffError(err)
		}
		if changed == nil {
			return fmt.Errorf("%w: no such staff member, or not one this change applies to", ErrConflict)
		}
		st, err = byID[Staff](ctx, tx, "staff", staffCols, by.TenantID, *changed)
		return err
	})
	return st, err
}

// Invitation is the staff member an unused, unexpired invitation whose
// token hashes to tokenHash is for; ErrNotFound for any other token.
func (s *Store) Invitation(ctx context.Context, tenantID uuid.UUID, tokenHash []byte) (Staff, error) {
	var st Staff
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		var id uuid.UUID
		if err := tx.GetContext(ctx, &id, `SELECT staff_id FROM public.console_invitation($1, $2)`, tenantID, tokenHash); err != nil {
			return err
		}
		var err error
		st, err = byID[Staff](ctx, tx, "staff", staffCols, tenantID, id)
		return err
	})
	return st, err
}

// Enrolment is what accepting an invitation sets: the password's hash and
// the second factor's sealed secret with the step of the code that proved
// it; and the session it begins.
type Enrolment struct {
	PasswordHash string
	TOTPKeyID    string
	TOTPSealed   []byte
	TOTPStep     int64
	Session      NewSession
}

// NewSession is a session to begin: its cookie's hash and its forms'
// CSRF token.
type NewSession struct {
	TokenHash []byte
	CSRF      string
}

// AcceptInvitation uses the invitation (once: a second use finds
// ErrNotFound), makes its staff member active with e and begins their
// session.
func (s *Store) AcceptInvitation(ctx context.Context, tenantID uuid.UUID, tokenHash []byte, e Enrolment) (Staff, error) {
	var st Staff
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		var id *uuid.UUID
		if err := tx.GetContext(ctx, &id, `SELECT public.console_enrol($1, $2, $3, $4, $5, $6, $7, $8)`, tenantID, tokenHash,
			e.PasswordHash, e.TOTPKeyID, e.TOTPSealed, e.TOTPStep, e.Session.TokenHash, e.Session.CSRF); err != nil {
			return err
		}
		if id == nil {
			return ErrNotFound
		}
		var err error
		st, err = byID[Staff](ctx, tx, "staff", staffCols, tenantID, *id)
		return err
	})
	return st, err
}

// Session lifetimes: a session ends after SessionIdle without a request,
// and SessionAbsolute after it began, whatever its use (the console's
// functions hold the same figures: TestConsoleTimesAsDeclared).
const (
	SessionIdle     = 30 * time.Minute
	SessionAbsolute = 12 * time.Hour
)

// Session is a signed-in staff member's session.
type Session struct {
	TenantID  uuid.UUID `db:"-"`
	StaffID   uuid.UUID `db:"staff_id"`
	CSRF      string    `db:"csrf"`
	CreatedAt time.Time `db:"created_at"`
	SeenAt    time.Time `db:"seen_at"`
	Staff     Staff     `db:"-"`
}

// SessionByToken is the live session whose cookie hashes to tokenHash,
// its staff member active; its last use is now. ErrNotFound for a session
// ended, idle too long, too old, or another tenant's.
func (s *Store) SessionByToken(ctx context.Context, tenantID uuid.UUID, tokenHash []byte) (Session, error) {
	var ses Session
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &ses, `SELECT staff_id, csrf, created_at, seen_at FROM public.console_session($1, $2)`, tenantID, tokenHash); err != nil {
			return err
		}
		ses.TenantID = tenantID
		var err error
		ses.Staff, err = byID[Staff](ctx, tx, "staff", staffCols, tenantID, ses.StaffID)
		return err
	})
	return ses, err
}

// EndSession ends the session whose cookie hashes to tokenHash (signing
// out), and with everywhere every session of its staff member (signing
// out everywhere).
func (s *Store) EndSession(ctx context.Context, tenantID uuid.UUID, tokenHash []byte, everywhere bool) error {
	return s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `SELECT public.console_session_end($1, $2, $3)`, tenantID, tokenHash, everywhere)
		return err
	})
}

// Lock-out: from the MaxSignInFailures-th wrong sign-in in a row for an
// address from one client, that address is locked for that client for
// LockOut, and each further attempt while locked locks it again (the
// console's functions hold the same figures: TestConsoleTimesAsDeclared).
const (
	MaxSignInFailures = 5
	LockOut           = 15 * time.Minute
)

// SignInAttempt is a sign-in's first half: counted as a failure of its
// guard before anything is verified. Locked: the guard is locked out, and
// nothing is verified. Otherwise, when the address has an account that
// signs in, its id and what verifies it.
type SignInAttempt struct {
	Locked       bool       `db:"locked"`
	StaffID      *uuid.UUID `db:"staff_id"`
	PasswordHash *string    `db:"password_hash"`
	TOTPKeyID    *string    `db:"totp_key_id"`
	TOTPSealed   []byte     `db:"totp_sealed"`
	TOTPStep     *int64     `db:"totp_step"`
	AuditID      *uuid.UUID `db:"audit_id"`
}

// SignInBegin begins a sign-in with an address, from the client guard
// names (signin.Key.Guard).
func (s *Store) SignInBegin(ctx context.Context, tenantID uuid.UUID, email string, guard []byte) (SignInAttempt, error) {
	var a SignInAttempt
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		return tx.GetContext(ctx, &a, `SELECT locked, staff_id, password_hash, totp_key_id, totp_sealed, totp_step, audit_id
			FROM public.console_signin_begin($1, $2, $3)`, tenantID, email, guard)
	})
	return a, err
}

// SignedIn ends a verified sign-in: its code's TOTP step spent (a code is
// good once), the guard cleared, the attempt audited as a sign-in, and the
// session begun. ErrNotFound when the step may not be spent (the code
// replayed meanwhile): the attempt stays a failure.
func (s *Store) SignedIn(ctx context.Context, tenantID uuid.UUID, guard []byte, a SignInAttempt, step int64, ses NewSession) error {
	if a.StaffID == nil || a.AuditID == nil {
		return ErrNotFound
	}
	return s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		var ok bool
		if err := tx.GetContext(ctx, &ok, `SELECT public.console_signin_end($1, $2, $3, $4, $5, $6, $7)`,
			tenantID, guard, *a.StaffID, *a.AuditID, step, ses.TokenHash, ses.CSRF); err != nil {
			return err
		}
		if !ok {
			return ErrNotFound
		}
		return nil
	})
}

// PruneSignInGuards forgets every tenant's sign-in guards untouched for a
// day (the housekeeping schedule's; the worker's role, through
// staff_signin_guard_prune).
func (s *Store) PruneSignInGuards(ctx context.Context) (int64, error) {
	var n int64
	err := s.db.GetContext(ctx, &n, `SELECT staff_signin_guard_prune()`)
	return n, classify(err)
}
