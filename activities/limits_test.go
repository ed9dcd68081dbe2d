package activities

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/store/pgcluster"
)

// twoWorkers starts PostgreSQL and returns two worker-role pools: two
// worker processes, as far as the limits can tell.
func twoWorkers(t *testing.T) (*store.Store, *store.Store) {
	t.Helper()
	ctx := context.Background()
	c, err := pgcluster.StartTemp(ctx, nil)
	if err != nil {
		t.Fatalf("PostgreSQL did not start: %v", err)
	}
	t.Cleanup(func() { c.Stop() })
	if err := store.Migrate(ctx, c.DSN("postgres", "kycflow"), store.RolePasswords{}); err != nil {
		t.Fatal(err)
	}
	var pools [2]*store.Store
	for i := range pools {
		if pools[i], err = store.Open(ctx, c.DSN(store.WorkerRole, "kycflow"), 4); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pools[i].Close() })
	}
	return pools[0], pools[1]
}

// Two processes (two pools on one database) share the providers' limits.
func TestLimitsAcrossProcesses(t *testing.T) {
	s1, s2 := twoWorkers(t)
	t.Run("vies", func(t *testing.T) { viesAcross(t, s1, s2) })
	t.Run("kvk", func(t *testing.T) { kvkAcross(t, s1, s2) })
}

// No more than two consultations are ever in flight at one member state
// (however long they take), calls start spaced by the rate, a busy member
// state does not hold up another, and a waiter gives up when its context
// ends.
func viesAcross(t *testing.T, s1, s2 *store.Store) {
	limits := []*Limits{NewLimits(s1, 50, 40, 2), NewLimits(s2, 50, 40, 2)}
	ctx := context.Background()
	var (
		inFlight, peak atomic.Int32
		mu             sync.Mutex
		starts         []time.Time
		wg             sync.WaitGroup
	)
	hold := make(chan struct{})
	asked := time.Now()
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release, err := limits[i%2].VIES(ctx, "NL")
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			starts = append(starts, time.Now())
			mu.Unlock()
			n := inFlight.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			if i < 2 {
				<-hold // the first two hold on while the others queue
			} else {
				time.Sleep(10 * time.Millisecond)
			}
			inFlight.Add(-1)
			release()
		}()
	}
	for inFlight.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	// Germany goes through while the Netherlands is full.
	release, err := limits[1].VIES(ctx, "DE")
	if err != nil {
		t.Fatal(err)
	}
	release()
	// The two in flight outlast their leases' length: renewed, they still
	// hold their slots.
	time.Sleep(lease + 500*time.Millisecond)
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, err := limits[0].VIES(short, "NL"); err == nil {
		t.Fatal("a consultation got a slot while two were in flight")
	}
	close(hold)
	wg.Wait()
	if peak.Load() != 2 {
		t.Fatalf("peak %d in flight at one member state, want 2", peak.Load())
	}
	// 8 turns at 40/s (with headroom), the first no earlier than the asking:
	// the last call starts at least 7 spacings after it.
	slices.SortFunc(starts, func(a, b time.Time) int { return a.Compare(b) })
	if took := starts[len(starts)-1].Sub(asked); took < 7*spacing(40) {
		t.Fatalf("8 NL calls at 40/s started within %v", took)
	}
}

// 11 KvK calls at 50/s from two processes take at least ten spacings.
func kvkAcross(t *testing.T, s1, s2 *store.Store) {
	limits := []*Limits{NewLimits(s1, 50, 0, 0), NewLimits(s2, 50, 0, 0)}
	start := time.Now()
	var wg sync.WaitGroup
	for i := range 11 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := limits[i%2].KvK(context.Background()); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if took := time.Since(start); took < 10*spacing(50)-5*time.Millisecond {
		t.Fatalf("11 calls at 50/s in %v", took)
	}
	var none *Limits
	if err := none.KvK(context.Background()); err != nil {
		t.Fatal(err)
	}
}
