package e2e

import (
	"encoding/base32"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/signin"
)

// staffBrowser is a staff member's browser on one tenant's host: it keeps the
// console's cookies (__Host- cookies are Secure, which Go's cookie jar
// would not send over the suite's plain loopback HTTP) and sends Origin
// with every POST, as browsers do.
type staffBrowser struct {
	t       *testing.T
	host    string
	cookies map[string]string
	lang    string
	// from is the loopback address it connects from ("": the system's
	// choice, 127.0.0.1): another client to the server's limits.
	from string
	// base is the server it talks to ("": the suite's API).
	base string
}

func newStaffBrowser(t *testing.T, host string) *staffBrowser {
	return &staffBrowser{t: t, host: host, cookies: map[string]string{}}
}

// do sends a request; origin "" sends the host's own.
func (b *staffBrowser) do(method, path string, form url.Values, origin string) (int, string, http.Header) {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	base := env.apiURL
	if b.base != "" {
		base = b.base
	}
	req, err := http.NewRequest(method, base+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	req.Host = b.host
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if origin == "" {
			origin = "http://" + b.host
		}
		req.Header.Set("Origin", origin)
	}
	if b.lang != "" {
		req.Header.Set("Accept-Language", b.lang)
	}
	for k, v := range b.cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if b.from != "" {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(b.from)}}
		client.Transport = &http.Transport{DialContext: d.DialContext}
	}
	resp, err := client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	for _, c := range resp.Cookies() {
		if !c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || !strings.HasPrefix(c.Name, "__Host-") {
			b.t.Errorf("cookie %s: %+v", c.Name, c)
		}
		if c.MaxAge < 0 {
			delete(b.cookies, c.Name)
		} else {
			b.cookies[c.Name] = c.Value
		}
	}
	return resp.StatusCode, string(raw), resp.Header
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// form fetches a page and returns its form's CSRF token.
func (b *staffBrowser) form(path string) (string, string) {
	b.t.Helper()
	code, page, h := b.do(http.MethodGet, path, nil, "")
	if code != http.StatusOK {
		b.t.Fatalf("GET %s: %d %s", path, code, page)
	}
	if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "frame-ancestors 'none'") ||
		strings.Contains(csp, "unsafe-inline") || strings.Contains(page, "<script") || strings.Contains(page, "style=") {
		b.t.Fatalf("GET %s: CSP %q, inline script or style in the page", path, csp)
	}
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		b.t.Fatalf("GET %s: no csrf field in %s", path, page)
	}
	return m[1], page
}

// enrol accepts an invitation with password, reading the key off the page
// as a person copies it into their app; it returns the TOTP secret and the
// time step of the code it proved the app with (spent from then on).
func (b *staffBrowser) enrol(link, password string) ([]byte, int64) {
	b.t.Helper()
	csrf, page := b.form(link)
	m := regexp.MustCompile(`<code id="secret">([A-Z2-7 ]+)</code>`).FindStringSubmatch(page)
	if m == nil || !strings.Contains(page, `<img src="data:image/png;base64,`) {
		b.t.Fatalf("invitation page without a key or QR code: %s", page)
	}
	secret, err := decodeSecret(strings.ReplaceAll(m[1], " ", ""))
	if err != nil {
		b.t.Fatal(err)
	}
	step := signin.Step(time.Now())
	code, body, h := b.do(http.MethodPost, link, url.Values{"csrf": {csrf}, "password": {password}, "confirm": {password},
		"code": {signin.Code(secret, step)}}, "")
	if code != http.StatusSeeOther || h.Get("Location") != "/console" || b.cookies["__Host-kycflow-console"] == "" {
		b.t.Fatalf("enrol: %d %v %s", code, h, body)
	}
	return secret, step
}

// nextCode is a code not yet spent after step: the next step's (accepted a
// step early), or the current one once the clock has passed step.
func nextCode(secret []byte, spent int64) string {
	return signin.Code(secret, max(spent+1, signin.Step(time.Now())))
}

// signIn posts the sign-in form.
func (b *staffBrowser) signIn(email, password, code string) (int, string) {
	b.t.Helper()
	csrf, _ := b.form("/console/sign-in")
	status, body, _ := b.do(http.MethodPost, "/console/sign-in", url.Values{"csrf": {csrf}, "email": {email}, "password": {password}, "code": {code}}, "")
	return status, body
}

// A staff member is invited, sets a password and an authenticator app on
// the invitation page, lands signed in, signs out, and signs in again with
// a new code; everything an attacker tries on the way is refused.
func TestConsoleSignIn(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	a, err := newTenant(ctx, "Console A", "console-"+uuid.NewString()[:8]+".test")
	if err != nil {
		t.Fatal(err)
	}
	b, err := newTenant(ctx, "Console B", "console-"+uuid.NewString()[:8]+".test")
	if err != nil {
		t.Fatal(err)
	}
	token, hash, _ := staffKey.NewToken()
	if _, err := env.admin.CreateStaff(ctx, uuid.MustParse(a.id), "ana@a.test", check.RoleReviewer, hash); err != nil {
		t.Fatal(err)
	}
	link := "/console/invite/" + token
	ana := newStaffBrowser(t, a.host)

	// Signed out, the console sends to the sign-in page; a guessed
	// invitation, or the right one on another tenant's host, is nothing.
	if code, _, h := ana.do(http.MethodGet, "/console", nil, ""); code != http.StatusSeeOther || h.Get("Location") != "/console/sign-in" {
		t.Fatalf("signed out: %d %v", code, h)
	}
	guessed, _, _ := staffKey.NewToken()
	if code, _, _ := ana.do(http.MethodGet, "/console/invite/"+guessed, nil, ""); code != http.StatusNotFound {
		t.Fatalf("a guessed invitation: %d", code)
	}
	if code, _, _ := newStaffBrowser(t, b.host).do(http.MethodGet, link, nil, ""); code != http.StatusNotFound {
		t.Fatalf("the invitation on tenant b's host: %d", code)
	}

	// The invitation page, in Dutch; a weak password and a wrong code are
	// sent back with what to correct; no CSRF token, or a post from
	// another site, is refused.
	ana.lang = "nl"
	csrf, page := ana.form(link)
	if !strings.Contains(page, "Uw account instellen") || !strings.Contains(page, "ana@a.test") {
		t.Fatalf("invitation page: %s", page)
	}
	if code, body, _ := ana.do(http.MethodPost, link, url.Values{"csrf": {csrf}, "password": {"short"}, "confirm": {"short"}, "code": {"000000"}}, ""); code != http.StatusUnprocessableEntity ||
		!strings.Contains(body, "12 tot 128 tekens") || !strings.Contains(body, "De code klopt niet") {
		t.Fatalf("weak password, wrong code: %d %s", code, body)
	}
	const password = "a sentence long enough to remember"
	for _, c := range []struct {
		name   string
		form   url.Values
		origin string
	}{
		{"no CSRF token", url.Values{"password": {password}, "confirm": {password}, "code": {"123456"}}, ""},
		{"another site", url.Values{"csrf": {csrf}, "password": {password}, "confirm": {password}, "code": {"123456"}}, "https://evil.example"},
	} {
		if code, _, _ := ana.do(http.MethodPost, link, c.form, c.origin); code != http.StatusForbidden {
			t.Errorf("%s: %d", c.name, code)
		}
	}
	ana.lang = ""
	secret, spent := ana.enrol(link, password)
	if code, home, _ := ana.do(http.MethodGet, "/console", nil, ""); code != http.StatusOK || !strings.Contains(home, "Signed in as ana@a.test, reviewer") {
		t.Fatalf("home: %d %s", code, home)
	}
	if code, _, _ := newStaffBrowser(t, a.host).do(http.MethodGet, link, nil, ""); code != http.StatusNotFound {
		t.Fatalf("the invitation used twice: %d", code)
	}

	// The session is tenant a's: its cookie on tenant b's host is no one.
	onB := newStaffBrowser(t, b.host)
	onB.cookies = ana.cookies
	if code, _, _ := onB.do(http.MethodGet, "/console", nil, ""); code != http.StatusSeeOther {
		t.Fatalf("a's session on b's host: %d", code)
	}

	// Signing out needs the session's CSRF token; afterwards the cookie,
	// replayed, opens nothing.
	csrf, _ = ana.form("/console")
	cookie := ana.cookies["__Host-kycflow-console"]
	if code, _, _ := ana.do(http.MethodPost, "/console/sign-out", url.Values{"csrf": {"forged"}}, ""); code != http.StatusForbidden {
		t.Fatalf("sign-out with a forged token: %d", code)
	}
	if code, _, h := ana.do(http.MethodPost, "/console/sign-out", url.Values{"csrf": {csrf}}, ""); code != http.StatusSeeOther || h.Get("Location") != "/console/sign-in" {
		t.Fatalf("sign-out: %d", code)
	}
	replay := newStaffBrowser(t, a.host)
	replay.cookies["__Host-kycflow-console"] = cookie
	if code, _, _ := replay.do(http.MethodGet, "/console", nil, ""); code != http.StatusSeeOther {
		t.Fatalf("the cookie replayed after sign-out: %d", code)
	}

	// Sign in again: the enrolment's code is spent (a code works once), the
	// next one works; unknown addresses and wrong passwords answer alike.
	next := nextCode(secret, spent)
	if code, body := ana.signIn("ana@a.test", password, signin.Code(secret, spent)); code != http.StatusUnauthorized || !strings.Contains(body, "Not signed in") {
		t.Fatalf("a spent code: %d %s", code, body)
	}
	_, unknown := ana.signIn("nobody@a.test", password, next)
	_, wrong := ana.signIn("ana@a.test", password+"!", next)
	strip := regexp.MustCompile(`name="csrf" value="[^"]+"|value="[^"]*@a.test"`)
	if strip.ReplaceAllString(unknown, "") != strip.ReplaceAllString(wrong, "") {
		t.Fatal("an unknown address and a wrong password answer differently")
	}
	if code, body := ana.signIn("ANA@a.test", password, next); code != http.StatusSeeOther {
		t.Fatalf("sign-in: %d %s", code, body)
	}

	// The audit: each step, by whom, on what — ids only.
	var actions []string
	if err := env.admin.DB().Select(&actions, `SELECT l.action FROM audit_log l JOIN staff s ON s.id = l.staff_id
		WHERE l.tenant_id = $1 AND s.email = 'ana@a.test' AND l.record_kind = 'staff' AND l.record_id = s.id ORDER BY l.created_at, l.action`, a.id); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(actions, " "); got != "staff.enrolled staff.signed_in staff.signed_out staff.sign_in_failed staff.sign_in_failed staff.signed_in" {
		t.Fatalf("audit: %s", got)
	}
}

// Twenty wrong passwords from one client lock the address there: the
// right password and code are then refused too, and the person is told
// so; from another client the address is not locked (a stranger cannot
// lock someone out), and an address without an account locks alike.
func TestConsoleLockOut(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	tn, err := newTenant(ctx, "Console Lock", "console-"+uuid.NewString()[:8]+".test")
	if err != nil {
		t.Fatal(err)
	}
	token, hash, _ := staffKey.NewToken()
	if _, err := env.admin.CreateStaff(ctx, uuid.MustParse(tn.id), "bo@lock.test", check.RoleViewer, hash); err != nil {
		t.Fatal(err)
	}
	bo := newStaffBrowser(t, tn.host)
	const password = "another long sentence to type"
	secret, spent := bo.enrol("/console/invite/"+token, password)
	stranger := newStaffBrowser(t, tn.host) // an attacker's, without bo's session
	stranger.from = "127.0.0.7"
	var lockedUnknown string
	for i := range 20 {
		if code, _ := stranger.signIn("bo@lock.test", "guess number "+string(rune('a'+i))+" of twenty", "000000"); code != http.StatusUnauthorized {
			t.Fatalf("wrong password %d: %d", i, code)
		}
		_, lockedUnknown = stranger.signIn("nobody@lock.test", "guess number "+string(rune('a'+i))+" of twenty", "000000")
	}
	code, body := stranger.signIn("bo@lock.test", password, nextCode(secret, spent))
	if code != http.StatusUnauthorized || !strings.Contains(body, "cannot sign in from here for 15 minutes") {
		t.Fatalf("the right password from the locked client: %d %s", code, body)
	}
	strip := regexp.MustCompile(`name="csrf" value="[^"]+"|value="[^"]*@lock.test"`)
	if strip.ReplaceAllString(body, "") != strip.ReplaceAllString(lockedUnknown, "") {
		t.Fatal("a locked address with an account answers otherwise than one without")
	}
	bo = newStaffBrowser(t, tn.host)
	bo.from = "127.0.0.8"
	if code, body := bo.signIn("bo@lock.test", password, nextCode(secret, spent)); code != http.StatusSeeOther {
		t.Fatalf("the owner from their own client while a stranger is locked out: %d %s", code, body)
	}
}

var base32NoPad = base32.StdEncoding.WithPadding(base32.NoPadding)

// decodeSecret reads a base32 key as typed into an app.
func decodeSecret(s string) ([]byte, error) {
	return base32NoPad.DecodeString(s)
}

// The same in a real browser at phone width: the invitation page read as
// a person reads it (the key off the page), the account activated, signed
// out, signed in again by the form — the __Host- cookies held by Chromium
// as they will be over HTTPS (a *.localhost host is a secure context).
func TestConsoleInBrowser(t *testing.T) {
	ctx := t.Context()
	host := "staff-" + uuid.NewString()[:8] + ".localhost"
	tn, err := newTenant(ctx, "Console Browser", host)
	if err != nil {
		t.Fatal(err)
	}
	token, hash, _ := staffKey.NewToken()
	if _, err := env.admin.CreateStaff(ctx, uuid.MustParse(tn.id), "cy@browser.test", check.RoleSupport, hash); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(env.apiURL)
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + host + ":" + u.Port()
	bctx := browser(t)
	// The checker finds what it should: a field without a label.
	do(t, bctx, chromedp.Navigate(`data:text/html,<!doctype html><html lang="en"><title>t</title><main><input type="text"></main></html>`))
	accessible(t, bctx, "a control page")
	do(t, bctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate(base+"/console/invite/"+token))
	waitHeading(t, bctx, "Set up your account")
	shoot(t, bctx, "console-invite")
	accessible(t, bctx, "the invitation page")
	secret, err := decodeSecret(strings.ReplaceAll(text(t, bctx, "#secret"), " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	const password = "typed into a real browser"
	step := signin.Step(time.Now())
	do(t, bctx, chromedp.SendKeys("#password", password), chromedp.SendKeys("#confirm", password),
		chromedp.SendKeys("#code", signin.Code(secret, step)), chromedp.Click("button[type=submit]"))
	waitHeading(t, bctx, "Console")
	if s := text(t, bctx, "main"); !strings.Contains(s, "Signed in as cy@browser.test, support") {
		t.Fatalf("home: %s", s)
	}
	accessible(t, bctx, "the console's home")
	do(t, bctx, chromedp.Click(`a[href="/console/reviews"]`))
	waitHeading(t, bctx, "Review inbox")
	accessible(t, bctx, "the review inbox")
	do(t, bctx, chromedp.Click(`main a[href="/console"], nav a[href="/console"]`))
	waitHeading(t, bctx, "Console")
	do(t, bctx, chromedp.Click("#sign-out"))
	waitHeading(t, bctx, "Sign in")
	do(t, bctx, chromedp.Navigate(base+"/console"))
	waitHeading(t, bctx, "Sign in")
	shoot(t, bctx, "console-sign-in")
	accessible(t, bctx, "the sign-in page")
	do(t, bctx, chromedp.SendKeys("#email", "cy@browser.test"), chromedp.SendKeys("#password", password),
		chromedp.SendKeys("#code", nextCode(secret, step)), chromedp.Click("button[type=submit]"))
	waitHeading(t, bctx, "Console")
}
