package store

import (
	"testing"
	"time"

	"github.com/lib/pq"
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
