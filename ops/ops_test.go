package ops

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kycflow/kycflow/metrics"
	"github.com/kycflow/kycflow/store"
)

func get(t *testing.T, h http.Handler, path string) (int, map[string]any, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	var body map[string]any
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	return rec.Code, body, rec.Body.String()
}

func TestProbes(t *testing.T) {
	dbDown := false
	p := Probes{
		MaxListAge: 48 * time.Hour,
		Lists: func() []store.WatchlistVersion {
			return []store.WatchlistVersion{{List: "un_sc", ImportedAt: time.Now().Add(-72 * time.Hour)}, {List: "ofac_sdn", ImportedAt: time.Now()}}
		},
		Deps: []Dep{
			{Name: "database", Check: func(context.Context) error {
				if dbDown {
					return errors.New("dial tcp 10.0.0.5:5432: connection refused")
				}
				return nil
			}},
			{Name: "temporal", Check: func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }}, // hangs
		},
	}
	h := Handler(p, metrics.New("worker"))

	code, body, _ := get(t, h, "/healthz")
	if code != 200 || body["status"] != "degraded" || len(body["stale_watchlists"].([]any)) != 1 || body["stale_watchlists"].([]any)[0] != "un_sc" {
		t.Errorf("healthz with a stale list: %d %v", code, body)
	}

	start := time.Now()
	code, body, _ = get(t, h, "/readyz")
	if code != 503 || body["status"] != "unready" || len(body["unavailable"].([]any)) != 1 || body["unavailable"].([]any)[0] != "temporal" {
		t.Errorf("readyz with Temporal hanging: %d %v", code, body)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("readyz waited %v on a hanging dependency", took)
	}
	dbDown = true
	code, body, raw := get(t, h, "/readyz")
	if code != 503 || len(body["unavailable"].([]any)) != 2 || strings.Contains(raw, "10.0.0.5") {
		t.Errorf("readyz with both down: %d %s (names, never errors)", code, raw)
	}
	// Alive all the same: a dependency's outage is not a reason to restart.
	if code, _, _ := get(t, h, "/healthz"); code != 200 {
		t.Errorf("healthz while the database is down: %d", code)
	}

	code, _, page := get(t, h, "/metrics")
	if code != 200 || !strings.Contains(page, `kycflow_up{role="worker"} 1`) {
		t.Errorf("/metrics: %d %s", code, page)
	}
}

func TestReadyWithoutLists(t *testing.T) {
	h := Handler(Probes{Deps: []Dep{{Name: "database", Check: func(context.Context) error { return nil }}}}, nil)
	if code, body, _ := get(t, h, "/readyz"); code != 200 || body["status"] != "ready" {
		t.Errorf("readyz: %d %v", code, body)
	}
	if code, body, _ := get(t, h, "/healthz"); code != 200 || body["status"] != "ok" {
		t.Errorf("healthz: %d %v", code, body)
	}
	if code, _, _ := get(t, h, "/metrics"); code != http.StatusNotFound {
		t.Errorf("/metrics without a registry: %d", code)
	}
}
