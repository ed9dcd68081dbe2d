package api

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
)

// A tenant's screening budget is CPU time: a request is admitted while
// the bucket is above zero, reserving its estimate; what it used is
// charged when it is done; the debt is waited out; tenants are apart.
func TestCPUBudget(t *testing.T) {
	b := newCPUBudget(0.5) // burst: 1 s
	a, other := uuid.New(), uuid.New()
	now := time.Unix(1e9, 0)
	if err := b.reserve(a, 100*time.Millisecond, now); err != nil {
		t.Fatal(err)
	}
	// It took 1.5 s: the bucket is 0.5 s in debt, and a second request,
	// however small, waits a second (0.5 s at 0.5/s).
	b.settle(a, 100*time.Millisecond, 1500*time.Millisecond, now)
	if got := b.remaining(a, now); got != -500*time.Millisecond {
		t.Fatalf("after 1.5 s: %v left", got)
	}
	err := b.reserve(a, time.Millisecond, now)
	if err == nil || err.status != http.StatusTooManyRequests || err.retryAfter != 1 {
		t.Fatalf("in debt: %+v", err)
	}
	// Another tenant is untouched.
	if err := b.reserve(other, 10*time.Millisecond, now); err != nil {
		t.Fatalf("another tenant: %v", err)
	}
	// A second later the debt is paid; two seconds later the bucket is
	// full, never fuller.
	if err := b.reserve(a, time.Millisecond, now.Add(1001*time.Millisecond)); err != nil {
		t.Fatalf("a second later: %v", err)
	}
	if got := b.remaining(a, now.Add(time.Hour)); got != time.Second {
		t.Fatalf("an hour later: %v left", got)
	}
	// Concurrent requests each reserve their estimate: an empty bucket
	// admits no crowd.
	c := uuid.New()
	admitted := 0
	for range 100 {
		if b.reserve(c, 200*time.Millisecond, now) == nil {
			admitted++
		}
	}
	if admitted != 5 {
		t.Fatalf("%d of 100 concurrent requests admitted on a 1 s bucket at 200 ms each", admitted)
	}
	if newCPUBudget(0) != nil {
		t.Fatal("0 turns the budget off")
	}
}
