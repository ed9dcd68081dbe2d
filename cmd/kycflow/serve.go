package main

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
	"golang.org/x/sync/errgroup"

	"github.com/kycflow/kycflow/api"
	"github.com/kycflow/kycflow/metrics"
	"github.com/kycflow/kycflow/ops"
	"github.com/kycflow/kycflow/screening"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/worker"
)

func runMigrate(ctx context.Context, cfg config) error {
	if err := store.Migrate(ctx, cfg.DatabaseAdminURL, cfg.DBPasswords); err != nil {
		return err
	}
	fmt.Println("schema up to date")
	return nil
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
	gcWorker = 50
	gcAPI    = 400
)

// collectAt sets the collector's target unless the operator set one.
func collectAt(percent int) {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(percent)
	}
}

func runAPI(ctx context.Context, cfg config) error {
	if err := cfg.checkPublicURL(); err != nil {
		return err
	}
	if !cfg.APIWatchlists {
		collectAt(gcAPI)
	}
	log := cfg.logger()
	s, err := store.Open(ctx, cfg.databaseURL(store.AppRole), cfg.DBMaxConns)
	if err != nil {
		return err
	}
	defer s.Close()
	m := metrics.New("api")
	c, err := dialTemporal(ctx, cfg, log, m) // reviews of aml hits are Temporal updates
	if err != nil {
		return err
	}
	defer c.Close()
	var lists *screening.Lists
	if cfg.APIWatchlists { // for POST /api/v1/screen; the workers rescreen
		lists = newWatchlists(s, log, false)
		go lists.Run(ctx, cfg.WatchlistRefresh, nil)
		m.Lists(lists.Versions)
	}
	p := probes(cfg, s, c, lists)
	go serveOps(ctx, cfg.healthAddr("api"), p, m, log)
	return serveAPI(ctx, cfg, s, c, lists, log, false, m, p)
}

// probes are a process's /healthz and /readyz: its lists, its database and
// Temporal.
func probes(cfg config, s *store.Store, c client.Client, lists *screening.Lists) ops.Probes {
	p := ops.Probes{MaxListAge: cfg.WatchlistMaxAge, Deps: []ops.Dep{ops.Database(s), ops.Temporal(c)}}
	if lists != nil {
		p.Lists = lists.Versions
	}
	return p
}

// newWatchlists is a process's watchlist index; a worker's records which
// versions it loaded.
func newWatchlists(s *store.Store, log *slog.Logger, isWorker bool) *screening.Lists {
	return &screening.Lists{Store: s, Logger: log.With("component", "watchlists"), MarkLoaded: isWorker}
}

var pprofOnce sync.Once

// startPprof serves opt-in profiling for operators on its own (loopback)
// address, once per process (kycflow dev runs the API and the worker).
func startPprof(cfg config, log *slog.Logger) {
	if cfg.PprofAddr == "" {
		return
	}
	pprofOnce.Do(func() {
		go func() { log.Warn("pprof stopped", "error", http.ListenAndServe(cfg.PprofAddr, nil)) }()
	})
}

// serveAPI serves the API; lists, when not nil, answer synchronous
// screenings.
func serveAPI(ctx context.Context, cfg config, s *store.Store, c client.Client, lists *screening.Lists, log *slog.Logger, dev bool, m *metrics.Metrics, p ops.Probes) error {
	startPprof(cfg, log)
	hooks, err := cfg.webhooks()
	if err != nil {
		return err
	}
	if hooks.Cipher == nil {
		log.Warn("webhooks are off: set WEBHOOK_SECRET_KEY to let tenants register endpoints")
	}
	// Every request authenticates: repeats are answered from memory, which
	// a key's revocation clears on every api process within a second.
	s.CacheAuthentications(ctx, func(err error) { log.Warn("authentication cache listener", "error", err) })
	m.Creates(s.CreateStats)
	conf := api.Config{Store: s, Logger: log, Limits: cfg.Limits, PublicURL: cfg.PublicURL, IDIN: cfg.idinBroker(), Webhooks: hooks,
		Reviews: worker.Reviews{Client: c}, Probes: p, Metrics: m}
	if lists != nil {
		conf.Screener = lists
	}
	e := api.New(conf)
	addr := cfg.httpAddr(dev)
	srv := &http.Server{Addr: addr, Handler: e, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second,
		IdleTimeout: 30 * time.Second} // kycflow proxy closes its idle connections sooner
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	log.Info("api listening", "addr", addr)
	select {
	case err := <-errc:
		return fmt.Errorf("api: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func runWorker(ctx context.Context, cfg config) error {
	if err := cfg.checkPublicURL(); err != nil { // the worker mails the links
		return err
	}
	collectAt(gcWorker)
	log := cfg.logger()
	s, err := store.Open(ctx, cfg.databaseURL(store.WorkerRole), cfg.DBMaxConns)
	if err != nil {
		return err
	}
	defer s.Close()
	m := metrics.New("worker")
	c, err := dialTemporal(ctx, cfg, log, m)
	if err != nil {
		return err
	}
	defer c.Close()
	lists := newWatchlists(s, log, true)
	go serveOps(ctx, cfg.healthAddr("worker"), probes(cfg, s, c, lists), m, log)
	return serveWorker(ctx, cfg, s, c, lists, log, m)
}

// serveOps serves /healthz, /readyz and /metrics on addr ("off": nowhere)
// until ctx ends; a port taken is logged, not fatal.
func serveOps(ctx context.Context, addr string, p ops.Probes, m *metrics.Metrics, log *slog.Logger) {
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

// dialTemporal connects lazily, so the API and relay start even while
// Temporal is down; calls fail (and the relay retries) until it is back.
func dialTemporal(ctx context.Context, cfg config, log *slog.Logger, m *metrics.Metrics) (client.Client, error) {
	c, err := client.NewLazyClient(client.Options{
		HostPort: cfg.TemporalAddress, Namespace: cfg.TemporalNS,
		Logger:         sdklog.NewStructuredLogger(log.With("component", "temporal")),
		MetricsHandler: m.Temporal(),
	})
	if err != nil {
		return nil, fmt.Errorf("temporal client: %w", err)
	}
	return c, nil
}

// serveWorker runs the Temporal worker and the outbox relay until ctx ends;
// lists is the watchlist index it screens with and keeps fresh.
func serveWorker(ctx context.Context, cfg config, s *store.Store, c client.Client, lists *screening.Lists, log *slog.Logger, m *metrics.Metrics) error {
	startPprof(cfg, log)
	// Registered in the background until it works: Temporal may be down now.
	// (The search attributes, and the Schedule that prunes expired data.)
	go func() {
		for delay := time.Second; ; delay = min(2*delay, time.Minute) {
			err := worker.EnsureSearchAttributes(ctx, c, cfg.TemporalNS)
			if err == nil {
				err = worker.EnsureHousekeeping(ctx, c)
			}
			if err == nil || ctx.Err() != nil {
				return
			}
			log.Warn("search attributes or housekeeping schedule not registered yet (is Temporal up?)", "error", err, "retry_in", delay)
			select {
			case <-ctx.Done():
				return
			case <-time.After(delay):
			}
		}
	}()
	acts, err := cfg.activities(s)
	if err != nil {
		return err
	}
	if acts.Webhooks != nil {
		acts.Webhooks.Signaler = c
	} else {
		log.Warn("webhook deliveries wait: set WEBHOOK_SECRET_KEY (the api's) so this worker can sign them")
	}
	acts.Screener, acts.Metrics = lists, m
	worker.Observe(m, s, lists)
	w := worker.New(c, acts, cfg.WorkflowPollers)
	if err := w.Start(); err != nil {
		return fmt.Errorf("start worker: %w", err)
	}
	defer w.Stop()
	relay := &worker.Relay{Store: s, Client: c, Logger: log.With("component", "relay"),
		Concurrency: cfg.RelayConcurrency, Sweep: cfg.RelaySweep, Retry: cfg.Retry, Metrics: m}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return relay.Run(gctx) })
	g.Go(func() error { lists.Run(gctx, cfg.WatchlistRefresh, worker.StartRescreens(lists, c)); return nil })
	log.Info("worker running", "task_queue", "kycflow-checks", "temporal", cfg.TemporalAddress, "providers", cfg.providerSummary())
	return g.Wait()
}
