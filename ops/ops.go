// Package ops is what operators' tools ask every kycflow process: /healthz
// (alive; degraded when a watchlist is stale), /readyz (its database and
// Temporal answer) and /metrics.
package ops

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/kycflow/kycflow/metrics"
	"github.com/kycflow/kycflow/screening"
	"github.com/kycflow/kycflow/store"
)

// Probes answers /healthz and /readyz.
type Probes struct {
	// Lists are the watchlist versions the process holds; nil: none.
	Lists func() []store.WatchlistVersion
	// MaxListAge: a list imported longer ago makes /healthz degraded (0:
	// never).
	MaxListAge time.Duration
	// Deps must all answer for the process to be ready.
	Deps []Dep
}

// Dep is a dependency /readyz asks.
type Dep struct {
	Name  string // "database", "temporal"
	Check func(context.Context) error
}

// Database is ready when the process's database answers.
func Database(s *store.Store) Dep { return Dep{Name: "database", Check: s.Ping} }

// Temporal is ready when the Temporal frontend answers.
func Temporal(c client.Client) Dep {
	return Dep{Name: "temporal", Check: func(ctx context.Context) error {
		_, err := c.CheckHealth(ctx, &client.CheckHealthRequest{})
		return err
	}}
}

// depTimeout bounds each dependency's answer: a probe must answer in time
// even when a dependency hangs.
const depTimeout = 2 * time.Second

// Health is /healthz: the process answers. 200 always; "degraded" names
// the stale lists (screening still works, on old data).
func (p Probes) Health() (int, map[string]any) {
	if p.Lists != nil {
		if stale := screening.Stale(p.Lists(), time.Now(), p.MaxListAge); len(stale) > 0 {
			return http.StatusOK, map[string]any{"status": "degraded", "stale_watchlists": stale}
		}
	}
	return http.StatusOK, map[string]any{"status": "ok"}
}

// Ready is /readyz: 200 "ready" when every dependency answers, else 503
// "unready" naming those that did not (never their errors, which may hold
// addresses).
func (p Probes) Ready(ctx context.Context) (int, map[string]any) {
	down := []string{}
	for _, d := range p.Deps {
		dctx, cancel := context.WithTimeout(ctx, depTimeout)
		err := d.Check(dctx)
		cancel()
		if err != nil {
			down = append(down, d.Name)
		}
	}
	if len(down) > 0 {
		return http.StatusServiceUnavailable, map[string]any{"status": "unready", "unavailable": down}
	}
	return http.StatusOK, map[string]any{"status": "ready"}
}

// Handler serves /healthz, /readyz and /metrics (when m is not nil): the
// operations listener (HEALTH_ADDR), kept off the API's public port.
func Handler(p Probes, m *metrics.Metrics) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		code, body := p.Health()
		writeJSON(w, code, body)
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		code, body := p.Ready(r.Context())
		writeJSON(w, code, body)
	})
	if m != nil {
		mux.Handle("GET /metrics", m.Handler())
	}
	return mux
}

func writeJSON(w http.ResponseWriter, code int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(body)
}
