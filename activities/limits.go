package activities

import (
	"context"
	"sync"

	"golang.org/x/time/rate"
)

// Limits spaces provider calls made by this worker process, so a burst of
// checks does not get the service blocked: KvK allows a fixed rate per API
// key, and VIES answers MS_MAX_CONCURRENT_REQ (and may block an address)
// when one member state's service gets too many requests at once. With
// several worker processes the limits add up; size them per process.
type Limits struct {
	kvk *rate.Limiter

	viesRate       rate.Limit
	viesConcurrent int
	mu             sync.Mutex
	memberStates   map[string]*memberState // by VIES prefix
}

type memberState struct {
	rate  *rate.Limiter
	slots chan struct{}
}

// NewLimits allows kvkPerSecond KvK calls and, per VIES member state,
// viesPerSecond consultations with at most viesConcurrent in flight. A zero
// value means no limit of that kind.
func NewLimits(kvkPerSecond, viesPerSecond float64, viesConcurrent int) *Limits {
	l := &Limits{viesRate: rate.Inf, viesConcurrent: viesConcurrent, memberStates: map[string]*memberState{}}
	if kvkPerSecond > 0 {
		// Burst 1: never more than the rate in any one-second window.
		l.kvk = rate.NewLimiter(rate.Limit(kvkPerSecond), 1)
	}
	if viesPerSecond > 0 {
		l.viesRate = rate.Limit(viesPerSecond)
	}
	return l
}

// KvK waits for a KvK call's turn.
func (l *Limits) KvK(ctx context.Context) error {
	if l == nil || l.kvk == nil {
		return nil
	}
	return l.kvk.Wait(ctx)
}

// VIES waits for a consultation's turn at member state cc; release frees its
// slot once the answer is in.
func (l *Limits) VIES(ctx context.Context, cc string) (release func(), err error) {
	if l == nil {
		return func() {}, nil
	}
	l.mu.Lock()
	ms, ok := l.memberStates[cc]
	if !ok {
		ms = &memberState{rate: rate.NewLimiter(l.viesRate, 1)}
		if l.viesConcurrent > 0 {
			ms.slots = make(chan struct{}, l.viesConcurrent)
		}
		l.memberStates[cc] = ms
	}
	l.mu.Unlock()
	if ms.slots != nil {
		select {
		case ms.slots <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	release = func() {
		if ms.slots != nil {
			<-ms.slots
		}
	}
	if err := ms.rate.Wait(ctx); err != nil {
		release()
		return nil, err
	}
	return release, nil
}
