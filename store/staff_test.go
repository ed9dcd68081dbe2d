package store_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/signin"
	"github.com/kycflow/kycflow/store"
)

// staffKey is the tests' STAFF_KEY.
var staffKey = func() *signin.Key {
	k, err := signin.NewKey(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		panic(err)
	}
	return k
}()

// member is an invited staff member (invited by the operator), enrolled
// through the console's function: active, signed in. It returns the
// member and their session's hash.
func member(t *testing.T, admin, app *store.Store, tenant uuid.UUID, email string, role check.Role) (store.Staff, []byte) {
	t.Helper()
	_, invitation, _ := staffKey.NewToken()
	if _, err := admin.CreateStaff(t.Context(), tenant, email, role, invitation); err != nil {
		t.Fatal(err)
	}
	_, session, _ := staffKey.NewToken()
	st, err := app.AcceptInvitation(t.Context(), tenant, invitation, store.Enrolment{PasswordHash: "$argon2id$…", TOTPKeyID: "k1",
		TOTPSealed: []byte("sealed"), TOTPStep: signin.Step(time.Now()), Session: store.NewSession{TokenHash: session, CSRF: "csrf"}})
	if err != nil {
		t.Fatal(err)
	}
	return st, session
}

// Staff are per tenant: one address once per tenant, an invitation found
// only by its own token on its own tenant, used once, and a disabled
// member's invitations dead. Another tenant's transaction sees none of it,
// whatever it asks.
func TestStaffAccounts(t *testing.T) {
	ctx := context.Background()
	admin, app := open(t, ownerDSN), open(t, appDSN)
	a, b := newTenant(t, admin, "staff-a.example"), newTenant(t, admin, "staff-b.example")
	token, hash, _ := staffKey.NewToken()
	ana, err := admin.CreateStaff(ctx, a.ID, "ana@a.example", check.RoleAdmin, hash)
	if err != nil || ana.Status != check.StaffInvited {
		t.Fatalf("create: %+v %v", ana, err)
	}
	if _, err := admin.CreateStaff(ctx, a.ID, "ana@a.example", check.RoleViewer, []byte("other")); !errors.Is(err, store.ErrStaffExists) {
		t.Fatalf("the same address twice: %v", err)
	}
	_, hashB, _ := staffKey.NewToken()
	if _, err := admin.CreateStaff(ctx, b.ID, "ana@a.example", check.RoleViewer, hashB); err != nil {
		t.Fatalf("the same address on another tenant: %v", err)
	}
	if list, err := app.ListStaff(ctx, b.ID); err != nil || len(list) != 1 || list[0].Role != check.RoleViewer {
		t.Fatalf("tenant b's staff: %+v %v", list, err)
	}

	// The invitation: on its tenant only, by its token only.
	if _, err := app.Invitation(ctx, b.ID, staffKey.HashToken(token)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a's invitation on b's host: %v", err)
	}
	if _, err := app.Invitation(ctx, a.ID, staffKey.HashToken(token+"x")); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a guessed token: %v", err)
	}
	if st, err := app.Invitation(ctx, a.ID, staffKey.HashToken(token)); err != nil || st.ID != ana.ID {
		t.Fatalf("the invitation: %+v %v", st, err)
	}
	_, session, _ := staffKey.NewToken()
	e := store.Enrolment{PasswordHash: "$argon2id$…", TOTPKeyID: "k1", TOTPSealed: []byte("sealed"), TOTPStep: signin.Step(time.Now()),
		Session: store.NewSession{TokenHash: session, CSRF: "csrf"}}
	if _, err := app.AcceptInvitation(ctx, b.ID, hash, e); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("accepted on another tenant: %v", err)
	}
	stale := e
	stale.TOTPStep -= 3
	if _, err := app.AcceptInvitation(ctx, a.ID, hash, stale); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("accepted with a code of 90 seconds ago: %v", err)
	}
	st, err := app.AcceptInvitation(ctx, a.ID, hash, e)
	if err != nil || st.Status != check.StaffActive {
		t.Fatalf("accept: %+v %v", st, err)
	}
	if ses, err := app.SessionByToken(ctx, a.ID, session); err != nil || ses.StaffID != st.ID {
		t.Fatalf("the enrolment's session: %+v %v", ses, err)
	}
	if _, err := app.AcceptInvitation(ctx, a.ID, hash, e); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an invitation used twice: %v", err)
	}
	if _, err := admin.Reinvite(ctx, a.ID, "ana@a.example", []byte("again")); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("an active member reinvited: %v", err)
	}

	// An admin's changes through the console: a member invited,
	// reinvited (the first link dies), given a role, then disabled (the
	// second link dies too); none of it through b.
	by := store.Actor{TenantID: a.ID, Session: session}
	first, firstHash, _ := staffKey.NewToken()
	bo, err := app.ChangeStaff(ctx, by, store.StaffInvite, uuid.Nil, "bo@a.example", check.RoleReviewer, firstHash)
	if err != nil || bo.Status != check.StaffInvited || bo.Role != check.RoleReviewer {
		t.Fatalf("invite: %+v %v", bo, err)
	}
	if _, err := app.ChangeStaff(ctx, by, store.StaffInvite, uuid.Nil, "bo@a.example", check.RoleViewer, []byte("x")); !errors.Is(err, store.ErrStaffExists) {
		t.Fatalf("an address invited twice: %v", err)
	}
	second, secondHash, _ := staffKey.NewToken()
	if _, err := app.ChangeStaff(ctx, by, store.StaffReinvite, bo.ID, "", "", secondHash); err != nil {
		t.Fatal(err)
	}
	if _, err := app.Invitation(ctx, a.ID, staffKey.HashToken(first)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the first invitation after a second: %v", err)
	}
	if _, err := app.ChangeStaff(ctx, by, store.StaffReinvite, st.ID, "", "", []byte("y")); !errors.Is(err, store.ErrNotAllowed) {
		t.Fatalf("an admin reinviting themselves: %v", err)
	}
	if got, err := app.ChangeStaff(ctx, by, store.StaffRole, bo.ID, "", check.RoleSupport, nil); err != nil || got.Role != check.RoleSupport {
		t.Fatalf("role: %+v %v", got, err)
	}
	if _, err := app.ChangeStaff(ctx, store.Actor{TenantID: b.ID, Session: session}, store.StaffDisable, bo.ID, "", "", nil); !errors.Is(err, store.ErrNotAllowed) {
		t.Fatalf("a's member disabled through b: %v", err)
	}
	if got, err := app.ChangeStaff(ctx, by, store.StaffDisable, bo.ID, "", "", nil); err != nil || got.Status != check.StaffDisabled {
		t.Fatalf("disable: %+v %v", got, err)
	}
	if _, err := app.Invitation(ctx, a.ID, staffKey.HashToken(second)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a disabled member's invitation: %v", err)
	}
	if _, err := app.ChangeStaff(ctx, by, store.StaffRole, bo.ID, "", check.RoleAdmin, nil); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a disabled member's role changed: %v", err)
	}

	// Under b's tenant setting, a's rows do not exist for the api's role.
	var n int
	tx := app.DB().MustBegin()
	defer tx.Rollback() //nolint:errcheck
	tx.MustExec(`SELECT set_config('app.tenant_id', $1, true)`, b.ID.String())
	if err := tx.Get(&n, `SELECT count(*) FROM staff WHERE tenant_id = $1`, a.ID); err != nil || n != 0 {
		t.Fatalf("a's staff seen from b: %d %v", n, err)
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
	begin := func() []byte { // as the operator: sessions begin with a sign-in, and codes are good once
		_, hash, _ := staffKey.NewToken()
		admin.DB().MustExec(`INSERT INTO staff_sessions (token_hash, tenant_id, staff_id, csrf, created_at, seen_at) VALUES ($1, $2, $3, 'csrf', now(), now())`,
			hash, st.TenantID, st.ID)
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
	if err := app.EndSession(ctx, st.TenantID, h, false); err != nil || live(h) {
		t.Fatalf("signed out, still live (%v)", err)
	}
	for _, age := range []string{`seen_at = now() - interval '31 minutes'`, `created_at = now() - interval '13 hours', seen_at = now()`} {
		h := begin()
		admin.DB().MustExec(`UPDATE staff_sessions SET `+age+` WHERE token_hash = $1`, h)
		if live(h) {
			t.Errorf("a session with %s is live", age)
		}
	}
	h1, h2, h3 := begin(), begin(), begin()
	if err := app.EndSession(ctx, st.TenantID, h3, true); err != nil || live(h1) || live(h2) || live(h3) {
		t.Fatalf("signed out everywhere, still live (%v)", err)
	}
	h = begin()
	if _, err := admin.DisableStaff(ctx, st.TenantID, st.Email); err != nil || live(h) {
		t.Fatalf("disabled, still live (%v)", err)
	}
}

// SQL as the api's role, with any tenant set, forges no console
// credential: it can neither write staff, invitations or sessions nor
// read their hashes or the accounts' secrets, and what the console's
// functions let it write opens nothing — a session row with a hash of a
// token it chose is no session for that token (the hash is keyed with
// STAFF_KEY), an invitation it cannot make, a role or status it cannot
// change, a disabled account it cannot bring back.
func TestConsoleCredentialsNotForgeable(t *testing.T) {
	ctx := context.Background()
	admin, app := open(t, ownerDSN), open(t, appDSN)
	tn := newTenant(t, admin, "forge.example")
	boss, bossSession := member(t, admin, app, tn.ID, "boss@forge.example", check.RoleAdmin)
	eve, eveSession := member(t, admin, app, tn.ID, "eve@forge.example", check.RoleViewer)
	gone, _ := member(t, admin, app, tn.ID, "gone@forge.example", check.RoleReviewer)
	if _, err := admin.DisableStaff(ctx, tn.ID, gone.Email); err != nil {
		t.Fatal(err)
	}
	const chosen = "a token the attacker chose"
	plain := sha256.Sum256([]byte(chosen))
	id := tn.ID.String()
	// as runs stmt as the api's own login, the tenant set, and returns
	// the SQLSTATE it failed with ("" when it ran).
	as := func(stmt string, args ...any) string {
		t.Helper()
		tx, err := app.DB().Begin()
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback() //nolint:errcheck
		tx.Exec(`SELECT set_config('app.tenant_id', $1, true)`, id)
		_, err = tx.Exec(stmt, args...)
		var pqErr *pq.Error
		if errors.As(err, &pqErr) {
			return string(pqErr.Code)
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		return ""
	}
	for _, stmt := range []string{
		`INSERT INTO staff_sessions (token_hash, tenant_id, staff_id, csrf, created_at, seen_at) VALUES ('\x` + fmt.Sprintf("%x", plain) + `', '` + id + `', '` + boss.ID.String() + `', 'c', now(), now())`,
		`INSERT INTO staff_invitations (token_hash, tenant_id, staff_id, expires_at) VALUES ('\x00', '` + id + `', '` + eve.ID.String() + `', now() + interval '1 day')`,
		`INSERT INTO staff (id, tenant_id, email, role, status, created_at, updated_at) VALUES (gen_random_uuid(), '` + id + `', 'mallory@forge.example', 'admin', 'invited', now(), now())`,
		`UPDATE staff SET role = 'admin' WHERE id = '` + eve.ID.String() + `'`,
		`UPDATE staff SET status = 'active' WHERE id = '` + gone.ID.String() + `'`,
		`UPDATE staff SET password_hash = 'mine', totp_step = 0 WHERE id = '` + boss.ID.String() + `'`,
		`UPDATE staff_sessions SET ended_at = NULL, seen_at = now()`,
		`UPDATE staff_invitations SET used_at = NULL`,
		`DELETE FROM staff_sessions`,
		`SELECT token_hash FROM staff_sessions`,
		`SELECT token_hash FROM staff_invitations`,
		`SELECT password_hash FROM staff`,
		`SELECT totp_sealed FROM staff`,
		`SELECT * FROM staff_signin_guard`,
		`UPDATE staff_signin_guard SET failures = 0, locked_until = NULL`,
	} {
		if code := as(stmt); code != insufficientPrivilege {
			t.Errorf("as %s: %s: SQLSTATE %q, want permission denied", store.AppRole, stmt, code)
		}
	}
	// The functions: an admin's change needs an admin's live session —
	// not a guessed hash, not a viewer's, not a change of one's own.
	for _, actor := range [][]byte{plain[:], eveSession, bytes.Repeat([]byte{0}, 32)} {
		for _, change := range []string{
			`SELECT console_staff_change($1, $2, 'invite', NULL, 'mallory@forge.example', 'admin', '\x00')`,
			`SELECT console_staff_change($1, $2, 'role', '` + eve.ID.String() + `', NULL, 'admin', NULL)`,
			`SELECT console_staff_change($1, $2, 'disable', '` + boss.ID.String() + `', NULL, NULL, NULL)`,
		} {
			if code := as(change, tn.ID, actor); code != insufficientPrivilege {
				t.Errorf("%s by %x: SQLSTATE %q, want insufficient_privilege", change, actor[:4], code)
			}
		}
	}
	if code := as(`SELECT console_staff_change($1, $2, 'role', $3, NULL, 'viewer', NULL)`, tn.ID, bossSession, boss.ID); code != insufficientPrivilege {
		t.Errorf("an admin changing their own role: SQLSTATE %q", code)
	}
	// What the sign-in's second half lets anyone write: a session of the
	// admin's with the plain hash of a chosen token, one of the viewer's
	// with its keyed hash under another key; neither is a session of that
	// token.
	other, _ := signin.NewKey(bytes.Repeat([]byte{8}, 32))
	step := signin.Step(time.Now())
	for _, f := range []struct {
		staff uuid.UUID
		hash  []byte
	}{{boss.ID, plain[:]}, {eve.ID, other.HashToken(chosen)}} {
		var ok bool
		if err := app.DB().QueryRow(`SELECT console_signin_end($1, $2, $3, $4, $5, $6, 'c')`, tn.ID, make([]byte, 32), f.staff, uuid.New(), step+1, f.hash).Scan(&ok); err != nil || !ok {
			t.Fatalf("the second half, called directly: %v %v", ok, err)
		}
	}
	if _, err := app.SessionByToken(ctx, tn.ID, staffKey.HashToken(chosen)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the attacker's chosen token opens a session: %v", err)
	}
	// An invitation needs a hash the attacker cannot know: enrolment with
	// one it made up finds nothing.
	var enrolled *uuid.UUID
	if err := app.DB().QueryRow(`SELECT console_enrol($1, $2, 'h', 'k', '\x00', $3, $4, 'c')`, tn.ID, staffKey.HashToken(chosen), step, plain[:]).Scan(&enrolled); err != nil || enrolled != nil {
		t.Fatalf("enrolled with a made-up invitation: %v %v", enrolled, err)
	}
	// Afterwards: the roles and statuses as they were, no account added.
	all, err := admin.ListStaff(ctx, tn.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, st := range all {
		got[st.Email] = string(st.Role) + " " + st.Status
	}
	want := map[string]string{"boss@forge.example": "admin active", "eve@forge.example": "viewer active", "gone@forge.example": "reviewer disabled"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("staff afterwards: %v, want %v", got, want)
	}
}

// The lock-out counts an attempt before it is verified: of 40 attempts
// sent together for one address from one client, five go on to be
// verified and the rest find it locked. The same address from another
// client, and an address without an account, are counted alike and
// apart.
func TestSignInReservedBeforeVerifying(t *testing.T) {
	ctx := context.Background()
	admin, app := open(t, ownerDSN), open(t, appDSN)
	tn := newTenant(t, admin, "lockout.example")
	st, _ := member(t, admin, app, tn.ID, "ana@lockout.example", check.RoleReviewer)
	burst := func(email, client string) (verified, locked int) {
		guard := staffKey.Guard(tn.ID.String(), email, client)
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range 40 {
			wg.Go(func() {
				a, err := app.SignInBegin(ctx, tn.ID, email, guard)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				if a.Locked {
					locked++
				} else {
					verified++
					if email == st.Email && (a.StaffID == nil || *a.StaffID != st.ID || a.PasswordHash == nil || a.AuditID == nil) {
						t.Errorf("an attempt not locked without the account: %+v", a)
					}
				}
			})
		}
		wg.Wait()
		return verified, locked
	}
	for _, c := range []struct{ email, client string }{
		{st.Email, "192.0.2.1"}, {st.Email, "192.0.2.2"}, {"nobody@lockout.example", "192.0.2.1"},
	} {
		if v, l := burst(c.email, c.client); v != store.MaxSignInFailures || l != 40-store.MaxSignInFailures {
			t.Errorf("%s from %s: %d verified, %d locked; want %d verified", c.email, c.client, v, l, store.MaxSignInFailures)
		}
	}
	// The account's failed attempts are audited; a guard is no address
	// and no client in clear.
	var audited int
	if err := admin.DB().Get(&audited, `SELECT count(*) FROM audit_log WHERE tenant_id = $1 AND action = 'staff.sign_in_failed' AND staff_id = $2`, tn.ID, st.ID); err != nil || audited != 2*store.MaxSignInFailures {
		t.Errorf("failed sign-ins audited: %d %v", audited, err)
	}
	var dump string
	if err := admin.DB().Get(&dump, `SELECT string_agg(key::text || encode(key, 'escape'), ' ') FROM staff_signin_guard WHERE tenant_id = $1`, tn.ID); err != nil {
		t.Fatal(err)
	}
	for _, clear := range []string{"ana@", "192.0.2.1", "nobody"} {
		if strings.Contains(dump, clear) || strings.Contains(dump, fmt.Sprintf("%x", clear)) {
			t.Errorf("a guard holds %q in clear", clear)
		}
	}
	// A sign-in that succeeds clears its guard.
	guard := staffKey.Guard(tn.ID.String(), st.Email, "192.0.2.3")
	a, err := app.SignInBegin(ctx, tn.ID, st.Email, guard)
	if err != nil {
		t.Fatal(err)
	}
	_, ses, _ := staffKey.NewToken()
	if err := app.SignedIn(ctx, tn.ID, guard, a, signin.Step(time.Now())+1, store.NewSession{TokenHash: ses, CSRF: "c"}); err != nil {
		t.Fatal(err)
	}
	if err := app.SignedIn(ctx, tn.ID, guard, a, signin.Step(time.Now())+1, store.NewSession{TokenHash: []byte("x"), CSRF: "c"}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a code's step spent twice: %v", err)
	}
	var failures int
	if err := admin.DB().Get(&failures, `SELECT failures FROM staff_signin_guard WHERE tenant_id = $1 AND key = $2`, tn.ID, guard); err != nil || failures != 0 {
		t.Fatalf("after a sign-in the guard counts %d (%v)", failures, err)
	}
	if n, err := open(t, workerDSN).PruneSignInGuards(ctx); err != nil || n != 0 {
		t.Fatalf("prune of fresh guards: %d %v", n, err)
	}
	admin.DB().MustExec(`UPDATE staff_signin_guard SET updated_at = now() - interval '25 hours' WHERE tenant_id = $1`, tn.ID)
	if n, err := open(t, workerDSN).PruneSignInGuards(ctx); err != nil || n != 4 {
		t.Fatalf("prune of day-old guards: %d %v", n, err)
	}
}

// The lifetimes and limits the console's functions hold in SQL are the
// ones the Go code says (and the docs quote).
func TestConsoleTimesAsDeclared(t *testing.T) {
	src, err := os.ReadFile("migrations/00027_console_credentials.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		fmt.Sprintf("interval '%d minutes'", int(store.SessionIdle.Minutes())),
		fmt.Sprintf("interval '%d hours'", int(store.SessionAbsolute.Hours())),
		fmt.Sprintf("interval '%d minutes'", int(store.LockOut.Minutes())),
		fmt.Sprintf("interval '%d hours'", int(store.InvitationTTL.Hours())),
		fmt.Sprintf(">= %d", store.MaxSignInFailures),
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the console's functions do not say %q", want)
		}
	}
	if !regexp.MustCompile(`/ 30\)`).Match(src) {
		t.Error("the functions' TOTP step is not 30 seconds")
	}
}
