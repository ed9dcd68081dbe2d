package store

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
)

// Concurrent creates of one tenant share a statement. Most of what
// PostgreSQL spends on a create is per statement and per transaction (each
// trigger's set-up, the commit), so a create that arrives while
// others are being written waits for a writer and goes with every create of
// its tenant and kind that queued meanwhile. At idle a create is written
// alone and at once: nothing waits for company.
const (
	// batchWriters is how many statements of creates run at once, per
	// process, and crowd how many creates must wait before a writer beyond
	// the first starts (or goes on): under load creates queue behind one
	// writer and share its statements (a create's cost to PostgreSQL falls
	// with its statement's size); a second writer overlaps the first's
	// commit when they crowd (and starts for creates that wait on a slow
	// statement, see slowStatement). On 2 cores, 16 clients: 1 writer 6 194
	// creates/s; 2 writers 5 831 without a crowd, 6 724 with 4, 7 391 with
	// 8, 6 495 with 12.
	batchWriters = 2
	crowd        = 8
	// slowStatement is how long a create waits for a writer before the
	// other writer starts for it, crowd or not: one tenant's statement held
	// up (waiting on a lock, say) holds up no other create for longer. A
	// statement normally takes a few milliseconds.
	slowStatement = 100 * time.Millisecond
	// maxBatch bounds a statement's creates.
	maxBatch = 64
	// batchTimeout bounds a statement of creates: it serves several
	// requests, so no single request's cancellation may abort it.
	batchTimeout = 30 * time.Second
)

// createJob is one create waiting for, or in, a statement.
type createJob struct {
	ctx     context.Context
	tenant  uuid.UUID
	kind    check.Kind
	subject newSubject
	queued  time.Time
	done    chan createResult
}

type createResult struct {
	queued
	err error
}

// batcher holds the creates waiting for a writer.
type batcher struct {
	mu      sync.Mutex
	queue   []*createJob
	writers int
	// watch runs while creates wait for a writer (relieve).
	watch *time.Timer
}

// create writes a new record and queues its checks, sharing a statement
// with the creates of the same tenant and kind that wait with it.
func (s *Store) create(ctx context.Context, tenant uuid.UUID, kind check.Kind, sub newSubject) (queued, error) {
	j := &createJob{ctx: ctx, tenant: tenant, kind: kind, subject: sub, queued: time.Now(), done: make(chan createResult, 1)}
	b := &s.batch
	b.mu.Lock()
	b.queue = append(b.queue, j)
	start := b.writers == 0 || b.writers < batchWriters && len(b.queue) >= crowd
	if start {
		b.writers++
	} else if b.watch == nil {
		b.watch = time.AfterFunc(slowStatement, s.relieve)
	}
	b.mu.Unlock()
	if start {
		go s.writeCreates(false)
	}
	// Once written, a create's outcome is awaited even if the request goes:
	// it may have been stored with the others of its statement.
	r := <-j.done
	return r.queued, r.err
}

// writeCreates writes batches until none waits (a second writer: until
// fewer than a crowd wait); then the writer ends. A relief writer writes its
// first batch whatever the crowd.
func (s *Store) writeCreates(relief bool) {
	for {
		jobs := s.batch.take(relief)
		if jobs == nil {
			return
		}
		relief = false
		s.writeBatch(jobs)
	}
}

// relieve watches the creates waiting: when the oldest has waited
// slowStatement and a writer is free, it starts one for them; while any
// wait, it looks again.
func (s *Store) relieve() {
	b := &s.batch
	b.mu.Lock()
	b.watch = nil
	start := false
	if len(b.queue) > 0 {
		next := slowStatement - time.Since(b.queue[0].queued)
		if next <= 0 && b.writers < batchWriters {
			b.writers++
			start = true
			next = slowStatement
		}
		b.watch = time.AfterFunc(max(next, slowStatement/4), s.relieve)
	}
	b.mu.Unlock()
	if start {
		go s.writeCreates(true)
	}
}

// take removes the oldest waiting create and up to maxBatch-1 others of
// its tenant and kind from the queue, or retires the writer when none waits
// (a second writer not relieving: when fewer than a crowd wait).
func (b *batcher) take(relief bool) []*createJob {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.queue) == 0 || !relief && b.writers > 1 && len(b.queue) < crowd {
		b.writers--
		return nil
	}
	first, rest := b.queue[0], b.queue[:0:0]
	var jobs []*createJob
	for _, j := range b.queue {
		if len(jobs) < maxBatch && j.tenant == first.tenant && j.kind == first.kind {
			jobs = append(jobs, j)
		} else {
			rest = append(rest, j)
		}
	}
	b.queue = rest
	return jobs
}

// writeBatch writes the creates of one tenant and kind in one statement.
// When it fails for a cause other than the database's availability, one
// create may be at fault (a customer naming a business the tenant does not
// have): each is then written alone, so each gets its own answer.
func (s *Store) writeBatch(jobs []*createJob) {
	live := jobs[:0]
	for _, j := range jobs {
		if err := j.ctx.Err(); err != nil {
			j.done <- createResult{err: err}
			continue
		}
		live = append(live, j)
	}
	if len(live) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(live[0].ctx), batchTimeout)
	defer cancel()
	subjects := make([]newSubject, len(live))
	for i, j := range live {
		subjects[i] = j.subject
	}
	out, err := s.insertSubjects(ctx, nil, live[0].tenant, live[0].kind, subjects)
	if err != nil && len(live) > 1 && !errors.Is(classify(err), ErrUnavailable) {
		for i := range live {
			s.writeBatch(live[i : i+1])
		}
		return
	}
	for i, j := range live {
		r := createResult{err: err}
		if err == nil {
			r.queued = out[i]
		}
		j.done <- r
	}
	if err == nil {
		s.wakeRelay() // the checks' starts, the events' deliveries
	}
}
