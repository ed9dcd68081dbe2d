package store

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kycflow/kycflow/check"
)

// AuthenticationCached reports whether a cached authentication of the key
// on host would answer now.
func (s *Store) AuthenticationCached(host string, keyHash []byte) bool {
	c := s.auth.Load()
	if c == nil {
		return false
	}
	_, ok := c.get(authCacheKey(host, keyHash), time.Now())
	return ok
}

// ListenForTest listens on channel for the rest of the test.
func (s *Store) ListenForTest(t *testing.T, channel string) <-chan *pq.Notification {
	l := pq.NewListener(s.dsn, 100*time.Millisecond, time.Second, nil)
	if err := l.Listen(channel); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l.Notify
}

// CreateCustomersTogether creates the customers as creates that queued
// together: the batcher's statement for them, made deterministic.
func (s *Store) CreateCustomersTogether(ctx context.Context, tenantID uuid.UUID, cs []Customer, types []check.Type) ([]map[check.Type]string, []error) {
	jobs := make([]*createJob, len(cs))
	for i := range cs {
		jobs[i] = &createJob{ctx: ctx, group: group{tenantID, check.Customer}, subject: newCustomer(tenantID, &cs[i], types), done: make(chan createResult, 1)}
	}
	s.writeBatch(jobs)
	links, errs := make([]map[check.Type]string, len(cs)), make([]error, len(cs))
	for i, j := range jobs {
		r := <-j.done
		links[i] = r.links
		if r.err != nil {
			errs[i] = customerError(r.err)
		}
	}
	return links, errs
}

// Crowd is how many creates must wait before a second writer starts, and
// SlowStatement how long before one starts for a create waiting alone.
const (
	Crowd         = crowd
	SlowStatement = slowStatement
)
