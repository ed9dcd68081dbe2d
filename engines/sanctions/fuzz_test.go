package sanctions

import (
	"math"
	"sync"
	"testing"

	"github.com/kycflow/kycflow/engines/watchlist"
)

// fuzzIndex is a small index of names that exercise the matcher's rules:
// titles, kunyas and Abd compounds, a kunya cut at its comma, -ullah and
// -ad-Din compounds, hyphenated Korean names, Arabic and Cyrillic script.
var fuzzIndex = sync.OnceValue(func() *Index {
	var es []watchlist.Entity
	for i, n := range []string{
		"JALAL, Husam-al-Din", "KHALID, Abu", "Abou Mohamed al-Adnani", "MURAD, Abdul Hakim Al Hashim",
		"Haji Abdul Satar BARAKZAI", "KIM, Sang-ho", "HIDAYATULLAH, Najibullah", "Abul Hasan KHAN",
		"عبد الستار عبد المنان", "Рамзан Ахматович КАДЫРОВ", "SHAYKH, Mullah Hafiz", "O'BRIEN, Sean Jr.",
	} {
		es = append(es, watchlist.Entity{ID: string(rune('a' + i)), Schema: "Person", Names: []watchlist.Name{{Full: n, Kind: watchlist.NamePrimary}}})
	}
	return Build(es, Options{MinScore: 0.01})
})

// FuzzSearch: a screened name, whatever it holds, never panics the
// matcher, and every hit's score lies in [0, 1].
func FuzzSearch(f *testing.F) {
	for _, s := range []string{
		"", " ", "-", "Abu", "Abul", "abd", "Haji", "Haji Haji", "JALAL Husam-rl-Din", "Husam-rl-Din, Jalal",
		"KIM Sang-hf", ",", ", ,", "Abu,", ",Abu", "Absu Mohamed", "Ahd al-Majid", "ʻʻ", "٠١٢", "a-b-c-d",
		"عبدالستار", "Mr Mrs Dr", "x'y", "İstanbul Çelik", "\xff\xfe", "ABDUL", "Abdul Abul Abu Abd",
	} {
		f.Add(s)
	}
	ix := fuzzIndex()
	f.Fuzz(func(t *testing.T, name string) {
		for _, h := range ix.Search(Query{Name: name}, 10) {
			if h.Score < 0 || h.Score > 1 || math.IsNaN(h.Score) {
				t.Fatalf("%q: %s scores %v", name, h.MatchedName, h.Score)
			}
		}
	})
}
