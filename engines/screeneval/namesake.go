package screeneval

import (
	"slices"
	"strings"

	"github.com/kycflow/kycflow/engines/watchlist"
)

// fold is a name's words as this package tells one name from another: lower
// case, accents left out, a spelling of an Arabic name in the generator's
// pools as the name's Arabic-script form (Hasan and Hassan, al-Rawi and
// ALRAWI are one name), another al- or el- joined to its word, bin and ibn
// left out.
func fold(name string) []string {
	ws := strings.FieldsFunc(latinLetters.Replace(strings.ToLower(stripMarks(name))), func(r rune) bool {
		return r == ' ' || r == '-' || r == ',' || r == '.'
	})
	var out []string
next:
	for i := 0; i < len(ws); i++ {
		for k := min(3, len(ws)-i); k > 0; k-- {
			if ar := arabicSpelling[strings.Join(ws[i:i+k], "")]; ar != "" {
				out = append(out, ar)
				i += k - 1
				continue next
			}
		}
		w := ws[i]
		switch {
		case w == "bin" || w == "ibn" || w == "بن":
			continue
		case (w == "al" || w == "el") && i+1 < len(ws):
			i++
			w = "al" + ws[i]
			if ar := arabicSpelling[w]; ar != "" {
				w = ar
			}
		}
		out = append(out, w)
	}
	return out
}

// otherSpellings are spellings of pool names that the real lists use and
// the generator never draws, the Arabic-script form last: fold knows them,
// so a listed Abdelrahman is the namesake of an Abdur Rehman.
var otherSpellings = [][]string{
	{"Abdelrahman", "Abdel Rahman", "Abdurrahman", "Abdur Rahman", "Abdur Rehman", "Abdul Rehman", "Abderrahmane", "Abdirahman", "عبدالرحمن"},
	{"Abdulaziz", "Abdel Aziz", "Abdalaziz", "عبدالعزيز"},
	{"Abdalla", "Abdullahi", "Abdella", "عبدالله"},
	{"Muhammed", "Mohamad", "Mouhamed", "محمد"},
}

// arabicSpelling maps each Latin spelling in the Arabic pools and
// otherSpellings (lower case, its words run together) to the name's
// Arabic-script form.
var arabicSpelling = func() map[string]string {
	m := map[string]string{}
	for _, g := range slices.Concat(arabicFirst, arabicFamily, otherSpellings) {
		ar := g[len(g)-1]
		for _, s := range g[:len(g)-1] {
			m[strings.NewReplacer(" ", "", "-", "").Replace(strings.ToLower(s))] = ar
		}
	}
	return m
}()

// names indexes listed names by their folded words.
type names struct {
	sets   [][]string       // each listed name's folded words
	byWord map[string][]int // word → the names holding it
}

func nameIndex(lists [][]watchlist.Entity) names {
	ns := names{byWord: map[string][]int{}}
	for _, l := range lists {
		for _, e := range l {
			for _, n := range e.Names {
				ws := fold(n.Full)
				for _, w := range ws {
					ns.byWord[w] = append(ns.byWord[w], len(ns.sets))
				}
				ns.sets = append(ns.sets, ws)
			}
		}
	}
	return ns
}

// covers reports whether one listed name holds every word of ws: someone
// so named shares all their names with a listed person, a namesake any
// screener must alert on.
func (ns names) covers(ws []string) bool {
	if len(ws) == 0 {
		return false
	}
	for _, i := range ns.byWord[ws[0]] {
		if !slices.ContainsFunc(ws, func(w string) bool { return !slices.Contains(ns.sets[i], w) }) {
			return true
		}
	}
	return false
}

// ArabicNotListed makes people not listed, in Arabic script, from the
// Arabic-script cases of es: every other case's person, from the first
// (half 0) or the second (half 1), is left out of es (rest) and their
// Arabic name is screened against the rest — unless the rest holds a
// namesake, a name with every word of the person's primary name as fold
// reads them (an ABDUR REHMAN left out and another's alias Abdelrahman):
// a screener must alert on that one.
func ArabicNotListed(es []watchlist.Entity, arabic []Case, half int) (rest []watchlist.Entity, gone []Case) {
	left := map[string]bool{}
	for i, c := range arabic {
		if i%2 == half {
			left[c.WantID] = true
		}
	}
	primary := map[string]string{}
	for _, e := range es {
		if left[e.ID] && len(e.Names) > 0 {
			primary[e.ID] = e.Names[0].Full
		}
	}
	rest = slices.DeleteFunc(slices.Clone(es), func(e watchlist.Entity) bool { return left[e.ID] })
	ns := nameIndex([][]watchlist.Entity{rest})
	for i, c := range arabic {
		if i%2 == half && !ns.covers(fold(primary[c.WantID])) {
			gone = append(gone, Case{Name: c.Name, Kind: NotListed})
		}
	}
	return rest, gone
}
