package store

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lib/pq"
)

// AuthNotifyChannel is notified on commit of any change to keys or hosts
// that could turn a cached authentication stale (a revocation above all).
const AuthNotifyChannel = "kycflow_auth"

// AuthListenerName is the application_name of the cache's listening
// connection (one per api process, in pg_stat_activity).
const AuthListenerName = "kycflow_auth_cache"

// Authentication cache bounds. A revoked key fails within authFresh of its
// commit whatever happens to the listener; in the normal case within the
// notification's delivery, a few milliseconds. An entry lives authTTL at
// most, so a key in use is still looked up (and its use recorded, once a
// minute) every authTTL per process.
const (
	authTTL     = 30 * time.Second
	authFresh   = time.Second
	authPing    = 300 * time.Millisecond
	authEntries = 10_000
)

// authCache remembers successful authentications (never failures: a wrong
// key costs a lookup every time, and the API's failure budget bounds those).
//
// It is trusted only while it is fresh: fresh holds the start time of the
// last ping that the listener's connection answered, and by then every
// notification committed before that start was read and flushed the cache
// (PostgreSQL sends them on that connection ahead of the ping's answer). A
// listener that stalls or drops stops the pings, and after authFresh every
// request goes to the database again.
type authCache struct {
	mu      sync.RWMutex
	entries map[string]authEntry
	gen     uint64 // bumped by every flush: a lookup begun before one is not kept
	fresh   atomic.Int64
}

type authEntry struct {
	p       Principal
	expires time.Time
}

func authCacheKey(host string, keyHash []byte) string { return host + "\x00" + string(keyHash) }

func (c *authCache) get(k string, now time.Time) (Principal, bool) {
	if now.UnixNano()-c.fresh.Load() >= int64(authFresh) {
		return Principal{}, false
	}
	c.mu.RLock()
	e, ok := c.entries[k]
	c.mu.RUnlock()
	if !ok || now.After(e.expires) {
		return Principal{}, false
	}
	return e.p, true
}

func (c *authCache) generation() uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.gen
}

// put keeps p unless the cache was flushed since gen was read.
func (c *authCache) put(k string, p Principal, gen uint64, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	if len(c.entries) >= authEntries {
		clear(c.entries)
	}
	c.entries[k] = authEntry{p: p, expires: now.Add(authTTL)}
}

func (c *authCache) flush() {
	c.mu.Lock()
	clear(c.entries)
	c.gen++
	c.mu.Unlock()
}

// CacheAuthentications makes Authenticate answer repeated successful
// authentications from memory until ctx ends, forgetting them all whenever
// keys or hosts change (LISTEN on AuthNotifyChannel). Meant for the api
// process, whose every request authenticates.
func (s *Store) CacheAuthentications(ctx context.Context, onProblem func(error)) {
	c := &authCache{entries: map[string]authEntry{}}
	l := pq.NewListener(withParam(s.dsn, "application_name", AuthListenerName), 100*time.Millisecond, 5*time.Second, func(ev pq.ListenerEventType, err error) {
		if err != nil && onProblem != nil {
			onProblem(err)
		}
	})
	if err := l.Listen(AuthNotifyChannel); err != nil && onProblem != nil {
		onProblem(err) // pq keeps trying; the cache stays unused meanwhile
	}
	s.auth.Store(c)
	// Pings run apart from the loop that reads notifications: pq blocks
	// the listener's connection while its notification buffer is full.
	pongs := make(chan time.Time)
	go func() {
		tick := time.NewTicker(authPing)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			start := time.Now()
			if l.Ping() != nil {
				start = time.Time{}
			}
			select {
			case pongs <- start:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		defer l.Close()
		for {
			select {
			case <-ctx.Done():
				s.auth.Store(nil)
				return
			case <-l.Notify: // a change, or nil after a reconnect: either way, forget
				c.flush()
			case start := <-pongs:
				if start.IsZero() {
					c.flush()
					continue
				}
				// Notifications sent ahead of the ping's answer.
				for drained := false; !drained; {
					select {
					case <-l.Notify:
						c.flush()
					default:
						drained = true
					}
				}
				c.fresh.Store(start.UnixNano())
			}
		}
	}()
}
