package e2e

import (
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kycflow/kycflow/api"
)

// from is a client whose connections leave from src, another loopback
// address (127.0.0.0/8 is all this machine's), so tests can be several
// clients at once.
func from(src string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	return &http.Client{
		Transport:     &http.Transport{DialContext: d.DialContext},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       10 * time.Second,
	}
}

type edgeResponse struct {
	status int
	header http.Header
	body   string
}

// send makes a request to the current API server as c, with the Host and
// headers given.
func send(t *testing.T, c *http.Client, method, path, host string, header map[string]string, body string) edgeResponse {
	t.Helper()
	req, err := http.NewRequest(method, env.server.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 500 {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	return edgeResponse{resp.StatusCode, resp.Header, string(raw)}
}

func bearer(key string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + key, "Accept": "application/json"}
}

// A bad-key flood from one address is cut off after its budget of failed
// authentications, with 429, Retry-After and the RateLimit fields; another
// address, and the other tenants, are not affected.
func TestFailedAuthenticationBudget(t *testing.T) {
	serve(t, api.Config{Store: env.app, Limits: api.Limits{Tenant: 1000, IP: 1000, AuthFailures: 5, Verify: 600, VerifyFailures: 5}})
	attacker, other := from("127.0.0.2"), from("127.0.0.3")
	bad := bearer("kyc_live_" + strings.Repeat("x", 32))
	for i := range 5 {
		if r := send(t, attacker, http.MethodGet, "/api/v1/businesses", env.a.host, bad, ""); r.status != http.StatusUnauthorized {
			t.Fatalf("bad key %d: %d %s", i, r.status, r.body)
		}
	}
	var r edgeResponse
	for _, creds := range []map[string]string{bad, nil, bearer(env.a.key)} {
		// Past the budget even a good key waits: the address is cut off
		// before any key is looked up.
		r = send(t, attacker, http.MethodGet, "/api/v1/businesses", env.a.host, creds, "")
		if r.status != http.StatusTooManyRequests {
			t.Fatalf("after the budget (%v): %d %s", creds, r.status, r.body)
		}
	}
	if ra, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || ra < 1 || ra > 60 {
		t.Fatalf("Retry-After %q", r.header.Get("Retry-After"))
	}
	if r.header.Get("RateLimit-Limit") != "5" || r.header.Get("RateLimit-Remaining") != "0" || r.header.Get("RateLimit-Reset") == "" {
		t.Fatalf("RateLimit fields on the 429: %v", r.header)
	}
	if r := send(t, other, http.MethodGet, "/api/v1/businesses", env.a.host, bad, ""); r.status != http.StatusUnauthorized {
		t.Fatalf("another address: %d %s", r.status, r.body)
	}
	for _, tn := range []tenant{env.a, env.b} {
		r := send(t, other, http.MethodGet, "/api/v1/businesses", tn.host, bearer(tn.key), "")
		if r.status != http.StatusOK {
			t.Fatalf("tenant %s from another address: %d %s", tn.host, r.status, r.body)
		}
		// An authenticated answer shows the tenant's budget: 2 000 a burst, one spent.
		if r.header.Get("RateLimit-Limit") != "2000" || r.header.Get("RateLimit-Remaining") != "1999" && r.header.Get("RateLimit-Remaining") != "1998" {
			t.Fatalf("tenant budget: %v", r.header)
		}
	}
	// Unknown hosts count as failures too.
	for range 6 {
		r = send(t, from("127.0.0.4"), http.MethodGet, "/api/v1/businesses", "nobody.test", bad, "")
	}
	if r.status != http.StatusTooManyRequests {
		t.Fatalf("unknown-host flood: %d", r.status)
	}
}

// X-Forwarded-For names the client only when the peer is a trusted proxy:
// otherwise a flood cannot escape its budget by inventing addresses.
func TestForwardedForOnlyFromTrustedProxies(t *testing.T) {
	bad := func(xff string) map[string]string {
		h := bearer("kyc_live_" + strings.Repeat("y", 32))
		h["X-Forwarded-For"] = xff
		return h
	}
	limits := api.Limits{Tenant: 1000, IP: 1000, AuthFailures: 3, Verify: 600, VerifyFailures: 3}
	serve(t, api.Config{Store: env.app, Limits: limits})
	c := from("127.0.0.5")
	for i := range 4 {
		r := send(t, c, http.MethodGet, "/api/v1/customers", env.a.host, bad("192.0.2."+strconv.Itoa(i+1)), "")
		if want := map[bool]int{true: http.StatusTooManyRequests, false: http.StatusUnauthorized}[i == 3]; r.status != want {
			t.Fatalf("untrusted peer, request %d: %d, want %d", i, r.status, want)
		}
	}
	limits.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.6/32")}
	serve(t, api.Config{Store: env.app, Limits: limits})
	proxy := from("127.0.0.6")
	for range 3 {
		send(t, proxy, http.MethodGet, "/api/v1/customers", env.a.host, bad("192.0.2.10"), "")
	}
	if r := send(t, proxy, http.MethodGet, "/api/v1/customers", env.a.host, bad("192.0.2.10"), ""); r.status != http.StatusTooManyRequests {
		t.Fatalf("client behind the proxy past its budget: %d", r.status)
	}
	// Another client behind the same proxy has its own budget; a client
	// that prepends a forged address is still counted as itself.
	if r := send(t, proxy, http.MethodGet, "/api/v1/customers", env.a.host, bad("192.0.2.11"), ""); r.status != http.StatusUnauthorized {
		t.Fatalf("another client behind the proxy: %d", r.status)
	}
	if r := send(t, proxy, http.MethodGet, "/api/v1/customers", env.a.host, bad("192.0.2.99, 192.0.2.10"), ""); r.status != http.StatusTooManyRequests {
		t.Fatalf("forged first hop: %d", r.status)
	}
}

// Guessing verification tokens is cut off per address, with a page for
// people; the links themselves keep working from elsewhere.
func TestVerifyGuessingBudget(t *testing.T) {
	serve(t, api.Config{Store: env.app, PublicURL: env.publicURL, Limits: api.Limits{Tenant: 1000, IP: 1000, AuthFailures: 5, Verify: 600, VerifyFailures: 5}})
	_, path := newIDScanCustomer(t, env.a, "Gus Guess", "Gus", "Guess", "1980-01-01")
	guesser, person := from("127.0.0.7"), from("127.0.0.8")
	guess := "/verify/" + strings.Repeat("A", 43)
	for i := range 5 {
		if r := send(t, guesser, http.MethodGet, guess, "", nil, ""); r.status != http.StatusNotFound {
			t.Fatalf("guess %d: %d", i, r.status)
		}
	}
	r := send(t, guesser, http.MethodGet, guess, "", nil, "")
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" || !strings.Contains(r.body, "Too many attempts") {
		t.Fatalf("after the budget: %d %v %s", r.status, r.header, r.body)
	}
	// The JSON twin answers in JSON.
	r = send(t, guesser, http.MethodPost, guess+"/mrz", "", map[string]string{"Content-Type": "application/json"}, `{"mrz":"x"}`)
	if r.status != http.StatusTooManyRequests || !strings.Contains(r.body, `"Too many requests."`) {
		t.Fatalf("JSON after the budget: %d %s", r.status, r.body)
	}
	if r := send(t, person, http.MethodGet, path, "", nil, ""); r.status != http.StatusOK {
		t.Fatalf("the real link from another address: %d", r.status)
	}
	if r := send(t, person, http.MethodGet, guess, "", nil, ""); r.status != http.StatusNotFound {
		t.Fatalf("another address guessing: %d", r.status)
	}
}

// Every API answer, error or not, carries no-store and nosniff; request
// ids from clients are echoed only when short and plain.
func TestEdgeHeadersAndRequestIDs(t *testing.T) {
	c := from("127.0.0.9")
	for _, tc := range []struct {
		path, host string
		creds      map[string]string
	}{
		{"/api/v1/businesses", env.a.host, bearer(env.a.key)},
		{"/api/v1/businesses", env.a.host, nil},
		{"/api/v1/businesses", "nobody.test", bearer(env.a.key)},
		{"/api/v1/nothing-here", env.a.host, bearer(env.a.key)},
		{"/healthz", env.a.host, nil},
	} {
		r := send(t, c, http.MethodGet, tc.path, tc.host, tc.creds, "")
		if r.header.Get("Cache-Control") != "no-store" || r.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s on %s (%d): %v", tc.path, tc.host, r.status, r.header)
		}
		if strings.HasPrefix(tc.path, "/api/") && r.header.Get("RateLimit-Remaining") == "" {
			t.Errorf("%s on %s (%d): no RateLimit fields: %v", tc.path, tc.host, r.status, r.header)
		}
	}
	for _, tc := range []struct {
		sent string
		kept bool
	}{
		{"abc-123_x.y", true},
		{strings.Repeat("a", 64), true},
		{strings.Repeat("a", 65), false},
		{strings.Repeat("x", 5000), false},
		{"bad id", false},
		{"id\u00e9", false},
		{"a,b", false},
	} {
		h := bearer(env.a.key)
		h["X-Request-Id"] = tc.sent
		got := send(t, c, http.MethodGet, "/api/v1/businesses", env.a.host, h, "").header.Get("X-Request-Id")
		if tc.kept && got != tc.sent || !tc.kept && (got == tc.sent || len(got) != 36) {
			t.Errorf("request id %.20q (%d chars) → %q", tc.sent, len(tc.sent), got)
		}
	}
}

// The hosted forms accept posts from their own pages only, and the JSON
// endpoint JSON only: a cross-site form or a text/plain "simple request"
// changes nothing.
func TestVerifyFormsRefuseOtherOrigins(t *testing.T) {
	_, path := newIDScanCustomer(t, env.a, "Olga Origin", "Olga", "Origin", "1985-03-04")
	c := from("127.0.0.10")
	form := func(h map[string]string) edgeResponse {
		h["Content-Type"] = "application/x-www-form-urlencoded"
		return send(t, c, http.MethodPost, path, "", h, "mrz=x")
	}
	for _, h := range []map[string]string{
		{"Origin": "http://evil.example"},
		{"Origin": "null"},
		{"Referer": "http://evil.example/page"},
		{},
		{"Origin": strings.Replace(env.publicURL, "http://", "https://", 1)},
	} {
		if r := form(h); r.status != http.StatusForbidden || !strings.Contains(r.body, "not sent from its own page") {
			t.Fatalf("form post with %v: %d %s", h, r.status, r.body)
		}
	}
	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", ""} {
		r := send(t, c, http.MethodPost, path+"/mrz", "", map[string]string{"Content-Type": ct, "Origin": "http://evil.example"}, `{"mrz":"x"}`)
		if r.status != http.StatusUnsupportedMediaType {
			t.Fatalf("JSON endpoint with %q: %d %s", ct, r.status, r.body)
		}
	}
	// Nothing was taken: the link is open, and its own page's post (by
	// Origin, or by Referer alone) is answered.
	if r := send(t, c, http.MethodGet, path, "", nil, ""); r.status != http.StatusOK {
		t.Fatalf("link after refused posts: %d", r.status)
	}
	if r := form(map[string]string{"Referer": env.publicURL + path}); r.status != http.StatusUnprocessableEntity {
		t.Fatalf("same-origin post by Referer: %d %s", r.status, r.body)
	}
	if r := form(map[string]string{"Origin": env.publicURL}); r.status != http.StatusUnprocessableEntity {
		t.Fatalf("same-origin post: %d %s", r.status, r.body)
	}
}
