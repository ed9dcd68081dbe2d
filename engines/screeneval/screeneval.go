// Package screeneval makes the queries a name matcher is measured with from
// real lists, by rules of its own: it knows nothing of the matcher (it
// imports no part of it), so a figure it yields is not the matcher grading
// itself. Its tables of titles, particles and compound heads are written
// here from how the lists write names, not copied from the matcher's.
//
// Every case is either in the tuning split, whose misses may be looked at,
// or held out (a quarter, by a hash of the entity and the query): the
// held-out figures are reported, their misses never listed.
package screeneval

import (
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/kycflow/kycflow/engines/watchlist"
)

// Case is a query and the listed entity it names.
type Case struct {
	Name   string
	WantID string
	Kind   string
	// Weak: made only from names the list calls weak (OFAC's weak
	// a.k.a., the UN's low-quality alias), which a screen shows but
	// does not alert on alone.
	Weak bool
}

// The kinds of case Cases makes.
const (
	ArabicScript       = "arabic script"         // a person's Arabic-script name, against the list's Latin names
	MiddleDropped      = "middle dropped"        // the first and the last name, the names between left out
	AliasMiddleDropped = "alias, middle dropped" // an alias's first and last name
	OneDropped         = "one dropped"           // one of two or more middle names left out
	ShortTypo          = "short typo"            // a letter wrong in a short two-word name
	TitleName          = "title + name"          // a title and the last name ("Haji Noorzai")
	KunyaSplit         = "kunya split"           // a kunya or Abd compound by its first half and the last name
	Alias              = "alias"                 // a strong alias as the list writes it
)

// Kinds lists the kinds in report order. Exact, Reordered and Typo are
// the generated lists' kinds too (generated.go); here Exact is the
// primary name as listed, Reordered its family name put first ("NOORZAI
// Bashir Ahmad", the title left out), and Typo a letter wrong, left out,
// added or two swapped, not the first, in a name of two to four words.
var Kinds = []string{Exact, Reordered, Alias, ArabicScript, MiddleDropped, AliasMiddleDropped, OneDropped, ShortTypo, Typo, TitleName, KunyaSplit}

// HeldOut reports whether a case is in the held-out quarter.
func (c Case) HeldOut() bool {
	h := fnv.New32a()
	io.WriteString(h, c.WantID+"\x00"+c.Name)
	return h.Sum32()%4 == 0
}

// LoadUN reads the UN consolidated list (XML).
func LoadUN(path string) ([]watchlist.Entity, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var es []watchlist.Entity
	_, err = watchlist.ParseUNXML(f, func(e watchlist.Entity) error { es = append(es, e); return nil })
	return es, err
}

// LoadOFAC reads an OFAC SDN snapshot (sdn.csv, alt.csv, add.csv in dir).
func LoadOFAC(dir string) ([]watchlist.Entity, error) {
	var files []*os.File
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	for _, n := range []string{"sdn.csv", "alt.csv", "add.csv"} {
		f, err := os.Open(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	var es []watchlist.Entity
	_, err := watchlist.ParseOFAC(files[0], files[1], files[2], func(e watchlist.Entity) error { es = append(es, e); return nil })
	return es, err
}

// IsArabic reports whether s holds Arabic letters.
func IsArabic(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Arabic, r) }) >= 0
}

// IsLatin reports whether every letter of s is Latin.
func IsLatin(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) && !unicode.Is(unicode.Latin, r) }) < 0
}

// LatinOnly is es with every name in another script left out.
func LatinOnly(es []watchlist.Entity) []watchlist.Entity {
	out := make([]watchlist.Entity, len(es))
	for i, e := range es {
		e.Names = slices.DeleteFunc(slices.Clone(e.Names), func(n watchlist.Name) bool { return !IsLatin(n.Full) })
		out[i] = e
	}
	return out
}

// titles are forms of address lists put before Arabic, Afghan and
// Pakistani names.
var titles = []string{"haji", "hajji", "haj", "hajj", "hadj", "alhaj", "alhajj", "mullah", "mulla", "maulvi", "mawlawi", "maulawi",
	"moulvi", "sheikh", "shaykh", "shaikh", "sheik", "qari", "mufti"}

// compoundHeads begin a name of two words: a kunya (Abu, father of) or a
// theophoric name (Abd, servant of).
var compoundHeads = []string{"abu", "abou", "abo", "abd", "abdul", "abdel", "abdal", "abdur", "abdu", "abdol", "abdoul"}

// honorifics and suffixes are not names: a title before them (besides
// titles: Dr., Mr.), a generation after them (Jr., III).
var (
	honorifics = []string{"dr", "doctor", "mr", "mrs", "ms", "prof", "general", "gen", "colonel", "col", "major", "captain", "imam", "sayyid", "sayed",
		"mawlana", "maulana", "u", "daw"}
	suffixes = []string{"jr", "sr", "ii", "iii", "iv"}
)

// bare is words without the titles before them and the suffixes after
// them.
func bare(words []string) []string {
	word := func(w string) string { return strings.Trim(strings.ToLower(w), ".,'’") }
	for len(words) > 0 && (slices.Contains(titles, word(words[0])) || slices.Contains(honorifics, word(words[0]))) {
		words = words[1:]
	}
	// "Al Hajj", "El Hadj": a title after its article.
	if len(words) > 2 && slices.Contains(articles, word(words[0])) && slices.Contains(titles, word(words[1])) {
		words = words[2:]
	}
	for len(words) > 0 && slices.Contains(suffixes, word(words[len(words)-1])) {
		words = words[:len(words)-1]
	}
	return words
}

// faithEndings end a compound name after an article (Izz al-Din), or
// joined to it (Jamal Eddine).
var (
	faithEndings  = []string{"din", "deen", "dine"}
	joinedEndings = []string{"eddin", "eddine", "uddin", "uddeen", "addin", "aldin"}
)

// articles stand between a compound's halves or before a nisba ("al",
// "ul", "ur"); joiners belong with the word after them ("bin", "de").
var (
	articles = []string{"al", "el", "ul", "ud", "ed", "ur", "ar", "as", "ad", "an", "at"}
	joiners  = []string{"bin", "ibn", "bint", "ben", "ould", "wuld", "de", "da", "del", "di", "van", "von", "der", "le", "la"}
)

// naturalWords is a name's words in natural order (given names first: the
// list's parts when it gives them, else a "FAMILY, Given" turned round),
// split at spaces and hyphens.
func naturalWords(n watchlist.Name) []string {
	full := n.Full
	if n.First != "" && n.Last != "" {
		full = n.First + " " + n.Middle + " " + n.Last
	} else if before, after, ok := strings.Cut(full, ","); ok {
		full = after + " " + before
	}
	return strings.FieldsFunc(full, func(r rune) bool { return r == ' ' || r == '-' })
}

// units groups words into the names they form: a compound head or a joiner
// with the word after it (and that word's, when it is a head itself: Abu
// Abd al-Rahman, ould Abdel Jelil), an article with its word ("al
// Rahman"), a faith ending with the name before it (Izz al-Din, Jamal
// Eddine).
func units(words []string) []string {
	lower := func(w string) string { return strings.Trim(strings.ToLower(w), "'’‘`") }
	var out []string
	for i := 0; i < len(words); i++ {
		u, lw := words[i], lower(words[i])
		// Izz al-Din, Salah ud-Din: the faith ending stays with its name.
		if slices.Contains(articles, lw) && i+1 < len(words) && slices.Contains(faithEndings, strings.ToLower(words[i+1])) && len(out) > 0 {
			out[len(out)-1] += " " + u + " " + words[i+1]
			i++
			continue
		}
		if slices.Contains(joinedEndings, lw) && len(out) > 0 {
			out[len(out)-1] += " " + u
			continue
		}
		for (slices.Contains(compoundHeads, lw) || slices.Contains(joiners, lw) || slices.Contains(articles, lw)) && i+1 < len(words) {
			i++
			u += " " + words[i]
			lw = lower(words[i])
		}
		out = append(out, u)
	}
	return out
}

// Cases makes the cases of every kind from es's people (each person's
// names, Latin ones for all but ArabicScript), drawing typos with seed.
func Cases(es []watchlist.Entity, seed uint64) map[string][]Case {
	rng := rand.New(rand.NewPCG(seed, 7))
	// Typo's and OneDropped's own streams: ShortTypo's draws stay as
	// they were.
	slips, drops := rand.New(rand.NewPCG(seed, 11)), rand.New(rand.NewPCG(seed, 13))
	out := map[string][]Case{}
	seen := map[string]int{} // index in out[kind], plus one
	addFrom := func(kind, name, id string, weak bool) {
		k := kind + "\x00" + strings.ToLower(name) + "\x00" + id
		if i := seen[k]; i > 0 {
			out[kind][i-1].Weak = out[kind][i-1].Weak && weak
			return
		}
		out[kind] = append(out[kind], Case{Name: name, WantID: id, Kind: kind, Weak: weak})
		seen[k] = len(out[kind])
	}
	add := func(kind, name, id string) { addFrom(kind, name, id, false) }
	for _, e := range es {
		if e.Schema != "Person" || len(e.Names) == 0 {
			continue
		}
		for _, n := range e.Names {
			// A name the file holds with a character lost (U+FFFD) is
			// no name anyone is asked about.
			if n.Kind == watchlist.NameAlias && IsArabic(n.Full) && !strings.ContainsRune(n.Full, unicode.ReplacementChar) {
				add(ArabicScript, n.Full, e.ID)
				break
			}
		}
		// Middle names dropped: the primary name's first and last name;
		// the name with one of its middle names left out.
		primary := ""
		if p := e.Names[0]; IsLatin(p.Full) {
			add(Exact, p.Full, e.ID)
			us := units(bare(naturalWords(p)))
			if len(us) >= 2 {
				add(Reordered, us[len(us)-1]+" "+strings.Join(us[:len(us)-1], " "), e.ID)
			}
			if len(us) >= 3 {
				primary = us[0] + " " + us[len(us)-1]
				add(MiddleDropped, primary, e.ID)
			}
			if len(us) >= 4 {
				k := 1 + drops.IntN(len(us)-2)
				add(OneDropped, strings.Join(slices.Delete(slices.Clone(us), k, k+1), " "), e.ID)
			}
			ws := strings.Fields(strings.ReplaceAll(p.Full, ",", " "))
			if len(ws) == 2 && inLen(ws[0]) && inLen(ws[1]) {
				add(ShortTypo, typo(rng, ws), e.ID)
			}
			if q, ok := slip(slips, ws); ok && len(ws) <= 4 {
				add(Typo, q, e.ID)
			}
		}
		// An alias as written, unless it is a name before it turned
		// round (OFAC writes each "FAMILY, Given" alias both ways); its
		// first and last name, the names between left out: a person is
		// asked after by any name the list knows (a name with digits in
		// it is a note, no name).
		var written []string
		for _, n := range e.Names {
			k := wordSet(n.Full)
			if n.Kind == watchlist.NameAlias && IsLatin(n.Full) && !strings.ContainsAny(n.Full, "0123456789") && !slices.Contains(written, k) {
				add(Alias, n.Full, e.ID)
			}
			written = append(written, k)
		}
		for _, n := range e.Names[1:] {
			if n.Kind != watchlist.NameAlias || !IsLatin(n.Full) || strings.ContainsAny(n.Full, "0123456789") {
				continue
			}
			if us := units(bare(naturalWords(n))); len(us) >= 3 && !strings.EqualFold(us[0]+" "+us[len(us)-1], primary) {
				add(AliasMiddleDropped, us[0]+" "+us[len(us)-1], e.ID)
			}
		}
		for _, n := range e.Names {
			if !IsLatin(n.Full) {
				continue
			}
			ws := naturalWords(n)
			if len(ws) < 3 || len([]rune(ws[len(ws)-1])) < 4 {
				continue
			}
			first, last := strings.Trim(strings.ToLower(ws[0]), "'’‘`"), ws[len(ws)-1]
			weak := n.Kind == watchlist.NameWeak
			switch {
			case slices.Contains(titles, first):
				addFrom(TitleName, ws[0]+" "+last, e.ID, weak)
			case slices.Contains(compoundHeads, first):
				// The compound's second half dropped needs a name after
				// the compound ("Abu Abd al-Rahman" alone is one name),
				// and one that is no compound itself: "Abdul Aziz" is
				// all of Abdul Hamid Abdul Aziz's second name.
				us := units(ws)
				lastHead := strings.Trim(strings.ToLower(strings.Fields(us[len(us)-1])[0]), "'’‘`")
				if len(us) >= 2 && !slices.Contains(compoundHeads, lastHead) {
					addFrom(KunyaSplit, ws[0]+" "+last, e.ID, weak)
				}
			}
		}
	}
	return out
}

// wordSet is a name's words in lower case, sorted: a name and the same
// name turned round are one.
func wordSet(name string) string {
	ws := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == ' ' || r == ',' })
	slices.Sort(ws)
	return strings.Join(ws, " ")
}

func inLen(w string) bool { n := len([]rune(w)); return n >= 4 && n <= 6 }

// typo changes one letter, not the first, of one of two words.
func typo(rng *rand.Rand, ws []string) string {
	ws = slices.Clone(ws)
	w := rng.IntN(2)
	r := []rune(ws[w])
	i := 1 + rng.IntN(len(r)-1)
	c := rune('a' + rng.IntN(26))
	for unicode.ToLower(c) == unicode.ToLower(r[i]) {
		c = rune('a' + rng.IntN(26))
	}
	r[i] = unicode.ToUpper(c)
	ws[w] = string(r)
	return strings.Join(ws, " ")
}

// slip makes one keyboard slip, not in the first letter, in one word of
// four letters or more of a name of two words or more: a letter wrong,
// left out, added, or two swapped, in the word's case.
func slip(rng *rand.Rand, ws []string) (string, bool) {
	// at are the places of a word's letters after its first: a quote or
	// hyphen is no letter to slip on ("‘ALI" keeps its A first).
	at := func(r []rune) []int {
		var out []int
		for k, c := range r {
			if unicode.IsLetter(c) {
				out = append(out, k)
			}
		}
		return out[min(1, len(out)):]
	}
	var long []int
	for i, w := range ws {
		if len(at([]rune(w))) >= 3 {
			long = append(long, i)
		}
	}
	if len(ws) < 2 || len(long) == 0 {
		return "", false
	}
	ws = slices.Clone(ws)
	wi := long[rng.IntN(len(long))]
	r := []rune(ws[wi])
	places := at(r)
	i := places[rng.IntN(len(places))]
	letter := func() rune {
		c := rune('a' + rng.IntN(26))
		if unicode.IsUpper(r[i]) {
			c = unicode.ToUpper(c)
		}
		return c
	}
	switch op := rng.IntN(4); {
	case op == 1:
		r = slices.Delete(r, i, i+1)
	case op == 2:
		r = slices.Insert(r, i, letter())
	case op == 3 && i+1 < len(r) && unicode.IsLetter(r[i+1]) && unicode.ToLower(r[i]) != unicode.ToLower(r[i+1]):
		r[i], r[i+1] = r[i+1], r[i]
	default:
		c := letter()
		for unicode.ToLower(c) == unicode.ToLower(r[i]) {
			c = letter()
		}
		r[i] = c
	}
	ws[wi] = string(r)
	return strings.Join(ws, " "), true
}

// People counts, per word, the listed people whose names use it (lower
// case, an "al-" or "el-" before it left out): Rare says whether a query
// may stand on it.
type People map[string]int

// CountPeople counts over es.
func CountPeople(es ...[]watchlist.Entity) People {
	p := People{}
	for _, list := range es {
		for _, e := range list {
			seen := map[string]bool{}
			for _, n := range e.Names {
				for _, w := range strings.Fields(strings.ReplaceAll(n.Full, ",", " ")) {
					if w = plain(w); !seen[w] {
						seen[w] = true
						p[w]++
					}
				}
			}
		}
	}
	return p
}

// Rare reports whether fewer than three listed people use word w.
func (p People) Rare(w string) bool { return p[plain(w)] < 3 }

func plain(w string) string {
	w = strings.ToLower(w)
	for _, a := range []string{"al-", "el-"} {
		w = strings.TrimPrefix(w, a)
	}
	return w
}

// Tally counts, for one kind of case, the cases found among the first ten
// hits and those alerting, and keeps what missed (tuning cases only).
type Tally struct {
	Cases, Found, Alerted int
	Misses                []string
}

// Add records one case's outcome: rank is the entity's place among the hits
// (-1: not among them), score its score there.
func (t *Tally) Add(c Case, rank int, score float64, matched string, threshold float64) {
	t.Cases++
	switch {
	case rank < 0:
		if !c.HeldOut() {
			t.Misses = append(t.Misses, c.Name+" ("+c.WantID+") not found")
		}
		return
	case score >= threshold:
		t.Alerted++
	case !c.HeldOut():
		t.Misses = append(t.Misses, fmt.Sprintf("%s → %s %.3f", c.Name, matched, score))
	}
	t.Found++
}

// Rates are the shares found and alerting.
func (t Tally) Rates() (found, alerted float64) {
	n := float64(max(t.Cases, 1))
	return float64(t.Found) / n, float64(t.Alerted) / n
}
