package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	_ "net/http/pprof" // served only when PPROF_ADDR is set
	"os"
	"runtime/debug"
	"sync"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/kycflow/kycflow/metrics"
	"github.com/kycflow/kycflow/ops"
	"github.com/kycflow/kycflow/screening"
	"github.com/kycflow/kycflow/store"
)

// Shared is what an api and a worker in one OS process share (`kycflow
// dev`, the end-to-end tests); a nil field is the process's own: NewAPI
// and NewWorker make it.
type Shared struct {
	Logger   *slog.Logger
	Metrics  *metrics.Metrics
	Temporal client.Client
	// Lists: one index serves the worker's checks and the API's screening.
	Lists *screening.Lists
}

// closers runs what a process opened, last first.
type closers []func()

func (c *closers) add(f func()) { *c = append(*c, f) }

func (c closers) close() {
	for i := len(c) - 1; i >= 0; i-- {
		c[i]()
	}
}

// fill makes what sh lacks: the logger, the metrics of role, the Temporal
// client (lazy, so a process starts while Temporal is down; calls fail
// until it is back), registering what it opens on cl.
func (sh *Shared) fill(cfg Config, role string, cl *closers) error {
	if sh.Logger == nil {
		sh.Logger = cfg.Logger()
	}
	if sh.Metrics == nil {
		sh.Metrics = metrics.New(role)
	}
	if sh.Temporal == nil {
		c, err := client.NewLazyClient(client.Options{
			HostPort: cfg.TemporalAddress, Namespace: cfg.TemporalNS,
			Logger:         sdklog.NewStructuredLogger(sh.Logger.With("component", "temporal")),
			MetricsHandler: sh.Metrics.Temporal(),
		})
		if err != nil {
			return fmt.Errorf("temporal client: %w", err)
		}
		sh.Temporal = c
		cl.add(c.Close)
	}
	startPprof(cfg, sh.Logger)
	return nil
}

// openStore opens the database as role, registering it on cl.
func openStore(ctx context.Context, cfg Config, role string, cl *closers) (*store.Store, error) {
	s, err := store.Open(ctx, cfg.DatabaseURLFor(role), cfg.DBMaxConns)
	if err != nil {
		return nil, err
	}
	cl.add(func() { s.Close() })
	return s, nil
}

// newLists is a process's watchlist index; a worker's records which
// versions it loaded.
func newLists(s *store.Store, log *slog.Logger, isWorker bool) *screening.Lists {
	return &screening.Lists{Store: s, Logger: log.With("component", "watchlists"), MarkLoaded: isWorker}
}

// probes are a process's /healthz and /readyz: its lists, its database and
// Temporal.
func probes(cfg Config, s *store.Store, c client.Client, lists *screening.Lists) ops.Probes {
	p := ops.Probes{MaxListAge: cfg.WatchlistMaxAge, Deps: []ops.Dep{ops.Database(s), ops.Temporal(c)}}
	if lists != nil {
		p.Lists = lists.Versions
	}
	return p
}

// The garbage collector's target heap growth of each kind of process, unless
// GOGC or GOMEMLIMIT is set (docs/BENCHMARKS.md):
//   - in a worker the watchlist index is most of the heap and lives as long
//     as the process: collecting at 50 % growth instead of Go's 100 % keeps
//     it within 150 MB with a 50 000-entity list;
//   - an api process without the index holds some 20 MB, and its garbage is
//     its requests': at 400 % it spends a quarter less CPU per create, for
//     tens of megabytes more heap. kycflow dev, a development stack, does
//     the same. An api process serving screenings keeps Go's default.
const (
	GCWorker = 50
	GCAPI    = 400
)

// CollectAt sets the collector's target unless the operator set one.
func CollectAt(percent int) {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(percent)
	}
}

var pprofOnce sync.Once

// startPprof serves opt-in profiling for operators on its own (loopback)
// address, once per process (kycflow dev runs the API and the worker).
func startPprof(cfg Config, log *slog.Logger) {
	if cfg.PprofAddr == "" {
		return
	}
	pprofOnce.Do(func() {
		go func() { log.Warn("pprof stopped", "error", http.ListenAndServe(cfg.PprofAddr, nil)) }()
	})
}

// ServeOps serves /healthz, /readyz and /metrics on addr ("off": nowhere)
// until ctx ends; a port taken is logged, not fatal.
func ServeOps(ctx context.Context, addr string, p ops.Probes, m *metrics.Metrics, log *slog.Logger) {
	if addr == "off" {
		return
	}
	srv := &http.Server{Addr: addr, Handler: ops.Handler(p, m), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	log.Info("operations endpoints listening", "addr", addr, "paths", "/healthz /readyz /metrics")
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Warn("operations endpoints stopped", "addr", addr, "error", err)
	}
}
