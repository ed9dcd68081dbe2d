package screening

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"runtime/debug"
	"slices"
	"sync/atomic"
	"time"

	"github.com/kycflow/kycflow/engines/sanctions"
	"github.com/kycflow/kycflow/engines/watchlist"
	"github.com/kycflow/kycflow/store"
)

// Lists holds the sanctions index built from the newest version of every
// imported list: the Screener of api and worker processes. A new version
// is loaded in the background and swapped in atomically: screenings never
// wait for a rebuild.
type Lists struct {
	Store  *store.Store
	Logger *slog.Logger
	// MarkLoaded records in the database when a version is first loaded
	// (what GET /api/v1/watchlists shows): a worker's, not an api's.
	MarkLoaded bool
	cur        atomic.Pointer[snapshot]
}

type snapshot struct {
	index    *sanctions.Index
	versions []store.WatchlistVersion
}

var _ Screener = (*Lists)(nil)

// Screen implements Screener. One index holds every list; a
// tenant screening against some of them searches those alone.
func (w *Lists) Screen(q sanctions.Query, limit int, lists []string) ([]sanctions.Hit, []store.WatchlistVersion) {
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

// Versions implements Screener.
func (w *Lists) Versions() []store.WatchlistVersion {
	if s := w.cur.Load(); s != nil {
		return s.versions
	}
	return nil
}

// Refresh loads the lists when their newest versions changed.
func (w *Lists) Refresh(ctx context.Context) error {
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
func (w *Lists) install(es []watchlist.Entity, versions []store.WatchlistVersion) *sanctions.Index {
	ix := sanctions.Build(es, sanctions.Options{})
	w.cur.Store(&snapshot{index: ix, versions: versions})
	return ix
}

// Run refreshes the lists every interval until ctx ends; after each
// refresh that succeeded, then (a worker's rescreening start) runs.
func (w *Lists) Run(ctx context.Context, interval time.Duration, then func(context.Context) error) {
	if interval <= 0 {
		interval = 10 * time.Second
	}
	for {
		if err := w.Refresh(ctx); err != nil && ctx.Err() == nil {
			w.Logger.Warn("watchlists not loaded", "error", err)
		} else if err == nil && then != nil {
			if err := then(ctx); err != nil && ctx.Err() == nil {
				w.Logger.Warn("after loading the watchlists", "error", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
	}
}
