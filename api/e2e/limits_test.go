package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kycflow/kycflow/api"
	"github.com/kycflow/kycflow/ops"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/store/pgcluster"
)

// serve runs another API server on a store, and points requests at it.
func serve(t *testing.T, cfg api.Config) {
	t.Helper()
	if cfg.Limits.IP == 0 {
		cfg.Limits.IP, cfg.Limits.AuthFailures, cfg.Limits.Verify, cfg.Limits.VerifyFailures = harnessLimits.IP, harnessLimits.AuthFailures, harnessLimits.Verify, harnessLimits.VerifyFailures
	}
	srv := httptest.NewServer(api.New(cfg))
	apiAddrs.Store(srv.Listener.Addr().String(), true)
	prev, prevURL := env.server, env.apiURL
	env.server, env.apiURL = srv, srv.URL
	t.Cleanup(func() { env.server, env.apiURL = prev, prevURL; srv.Close() })
}

func TestRateLimit(t *testing.T) {
	serve(t, api.Config{Store: env.app, Limits: api.Limits{Tenant: 2}}) // burst of 4
	var limited response
	for range 10 {
		if r := request(t, env.a, http.MethodGet, "/api/v1/businesses", nil); r.status == http.StatusTooManyRequests {
			limited = r
			break
		}
	}
	if limited.status != http.StatusTooManyRequests || limited.header.Get("Retry-After") != "1" || limited.body["message"] != "Too many requests." {
		t.Fatalf("no 429 with Retry-After: %d %v %s", limited.status, limited.header, limited.raw)
	}
	// Per tenant: B is not limited by A's traffic.
	request(t, env.b, http.MethodGet, "/api/v1/businesses", nil).want(t, http.StatusOK)
}

// With PostgreSQL gone, the API answers 503 with Retry-After, never a 500.
func TestDatabaseDown(t *testing.T) {
	ctx := context.Background()
	pg, err := pgcluster.StartTemp(ctx, nil)
	if err != nil {
		t.Fatalf("PostgreSQL did not start: %v", err)
	}
	defer pg.Stop()
	if err := store.Migrate(ctx, pg.DSN("postgres", "kycflow"), store.RolePasswords{}); err != nil {
		t.Fatal(err)
	}
	admin, err := store.Open(ctx, pg.DSN("postgres", "kycflow"), 1)
	if err != nil {
		t.Fatal(err)
	}
	tn, key, err := admin.CreateTenant(ctx, "Down", []string{"down.test"}, false)
	admin.Close()
	if err != nil {
		t.Fatal(err)
	}
	app, err := store.Open(ctx, pg.DSN(store.AppRole, "kycflow"), 4)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	serve(t, api.Config{Store: app, Probes: ops.Probes{Deps: []ops.Dep{ops.Database(app)}}})
	down := tenant{id: tn.ID.String(), host: "down.test", key: key}
	request(t, down, http.MethodGet, "/api/v1/businesses", nil).want(t, http.StatusOK)
	requestWith(t, http.MethodGet, "/healthz", "down.test", "", "", nil).want(t, http.StatusOK)
	requestWith(t, http.MethodGet, "/readyz", "down.test", "", "", nil).want(t, http.StatusOK)

	pg.Stop()
	for _, path := range []string{"/api/v1/businesses", "/api/v1/customers"} {
		r := request(t, down, http.MethodGet, path, nil).want(t, http.StatusServiceUnavailable)
		if r.header.Get("Retry-After") == "" || r.body["message"] != "Service unavailable, try again shortly." {
			t.Fatalf("503: %v %s", r.header, r.raw)
		}
	}
	r := request(t, down, http.MethodPost, "/api/v1/businesses/create", map[string]any{
		"name": "A", "country_code": "NLD", "coc_number": "12345678", "checks": map[string]bool{"coc": false, "vat": false, "iban": false},
	})
	r.want(t, http.StatusServiceUnavailable)
	// Alive, not ready: an orchestrator stops sending traffic, and does not
	// restart a process whose database is away.
	requestWith(t, http.MethodGet, "/healthz", "down.test", "", "", nil).want(t, http.StatusOK)
	ready := requestWith(t, http.MethodGet, "/readyz", "down.test", "", "", nil).want(t, http.StatusServiceUnavailable)
	if u, _ := ready.body["unavailable"].([]any); len(u) != 1 || u[0] != "database" {
		t.Fatalf("readyz: %s", ready.raw)
	}
}
