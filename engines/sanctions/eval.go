package sanctions

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kycflow/kycflow/engines/watchlist"
)

// Evaluation case kinds.
const (
	KindExact             = "exact"              // a listed Latin name as listed
	KindReordered         = "reordered"          // its words rotated
	KindDiacriticsDropped = "diacritics_dropped" // accents removed
	KindTypo              = "typo"               // one letter changed, deleted or inserted, anywhere
	KindMiddleDropped     = "middle_dropped"     // a middle word left out
	KindCyrillic          = "cyrillic"           // rendered in Cyrillic
	KindGreek             = "greek"              // rendered in Greek
	KindNonListed         = "nonlisted"          // a fresh person from the same pools
)

// EvalKinds lists the case kinds in report order.
var EvalKinds = []string{KindExact, KindReordered, KindDiacriticsDropped, KindTypo, KindMiddleDropped, KindCyrillic, KindGreek, KindNonListed}

// EvalCase is one screening query with the entity it should find.
type EvalCase struct {
	Query Query
	Kind  string
	// WantID is the listed entity the query names; "" for a non-listed
	// person, who should raise no alert.
	WantID string
}

// GenerateEval draws n cases (an equal share per kind in EvalKinds) from a
// list made by GenerateList. Queries carry a name only. Non-listed people
// are new persons from the same name pools; a drawn person whose normalised
// name equals a listed name word for word (in canonical spelling, see
// canonical) is a true namesake, not a false
// alert, and is drawn again.
func GenerateEval(list []watchlist.Entity, n int, seed int64) []EvalCase {
	g := newGenerator(seed, 0xe7a1)
	var persons []int
	for i, e := range list {
		if e.Schema == "Person" {
			persons = append(persons, i)
		}
	}
	listed := map[string]bool{}
	for _, e := range list {
		for _, nm := range e.Names {
			for _, v := range normalize(nm.Full, false).variants {
				listed[tokenKey(v)] = true
				// The listed name without one of its middle words: a person
				// called that shares first and last name with a listed one,
				// an alert any screener must raise.
				for i := 1; i < len(v)-1; i++ {
					listed[tokenKey(slices.Concat(v[:i], v[i+1:]))] = true
				}
			}
		}
	}
	var cases []EvalCase
	for i := range n {
		kind := EvalKinds[i%len(EvalKinds)]
		if kind == KindNonListed {
			for {
				p := g.person()
				name := p.names[0].Full
				if !listed[tokenKey(normalize(name, false).variants[0])] {
					cases = append(cases, EvalCase{Query: Query{Name: name, Schema: "Person"}, Kind: kind})
					break
				}
			}
			continue
		}
		if len(persons) == 0 {
			continue
		}
		for attempt := 0; ; attempt++ {
			e := &list[persons[g.r.IntN(len(persons))]]
			name, ok := g.latinName(e, kind, attempt > 200)
			if !ok {
				continue
			}
			cases = append(cases, EvalCase{Query: Query{Name: name, Schema: "Person"}, Kind: kind, WantID: e.ID})
			break
		}
	}
	return cases
}

// tokenKey is a name's canonical tokens, particles left out, as a sorted
// string: equal for the same words in any order and usual spelling.
func tokenKey(ts []token) string {
	var ss []string
	for _, t := range ts {
		if !particles[t.s] {
			ss = append(ss, t.c)
		}
	}
	slices.Sort(ss)
	return strings.Join(ss, " ")
}

func isLatinName(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) && !unicode.Is(unicode.Latin, r) {
			return false
		}
	}
	return true
}

// latinName derives a query of the given kind from one of e's Latin names;
// ok is false when e has no suitable name (relaxed: take what there is).
func (g *generator) latinName(e *watchlist.Entity, kind string, relaxed bool) (string, bool) {
	var cands []string
	for _, n := range e.Names {
		if n.Kind != watchlist.NameWeak && isLatinName(n.Full) {
			cands = append(cands, strings.ReplaceAll(n.Full, ",", ""))
		}
	}
	if len(cands) == 0 {
		return "", false
	}
	name := cands[g.r.IntN(len(cands))]
	words := strings.Fields(name)
	// Reordering and dropping move whole names: Abd al-Rahman and Abu
	// Zaid are one name each, and "Abdul" alone is none.
	units := nameUnits(words)
	switch kind {
	case KindExact:
		return name, true
	case KindReordered:
		if len(units) < 2 {
			return "", false
		}
		k := 1 + g.r.IntN(len(units)-1)
		return strings.Join(append(units[k:], units[:k]...), " "), true
	case KindDiacriticsDropped:
		s := stripMarks(name)
		if s == name && !relaxed {
			return "", false
		}
		return s, true
	case KindTypo:
		return g.typo(words), true
	case KindMiddleDropped:
		if len(units) < 3 {
			return "", false
		}
		i := 1 + g.r.IntN(len(units)-2)
		return strings.Join(slices.Delete(units, i, i+1), " "), true
	case KindCyrillic:
		return latinToCyrillic(name), true
	case KindGreek:
		return latinToGreek(name), true
	}
	return name, true
}

// nameUnits groups a name's words into the names they form: an Abd or Abu
// with the name after it (and an article between), a particle with its
// word ("bin Laden", "al Amin").
func nameUnits(words []string) []string {
	var out []string
	for i := 0; i < len(words); i++ {
		u := words[i]
		lw := strings.ToLower(strings.Trim(u, "-"))
		if (slices.Contains(abdForms, lw) || isAbu(lw) || particles[lw]) && i+1 < len(words) {
			i++
			u += " " + words[i]
			if particles[strings.ToLower(words[i])] && i+1 < len(words) {
				i++
				u += " " + words[i]
			}
		}
		out = append(out, u)
	}
	return out
}

// typo changes, deletes or inserts one letter in one word of four letters or
// more (three when there is none), at the first letter in a quarter of cases
// and anywhere otherwise.
func (g *generator) typo(words []string) string {
	var long []int
	for _, min := range []int{4, 3, 1} {
		for i, w := range words {
			if utf8.RuneCountInString(w) >= min {
				long = append(long, i)
			}
		}
		if len(long) > 0 {
			break
		}
	}
	wi := long[g.r.IntN(len(long))]
	r := []rune(words[wi])
	// A letter, not a hyphen or apostrophe: a typo changes a letter.
	var letters []int
	for i, c := range r {
		if unicode.IsLetter(c) {
			letters = append(letters, i)
		}
	}
	pos := letters[g.r.IntN(len(letters))]
	if g.chance(0.25) {
		pos = 0
	}
	letter := rune('a' + g.r.IntN(26))
	if pos == 0 {
		letter = unicode.ToUpper(letter)
	}
	switch g.r.IntN(3) {
	case 0: // change
		for letter == unicode.ToLower(r[pos]) || letter == r[pos] {
			letter = rune('a' + g.r.IntN(26))
		}
		r[pos] = letter
	case 1: // delete
		if len(r) > 1 {
			r = slices.Delete(r, pos, pos+1)
			if pos == 0 {
				r[0] = unicode.ToUpper(r[0])
			}
		}
	default: // insert
		if pos == 0 {
			r[0] = unicode.ToLower(r[0])
		}
		r = slices.Insert(r, pos, letter)
	}
	words[wi] = string(r)
	return strings.Join(words, " ")
}

// latinToCyrillicRules render a Latin name as a Russian writer would,
// longest match first.
var latinToCyrillicRules = []struct{ from, to string }{
	{"shch", "щ"}, {"sch", "ш"}, {"tsch", "ч"},
	{"kh", "х"}, {"zh", "ж"}, {"ch", "ч"}, {"sh", "ш"}, {"ts", "ц"}, {"tz", "ц"}, {"yu", "ю"}, {"ya", "я"},
	{"yo", "ё"}, {"ye", "е"}, {"iy", "ий"}, {"ph", "ф"}, {"th", "т"}, {"ck", "к"}, {"ou", "у"}, {"ee", "и"},
	{"oo", "у"}, {"mc", "мак"}, {"cc", "кк"}, {"ce", "се"}, {"ci", "си"}, {"dj", "дж"}, {"gh", "г"},
	{"a", "а"}, {"b", "б"}, {"c", "к"}, {"d", "д"}, {"e", "е"}, {"f", "ф"}, {"g", "г"}, {"h", "х"},
	{"i", "и"}, {"j", "дж"}, {"k", "к"}, {"l", "л"}, {"m", "м"}, {"n", "н"}, {"o", "о"}, {"p", "п"},
	{"q", "к"}, {"r", "р"}, {"s", "с"}, {"t", "т"}, {"u", "у"}, {"v", "в"}, {"w", "в"}, {"x", "кс"},
	{"y", "й"}, {"z", "з"},
}

var latinToGreekRules = []struct{ from, to string }{
	{"th", "θ"}, {"ch", "χ"}, {"kh", "χ"}, {"ph", "φ"}, {"ps", "ψ"}, {"ks", "ξ"}, {"sh", "σ"}, {"ou", "ου"},
	{"oo", "ου"}, {"ee", "ι"}, {"ck", "κ"}, {"ts", "τσ"}, {"tz", "τζ"}, {"zh", "ζ"}, {"gh", "γ"},
	{"a", "α"}, {"b", "μπ"}, {"c", "κ"}, {"d", "ντ"}, {"e", "ε"}, {"f", "φ"}, {"g", "γ"}, {"h", "χ"},
	{"i", "ι"}, {"j", "τζ"}, {"k", "κ"}, {"l", "λ"}, {"m", "μ"}, {"n", "ν"}, {"o", "ο"}, {"p", "π"},
	{"q", "κ"}, {"r", "ρ"}, {"s", "σ"}, {"t", "τ"}, {"u", "ου"}, {"v", "β"}, {"w", "ου"}, {"x", "ξ"},
	{"y", "ι"}, {"z", "ζ"},
}

func renderRules(name string, rules []struct{ from, to string }, final func(string) string) string {
	var out []string
	for _, w := range strings.Fields(latinWord([]rune(strings.ToLower(stripMarks(name))))) {
		var b strings.Builder
		for i := 0; i < len(w); {
			matched := false
			for _, r := range rules {
				if strings.HasPrefix(w[i:], r.from) {
					b.WriteString(r.to)
					i += len(r.from)
					matched = true
					break
				}
			}
			if !matched {
				b.WriteByte(w[i])
				i++
			}
		}
		s := b.String()
		if final != nil {
			s = final(s)
		}
		out = append(out, titleCase(s))
	}
	return strings.Join(out, " ")
}

func latinToCyrillic(name string) string {
	return renderRules(name, latinToCyrillicRules, func(s string) string {
		// A word-final й after a consonant is и ("Dmitry" → Дмитри).
		r := []rune(s)
		if n := len(r); n > 1 && r[n-1] == 'й' && !strings.ContainsRune("аеёиоуыэюя", r[n-2]) {
			r[n-1] = 'и'
		}
		return string(r)
	})
}

func latinToGreek(name string) string {
	return renderRules(name, latinToGreekRules, func(s string) string {
		if strings.HasSuffix(s, "σ") {
			s = strings.TrimSuffix(s, "σ") + "ς"
		}
		return s
	})
}

// KindResult is the recall of one kind of case.
type KindResult struct {
	Cases int
	Found int     // listed cases whose entity was in the top 10; for non-listed, cases with an alert
	Rate  float64 // Found / Cases
}

// EvalReport is the outcome of Evaluate.
type EvalReport struct {
	Threshold float64
	// Kinds holds recall@10 for each listed kind and, under KindNonListed,
	// the false alerts.
	Kinds map[string]KindResult
	// FalseAlertRate is the share of non-listed people with any hit at or
	// above Threshold.
	FalseAlertRate float64
	// AlertRecall is, per listed kind, the share found with a score at or
	// above Threshold (an alert, not only a result).
	AlertRecall map[string]float64
}

// Evaluate runs every case against ix and reports recall@10 per kind —
// whether the listed entity is among the ten results a screening returns
// (hits from the index's MinScore, as a screening records them for review)
// — and, for people not listed, the false-alert rate: the share with a hit
// at or above alertThreshold, the score that fails a check. AlertRecall is
// the recall at the alert threshold, for completeness.
func Evaluate(ix *Index, cases []EvalCase, alertThreshold float64) EvalReport {
	rep := EvalReport{Threshold: alertThreshold, Kinds: map[string]KindResult{}, AlertRecall: map[string]float64{}}
	alerted := map[string]int{}
	for _, c := range cases {
		hits := ix.Search(c.Query, 10)
		kr := rep.Kinds[c.Kind]
		kr.Cases++
		if c.WantID == "" {
			if len(hits) > 0 && hits[0].Score >= alertThreshold {
				kr.Found++
			}
		} else if i := slices.IndexFunc(hits, func(h Hit) bool { return h.EntityID == c.WantID }); i >= 0 {
			kr.Found++
			if hits[i].Score >= alertThreshold {
				alerted[c.Kind]++
			}
		}
		kr.Rate = float64(kr.Found) / float64(kr.Cases)
		rep.Kinds[c.Kind] = kr
	}
	for k, kr := range rep.Kinds {
		if k != KindNonListed {
			rep.AlertRecall[k] = float64(alerted[k]) / float64(kr.Cases)
		}
	}
	rep.FalseAlertRate = rep.Kinds[KindNonListed].Rate
	return rep
}

// String formats the report, one kind a line.
func (r EvalReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "alert threshold %.2f (results from the index's minimum score)\n", r.Threshold)
	for _, k := range EvalKinds {
		kr, ok := r.Kinds[k]
		if !ok {
			continue
		}
		if k == KindNonListed {
			fmt.Fprintf(&b, "%-20s false alerts %4d/%-4d %6.2f%%\n", k, kr.Found, kr.Cases, 100*kr.Rate)
		} else {
			fmt.Fprintf(&b, "%-20s recall@10    %4d/%-4d %6.2f%%   alerted %6.2f%%\n", k, kr.Found, kr.Cases, 100*kr.Rate, 100*r.AlertRecall[k])
		}
	}
	return b.String()
}
