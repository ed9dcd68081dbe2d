package api

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"
)

// cpuBudget is what each tenant may spend on synchronous screening (POST
// /screen), in CPU time rather than requests: one query of common words
// costs a hundred times a short rare name, and a request budget would let
// a tenant choose the worst. Each tenant has a bucket of rate
// CPU-seconds per second, holding at most burst. A request is admitted
// while the bucket is above zero and reserves an estimate of its cost
// (so a crowd of concurrent requests cannot all pass an empty bucket);
// when it is done, the CPU time it took is charged instead. The bucket
// may so run into debt by at most one request's work, which the next
// requests wait out.
type cpuBudget struct {
	rate  float64
	burst time.Duration

	mu sync.Mutex
	m  map[uuid.UUID]*cpuBucket
}

type cpuBucket struct {
	left time.Duration // of CPU time
	at   time.Time
}

func newCPUBudget(rate float64) *cpuBudget {
	if rate <= 0 {
		return nil
	}
	// A burst of two seconds' allowance, and at least one second: a batch
	// of the costliest queries fits.
	return &cpuBudget{rate: rate, burst: time.Duration(max(2*rate, 1) * float64(time.Second)), m: map[uuid.UUID]*cpuBucket{}}
}

// refill brings a tenant's bucket to now; the caller holds mu.
func (b *cpuBudget) refill(tenant uuid.UUID, now time.Time) *cpuBucket {
	k := b.m[tenant]
	if k == nil {
		k = &cpuBucket{left: b.burst, at: now}
		b.m[tenant] = k
	}
	k.left = min(b.burst, k.left+time.Duration(float64(now.Sub(k.at))*b.rate))
	k.at = now
	return k
}

// reserve admits a request estimated to cost est, reserving it; or says,
// with the seconds until the bucket is above zero again, why not.
func (b *cpuBudget) reserve(tenant uuid.UUID, est time.Duration, now time.Time) *apiError {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := b.refill(tenant, now)
	if k.left <= 0 {
		wait := max(1, int(math.Ceil(-k.left.Seconds()/b.rate)))
		return &apiError{status: http.StatusTooManyRequests, retryAfter: wait,
			message: "The screening budget of " + strconv.FormatFloat(b.rate, 'f', -1, 64) + " CPU-seconds per second is spent; retry in " + strconv.Itoa(wait) + " s."}
	}
	k.left -= est
	return nil
}

// settle replaces a request's estimate with what it cost.
func (b *cpuBudget) settle(tenant uuid.UUID, est, used time.Duration, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := b.refill(tenant, now)
	k.left += est - used
}

// remaining is a tenant's bucket now (for tests).
func (b *cpuBudget) remaining(tenant uuid.UUID, now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.refill(tenant, now).left
}
