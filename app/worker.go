package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"go.temporal.io/sdk/client"
	"golang.org/x/sync/errgroup"

	"github.com/kycflow/kycflow/activities"
	"github.com/kycflow/kycflow/metrics"
	"github.com/kycflow/kycflow/ops"
	"github.com/kycflow/kycflow/screening"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/worker"
	"github.com/kycflow/kycflow/workflows"
)

// Worker is a built worker process: the activities with their provider
// clients, the outbox relay, the watchlist index, and what they hold.
type Worker struct {
	Store      *store.Store // as kycflow_worker
	Temporal   client.Client
	Lists      *screening.Lists
	Metrics    *metrics.Metrics
	Activities *activities.Activities
	Relay      *worker.Relay
	Probes     ops.Probes

	cfg   Config
	log   *slog.Logger
	stop  func() error  // what Start started
	ended chan struct{} // closed when what Start started has ended
	closers
}

// NewWorker builds the worker: its database pool (as kycflow_worker), the
// activities and their provider clients, the relay and the watchlist index
// (sh's, or its own). Run runs it; Close releases what it opened.
func NewWorker(ctx context.Context, cfg Config, sh Shared) (_ *Worker, err error) {
	w := &Worker{cfg: cfg}
	defer func() {
		if err != nil {
			w.close()
		}
	}()
	if err := cfg.CheckPublicURL(); err != nil { // the worker mails the links
		return nil, err
	}
	if err := sh.fill(cfg, "worker", &w.closers); err != nil {
		return nil, err
	}
	log := sh.Logger
	w.log = log
	if w.Store, err = openStore(ctx, cfg, store.WorkerRole, &w.closers); err != nil {
		return nil, err
	}
	w.Temporal, w.Metrics, w.Lists = sh.Temporal, sh.Metrics, sh.Lists
	if w.Lists == nil {
		w.Lists = newLists(w.Store, log, true)
	}
	if w.Activities, err = cfg.activities(w.Store); err != nil {
		return nil, err
	}
	if w.Activities.Webhooks != nil {
		w.Activities.Webhooks.Signaler = w.Temporal
	} else {
		log.Warn("webhook deliveries wait: set WEBHOOK_SECRET_KEY (the api's) so this worker can sign them")
	}
	w.Activities.Screener, w.Activities.Metrics = w.Lists, w.Metrics
	worker.Observe(w.Metrics, w.Store, w.Lists)
	w.Relay = &worker.Relay{Store: w.Store, Client: w.Temporal, Logger: log.With("component", "relay"),
		Concurrency: cfg.RelayConcurrency, Sweep: cfg.RelaySweep, Retry: cfg.Retry, Metrics: w.Metrics,
		CallTimeout: cfg.Harness.RelayCallTimeout, DeliverySchedule: cfg.Harness.DeliverySchedule}
	w.Probes = probes(cfg, w.Store, w.Temporal, w.Lists)
	return w, nil
}

// Close releases the pool and clients the worker opened.
func (w *Worker) Close() { w.close() }

// Register makes sure of what the workers need on the Temporal server:
// the checks' search attributes and the Schedule that prunes expired data.
func (w *Worker) Register(ctx context.Context) error {
	if err := worker.EnsureSearchAttributes(ctx, w.Temporal, w.cfg.TemporalNS); err != nil {
		return err
	}
	return worker.EnsureHousekeeping(ctx, w.Temporal)
}

// Run runs the worker until ctx ends (Start, then Stop).
func (w *Worker) Run(ctx context.Context) error {
	if err := w.Start(ctx); err != nil {
		return err
	}
	select {
	case <-ctx.Done():
	case <-w.ended: // the relay gave up, say
	}
	return w.Stop()
}

// Start starts the worker: it polls the checks' task queue, relays the
// outbox, keeps the watchlists fresh (starting the rescreening of new
// versions), and registers what Register does, in the background until it
// works (Temporal may be down now). It returns once polling has started;
// Stop stops it all. The end-to-end tests stop and start a worker as an
// outage would.
func (w *Worker) Start(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	log := w.log
	go func() {
		for delay := time.Second; ; delay = min(2*delay, time.Minute) {
			err := w.Register(ctx)
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
	tw := worker.New(w.Temporal, w.Activities, w.cfg.WorkflowPollers)
	if err := tw.Start(); err != nil {
		cancel()
		return fmt.Errorf("start worker: %w", err)
	}
	dw := worker.NewDocuments(w.Temporal, w.Activities, w.cfg.DocumentReaders)
	if err := dw.Start(); err != nil {
		cancel()
		tw.Stop()
		return fmt.Errorf("start document reader: %w", err)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return w.Relay.Run(gctx) })
	g.Go(func() error {
		w.Lists.Run(gctx, w.cfg.WatchlistRefresh, worker.StartRescreens(w.Lists, w.Temporal))
		return nil
	})
	ended := make(chan struct{})
	var err error
	go func() { err = g.Wait(); close(ended) }()
	w.ended = ended
	w.stop = func() error {
		cancel()
		dw.Stop()
		tw.Stop()
		<-ended
		return err
	}
	log.Info("worker running", "task_queue", workflows.TaskQueue, "temporal", w.cfg.TemporalAddress, "providers", w.cfg.ProviderSummary())
	return nil
}

// Stop stops what Start started and waits for it.
func (w *Worker) Stop() error {
	if w.stop == nil {
		return nil
	}
	err := w.stop()
	w.stop = nil
	return err
}
