package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/signin"
	"github.com/kycflow/kycflow/store"
)

// Staff are per tenant: one address once per tenant, an invitation found
// only by its own token on its own tenant, used once, and a disabled
// member's invitations dead. Another tenant's transaction sees none of it,
// whatever it asks.
func TestStaffAccounts(t *testing.T) {
	ctx := context.Background()
	admin, app := open(t, ownerDSN), open(t, appDSN)
	a, b := newTenant(t, admin, "staff-a.example"), newTenant(t, admin, "staff-b.example")
	token, hash, _ := signin.NewToken()
	ana, err := admin.CreateStaff(ctx, a.ID, "ana@a.example", check.RoleAdmin, hash)
	if err != nil || ana.Status != check.StaffInvited || ana.PasswordHash != nil {
		t.Fatalf("create: %+v %v", ana, err)
	}
	if _, err := app.CreateStaff(ctx, a.ID, "ana@a.example", check.RoleViewer, []byte("other")); !errors.Is(err, store.ErrStaffExists) {
		t.Fatalf("the same address twice: %v", err)
	}
	_, hashB, _ := signin.NewToken()
	if _, err := app.CreateStaff(ctx, b.ID, "ana@a.example", check.RoleViewer, hashB); err != nil {
		t.Fatalf("the same address on another tenant: %v", err)
	}
	if list, err := app.ListStaff(ctx, b.ID); err != nil || len(list) != 1 || list[0].Role != check.RoleViewer {
		t.Fatalf("tenant b's staff: %+v %v", list, err)
	}

	// The invitation: on its tenant only, by its token only.
	if _, err := app.Invitation(ctx, b.ID, signin.HashToken(token)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a's invitation on b's host: %v", err)
	}
	if _, err := app.Invitation(ctx, a.ID, signin.HashToken(token+"x")); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a guessed token: %v", err)
	}
	if st, err := app.Invitation(ctx, a.ID, signin.HashToken(token)); err != nil || st.ID != ana.ID {
		t.Fatalf("the invitation: %+v %v", st, err)
	}
	e := store.Enrolment{PasswordHash: "$argon2id$…", TOTPKeyID: "k1", TOTPSealed: []byte("sealed"), TOTPStep: 42}
	if _, err := app.AcceptInvitation(ctx, b.ID, hash, e); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("accepted on another tenant: %v", err)
	}
	st, err := app.AcceptInvitation(ctx, a.ID, hash, e)
	if err != nil || st.Status != check.StaffActive || *st.PasswordHash != e.PasswordHash || st.TOTPStep != 42 {
		t.Fatalf("accept: %+v %v", st, err)
	}
	if _, err := app.AcceptInvitation(ctx, a.ID, hash, e); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an invitation used twice: %v", err)
	}
	if _, err := app.Reinvite(ctx, a.ID, "ana@a.example", []byte("again")); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("an active member reinvited: %v", err)
	}

	// A member invited, reinvited (the first link dies), then disabled
	// (the second dies too).
	first, firstHash, _ := signin.NewToken()
	if _, err := app.CreateStaff(ctx, a.ID, "bo@a.example", check.RoleReviewer, firstHash); err != nil {
		t.Fatal(err)
	}
	second, secondHash, _ := signin.NewToken()
	if _, err := app.Reinvite(ctx, a.ID, "bo@a.example", secondHash); err != nil {
		t.Fatal(err)
	}
	if _, err := app.Invitation(ctx, a.ID, signin.HashToken(first)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the first invitation after a second: %v", err)
	}
	if _, err := app.DisableStaff(ctx, a.ID, "bo@a.example"); err != nil {
		t.Fatal(err)
	}
	if _, err := app.Invitation(ctx, a.ID, signin.HashToken(second)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a disabled member's invitation: %v", err)
	}
	if _, err := app.DisableStaff(ctx, b.ID, "bo@a.example"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a's member disabled through b: %v", err)
	}

	// Under b's tenant setting, a's rows do not exist for the api's role.
	var n int
	tx := app.DB().MustBegin()
	defer tx.Rollback() //nolint:errcheck
	tx.MustExec(`SELECT set_config('app.tenant_id', $1, true)`, b.ID.String())
	if err := tx.Get(&n, `SELECT count(*) FROM staff WHERE tenant_id = $1`, a.ID); err != nil || n != 0 {
		t.Fatalf("a's staff seen from b: %d %v", n, err)
	}
	if res, err := tx.Exec(`UPDATE staff SET role = 'admin' WHERE email = 'bo@a.example'`); err != nil {
		t.Fatal(err)
	} else if rows, _ := res.RowsAffected(); rows != 0 {
		t.Fatalf("b's transaction changed %d of a's staff", rows)
	}
	if _, err := tx.Exec(`INSERT INTO staff (id, tenant_id, email, role, status, created_at, updated_at) VALUES ($1, $2, 'eve@a.example', 'admin', 'active', now(), now())`,
		store.NewID(), a.ID); err == nil {
		t.Fatal("b's transaction added an admin to a")
	}
	sessions(t, admin, app, st, b.ID)
}

// sessions tries an active member's sessions: found by their own token on
// their own tenant only, ended by signing out, by signing out everywhere,
// by 30 idle minutes and by 12 hours whatever the use, and by disabling
// the member.
func sessions(t *testing.T, admin, app *store.Store, st store.Staff, other uuid.UUID) {
	t.Helper()
	ctx := context.Background()
	begin := func() []byte {
		_, hash, _ := signin.NewToken()
		if err := app.CreateSession(ctx, st.TenantID, st.ID, hash, "csrf"); err != nil {
			t.Fatal(err)
		}
		return hash
	}
	live := func(hash []byte) bool {
		ses, err := app.SessionByToken(ctx, st.TenantID, hash)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			t.Fatal(err)
		}
		return err == nil && ses.Staff.ID == st.ID && ses.CSRF == "csrf"
	}
	h := begin()
	if !live(h) {
		t.Fatal("a new session is not live")
	}
	if _, err := app.SessionByToken(ctx, other, h); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the session on another tenant's host: %v", err)
	}
	if err := app.EndSession(ctx, st.TenantID, h); err != nil || live(h) {
		t.Fatalf("signed out, still live (%v)", err)
	}
	for _, age := range []string{`seen_at = now() - interval '31 minutes'`, `created_at = now() - interval '13 hours', seen_at = now()`} {
		h := begin()
		admin.DB().MustExec(`UPDATE staff_sessions SET `+age+` WHERE token_hash = $1`, h)
		if live(h) {
			t.Errorf("a session with %s is live", age)
		}
	}
	h1, h2 := begin(), begin()
	if err := app.EndSessions(ctx, st.TenantID, st.ID); err != nil || live(h1) || live(h2) {
		t.Fatalf("signed out everywhere, still live (%v)", err)
	}
	h = begin()
	if _, err := app.DisableStaff(ctx, st.TenantID, st.Email); err != nil || live(h) {
		t.Fatalf("disabled, still live (%v)", err)
	}
	if _, hash, _ := signin.NewToken(); !errors.Is(app.CreateSession(ctx, st.TenantID, st.ID, hash, "csrf"), store.ErrNotFound) {
		t.Fatal("a session begun for a disabled member")
	}
}
