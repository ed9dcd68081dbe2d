package batch

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
)

// The writers' rules on states built by hand: which creates a writer may
// take, and when one starts.
func TestWriterRules(t *testing.T) {
	now := time.Now()
	long := now.Add(-2 * HeldUp) // a statement this old is held up
	a, b := uuid.New(), uuid.New()
	aBiz, aCus, bBiz := Group{a, check.Business}, Group{a, check.Customer}, Group{b, check.Business}
	jobs := func(gs ...Group) []*job[int, int] {
		out := make([]*job[int, int], len(gs))
		for i, g := range gs {
			out[i] = &job[int, int]{Group: g, arrived: now}
		}
		return out
	}
	crowdOf := func(g Group) []Group {
		gs := make([]Group, Crowd)
		for i := range gs {
			gs[i] = g
		}
		return gs
	}
	for _, c := range []struct {
		name    string
		writers int
		writing []statement
		queue   []Group
		start   bool
		free    int // oldestFree
	}{
		{"idle: the first create starts a writer", 0, nil, []Group{aBiz}, true, 0},
		{"one writer busy: a few wait for it", 1, []statement{{aBiz, now}}, []Group{aBiz, aBiz}, false, 0},
		{"one writer busy: a Crowd starts the second", 1, []statement{{aBiz, now}}, crowdOf(aBiz), true, 0},
		{"a held group's Crowd waits for its statement", 1, []statement{{aBiz, long}}, crowdOf(aBiz), false, -1},
		{"a held group leaves the tenant's other kind free", 1, []statement{{aBiz, long}}, crowdOf(aCus), true, 0},
		{"a tenant with two statements takes no third", 2, []statement{{aBiz, long}, {aBiz, long}}, crowdOf(aCus), false, -1},
		{"all writers held: another tenant's create starts one at once", 2, []statement{{aBiz, long}, {aCus, long}}, []Group{aCus, bBiz}, true, 1},
		{"two writers busy, none held: no third", 2, []statement{{aBiz, now}, {aBiz, now}}, append(crowdOf(aBiz), bBiz), false, Crowd},
		{"four writers held: none more", 4, []statement{{aBiz, long}, {aCus, long}, {bBiz, long}, {Group{b, check.Customer}, long}}, []Group{{uuid.New(), check.Business}}, false, 0},
	} {
		bt := &Batcher[int, int]{writers: c.writers, writing: c.writing, queue: jobs(c.queue...)}
		if got := bt.shouldStart(now); got != c.start {
			t.Errorf("%s: shouldStart %v, want %v", c.name, got, c.start)
		}
		if got := bt.oldestFree(now); got != c.free {
			t.Errorf("%s: oldestFree %d, want %d", c.name, got, c.free)
		}
	}

	// The only writer not held up takes the oldest create it may take:
	// not tenant a's, which holds two statements.
	bt := &Batcher[int, int]{writers: 3, writing: []statement{{aBiz, long}, {aBiz, long}}, queue: jobs(aCus, bBiz, aCus, bBiz)}
	taken, st := bt.take(nil)
	if st.Group != bBiz || len(taken) != 2 || len(bt.queue) != 2 {
		t.Errorf("took %d creates of %v, %d left; want tenant b's 2", len(taken), st.Group, len(bt.queue))
	}
	// With nothing held, the only writer takes the oldest and its group.
	bt = &Batcher[int, int]{writers: 1, queue: jobs(aBiz, bBiz, aBiz)}
	if taken, st := bt.take(nil); st.Group != aBiz || len(taken) != 2 {
		t.Errorf("took %d creates of %v; want the oldest group's 2", len(taken), st.Group)
	}
}
