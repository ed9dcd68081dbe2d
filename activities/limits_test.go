package activities

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// At most viesConcurrent consultations per member state are in flight, and
// a busy member state does not hold up another.
func TestVIESLimitPerMemberState(t *testing.T) {
	l := NewLimits(0, 0, 2)
	ctx := context.Background()
	var inFlight, peak atomic.Int32
	var wg sync.WaitGroup
	hold := make(chan struct{})
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release, err := l.VIES(ctx, "NL")
			if err != nil {
				t.Error(err)
				return
			}
			n := inFlight.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			<-hold
			inFlight.Add(-1)
			release()
		}()
	}
	// Germany goes through while the Netherlands is full.
	for inFlight.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	release, err := l.VIES(ctx, "DE")
	if err != nil {
		t.Fatal(err)
	}
	release()
	// A waiter gives up when its context ends.
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := l.VIES(short, "NL"); err == nil {
		t.Fatal("a third NL consultation got a slot")
	}
	close(hold)
	wg.Wait()
	if peak.Load() != 2 {
		t.Fatalf("peak %d in flight at one member state, want 2", peak.Load())
	}
}

// The KvK limiter lets no more than the rate through in any second: with
// burst 1, n calls at rate r take at least (n-1)/r.
func TestKvKRate(t *testing.T) {
	l := NewLimits(50, 0, 0)
	start := time.Now()
	for range 11 {
		if err := l.KvK(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if took := time.Since(start); took < 190*time.Millisecond {
		t.Fatalf("11 calls at 50/s in %v", took)
	}
	var none *Limits
	if err := none.KvK(context.Background()); err != nil {
		t.Fatal(err)
	}
}
