package activities

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
)

// Limits spaces provider calls across every worker process, so a burst of
// checks does not get the service blocked: KvK allows a fixed rate per API
// key, and VIES answers MS_MAX_CONCURRENT_REQ (and may block an address)
// when one member state's service gets too many requests at once. The turns
// and in-flight slots are kept in PostgreSQL (see store.ProviderTurn), so
// the limits are the providers' whatever the number of workers.
type Limits struct {
	store                   *store.Store
	kvkSpacing, viesSpacing time.Duration // 0: no limit
	viesSlots               int
	turnWait                time.Duration // a slot holder's longest wait for its turn

	mu    sync.Mutex
	gates map[string]chan struct{} // by VIES prefix
}

// headroom stretches the spacing of turns so that a provider, which sees
// the calls after the network's and the schedulers' jitter, still never
// counts more than the rate in any one second: rate+1 calls span 1.1 s.
const headroom = 1.1

// slotPoll is how often a call waiting for an in-flight slot asks again.
const slotPoll = 20 * time.Millisecond

// lease is how long a slot stays held without renewal: a worker that dies
// mid-call blocks its slot this long. Holders renew every lease/4.
const lease = 4 * time.Second

// errPastDeadline says a turn would come after the activity's deadline;
// the attempt fails now instead of timing out later.
var errPastDeadline = errors.New("provider limit: the next turn is past this attempt's deadline")

// NewLimits allows kvkPerSecond KvK calls and, per VIES member state,
// viesPerSecond consultations with at most viesConcurrent in flight. A zero
// value means no limit of that kind.
func NewLimits(s *store.Store, kvkPerSecond, viesPerSecond float64, viesConcurrent int) *Limits {
	l := &Limits{store: s, kvkSpacing: spacing(kvkPerSecond), viesSpacing: spacing(viesPerSecond),
		viesSlots: viesConcurrent, gates: map[string]chan struct{}{}}
	// Only slot holders ask for turns, so a holder's turn is at most one
	// spacing per slot away; a second on top covers a slow database.
	l.turnWait = time.Duration(viesConcurrent)*l.viesSpacing + time.Second
	return l
}

func spacing(perSecond float64) time.Duration {
	if perSecond <= 0 {
		return 0
	}
	return time.Duration(headroom * float64(time.Second) / perSecond)
}

// KvK waits for a KvK call's turn.
func (l *Limits) KvK(ctx context.Context) error {
	if l == nil || l.kvkSpacing == 0 {
		return nil
	}
	return l.turn(ctx, check.ProviderKvK, "", l.kvkSpacing, time.Hour)
}

// VIES waits for a consultation's turn at member state cc; release frees its
// slot once the answer is in.
func (l *Limits) VIES(ctx context.Context, cc string) (release func(), err error) {
	release = func() {}
	if l == nil {
		return release, nil
	}
	if l.viesSlots > 0 {
		if release, err = l.slot(ctx, check.ProviderVIES, cc); err != nil {
			return nil, err
		}
	}
	if l.viesSpacing > 0 {
		if err := l.turn(ctx, check.ProviderVIES, cc, l.viesSpacing, l.turnWait); err != nil {
			release()
			return nil, err
		}
	}
	return release, nil
}

// turn reserves the next turn and sleeps until it comes.
func (l *Limits) turn(ctx context.Context, provider, scope string, spacing, maxWait time.Duration) error {
	if dl, ok := ctx.Deadline(); ok {
		maxWait = min(maxWait, time.Until(dl))
	}
	wait, ok, err := l.store.ProviderTurn(ctx, provider, scope, spacing, max(0, maxWait))
	if err != nil {
		return err
	}
	if !ok {
		return errPastDeadline
	}
	return sleep(ctx, wait)
}

// slot leases one of the shared in-flight slots. Within this process a gate
// lets at most as many calls ask as there are slots, so waiting calls cost
// the database a few polls a second, not one per call.
func (l *Limits) slot(ctx context.Context, provider, scope string) (release func(), err error) {
	l.mu.Lock()
	gate, ok := l.gates[scope]
	if !ok {
		gate = make(chan struct{}, l.viesSlots)
		l.gates[scope] = gate
	}
	l.mu.Unlock()
	select {
	case gate <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	holder := uuid.New()
	for {
		n, ok, err := l.store.TakeProviderSlot(ctx, provider, scope, l.viesSlots, holder, lease)
		if err != nil {
			<-gate
			return nil, err
		}
		if ok {
			return l.keep(ctx, provider, scope, n, holder, gate), nil
		}
		if err := sleep(ctx, slotPoll+rand.N(slotPoll)); err != nil {
			<-gate
			return nil, fmt.Errorf("waiting for a %s slot: %w", provider, err)
		}
	}
}

// keep renews a slot's lease until the returned release gives it back (also
// when the attempt was cancelled). A renewal that fails leaves the lease to
// run out.
func (l *Limits) keep(ctx context.Context, provider, scope string, n int, holder uuid.UUID, gate chan struct{}) (release func()) {
	done, stopped := make(chan struct{}), make(chan struct{})
	bg := context.WithoutCancel(ctx)
	go func() {
		defer close(stopped)
		tick := time.NewTicker(lease / 4)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				rctx, cancel := context.WithTimeout(bg, lease/4)
				l.store.KeepProviderSlot(rctx, provider, scope, n, holder, lease)
				cancel()
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
		gctx, cancel := context.WithTimeout(bg, 5*time.Second)
		defer cancel()
		l.store.KeepProviderSlot(gctx, provider, scope, n, holder, 0)
		<-gate
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
