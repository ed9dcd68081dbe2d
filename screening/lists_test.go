package screening

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kycflow/kycflow/engines/sanctions"
	"github.com/kycflow/kycflow/engines/watchlist"
	"github.com/kycflow/kycflow/store"
)

// Screenings running while new list versions are swapped in always see one
// whole snapshot: the hits come from the index of the versions reported.
func TestWatchlistSwapIsWhole(t *testing.T) {
	entity := func(id, name string) []watchlist.Entity {
		return []watchlist.Entity{{ID: id, Schema: "Person", Names: []watchlist.Name{{Full: name, Kind: "primary"}}}}
	}
	v1, v2 := entity("one", "Ivan Petrovich Sidorov"), entity("two", "Hamid Karimov Rashidov")
	w := &Lists{}
	if hits, versions := w.Screen(sanctions.Query{Name: "Ivan Sidorov"}, 5, nil); hits != nil || versions != nil {
		t.Fatal("no list loaded must mean no answer")
	}
	w.install(v1, []store.WatchlistVersion{{ID: 1}})
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				for _, q := range []string{"Ivan Petrovich Sidorov", "Hamid Karimov Rashidov"} {
					hits, versions := w.Screen(sanctions.Query{Name: q}, 5, nil)
					if len(versions) != 1 {
						t.Errorf("versions %v", versions)
						return
					}
					want := map[int64]string{1: "one", 2: "two"}[versions[0].ID]
					for _, h := range hits {
						if h.EntityID != want {
							t.Errorf("version %d answered with %s", versions[0].ID, h.EntityID)
							return
						}
					}
				}
			}
		}()
	}
	for i := range 200 {
		if i%2 == 0 {
			w.install(v2, []store.WatchlistVersion{{ID: 2}})
		} else {
			w.install(v1, []store.WatchlistVersion{{ID: 1}})
		}
	}
	stop.Store(true)
	wg.Wait()
	if hits, _ := w.Screen(sanctions.Query{Name: "Ivan Petrovich Sidorov"}, 5, nil); len(hits) == 0 || hits[0].EntityID != "one" {
		t.Fatalf("after the swaps: %+v", hits)
	}
}

// A tenant screening against some lists gets hits from those only, even
// when the others hold closer names; versions report those lists alone.
func TestScreenByList(t *testing.T) {
	var es []watchlist.Entity
	for i, name := range []string{"Ivan Sidorov", "Ivan Sidorov", "Ivan Sidorov", "Ivan Sidorow"} {
		list := "un"
		if i < 3 {
			list = "ofac" // the three best names are on the other list
		}
		es = append(es, watchlist.Entity{ID: list + "-" + string(rune('a'+i)), Schema: "Person", List: list,
			Names: []watchlist.Name{{Full: name, Kind: watchlist.NamePrimary}}})
	}
	w := &Lists{}
	w.install(es, []store.WatchlistVersion{{ID: 1, List: "ofac"}, {ID: 2, List: "un"}})
	q := sanctions.Query{Name: "Ivan Sidorov"}
	hits, versions := w.Screen(q, 1, []string{"un"})
	if len(hits) != 1 || hits[0].EntityID != "un-d" || len(versions) != 1 || versions[0].List != "un" {
		t.Fatalf("un only: %+v %+v", hits, versions)
	}
	if hits, versions := w.Screen(q, 10, nil); len(hits) != 4 || len(versions) != 2 {
		t.Fatalf("every list: %d hits, %+v", len(hits), versions)
	}
	if hits, versions := w.Screen(q, 10, []string{"eu"}); hits != nil || versions != nil {
		t.Fatalf("a list not loaded: %+v %+v", hits, versions)
	}
}
