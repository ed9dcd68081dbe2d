package sanctions

import (
	"strings"
	"testing"

	"github.com/kycflow/kycflow/engines/watchlist"
)

func listed(id string, names ...string) watchlist.Entity {
	e := watchlist.Entity{ID: id, Schema: "Person"}
	for _, n := range names {
		e.Names = append(e.Names, watchlist.Name{Full: n})
	}
	return e
}

func TestVocabulary(t *testing.T) {
	ix := Build([]watchlist.Entity{
		listed("wang", "Wang Chengbo"),
		listed("yang", "Yang Lifen"),
		listed("yang2", "Yang Ming"),
		listed("yang3", "Yang Wei"),
		// Tahor: a word one entry uses, one letter from Tahir.
		listed("tahor", "Tahor Gulzar"),
		listed("tahir", "Salem Tahir"),
		// The list spells this person's name two ways: one name's variants.
		listed("hussein", "Hussein Ali Tahir", "Hussain Ali Tahir"),
		// Two parts of one name, not two spellings.
		listed("karim", "Karim Qasim Harbi"),
		listed("ghamdi", "Saad al-Ghamdi"),
	}, Options{MinScore: 0.5})
	nameScore := func(q, id string) (float64, string) {
		t.Helper()
		h := find(ix.Search(Query{Name: q}, 10), id)
		if h == nil {
			t.Fatalf("%q: %s not found", q, id)
		}
		return h.NameScore, strings.Join(h.Explanation, "|")
	}

	// A misspelling that is no listed word matches as before; a listed word
	// (Yang) resembling the listed one (Wang) counts less.
	typo, _ := nameScore("Vang Chengbo", "wang")
	other, _ := nameScore("Yang Chengbo", "wang")
	if !(typo >= 0.88 && other < 0.88 && other >= 0.80) {
		t.Errorf("Vang %.3f (want ≥ 0.88), Yang %.3f (want 0.80–0.88: still a result to review, not an alert)", typo, other)
	}
	if ix.vocab.uses("yang") != 3 || ix.vocab.variant("yang", "wang") {
		t.Error("yang: want a word of three entries, no variant of wang")
	}
	if !ix.vocab.variant("hussain", "hussein") || !ix.vocab.variant("hussein", "hussain") {
		t.Error("hussain/hussein are aliases of one entity: want variants")
	}
	if ix.vocab.variant("karim", "qasim") {
		t.Error("karim/qasim stand in one name: want no variants")
	}
	if ix.vocab.uses("vang") != 0 {
		t.Error("vang is no listed word")
	}
	// A word one entry uses, with a letter sequence the list's words do
	// not show, is as likely a slip: one letter off a listed word, it
	// still alerts.
	rare, expl := nameScore("Salem Tahor", "tahir")
	if ix.vocab.plausible("tahor") || rare < 0.88 {
		t.Errorf("Tahor: plausible %v (want false), score %.3f (want ≥ 0.88) %s", ix.vocab.plausible("tahor"), rare, expl)
	}

	// The article joined to its word is a spelling of the same name, and
	// blocking finds it.
	s, expl := nameScore("Saad Alghamdi", "ghamdi")
	if s < 0.88 || !strings.Contains(expl, "alghamdi~ghamdi 0.97") {
		t.Errorf("Alghamdi: %.3f %q", s, expl)
	}
}
