package screeneval

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kycflow/kycflow/engines/watchlist"
)

// The kinds of case Queries makes from a generated list (besides
// MiddleDropped).
const (
	Exact             = "exact"              // a listed Latin name as listed
	Reordered         = "reordered"          // its names rotated
	DiacriticsDropped = "diacritics dropped" // typed without its accents, as no listed name of the person is
	Typo              = "typo"               // one letter changed, deleted or inserted, anywhere
	Cyrillic          = "cyrillic"           // a Latin name rendered in Cyrillic
	Greek             = "greek"              // a Latin name rendered in Greek
	NotListed         = "not listed"         // a fresh person from the same pools, who should raise no alert
)

// GeneratedKinds lists the kinds Queries makes, in report order.
var GeneratedKinds = []string{Exact, Reordered, DiacriticsDropped, Typo, MiddleDropped, Cyrillic, Greek, NotListed}

// Queries draws n cases from l, an equal share per kind in GeneratedKinds.
// A person not listed is a new person from the same pools, drawn again
// when they are a namesake of a person in l or in the other lists given
// (those screened beside it): the same name parts as a listed person, or
// every one of their names among one listed name's (see fold).
func (l List) Queries(n int, seed int64, others ...[]watchlist.Entity) []Case {
	g := newGenerator(seed, 0xe7a1)
	var persons []int
	for i, e := range l.Entities {
		if e.Schema == "Person" {
			persons = append(persons, i)
		}
	}
	named := nameIndex(append(slices.Clone(others), l.Entities))
	var cases []Case
	for i := range n {
		kind := GeneratedKinds[i%len(GeneratedKinds)]
		if kind == NotListed {
			for {
				p := g.person()
				name := p.names[0].Full
				if !l.people[partsKey(p.parts)] && !named.covers(fold(name)) {
					cases = append(cases, Case{Name: name, Kind: kind})
					break
				}
			}
			continue
		}
		if len(persons) == 0 {
			continue
		}
		for attempt := 0; ; attempt++ {
			e := &l.Entities[persons[g.r.IntN(len(persons))]]
			name, ok := g.query(e, kind, attempt > 200)
			if !ok {
				continue
			}
			cases = append(cases, Case{Name: name, Kind: kind, WantID: e.ID})
			break
		}
	}
	return cases
}

// query derives a query of the given kind from one of e's Latin names; ok
// is false when e has no suitable name (relaxed: take what there is).
func (g *generator) query(e *watchlist.Entity, kind string, relaxed bool) (string, bool) {
	var cands []string
	for _, n := range e.Names {
		if n.Kind != watchlist.NameWeak && IsLatin(n.Full) {
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
	us := units(words)
	switch kind {
	case Exact:
		return name, true
	case Reordered:
		if len(us) < 2 {
			return "", false
		}
		k := 1 + g.r.IntN(len(us)-1)
		return strings.Join(append(us[k:], us[:k]...), " "), true
	case DiacriticsDropped:
		s := g.unaccented(name)
		listed := slices.ContainsFunc(e.Names, func(n watchlist.Name) bool { return strings.EqualFold(n.Full, s) })
		if (s == name || listed) && !relaxed {
			return "", false
		}
		return s, true
	case Typo:
		return g.misspell(words), true
	case MiddleDropped:
		if len(us) < 3 {
			return "", false
		}
		i := 1 + g.r.IntN(len(us)-2)
		return strings.Join(slices.Delete(us, i, i+1), " "), true
	case Cyrillic:
		return render(name, toCyrillic, func(s string) string {
			// A word-final й after a consonant is и ("Dmitry" → Дмитри).
			r := []rune(s)
			if n := len(r); n > 1 && r[n-1] == 'й' && !strings.ContainsRune("аеёиоуыэюя", r[n-2]) {
				r[n-1] = 'и'
			}
			return string(r)
		}), true
	case Greek:
		return render(name, toGreek, func(s string) string {
			if strings.HasSuffix(s, "σ") {
				s = strings.TrimSuffix(s, "σ") + "ς"
			}
			return s
		}), true
	}
	return name, true
}

// unaccented is a name as typed on a keyboard without its accents: the
// marks left off, and in half the names an umlaut written out (ü as ue)
// and ß as ss, as German speakers type them.
func (g *generator) unaccented(name string) string {
	if g.chance(0.5) {
		name = strings.NewReplacer("ä", "ae", "ö", "oe", "ü", "ue", "Ä", "Ae", "Ö", "Oe", "Ü", "Ue", "ß", "ss").Replace(name)
	}
	return stripMarks(name)
}

// misspell changes, deletes or inserts one letter in one word of four
// letters or more (three when there is none), at the first letter in a
// quarter of cases and anywhere otherwise.
func (g *generator) misspell(words []string) string {
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

// toCyrillic renders a Latin name as a Russian writer would, longest match
// first.
var toCyrillic = []struct{ from, to string }{
	{"shch", "щ"}, {"sch", "ш"}, {"tsch", "ч"},
	{"kh", "х"}, {"zh", "ж"}, {"ch", "ч"}, {"sh", "ш"}, {"ts", "ц"}, {"tz", "ц"}, {"yu", "ю"}, {"ya", "я"},
	{"yo", "ё"}, {"ye", "е"}, {"iy", "ий"}, {"ph", "ф"}, {"th", "т"}, {"ck", "к"}, {"ou", "у"}, {"ee", "и"},
	{"oo", "у"}, {"mc", "мак"}, {"cc", "кк"}, {"ce", "се"}, {"ci", "си"}, {"dj", "дж"}, {"gh", "г"},
	{"a", "а"}, {"b", "б"}, {"c", "к"}, {"d", "д"}, {"e", "е"}, {"f", "ф"}, {"g", "г"}, {"h", "х"},
	{"i", "и"}, {"j", "дж"}, {"k", "к"}, {"l", "л"}, {"m", "м"}, {"n", "н"}, {"o", "о"}, {"p", "п"},
	{"q", "к"}, {"r", "р"}, {"s", "с"}, {"t", "т"}, {"u", "у"}, {"v", "в"}, {"w", "в"}, {"x", "кс"},
	{"y", "й"}, {"z", "з"},
}

// toGreek renders a Latin name as a Greek writer would.
var toGreek = []struct{ from, to string }{
	{"th", "θ"}, {"ch", "χ"}, {"kh", "χ"}, {"ph", "φ"}, {"ps", "ψ"}, {"ks", "ξ"}, {"sh", "σ"}, {"ou", "ου"},
	{"oo", "ου"}, {"ee", "ι"}, {"ck", "κ"}, {"ts", "τσ"}, {"tz", "τζ"}, {"zh", "ζ"}, {"gh", "γ"},
	{"a", "α"}, {"b", "μπ"}, {"c", "κ"}, {"d", "ντ"}, {"e", "ε"}, {"f", "φ"}, {"g", "γ"}, {"h", "χ"},
	{"i", "ι"}, {"j", "τζ"}, {"k", "κ"}, {"l", "λ"}, {"m", "μ"}, {"n", "ν"}, {"o", "ο"}, {"p", "π"},
	{"q", "κ"}, {"r", "ρ"}, {"s", "σ"}, {"t", "τ"}, {"u", "ου"}, {"v", "β"}, {"w", "ου"}, {"x", "ξ"},
	{"y", "ι"}, {"z", "ζ"},
}

// latinLetters are the Latin letters that are not a base letter and a
// mark, and so keep through stripMarks.
var latinLetters = strings.NewReplacer("ß", "ss", "ø", "o", "ł", "l", "đ", "d", "æ", "ae", "œ", "oe", "þ", "th", "ı", "i")

func render(name string, rules []struct{ from, to string }, final func(string) string) string {
	var out []string
	for _, w := range strings.Fields(latinLetters.Replace(strings.ToLower(stripMarks(name)))) {
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
		out = append(out, titleCase(final(b.String())))
	}
	return strings.Join(out, " ")
}
