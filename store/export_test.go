package store

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store/batch"
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
	subs := make([]newSubject, len(cs))
	for i := range cs {
		subs[i] = newCustomer(tenantID, &cs[i], types)
	}
	out, errs := s.creates.WriteTogether(ctx, batch.Group{Tenant: tenantID, Kind: check.Customer}, subs)
	links := make([]map[check.Type]string, len(cs))
	for i := range out {
		links[i] = out[i].links
		if errs[i] != nil {
			errs[i] = customerError(errs[i])
		}
	}
	return links, errs
}
