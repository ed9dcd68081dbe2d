package sanctions

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kycflow/kycflow/engines/screeneval"
	"github.com/kycflow/kycflow/engines/watchlist"
)

// Real lists (engines/watchlist/testdata/real): the UN consolidated list
// of February 2026 and the OFAC SDN list of mid-2021; the queries made from
// them come from screeneval, which knows nothing of this matcher.
var realDir = filepath.Join("..", "watchlist", "testdata", "real")

func realUN(t testing.TB) []watchlist.Entity {
	t.Helper()
	es, err := screeneval.LoadUN(filepath.Join(realDir, "un-consolidated-2026-02.xml"))
	if err != nil {
		t.Fatal(err)
	}
	return es
}

func realOFAC(t testing.TB) []watchlist.Entity {
	t.Helper()
	es, err := screeneval.LoadOFAC(filepath.Join(realDir, "ofac-sdn-2021"))
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// onList is a copy of es on the list named list, as the index holds
// lists loaded side by side.
func onList(es []watchlist.Entity, list string) []watchlist.Entity {
	es = slices.Clone(es)
	for i := range es {
		es[i].List = list
	}
	return es
}

// searcher answers screeneval.Evaluate from ix: the first ten hits.
func searcher(ix *Index) func(screeneval.Case) []screeneval.Hit {
	return func(c screeneval.Case) []screeneval.Hit {
		var out []screeneval.Hit
		for _, h := range ix.Search(Query{Name: c.Name}, 10) {
			out = append(out, screeneval.Hit{ID: h.EntityID, Score: h.Score})
		}
		return out
	}
}

// tally screens cases against ix and counts them, tuning and held-out
// splits apart.
func tally(ix *Index, cs []screeneval.Case, q func(Query) Query) (tuning, held screeneval.Tally) {
	for _, c := range cs {
		query := Query{Name: c.Name}
		if q != nil {
			query = q(query)
		}
		hits := ix.Search(query, 10)
		i := slices.IndexFunc(hits, func(h Hit) bool { return h.EntityID == c.WantID })
		score, matched := 0.0, ""
		if i >= 0 {
			score, matched = hits[i].Score, hits[i].MatchedName
		}
		t := &tuning
		if c.HeldOut() {
			t = &held
		}
		t.Add(c, i, score, matched, 0.88)
	}
	return tuning, held
}

// report logs a kind's two splits (the tuning split's misses with
// MISSES=1) and holds both to floor, alerted or found.
func report(t *testing.T, what string, tuning, held screeneval.Tally, floor float64, byFound bool) {
	t.Helper()
	for _, sp := range []struct {
		name string
		t    screeneval.Tally
	}{{"tuning", tuning}, {"held out", held}} {
		found, alerted := sp.t.Rates()
		t.Logf("%-30s %-8s %5d cases: found %5.1f%%, alerted %5.1f%%", what, sp.name, sp.t.Cases, 100*found, 100*alerted)
		got := alerted
		if byFound {
			got = found
		}
		if sp.t.Cases > 0 && got < floor {
			t.Errorf("%s, %s: %.3f < %.3f", what, sp.name, got, floor)
		}
		if os.Getenv("MISSES") != "" {
			for _, m := range sp.t.Misses[:min(len(sp.t.Misses), 30)] {
				t.Log("   ", m)
			}
		}
	}
}

// TestRealListQuality measures the matcher on real names (quality gate,
// `make test`): screeneval's queries from the UN and OFAC lists' own names —
// the primary name as listed and with its family name put first, each
// strong alias as listed, Arabic script against the UN list with its
// Arabic names removed, first
// and last name with the middle names dropped (of the primary name, and
// apart of each alias), a one-letter typo in short
// two-word names — each split into tuning and held-out cases; and people
// not listed: names drawn from the generator's pools, and the Arabic-script
// names of every other UN person against the list without them. MISSES=1
// logs the tuning split's misses. The floors are the goals where they are
// met, else today's figures (see docs/BENCHMARKS.md: UN slips), so a
// change that loses ground fails.
func TestRealListQuality(t *testing.T) {
	un, ofac := realUN(t), realOFAC(t)
	notListed := slices.DeleteFunc(screeneval.GenerateList(2000, 3).Queries(4000, 5, un, ofac), func(c screeneval.Case) bool { return c.Kind != screeneval.NotListed })
	floors := map[string]map[string]float64{
		"UN": {screeneval.Exact: 0.995, screeneval.Reordered: 0.995, screeneval.Alias: 0.995, screeneval.ArabicScript: 0.95, screeneval.MiddleDropped: 0.99,
			screeneval.AliasMiddleDropped: 0.99, screeneval.OneDropped: 0.99, screeneval.ShortTypo: 0.98, screeneval.Typo: 0.985},
		"OFAC": {screeneval.Exact: 0.995, screeneval.Reordered: 0.995, screeneval.Alias: 0.995, screeneval.MiddleDropped: 0.99,
			screeneval.AliasMiddleDropped: 0.99, screeneval.OneDropped: 0.99, screeneval.ShortTypo: 0.96, screeneval.Typo: 0.985},
	}
	// At most 1 % of people not listed alert (the goal in docs/AML.md).
	alerts := func(ix *Index, cs []screeneval.Case) int {
		if t := screeneval.Evaluate(cs, searcher(ix), 0.88).Kinds[screeneval.NotListed]; t != nil {
			return t.Alerted
		}
		return 0
	}
	falseAlerts := func(name string, n, cases int) {
		rate := float64(n) / float64(cases)
		t.Logf("%-30s %5d cases: false alerts %5.1f%%", name, cases, 100*rate)
		if rate > 0.01 {
			t.Errorf("%s: false alerts %d of %d > 1 %%", name, n, cases)
		}
	}
	for _, l := range []struct {
		name    string
		index   []watchlist.Entity
		queries []watchlist.Entity
	}{{"UN", screeneval.LatinOnly(un), un}, {"OFAC", ofac, ofac}} {
		ix := Build(l.index, Options{})
		cases := screeneval.Cases(l.queries, 1)
		for _, k := range []string{screeneval.Exact, screeneval.Reordered, screeneval.Alias, screeneval.ArabicScript, screeneval.MiddleDropped, screeneval.AliasMiddleDropped, screeneval.OneDropped, screeneval.ShortTypo, screeneval.Typo} {
			if len(cases[k]) > 0 {
				tuning, held := tally(ix, cases[k], nil)
				report(t, l.name+" "+k, tuning, held, floors[l.name][k], false)
			}
		}
		falseAlerts(l.name+" not listed", alerts(ix, notListed), len(notListed))
		if arabic := cases[screeneval.ArabicScript]; len(arabic) > 0 {
			// Each half of the people with an Arabic name left out of the
			// list in turn and screened against it: people not listed, in
			// Arabic script.
			var n, cases int
			for half := range 2 {
				rest, gone := screeneval.ArabicNotListed(l.index, arabic, half)
				n += alerts(Build(rest, Options{}), gone)
				cases += len(gone)
			}
			falseAlerts(l.name+" arabic, not listed", n, cases)
		}
	}
}

// A tenant screening some of the lists loaded side by side (the worker
// holds every list in one index) finds what it would with those lists
// alone: the names a query scores are chosen among the lists it searches,
// so a common name's candidates from the other lists never crowd them
// out. The floors are TestRealListQuality's.
func TestSubsetOfListsQuality(t *testing.T) {
	un, ofac := realUN(t), realOFAC(t)
	all := slices.Concat(onList(screeneval.LatinOnly(un), "un"), onList(ofac, "ofac"), onList(screeneval.GenerateList(20000, 3).Entities, "generated"))
	ix := Build(all, Options{})
	for _, l := range []struct {
		list  string
		from  []watchlist.Entity
		floor float64
	}{{"un", un, 0.99}, {"ofac", ofac, 0.99}} {
		cases := screeneval.Cases(l.from, 1)[screeneval.MiddleDropped]
		alerted := 0
		for _, c := range cases {
			q := Query{Name: c.Name, Lists: []string{l.list}}
			for _, h := range ix.Search(q, 10) {
				if h.Entity.List != l.list {
					t.Fatalf("%s: a hit on %s", q.Name, h.Entity.List)
				}
				if h.EntityID == c.WantID && h.Score >= 0.88 {
					alerted++
				}
			}
		}
		rate := float64(alerted) / float64(len(cases))
		t.Logf("%-4s middle dropped, screened against it alone among three lists: %d cases, alerted %5.1f%%", l.list, len(cases), 100*rate)
		if rate < l.floor {
			t.Errorf("%s: alerted %.3f < %.2f", l.list, rate, l.floor)
		}
	}
}

// A generated list screened with the real lists loaded beside it finds
// what it finds alone: a fuzzy match is judged by the words of its own
// list, so a name common in OFAC does not make a typo here look like
// another name. (Word rarity over all lists had cost typos 1.7 points.)
func TestListsBesideEachOther(t *testing.T) {
	un, ofac := screeneval.LatinOnly(realUN(t)), realOFAC(t)
	list := screeneval.GenerateList(5000, 1)
	cases := list.Queries(8000, 2, un, ofac)
	alone := screeneval.Evaluate(cases, searcher(Build(list.Entities, Options{})), 0.88)
	beside := screeneval.Evaluate(cases, searcher(Build(slices.Concat(onList(list.Entities, "generated"), onList(un, "un"), onList(ofac, "ofac")), Options{})), 0.88)
	for _, k := range screeneval.GeneratedKinds {
		if k == screeneval.NotListed {
			continue
		}
		if a, b := alone.AlertRate(k), beside.AlertRate(k); b < a-0.002 || beside.Rate(k) < alone.Rate(k)-0.002 {
			t.Errorf("%s: alerted %.3f alone, %.3f beside the real lists; found %.3f, %.3f", k, a, b, alone.Rate(k), beside.Rate(k))
		}
	}
	goals(t, beside)
	t.Log("\nbeside the real lists\n" + beside.String())
}

// The order lists are loaded in changes no hit: where names tie for the
// last places blocking scores, or for the last hits shown, the lower
// entity id is kept whichever list came first. The Arabic-script and
// middle-dropped queries are those that differed when name ids followed
// the load order; the title and kunya forms tie most.
func TestLoadOrderChangesNothing(t *testing.T) {
	un, ofac := onList(screeneval.LatinOnly(realUN(t)), "un"), onList(realOFAC(t), "ofac")
	a, b := Build(slices.Concat(un, ofac), Options{}), Build(slices.Concat(ofac, un), Options{})
	queries := []string{"عبد التواب ملا حويش", "عبدالحی سالک", "عبد العزيز عباسین", "Muhammad HAJJI", "Mohammad SHEIKH"}
	for _, es := range [][]watchlist.Entity{realUN(t), realOFAC(t)} {
		cs := screeneval.Cases(es, 1)
		for _, c := range slices.Concat(cs[screeneval.TitleName], cs[screeneval.KunyaSplit]) {
			queries = append(queries, c.Name)
		}
	}
	hits := func(ix *Index, q string) string {
		var b strings.Builder
		for _, h := range ix.Search(Query{Name: q}, 10) {
			fmt.Fprintf(&b, "%s %s %.6f; ", h.EntityID, h.MatchedName, h.Score)
		}
		return b.String()
	}
	for _, q := range queries {
		if ha, hb := hits(a, q), hits(b, q); ha != hb {
			t.Errorf("%q: UN first %s\nOFAC first %s", q, ha, hb)
		}
	}
}
