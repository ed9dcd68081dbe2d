package store

import (
	"context"
	"time"
)

// notifySpacing bounds how often one process wakes the relays: pokes that
// arrive meanwhile are folded into the next NOTIFY.
const notifySpacing = 10 * time.Millisecond

// startNotifier runs the goroutine that turns pokes into NOTIFYs, sent
// outside any transaction after the outbox rows were committed.
func (s *Store) startNotifier() {
	s.poke = make(chan struct{}, 1)
	s.stop = make(chan struct{})
	s.stopped = make(chan struct{})
	go func() {
		defer close(s.stopped)
		for {
			select {
			case <-s.stop:
				return
			case <-s.poke:
			}
			s.notify()
			time.Sleep(notifySpacing)
		}
	}()
}

// notify sends one NOTIFY. A lost one only delays the relay until its next sweep.
func (s *Store) notify() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = s.db.ExecContext(ctx, `SELECT pg_notify($1, '')`, OutboxNotifyChannel)
}

// wakeRelay asks for a NOTIFY soon; it never blocks.
func (s *Store) wakeRelay() {
	select {
	case s.poke <- struct{}{}:
	default: // one is pending already
	}
}
