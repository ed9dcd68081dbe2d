package batch

import (
	"slices"
	"time"

	"github.com/google/uuid"
)

// The rules of which creates a writer takes, and when a writer starts. A
// batcher's state: the creates waiting (queue, oldest first), the writers
// running, and their statements in progress (writing).

// take ends the writer's statement done (if any) and gives it the next
// jobs to write: the oldest a writer may take (oldestFree), and up to
// MaxJobs-1 others of its group. The only writer not held up takes it at
// once; while another writes, a writer takes it when a crowd waits or when
// it has waited HeldUp; else, or when none waits, the writer retires (nil).
func (b *Batcher[J, R]) take(done *statement) ([]*job[J, R], statement) {
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
		if i := b.oldestFree(now); i >= 0 && (len(b.queue) >= Crowd || now.Sub(b.queue[i].arrived) >= HeldUp) {
			pick = i
		}
	}
	if pick < 0 {
		b.writers--
		return nil, statement{}
	}
	st := statement{Group: b.queue[pick].Group, since: now}
	rest := b.queue[:0:0]
	var jobs []*job[J, R]
	for _, jb := range b.queue {
		if len(jobs) < MaxJobs && jb.Group == st.Group {
			jobs = append(jobs, jb)
		} else {
			rest = append(rest, jb)
		}
	}
	b.queue = rest
	b.writing = append(b.writing, st)
	return jobs, st
}

// held reports whether a statement of g has been in progress for HeldUp or
// longer: its group's creates then wait for it rather than hold up a
// second writer too (waiting on the same lock, say).
func (b *Batcher[J, R]) held(g Group, now time.Time) bool {
	for _, st := range b.writing {
		if st.Group == g && now.Sub(st.since) >= HeldUp {
			return true
		}
	}
	return false
}

// shouldStart reports whether a writer starts for the creates waiting now:
// when no writer is free (none at all, or all held up) or a crowd waits,
// if another may start and a create waits that it may take.
func (b *Batcher[J, R]) shouldStart(now time.Time) bool {
	free := b.writers - b.heldUp(now)
	return b.canStart(now) && (free == 0 || len(b.queue) >= Crowd) && b.oldestFree(now) >= 0
}

// canStart reports whether another writer may start: fewer than Writers
// are writing without being held up, and fewer than MaxWriters in all.
func (b *Batcher[J, R]) canStart(now time.Time) bool {
	return b.writers-b.heldUp(now) < Writers && b.writers < MaxWriters
}

// heldUp is how many statements in progress are held up.
func (b *Batcher[J, R]) heldUp(now time.Time) int {
	n := 0
	for _, st := range b.writing {
		if now.Sub(st.since) >= HeldUp {
			n++
		}
	}
	return n
}

// oldestFree is the index of the oldest waiting create a writer may take,
// or -1: its group is not held, and its tenant has fewer than Writers
// statements in progress.
func (b *Batcher[J, R]) oldestFree(now time.Time) int {
	for i, jb := range b.queue {
		if !b.held(jb.Group, now) && b.statementsOf(jb.Tenant) < Writers {
			return i
		}
	}
	return -1
}

// statementsOf is how many statements of tenant are in progress.
func (b *Batcher[J, R]) statementsOf(tenant uuid.UUID) int {
	n := 0
	for _, st := range b.writing {
		if st.Tenant == tenant {
			n++
		}
	}
	return n
}
