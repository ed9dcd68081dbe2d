package sanctions

import (
	"cmp"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kycflow/kycflow/engines/watchlist"
)

// WorstQueries are the costliest queries within the caps a caller
// enforces (MaxQueryWords, MaxQueryRunes) on all lists loaded at once:
// twelve of the words most names share, in Latin and in Arabic script
// (two spellings each, and the skeleton keys), and twelve long words:
// for benchmarks and load tests (BenchmarkWorstQuery, kycflow bench).
func WorstQueries(es []watchlist.Entity, n int) []Query {
	latin, arabic := map[string]int{}, map[string]int{}
	for _, e := range es {
		for _, nm := range e.Names {
			for _, w := range strings.Fields(nm.Full) {
				switch {
				case QueryWords(w) != 1 || !strings.ContainsFunc(w, unicode.IsLetter):
				case scriptOf([]rune(w)[0]) == scriptArabic:
					arabic[w]++
				case len(w) > 2:
					latin[strings.ToLower(w)]++
				}
			}
		}
	}
	top := func(m map[string]int, k int) []string {
		ws := slices.Collect(maps.Keys(m))
		slices.SortFunc(ws, func(a, b string) int { return cmp.Or(cmp.Compare(m[b], m[a]), cmp.Compare(a, b)) })
		return ws[:min(k, len(ws))]
	}
	commonLatin, commonArabic := top(latin, 40), top(arabic, 40)
	if len(commonArabic) == 0 { // a list without Arabic script
		commonArabic = commonLatin
	}
	r := rand.New(rand.NewPCG(1, 2))
	// pick draws k words, as many as fit the caps.
	pick := func(ws []string, k int) string {
		s := ws[r.IntN(len(ws))]
		for range k - 1 {
			next := s + " " + ws[r.IntN(len(ws))]
			if QueryWords(next) > MaxQueryWords || utf8.RuneCountInString(next) > MaxQueryRunes {
				break
			}
			s = next
		}
		return s
	}
	var qs []Query
	for i := range n {
		switch i % 3 {
		case 0:
			qs = append(qs, Query{Name: pick(commonLatin, MaxQueryWords)})
		case 1:
			qs = append(qs, Query{Name: pick(commonArabic, MaxQueryWords)})
		default:
			long := make([]string, MaxQueryWords)
			for j := range long {
				long[j] = commonLatin[r.IntN(len(commonLatin))] + commonLatin[r.IntN(len(commonLatin))]
			}
			qs = append(qs, Query{Name: pick(long, MaxQueryWords)})
		}
	}
	return qs
}
