package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"runtime/debug"
	"slices"
	"sync/atomic"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/kycflow/kycflow/activities"
	"github.com/kycflow/kycflow/providers/sanctions"
	"github.com/kycflow/kycflow/providers/watchlist"
	"github.com/kycflow/kycflow/screening"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/workflows"
)

// Watchlists holds the sanctions index built from the newest version of
// every imported list. A new version is loaded in the background and
// swapped in atomically: screenings never wait for a rebuild.
type Watchlists struct {
	Store  *store.Store
	Logger *slog.Logger
	// MarkLoaded records in the database when a version is first loaded
	// (what GET /api/v1/watchlists shows): a worker's, not an api's.
	MarkLoaded bool
	cur        atomic.Pointer[watchlistSnapshot]
}

type watchlistSnapshot struct {
	index    *sanctions.Index
	versions []store.WatchlistVersion
}

var _ screening.Screener = (*Watchlists)(nil)

// Screen implements screening.Screener. One index holds every list; a
// tenant screening against some of them searches those alone.
func (w *Watchlists) Screen(q sanctions.Query, limit int, lists []string) ([]sanctions.Hit, []store.WatchlistVersion) {
	s := w.cur.Load()
	if s == nil {
		return nil, nil
	}
	if lists == nil {
		return s.index.Search(q, limit), s.versions
	}
	var versions []store.WatchlistVersion
	for _, v := range s.versions {
		if slices.Contains(lists, v.List) {
			versions = append(versions, v)
		}
	}
	if len(versions) == 0 {
		return nil, nil
	}
	if len(versions) == len(s.versions) {
		return s.index.Search(q, limit), versions
	}
	q.Lists = lists
	return s.index.Search(q, limit), versions
}

// Versions implements screening.Screener.
func (w *Watchlists) Versions() []store.WatchlistVersion {
	if s := w.cur.Load(); s != nil {
		return s.versions
	}
	return nil
}

// Refresh loads the lists when their newest versions changed.
func (w *Watchlists) Refresh(ctx context.Context) error {
	latest, err := w.Store.LatestWatchlists(ctx)
	if err != nil {
		return err
	}
	if s := w.cur.Load(); s != nil && slices.EqualFunc(s.versions, latest, func(a, b store.WatchlistVersion) bool { return a.ID == b.ID }) {
		return nil
	}
	if len(latest) == 0 {
		return nil
	}
	start := time.Now()
	var es []watchlist.Entity
	for _, v := range latest {
		from := len(es)
		err := w.Store.WatchlistEntities(ctx, v.ID, func(_ string, data []byte) (err error) {
			es, err = watchlist.AppendJSON(es, data)
			return err
		})
		if err != nil {
			return fmt.Errorf("load %s version %d: %w", v.List, v.ID, err)
		}
		for i := from; i < len(es); i++ {
			es[i].List = v.List
		}
	}
	ix := w.install(es, latest)
	if w.MarkLoaded {
		ids := make([]int64, len(latest))
		for i, v := range latest {
			ids[i] = v.ID
		}
		if err := w.Store.MarkWatchlistsLoaded(ctx, ids); err != nil {
			w.Logger.Warn("could not record the loaded list versions", "error", err)
		}
	}
	n := len(es)
	es = nil
	// Loading and building leave a heap twice the index's size behind
	// (and the old index, now unreachable): hand it back to the system
	// now rather than keep it resident until the next busy spell.
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	w.Logger.Info("watchlists loaded", "lists", len(latest), "entities", n, "took", time.Since(start).Round(time.Millisecond),
		"heap_mb", ms.HeapAlloc>>20, "index_mb", ix.Stats().MemoryBytes>>20)
	return nil
}

// install builds the index of versions' entities and swaps it in: a
// screening sees the old snapshot or the new one whole, never a mix, and
// the versions it reports are those of the index that answered.
func (w *Watchlists) install(es []watchlist.Entity, versions []store.WatchlistVersion) *sanctions.Index {
	ix := sanctions.Build(es, sanctions.Options{})
	w.cur.Store(&watchlistSnapshot{index: ix, versions: versions})
	return ix
}

// Run refreshes the lists every interval and, given a client (a worker),
// starts the rescreening of every version not rescreened yet (the import
// command only stores the version; this loop is what carries it on, so
// nothing is lost if the worker was down during the import).
func (w *Watchlists) Run(ctx context.Context, c client.Client, interval time.Duration) {
	if interval <= 0 {
		interval = 10 * time.Second
	}
	for {
		// An api process (no client) only screens; workers rescreen.
		if err := w.Refresh(ctx); err != nil && ctx.Err() == nil {
			w.Logger.Warn("watchlists not loaded", "error", err)
		} else if err == nil && c != nil {
			if err := w.startRescreens(ctx, c); err != nil && ctx.Err() == nil {
				w.Logger.Warn("rescreening not started", "error", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
	}
}

func (w *Watchlists) startRescreens(ctx context.Context, c client.Client) error {
	pending, err := w.Store.PendingRescreens(ctx)
	if err != nil {
		return err
	}
	loaded := w.Versions()
	for _, v := range pending {
		if !slices.ContainsFunc(loaded, func(l store.WatchlistVersion) bool { return l.ID == v.ID }) {
			// Superseded before its turn: the newest version's rescreening
			// compares with the last rescreened one, so it covers this
			// version's changes, and marks it done with it.
			continue
		}
		_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
			ID: workflows.RescreenWorkflowID(v.ID), TaskQueue: workflows.TaskQueue,
			WorkflowIDReusePolicy: enums.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY,
		}, workflows.RescreenWorkflow, activities.RescreenInput{VersionID: v.ID})
		var started *serviceerror.WorkflowExecutionAlreadyStarted
		if err != nil && !errors.As(err, &started) {
			return err
		}
	}
	return nil
}
