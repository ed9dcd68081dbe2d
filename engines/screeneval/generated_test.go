package screeneval

import (
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/kycflow/kycflow/engines/watchlist"
)

func TestGenerateDeterministic(t *testing.T) {
	a, b := GenerateList(200, 9).Entities, GenerateList(200, 9).Entities
	for i := range a {
		if a[i].Names[0].Full != b[i].Names[0].Full {
			t.Fatal("GenerateList not deterministic")
		}
	}
	scripts := map[string]bool{}
	for _, e := range GenerateList(2000, 9).Entities {
		for _, n := range e.Names {
			for name, table := range map[string]*unicode.RangeTable{"cyrillic": unicode.Cyrillic, "greek": unicode.Greek, "arabic": unicode.Arabic} {
				if strings.ContainsFunc(n.Full, func(r rune) bool { return unicode.Is(table, r) }) {
					scripts[name] = true
				}
			}
		}
	}
	if len(scripts) != 3 {
		t.Errorf("scripts generated: %v", scripts)
	}
}

// A namesake is told by the generator's own knowledge of names: the same
// name however spelt, or every name of the person among a listed name's.
func TestNamesakes(t *testing.T) {
	listed := nameIndex([][]watchlist.Entity{{
		{ID: "a", Names: []watchlist.Name{{Full: "NASRALLAH, Hasan"}}},
		{ID: "b", Names: []watchlist.Name{{Full: "MOHAMMED YUSIP KARIM"}, {Full: "Marwan ALRAWI"}}},
		{ID: "c", Names: []watchlist.Name{{Full: "Gregory Deng KUAC"}}},
	}})
	for name, want := range map[string]bool{
		"Hassan Nasrallah":       true, // a spelling of the same two names
		"Mohammed Karim":         true, // both names among one listed name's
		"Marwan al-Rawi":         true,
		"Marwan El Rawi":         true,
		"Mohammed bin Karim":     true,
		"Gregory Cook":           false,
		"Karim Nasrallah":        false, // names of two listed people
		"Mohammed Yusip Karim Z": false,
	} {
		if got := listed.covers(fold(name)); got != want {
			t.Errorf("%q: namesake %v, want %v (folded %q)", name, got, want, fold(name))
		}
	}
}

// People not listed are no namesakes of anyone listed, and a query with its
// accents dropped is no name the list already holds for that person.
func TestQueries(t *testing.T) {
	l := GenerateList(3000, 4)
	named := nameIndex([][]watchlist.Entity{l.Entities})
	byID := map[string]watchlist.Entity{}
	for _, e := range l.Entities {
		byID[e.ID] = e
	}
	count := map[string]int{}
	for _, c := range l.Queries(1600, 5) {
		count[c.Kind]++
		switch c.Kind {
		case NotListed:
			if c.WantID != "" || named.covers(fold(c.Name)) {
				t.Errorf("not listed %q: a namesake", c.Name)
			}
		case DiacriticsDropped:
			if slices.ContainsFunc(byID[c.WantID].Names, func(n watchlist.Name) bool { return strings.EqualFold(n.Full, c.Name) }) {
				t.Errorf("%q is listed as it is", c.Name)
			}
		}
		if c.Kind != NotListed && byID[c.WantID].ID == "" {
			t.Errorf("%s %q: no entity %q", c.Kind, c.Name, c.WantID)
		}
	}
	for _, k := range GeneratedKinds {
		if count[k] != 200 {
			t.Errorf("%s: %d cases, want 200", k, count[k])
		}
	}
}
