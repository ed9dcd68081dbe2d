// Package batch is the group commit of creates: concurrent creates of one
// tenant and kind share one statement, because most of what PostgreSQL
// spends on a create is per statement and per transaction (each trigger's
// set-up, the commit).
//
// # A create, from the handler to the outbox
//
//  1. api/businesses.go (or customers.go) reads the body with the walker
//     of api/object.go, which validates the whole document once and then
//     walks it, and validates the fields (api/validate.go).
//  2. store.CreateBusiness (store/businesses.go) stamps the record's id and
//     times and hands it to store.create (store/create.go) as a new
//     subject, with the checks to queue on it.
//  3. store.create gives it to this package's Batcher (Do). At idle a
//     writer starts at once and the create is written alone; under load it
//     waits for a writer, and goes with every create of its group that
//     waited meanwhile (take, in rules.go, says which and when).
//  4. The writer calls the store's write function (store/create.go
//     writeSubjects): one SQL statement (store/create.sql) that sets the
//     tenant, inserts the records from one JSON array (subjects_json.go),
//     their checks, the verification links of idin/idscan checks, and an
//     outbox row per check. The statement runs prepared (prepared.go).
//  5. Triggers in the same statement write the events (check.queued,
//     business.created) and the webhook deliveries they fan out to
//     (store/migrations/00010_events.sql, 00018).
//  6. After the commit the writer wakes the relay (store/notify.go), which
//     starts each check's workflow from the outbox (worker/relay.go).
//
// If a statement fails for a reason other than the database's
// availability, one create may be at fault (a customer naming a business
// the tenant does not have): each is then written alone, so each gets its
// own answer. store.Options.PlainCreates writes every create alone in a
// plain transaction of separate statements instead: the reference the
// differential test compares this path with.
package batch

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
)

// The batcher's tuned numbers; docs/BENCHMARKS.md ("The create path
// against PostgreSQL's floor") has what each was measured at.
const (
	// Writers is how many statements run at once per process, none held
	// up. Fewer make larger statements (a create's cost falls with its
	// statement's size); more make a create wait less for a writer.
	Writers = 2
	// Crowd is how many waiting creates start a writer beyond the first:
	// lower, creates wait less; higher, statements are larger.
	Crowd = 8
	// HeldUp is how long a statement runs before it counts as held up
	// (waiting on a lock, say): its own group's creates then wait for it,
	// and it no longer counts among the Writers, so the other groups keep
	// theirs. It is also how long a create waits for a writer before one
	// starts for it, crowd or not. Shorter, a brief stall counts as held
	// up and starts writers for nothing; longer, others wait behind a
	// lock for longer. A statement normally takes a few milliseconds.
	HeldUp = 100 * time.Millisecond
	// MaxWriters bounds the writers, held-up ones included; a tenant has at
	// most Writers statements in progress, so one tenant's held-up
	// statements always leave writers for the others.
	MaxWriters = 4
	// MaxJobs bounds a statement's creates: a larger statement holds its
	// locks, and a failure's retry one by one, for longer.
	MaxJobs = 64
	// Timeout bounds a statement: it serves several requests, so no single
	// request's cancellation may abort it.
	Timeout = 30 * time.Second
)

// Group is the creates that may share a statement: one tenant's, of one
// kind.
type Group struct {
	Tenant uuid.UUID
	Kind   check.Kind
}

// Batcher writes the jobs given to Do through Write, several of a group per
// statement under load. J is a job (a new subject), R its result.
type Batcher[J, R any] struct {
	// Write writes jobs of one group in one statement, in a context of its
	// own (Timeout), and returns their results in order.
	Write func(ctx context.Context, g Group, jobs []J) ([]R, error)
	// Alone reports whether the jobs of a statement that failed with err
	// are to be written again one by one (one of them may be at fault).
	Alone func(err error) bool
	// Written runs after each statement that succeeded.
	Written func()

	mu      sync.Mutex
	queue   []*job[J, R]
	writers int
	// writing is the statements in progress.
	writing []statement
	// watch runs while jobs wait for a writer (relieve).
	watch *time.Timer
	// statements, jobs and slow count the statements written, the jobs
	// they carried and those that ran HeldUp or longer.
	statements, jobs, slow atomic.Uint64
}

// job is one create waiting for, or in, a statement.
type job[J, R any] struct {
	ctx context.Context
	Group
	j       J
	arrived time.Time
	done    chan result[R]
}

type result[R any] struct {
	r   R
	err error
}

// statement is a writer's statement in progress: its group, since when.
type statement struct {
	Group
	since time.Time
}

// Stats is what a process's writers have done since it started.
type Stats struct {
	// Statements written, and the creates they carried: their ratio is
	// the statements' mean size.
	Statements, Creates uint64
	// Slow is the statements that ran HeldUp or longer: held up by a lock
	// or by a database under strain.
	Slow uint64
}

// Stats reports the writers' counts (for /metrics).
func (b *Batcher[J, R]) Stats() Stats {
	return Stats{Statements: b.statements.Load(), Creates: b.jobs.Load(), Slow: b.slow.Load()}
}

// Do writes j, sharing a statement with the jobs of its group that wait
// with it. Once written, its outcome is awaited even if ctx ends: it may
// have been stored with the others of its statement.
func (b *Batcher[J, R]) Do(ctx context.Context, g Group, j J) (R, error) {
	jb := &job[J, R]{ctx: ctx, Group: g, j: j, arrived: time.Now(), done: make(chan result[R], 1)}
	b.mu.Lock()
	b.queue = append(b.queue, jb)
	start := b.shouldStart(jb.arrived)
	if start {
		b.writers++
	} else if b.watch == nil {
		b.watch = time.AfterFunc(HeldUp, b.relieve)
	}
	b.mu.Unlock()
	if start {
		go b.writeAll()
	}
	r := <-jb.done
	return r.r, r.err
}

// WriteTogether writes jobs of one group as one statement at once, as
// creates that queued together would be: for tests, deterministic.
func (b *Batcher[J, R]) WriteTogether(ctx context.Context, g Group, js []J) ([]R, []error) {
	jobs := make([]*job[J, R], len(js))
	for i, j := range js {
		jobs[i] = &job[J, R]{ctx: ctx, Group: g, j: j, done: make(chan result[R], 1)}
	}
	b.write(jobs)
	rs, errs := make([]R, len(js)), make([]error, len(js))
	for i, jb := range jobs {
		r := <-jb.done
		rs[i], errs[i] = r.r, r.err
	}
	return rs, errs
}

// writeAll writes statements until none is left for this writer (take);
// then the writer ends.
func (b *Batcher[J, R]) writeAll() {
	var done *statement
	for {
		jobs, st := b.take(done)
		if jobs == nil {
			return
		}
		done = &st
		b.write(jobs)
	}
}

// relieve watches the jobs waiting: when the oldest that no held-up
// statement's group holds has waited HeldUp and a writer may start, it
// starts one for them; while any wait, it looks again.
func (b *Batcher[J, R]) relieve() {
	b.mu.Lock()
	b.watch = nil
	start := false
	if len(b.queue) > 0 {
		next := HeldUp
		now := time.Now()
		if i := b.oldestFree(now); i >= 0 {
			next -= now.Sub(b.queue[i].arrived)
			if next <= 0 && b.canStart(now) {
				b.writers++
				start, next = true, HeldUp
			}
		}
		b.watch = time.AfterFunc(max(next, HeldUp/4), b.relieve)
	}
	b.mu.Unlock()
	if start {
		go b.writeAll()
	}
}

// write writes the jobs of one group in one statement, or each alone when
// it failed and Alone says so.
func (b *Batcher[J, R]) write(jobs []*job[J, R]) {
	live := jobs[:0:0]
	for _, jb := range jobs {
		if err := jb.ctx.Err(); err != nil {
			jb.done <- result[R]{err: err}
			continue
		}
		live = append(live, jb)
	}
	if len(live) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(live[0].ctx), Timeout)
	defer cancel()
	js := make([]J, len(live))
	for i, jb := range live {
		js[i] = jb.j
	}
	began := time.Now()
	out, err := b.Write(ctx, live[0].Group, js)
	again := err != nil && len(live) > 1 && b.Alone(err)
	b.count(len(live), time.Since(began), again)
	if again {
		for i := range live {
			b.write(live[i : i+1])
		}
		return
	}
	for i, jb := range live {
		r := result[R]{err: err}
		if err == nil {
			r.r = out[i]
		}
		jb.done <- r
	}
	if err == nil && b.Written != nil {
		b.Written()
	}
}

// count records a statement of n jobs and how long it took; one whose jobs
// are written again alone (again) counts only if slow.
func (b *Batcher[J, R]) count(n int, took time.Duration, again bool) {
	if !again {
		b.statements.Add(1)
		b.jobs.Add(uint64(n))
	}
	if took >= HeldUp {
		b.slow.Add(1)
	}
}
