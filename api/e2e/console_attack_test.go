package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/kycflow/kycflow/api"
	"github.com/kycflow/kycflow/api/console"
	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/signin"
)

// SQL as the api's role, then the console: a session row written for the
// tenant's admin with the plain hash of a token the attacker chose is no
// session for that token — the console sends it to the sign-in page, on
// every page and for a document's photo — and an invitation it writes
// cannot be written.
func TestConsoleForgedWithSQL(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	tn, err := newTenant(ctx, "Console Forge", "console-"+uuid.NewString()[:8]+".test")
	if err != nil {
		t.Fatal(err)
	}
	boss := staffOn(t, tn, "boss@forge.test", check.RoleAdmin)
	st, err := env.admin.StaffByEmail(ctx, uuid.MustParse(tn.id), "boss@forge.test")
	if err != nil {
		t.Fatal(err)
	}
	db, err := sqlx.Open("postgres", env.appDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const chosen = "eve-chose-this-token-of-forty-three-chars-x"
	plain := sha256.Sum256([]byte(chosen))
	var ok bool
	if err := db.QueryRowContext(ctx, `SELECT console_signin_end($1, $2, $3, $4, $5, $6, 'c')`, tn.id, make([]byte, 32), st.ID, uuid.New(),
		signin.Step(time.Now())+1, plain[:]).Scan(&ok); err != nil || !ok {
		t.Fatalf("the attacker's session row: %v %v", ok, err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO staff_invitations (token_hash, tenant_id, staff_id, expires_at) VALUES ($1, $2, $3, now() + interval '1 day')`,
		plain[:], tn.id, st.ID); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Fatalf("the attacker's invitation: %v", err)
	}
	eve := newStaffBrowser(t, tn.host)
	eve.cookies["__Host-kycflow-console"] = chosen
	for _, path := range []string{"/console", "/console/staff", "/console/checks/" + uuid.NewString() + "/images/1/photo"} {
		if code, _, h := eve.do(http.MethodGet, path, nil, ""); code != http.StatusSeeOther || h.Get("Location") != "/console/sign-in" {
			t.Errorf("GET %s with the forged cookie: %d %v", path, code, h.Get("Location"))
		}
	}
	if code, _, _ := eve.do(http.MethodGet, "/console/invite/"+chosen, nil, ""); code != http.StatusNotFound {
		t.Errorf("an invitation of the attacker's: %d", code)
	}
	// The admin's own session is untouched.
	if code, _, _ := boss.do(http.MethodGet, "/console/staff", nil, ""); code != http.StatusOK {
		t.Fatalf("the admin's own session: %d", code)
	}
}

// Every address answers a wrong sign-in alike — one with an active
// account, one with none, an invited one, a disabled one: the same status
// and the same page, word for word.
func TestConsoleSameAnswers(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	tn, err := newTenant(ctx, "Console Answers", "console-"+uuid.NewString()[:8]+".test")
	if err != nil {
		t.Fatal(err)
	}
	staffOn(t, tn, "active@answers.test", check.RoleReviewer)
	_, hash, _ := staffKey.NewToken()
	if _, err := env.admin.CreateStaff(ctx, uuid.MustParse(tn.id), "invited@answers.test", check.RoleReviewer, hash); err != nil {
		t.Fatal(err)
	}
	staffOn(t, tn, "disabled@answers.test", check.RoleReviewer)
	if _, err := env.admin.DisableStaff(ctx, uuid.MustParse(tn.id), "disabled@answers.test"); err != nil {
		t.Fatal(err)
	}
	strip := regexp.MustCompile(`name="csrf" value="[^"]+"|value="[a-z]+@answers.test"`)
	var first string
	for _, addr := range []string{"active@answers.test", "nobody@answers.test", "invited@answers.test", "disabled@answers.test", "not an address"} {
		b := newStaffBrowser(t, tn.host)
		code, body := b.signIn(addr, "a long enough wrong password", "123456")
		body = strip.ReplaceAllString(strings.ReplaceAll(body, `value="not an address"`, ""), "")
		if code != http.StatusUnauthorized {
			t.Errorf("%s: %d", addr, code)
		}
		if first == "" {
			first = body
		} else if body != first {
			t.Errorf("%s answers otherwise than active@answers.test", addr)
		}
	}
}

// consoleServer is an API server of its own with the console and real
// page budgets, for the attacks that need them.
func consoleServer(t *testing.T, limits api.Limits) string {
	t.Helper()
	pub, err := url.Parse(env.publicURL)
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	con, err := console.New(console.Config{Store: env.app, Log: quiet, Key: hex.EncodeToString(staffRaw), PublicURL: pub})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.New(api.Config{Store: env.app, Logger: quiet, Limits: limits, Console: con}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// Forty wrong sign-ins sent together from one address: no more are
// served than the address's failure budget (each reserves a failure
// before it is served), and no more than five are verified (each counts
// against the lock-out before its password is).
func TestConsoleSignInBurst(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	tn, err := newTenant(ctx, "Console Burst", "console-"+uuid.NewString()[:8]+".test")
	if err != nil {
		t.Fatal(err)
	}
	staffOn(t, tn, "target@burst.test", check.RoleAdmin)
	const budget = 10
	base := consoleServer(t, api.Limits{Verify: 1000, VerifyFailures: budget})
	attacker := newStaffBrowser(t, tn.host)
	attacker.base, attacker.from = base, "127.0.0.9"
	csrf, _ := attacker.form("/console/sign-in")
	var mu sync.Mutex
	var wg sync.WaitGroup
	statuses := map[int]int{}
	start := time.Now()
	for i := range 40 {
		wg.Go(func() {
			b := &staffBrowser{t: t, host: tn.host, cookies: map[string]string{"__Host-kycflow-form": csrf}, base: base, from: attacker.from}
			code, _, _ := b.do(http.MethodPost, "/console/sign-in", url.Values{"csrf": {csrf}, "email": {"target@burst.test"},
				"password": {"wrong guess number " + strconv.Itoa(i)}, "code": {"000000"}}, "")
			mu.Lock()
			statuses[code]++
			mu.Unlock()
		})
	}
	wg.Wait()
	// The budget refills at its rate meanwhile (a slow machine takes
	// longer over the forty): one more a six seconds.
	allowed := budget + int(time.Since(start).Seconds()*budget/60)
	if served := 40 - statuses[http.StatusTooManyRequests]; served > allowed || statuses[http.StatusUnauthorized] != served {
		t.Errorf("of 40 sent together: %v; want at most %d served, each a 401", statuses, allowed)
	}
	var verified int
	if err := env.admin.DB().GetContext(ctx, &verified, `SELECT count(*) FROM audit_log l JOIN staff s ON s.id = l.staff_id
		WHERE l.tenant_id = $1 AND s.email = 'target@burst.test' AND l.action = 'staff.sign_in_failed'`, tn.id); err != nil {
		t.Fatal(err)
	}
	if verified > 5 || verified == 0 {
		t.Errorf("%d of the burst's passwords verified, want 1 to 5", verified)
	}
}
