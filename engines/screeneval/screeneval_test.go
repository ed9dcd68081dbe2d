package screeneval

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"

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
		person("a", watchlist.Name{Full: "NOORZAI, Haji Bashir Ahmad", Kind: watchlist.NamePrimary},
			watchlist.Name{Full: "NOORZAI, Bashir Ahmad", Kind: watchlist.NameAlias},
			watchlist.Name{Full: "Bashir Ahmad NOORZAI", Kind: watchlist.NameAlias}), // the alias before, turned round
		person("b", watchlist.Name{Full: "Abu Muhammad al-Julani Khalid", Kind: watchlist.NamePrimary}),
		person("c", watchlist.Name{Full: "Salah Izz al-Din Hasan Jr.", Kind: watchlist.NamePrimary}),
		person("d", watchlist.Name{Full: "Haji Mohammad Qandorzai", Kind: watchlist.NamePrimary}),
		person("f", watchlist.Name{Full: "Youssef Ould Abdel Jelil Salem", Kind: watchlist.NamePrimary},
			watchlist.Name{Full: "Al Hajj Natheer Ahmed JAMAL EDDINE", Kind: watchlist.NameAlias},
			watchlist.Name{Full: "Abu Abd al-Rahman Ali al-Rawi", Kind: watchlist.NameAlias},
			watchlist.Name{Full: "Doctor Abdol Reza Hassan Dari", Kind: watchlist.NameAlias},
			watchlist.Name{Full: "Youssef Mohamed Salem", Kind: watchlist.NameAlias},            // the primary's case again
			watchlist.Name{Full: "Salem Ahmed Ali", Kind: watchlist.NameWeak},                   // no strong alias
			watchlist.Name{Full: "Youssef Salem, born 1 Jan. 1953", Kind: watchlist.NameAlias}), // a note
		// A kunya alone, and a second compound after the first: no
		// kunya split.
		person("g", watchlist.Name{Full: "ABU ABD AL-RAHMAN", Kind: watchlist.NamePrimary},
			watchlist.Name{Full: "Abdul Hamid Abdul Aziz", Kind: watchlist.NameAlias},
			watchlist.Name{Full: "Abdul Latif SALEH ABU HUSSEIN", Kind: watchlist.NameAlias}),
		// A case made from a weak alias is weak, unless a strong name
		// makes it too.
		person("h", watchlist.Name{Full: "Haji Bashir Zarqawi", Kind: watchlist.NamePrimary},
			watchlist.Name{Full: "Haji Mansour Zarqawi", Kind: watchlist.NameWeak},
			watchlist.Name{Full: "Mullah Omar Zarqawi", Kind: watchlist.NameWeak}),
		// Abo is Abu as the Levant writes it: ABO GHAITH is one name.
		person("i", watchlist.Name{Full: "Sulaiman Jassem ABO GHAITH", Kind: watchlist.NamePrimary}),
	}
	cs := Cases(es, 1)
	want := map[string][]string{
		// Haji Mohammad Qandorzai has no middle name; a joiner takes
		// the compound after it whole.
		MiddleDropped:      {"Bashir NOORZAI", "Abu Muhammad Khalid", "Salah Hasan", "Youssef Salem", "Sulaiman ABO GHAITH"},
		AliasMiddleDropped: {"Natheer JAMAL EDDINE", "Abu Abd al Rahman al Rawi", "Abdol Reza Dari", "Abdul Latif ABU HUSSEIN"},
		TitleName:          {"Haji NOORZAI", "Haji Qandorzai", "Haji Zarqawi", "Mullah Zarqawi"},
		Exact: {"NOORZAI, Haji Bashir Ahmad", "Abu Muhammad al-Julani Khalid", "Salah Izz al-Din Hasan Jr.", "Haji Mohammad Qandorzai",
			"Youssef Ould Abdel Jelil Salem", "ABU ABD AL-RAHMAN", "Haji Bashir Zarqawi", "Sulaiman Jassem ABO GHAITH"},
		// The family name first, a compound and a joiner's name whole.
		Reordered: {"NOORZAI Bashir Ahmad", "Khalid Abu Muhammad al Julani", "Hasan Salah Izz al Din", "Qandorzai Mohammad",
			"Salem Youssef Ould Abdel Jelil", "Zarqawi Bashir", "ABO GHAITH Sulaiman Jassem"},
		Alias: {"NOORZAI, Bashir Ahmad", "Al Hajj Natheer Ahmed JAMAL EDDINE", "Abu Abd al-Rahman Ali al-Rawi", "Doctor Abdol Reza Hassan Dari",
			"Youssef Mohamed Salem", "Abdul Hamid Abdul Aziz", "Abdul Latif SALEH ABU HUSSEIN"},
		KunyaSplit: {"Abu Khalid", "Abu Rawi"},
	}
	for _, c := range cs[TitleName] {
		if c.Weak != (c.Name == "Mullah Zarqawi") {
			t.Errorf("%q weak: %v", c.Name, c.Weak)
		}
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
	// A slip anywhere: one word of four letters or more changed by one
	// edit, not in its first letter, in its case; a name of five words
	// gets none.
	slipped := map[string]string{"a": "NOORZAI Haji Bashir Ahmad", "b": "Abu Muhammad al-Julani Khalid", "d": "Haji Mohammad Qandorzai",
		"g": "ABU ABD AL-RAHMAN", "h": "Haji Bashir Zarqawi", "i": "Sulaiman Jassem ABO GHAITH"}
	for _, c := range cs[Typo] {
		orig, ok := slipped[c.WantID]
		if !ok {
			t.Errorf("typo of %s: %q", c.WantID, c.Name)
			continue
		}
		delete(slipped, c.WantID)
		ow, qw := strings.Fields(orig), strings.Fields(c.Name)
		changed := 0
		for i := range ow {
			if qw[i] != ow[i] {
				changed++
				if !oneEdit(strings.ToLower(qw[i]), strings.ToLower(ow[i])) || qw[i][0] != ow[i][0] || len([]rune(ow[i])) < 4 ||
					strings.ToUpper(ow[i]) == ow[i] && strings.ToUpper(qw[i]) != qw[i] {
					t.Errorf("typo %q of %q", c.Name, orig)
				}
			}
		}
		if len(qw) != len(ow) || changed != 1 {
			t.Errorf("typo %q of %q", c.Name, orig)
		}
	}
	if len(slipped) > 0 {
		t.Errorf("no typo of %v", slipped)
	}
	// One middle name dropped: a name of four or more (compounds whole).
	one := Cases([]watchlist.Entity{person("e", watchlist.Name{Full: "Ali Hassan al-Majid al-Tikriti", Kind: watchlist.NamePrimary})}, 1)[OneDropped]
	if len(one) != 1 || one[0].Name != "Ali al Majid al Tikriti" && one[0].Name != "Ali Hassan al Tikriti" {
		t.Errorf("one dropped: %v", one)
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

// People not listed in Arabic script: each half of the Arabic-named people
// is left out in turn; one whose name another listed person has in full,
// however spelt, is a namesake and no case; a name the file holds broken
// (U+FFFD) is no case at all.
func TestArabicNotListed(t *testing.T) {
	person := func(id string, names ...string) watchlist.Entity {
		e := watchlist.Entity{ID: id, Schema: "Person"}
		for i, n := range names {
			k := watchlist.NamePrimary
			if i > 0 {
				k = watchlist.NameAlias
			}
			e.Names = append(e.Names, watchlist.Name{Full: n, Kind: k})
		}
		return e
	}
	es := []watchlist.Entity{
		person("a", "ABDUR REHMAN", "عبد الرحمن"),
		person("b", "Salim Noorzai", "سليم نورزي"),
		person("c", "REDOUANE EL HABHAB", "Abdelrahman"),
		person("d", "Muhammad Mati", "محمد الل\uFFFD\uFFFD مطيع"),
		person("e", "Khalid Qandorzai", "خالد قندوزي"),
	}
	arabic := Cases(es, 1)[ArabicScript]
	var names []string
	for _, c := range arabic {
		names = append(names, c.Name)
	}
	if len(names) != 3 || names[0] != "عبد الرحمن" || names[2] != "خالد قندوزي" {
		t.Fatalf("arabic cases %q", names)
	}
	rest, gone := ArabicNotListed(es, arabic, 0)
	if len(rest) != 3 || len(gone) != 1 || gone[0].Name != "خالد قندوزي" || gone[0].WantID != "" {
		t.Errorf("half 0: %d left, gone %v (Abd al-Rahman has a namesake in Abdelrahman)", len(rest), gone)
	}
	if rest, gone := ArabicNotListed(es, arabic, 1); len(rest) != 4 || len(gone) != 1 || gone[0].Name != "سليم نورزي" {
		t.Errorf("half 1: %d left, gone %v", len(rest), gone)
	}
}

// oneEdit reports whether a and b differ by one letter changed, left out,
// added, or two swapped: their optimal-string-alignment distance is 1.
func oneEdit(a, b string) bool {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)] == 1
}

// A slip falls on a letter, never a quote or hyphen nor a word's first
// letter, and never in a word of fewer than four letters ("‘ALI").
func TestSlipOnLettersOnly(t *testing.T) {
	ws := []string{"MU’TASSIM", "‘ALI", "AL-RUMAYSH"}
	marks := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) {
				return -1
			}
			return r
		}, s)
	}
	firsts := func(s string) (out []rune) {
		for _, w := range strings.Fields(s) {
			out = append(out, []rune(strings.TrimLeftFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }))[0])
		}
		return out
	}
	for seed := range uint64(300) {
		q, ok := slip(rand.New(rand.NewPCG(seed, 11)), ws)
		orig := strings.Join(ws, " ")
		if !ok || marks(q) != marks(orig) || !slices.Equal(firsts(q), firsts(orig)) || strings.Fields(q)[1] != "‘ALI" {
			t.Fatalf("seed %d: %q of %q", seed, q, orig)
		}
	}
}
