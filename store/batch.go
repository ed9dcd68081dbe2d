package store

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
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
	// other writer starts for it, crowd or not, and how long a statement
	// runs before it counts as held up (waiting on a lock, say): its own
	// group's creates then wait for it, and it no longer counts among the
	// batchWriters, so the other groups keep two writers. A statement
	// normally takes a few milliseconds.
	slowStatement = 100 * time.Millisecond
	// maxWriters bounds the writers, held-up ones included; a tenant has
	// at most batchWriters statements in progress, so one tenant's held-up
	// statements always leave writers for the others.
	maxWriters = 4
	// maxBatch bounds a statement's creates.
	maxBatch = 64
	// batchTimeout bounds a statement of creates: it serves several
	// requests, so no single request's cancellation may abort it.
	batchTimeout = 30 * time.Second
)

// group is the creates that may share a statement: one tenant's, of one
// kind.
type group struct {
	tenant uuid.UUID
	kind   check.Kind
}

// createJob is one create waiting for, or in, a statement.
type createJob struct {
	ctx context.Context
	group
	subject newSubject
	arrived time.Time
	done    chan createResult
}

type createResult struct {
	queued
	err error
}

// statement is a writer's statement in progress: its group, since when.
type statement struct {
	group
	since time.Time
}

// batcher holds the creates waiting for a writer.
type batcher struct {
	mu      sync.Mutex
	queue   []*createJob
	writers int
	// writing is the statements in progress.
	writing []statement
	// watch runs while creates wait for a writer (relieve).
	watch *time.Timer
	// statements, creates and slow count the statements written, the
	// creates they carried and those that ran slowStatement or longer.
	statements, creates, slow atomic.Uint64
}

// CreateStats is what a process's writers have done since it started.
type CreateStats struct {
	// Statements written, and the creates they carried: their ratio is
	// the statements' mean size.
	Statements, Creates uint64
	// Slow is the statements that ran 100 ms or longer: held up by a lock
	// or by a database under strain.
	Slow uint64
}

// CreateStats reports the writers' counts (for /metrics).
func (s *Store) CreateStats() CreateStats {
	b := &s.batch
	return CreateStats{Statements: b.statements.Load(), Creates: b.creates.Load(), Slow: b.slow.Load()}
}

// create writes a new record and queues its checks, sharing a statement
// with the creates of the same tenant and kind that wait with it.
func (s *Store) create(ctx context.Context, tenant uuid.UUID, kind check.Kind, sub newSubject) (queued, error) {
	j := &createJob{ctx: ctx, group: group{tenant, kind}, subject: sub, arrived: time.Now(), done: make(chan createResult, 1)}
	b := &s.batch
	b.mu.Lock()
	b.queue = append(b.queue, j)
	start := b.shouldStart(j.arrived)
	if start {
		b.writers++
	} else if b.watch == nil {
		b.watch = time.AfterFunc(slowStatement, s.relieve)
	}
	b.mu.Unlock()
	if start {
		go s.writeCreates()
	}
	// Once written, a create's outcome is awaited even if the request goes:
	// it may have been stored with the others of its statement.
	r := <-j.done
	return r.queued, r.err
}

// writeCreates writes batches until none is left for it (take); then the
// writer ends.
func (s *Store) writeCreates() {
	var done *statement
	for {
		jobs, st := s.batch.take(done)
		if jobs == nil {
			return
		}
		done = &st
		s.writeBatch(jobs)
	}
}

// relieve watches the creates waiting: when the oldest that no held-up
// statement's group holds has waited slowStatement and a writer may start,
// it starts one for them; while any wait, it looks again.
func (s *Store) relieve() {
	b := &s.batch
	b.mu.Lock()
	b.watch = nil
	start := false
	if len(b.queue) > 0 {
		next := slowStatement
		now := time.Now()
		if i := b.oldestFree(now); i >= 0 {
			next -= now.Sub(b.queue[i].arrived)
			if next <= 0 && b.canStart(now) {
				b.writers++
				start, next = true, slowStatement
			}
		}
		b.watch = time.AfterFunc(max(next, slowStatement/4), s.relieve)
	}
	b.mu.Unlock()
	if start {
		go s.writeCreates()
	}
}

// held reports whether a statement of g has been in progress for
// slowStatement or longer: its group's creates then wait for it rather than
// hold up a second writer too (waiting on the same lock, say).
func (b *batcher) held(g group, now time.Time) bool {
	for _, st := range b.writing {
		if st.group == g && now.Sub(st.since) >= slowStatement {
			return true
		}
	}
	return false
}

// shouldStart reports whether a writer starts for the creates waiting now:
// when no writer is free (none at all, or all held up) or a crowd waits,
// if another may start and a create waits that it may take.
func (b *batcher) shouldStart(now time.Time) bool {
	free := b.writers - b.heldUp(now)
	return b.canStart(now) && (free == 0 || len(b.queue) >= crowd) && b.oldestFree(now) >= 0
}

// canStart reports whether another writer may start: fewer than
// batchWriters are writing without being held up, and fewer than
// maxWriters in all.
func (b *batcher) canStart(now time.Time) bool {
	return b.writers-b.heldUp(now) < batchWriters && b.writers < maxWriters
}

// heldUp is how many statements in progress are held up.
func (b *batcher) heldUp(now time.Time) int {
	n := 0
	for _, st := range b.writing {
		if now.Sub(st.since) >= slowStatement {
			n++
		}
	}
	return n
}

// oldestFree is the index of the oldest waiting create a writer may take,
// or -1: its group is not held, and its tenant has fewer than batchWriters
// statements in progress.
func (b *batcher) oldestFree(now time.Time) int {
	for i, j := range b.queue {
		if !b.held(j.group, now) && b.statementsOf(j.tenant) < batchWriters {
			return i
		}
	}
	return -1
}

// statementsOf is how many statements of tenant are in progress.
func (b *batcher) statementsOf(tenant uuid.UUID) int {
	n := 0
	for _, st := range b.writing {
		if st.tenant == tenant {
			n++
		}
	}
	return n
}

// take ends the writer's statement done (if any) and gives it the next
// creates to write: the oldest create a writer may take (oldestFree), and
// up to maxBatch-1 others of its group. The only writer not held up takes it
// at once; while another writes, a writer takes it when a crowd waits or
// when it has waited slowStatement; else, or when none waits, the writer
// retires (nil).
func (b *batcher) take(done *statement) ([]*createJob, statement) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if done != nil {
		if i := slices.Index(b.writing, *done); i >= 0 {
			b.writing = slices.Delete(b.writing, i, i+1)
		}
	}
	now, pick := time.Now(), -1
	switch {
	case len(b.queue) == 0:
	case b.writers-b.heldUp(now) == 1:
		pick = b.oldestFree(now)
	default:
		if i := b.oldestFree(now); i >= 0 && (len(b.queue) >= crowd || now.Sub(b.queue[i].arrived) >= slowStatement) {
			pick = i
		}
	}
	if pick < 0 {
		b.writers--
		return nil, statement{}
	}
	st := statement{group: b.queue[pick].group, since: now}
	rest := b.queue[:0:0]
	var jobs []*createJob
	for _, j := range b.queue {
		if len(jobs) < maxBatch && j.group == st.group {
			jobs = append(jobs, j)
		} else {
			rest = append(rest, j)
		}
	}
	b.queue = rest
	b.writing = append(b.writing, st)
	return jobs, st
}

// count records a statement of n creates and how long it took; one whose
// creates are written again alone (again) counts only if slow.
func (b *batcher) count(n int, took time.Duration, again bool) {
	if !again {
		b.statements.Add(1)
		b.creates.Add(uint64(n))
	}
	if took >= slowStatement {
		b.slow.Add(1)
	}
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
	began := time.Now()
	out, err := s.insertSubjects(ctx, nil, live[0].tenant, live[0].kind, subjects)
	again := err != nil && len(live) > 1 && !errors.Is(classify(err), ErrUnavailable)
	s.batch.count(len(live), time.Since(began), again)
	if again {
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
