package screeneval

import (
	"testing"

	"github.com/kycflow/kycflow/engines/watchlist"
)

// The cases are made from names as lists write them: titles and suffixes
// are no given or family name, a compound stays whole, a "FAMILY, Given"
// name is turned round; the held-out split is stable and about a quarter.
func TestCases(t *testing.T) {
	person := func(id string, names ...watchlist.Name) watchlist.Entity {
		return watchlist.Entity{ID: id, Schema: "Person", Names: names}
	}
	es := []watchlist.Entity{
		person("a", watchlist.Name{Full: "NOORZAI, Haji Bashir Ahmad", Kind: watchlist.NamePrimary}),
		person("b", watchlist.Name{Full: "Abu Muhammad al-Julani Khalid", Kind: watchlist.NamePrimary}),
		person("c", watchlist.Name{Full: "Salah Izz al-Din Hasan Jr.", Kind: watchlist.NamePrimary}),
		person("d", watchlist.Name{Full: "Haji Mohammad Qandorzai", Kind: watchlist.NamePrimary}),
	}
	cs := Cases(es, 1)
	want := map[string][]string{
		MiddleDropped: {"Bashir NOORZAI", "Abu Muhammad Khalid", "Salah Hasan"}, // Haji Mohammad Qandorzai has no middle name
		TitleName:     {"Haji NOORZAI", "Haji Qandorzai"},
		KunyaSplit:    {"Abu Khalid"},
	}
	for kind, names := range want {
		var got []string
		for _, c := range cs[kind] {
			got = append(got, c.Name)
		}
		if len(got) != len(names) {
			t.Errorf("%s: %q, want %q", kind, got, names)
			continue
		}
		for i := range got {
			if got[i] != names[i] {
				t.Errorf("%s: %q, want %q", kind, got, names)
			}
		}
	}
	held := 0
	for i := range 1000 {
		if (Case{Name: "n", WantID: string(rune('a'+i%26)) + string(rune(i))}).HeldOut() {
			held++
		}
	}
	if held < 200 || held > 300 {
		t.Errorf("%d of 1000 held out", held)
	}
	if p := CountPeople(es); !p.Rare("al-Julani") || !p.Rare("x") {
		t.Errorf("rarity: %v", p)
	}
}
