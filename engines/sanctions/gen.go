package sanctions

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/kycflow/kycflow/engines/watchlist"
)

// GenerateList returns n fictional but realistic listed entities, the same
// for the same seed: persons with Western European, Spanish (double
// surnames), Slavic (Cyrillic with Latin aliases in several romanisations;
// Russian, Ukrainian and Serbian), Greek (Greek script and Latin), Arabic
// (Latin spelling variants, some in Arabic script) and Chinese (pinyin)
// names, and about 8 % organisations. Each entity has a primary name and 1–4
// aliases, most persons a (partial) birth date and a nationality.
func GenerateList(n int, seed int64) []watchlist.Entity {
	g := newGenerator(seed, 0x5a17)
	out := make([]watchlist.Entity, 0, n)
	for i := range n {
		out = append(out, g.entity(fmt.Sprintf("gen-%06d", i)))
	}
	return out
}

type generator struct{ r *rand.Rand }

func newGenerator(seed int64, stream uint64) *generator {
	return &generator{r: rand.New(rand.NewPCG(uint64(seed), stream))}
}

func (g *generator) pick(s []string) string { return s[g.r.IntN(len(s))] }
func (g *generator) chance(p float64) bool  { return g.r.Float64() < p }

// person is a generated person's names and nationality.
type person struct {
	names []watchlist.Name
	nat   []string
	male  bool
}

func (g *generator) entity(id string) watchlist.Entity {
	e := watchlist.Entity{ID: id, Topics: []string{"sanction"}, Programs: []string{g.pick(words("SDGT UKRAINE-EO13661 IRAN SYRIA EU.1234.56 RUSSIA-EO14024 GLOMAG"))}}
	if g.chance(0.08) {
		e.Schema = g.pick([]string{"Organization", "Company"})
		e.Names = g.org()
		e.Countries = []string{g.pick(words("ru ae ir sy cy hk tr lb kp by"))}
		return e
	}
	e.Schema = "Person"
	p := g.person()
	e.Names, e.Nationalities = p.names, p.nat
	if p.male {
		e.Gender = "male"
	} else {
		e.Gender = "female"
	}
	if g.chance(0.2) {
		e.Topics = []string{"role.pep"}
		e.Programs = nil
	}
	if g.chance(0.85) {
		y := 1940 + g.r.IntN(60)
		switch x := g.r.Float64(); {
		case x < 0.5:
			e.BirthDates = []string{fmt.Sprintf("%04d-%02d-%02d", y, 1+g.r.IntN(12), 1+g.r.IntN(28))}
		case x < 0.7:
			e.BirthDates = []string{fmt.Sprintf("%04d-%02d", y, 1+g.r.IntN(12))}
		case x < 0.9:
			e.BirthDates = []string{fmt.Sprintf("%04d", y)}
		default:
			e.BirthDates = []string{fmt.Sprintf("%04d", y), fmt.Sprintf("%04d", y+1)}
		}
	}
	return e
}

// person draws a person from one of the cultures.
func (g *generator) person() person {
	switch x := g.r.Float64(); {
	case x < 0.26:
		return g.western()
	case x < 0.38:
		return g.spanish()
	case x < 0.52:
		return g.russian()
	case x < 0.56:
		return g.ukrainian()
	case x < 0.59:
		return g.serbian()
	case x < 0.68:
		return g.greek()
	case x < 0.89:
		return g.arabic()
	default:
		return g.chinese()
	}
}

// latinAliases adds 1–4 names to a Latin primary name built from parts.
func (g *generator) latinAliases(first, middle, last string) []watchlist.Name {
	full := strings.Join(strings.Fields(first+" "+middle+" "+last), " ")
	names := []watchlist.Name{{Full: full, Kind: watchlist.NamePrimary, First: first, Middle: middle, Last: last}}
	var cands []watchlist.Name
	if middle != "" {
		cands = append(cands, watchlist.Name{Full: first + " " + last, Kind: watchlist.NameAlias, First: first, Last: last})
		r, _ := utf8.DecodeRuneInString(middle)
		cands = append(cands, watchlist.Name{Full: fmt.Sprintf("%s %c. %s", first, r, last), Kind: watchlist.NameAlias})
	}
	cands = append(cands,
		watchlist.Name{Full: strings.ToUpper(last) + ", " + strings.TrimSpace(first+" "+middle), Kind: watchlist.NameAlias},
		watchlist.Name{Full: stripMarks(full), Kind: watchlist.NameAlias},
	)
	r, _ := utf8.DecodeRuneInString(first)
	cands = append(cands, watchlist.Name{Full: fmt.Sprintf("%c. %s", r, last), Kind: watchlist.NameWeak})
	return g.addAliases(names, cands)
}

// addAliases appends 1–4 distinct candidates (fewer when there are fewer).
func (g *generator) addAliases(names, cands []watchlist.Name) []watchlist.Name {
	k := 1 + g.r.IntN(4)
	g.r.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
	for _, c := range cands {
		if len(names) > k {
			break
		}
		if !slices.ContainsFunc(names, func(n watchlist.Name) bool { return n.Full == c.Full }) {
			names = append(names, c)
		}
	}
	return names
}

func (g *generator) westLast() string {
	if g.chance(0.6) {
		return g.pick(westLast)
	}
	return g.pick(westStem) + g.pick(westSuffix)
}

func (g *generator) western() person {
	first := g.pick(westFirst)
	middle := ""
	if g.chance(0.35) {
		middle = g.pick(westFirst)
	}
	last := g.westLast()
	if g.chance(0.06) {
		last += "-" + g.westLast()
	}
	return person{names: g.latinAliases(first, middle, last), nat: []string{g.pick(words("gb us de fr nl it ie se dk at be ch"))}, male: g.chance(0.7)}
}

func (g *generator) spanish() person {
	first := g.pick(spanishFirst)
	if g.chance(0.3) {
		first += " " + g.pick(spanishFirst)
	}
	l1, l2 := g.pick(spanishLast), g.pick(spanishLast)
	p := person{nat: []string{g.pick(words("es mx co ve ar cu pe ni"))}, male: g.chance(0.7)}
	p.names = g.latinAliases(first, "", l1+" "+l2)
	if g.chance(0.5) {
		p.names = append(p.names, watchlist.Name{Full: first + " " + l1, Kind: watchlist.NameAlias})
	}
	return p
}

// patronymic forms a Russian patronymic from a male first name.
func patronymic(father string, male bool) string {
	r := []rune(father)
	last := r[len(r)-1]
	var base string
	switch {
	case last == 'й':
		base = string(r[:len(r)-1]) + "ев"
	case strings.ContainsRune("аяоеиыуюё", last):
		return ""
	default:
		base = father + "ов"
	}
	if male {
		return base + "ич"
	}
	return base + "на"
}

func (g *generator) russian() person {
	male := g.chance(0.75)
	first := g.pick(slavicFemale)
	if male {
		first = g.pick(slavicMale)
	}
	pat := ""
	if g.chance(0.6) {
		pat = patronymic(g.pick(slavicMale), male)
	}
	si := g.r.IntN(len(slavicSuffixM))
	last := g.pick(slavicStem) + slavicSuffixF[si]
	if male {
		last = g.pick(slavicStem) + slavicSuffixM[si]
	}
	return g.cyrillicPerson(first, pat, last, male, []string{g.pick(words("ru ru ru by kz"))})
}

func (g *generator) ukrainian() person {
	last := g.pick(ukrLast)
	if g.chance(0.7) {
		last = g.pick(slavicStem) + g.pick(words("енко ук чук ів"))
	}
	return g.cyrillicPerson(g.pick(ukrFirst), "", last, g.chance(0.7), []string{"ua"})
}

func (g *generator) serbian() person {
	return g.cyrillicPerson(g.pick(serbFirst), "", g.serbLast(), g.chance(0.7), []string{g.pick(words("rs ba me"))})
}

func (g *generator) serbLast() string {
	if g.chance(0.3) {
		return g.pick(serbStem) + "ић"
	}
	return g.pick(slavicStem) + g.pick(words("ић овић евић"))
}

// cyrillicPerson: a primary Latin name in one romanisation, the Cyrillic
// name (often surname first, as Russian lists write it) and other
// romanisations as aliases.
func (g *generator) cyrillicPerson(first, pat, last string, male bool, nat []string) person {
	cyr := strings.Join(strings.Fields(first+" "+pat+" "+last), " ")
	conv := g.r.IntN(len(romanConventions))
	lat := romanizeCyrillic(cyr, conv)
	names := []watchlist.Name{{Full: lat, Kind: watchlist.NamePrimary}}
	cands := []watchlist.Name{
		{Full: strings.Join(strings.Fields(last+" "+first+" "+pat), " "), Kind: watchlist.NameAlias},
		{Full: cyr, Kind: watchlist.NameAlias},
		{Full: romanizeCyrillic(cyr, (conv+1+g.r.IntN(len(romanConventions)-1))%len(romanConventions)), Kind: watchlist.NameAlias},
	}
	if pat != "" {
		cands = append(cands, watchlist.Name{Full: romanizeCyrillic(first+" "+last, conv), Kind: watchlist.NameAlias})
	}
	return person{names: g.addAliases(names, cands), nat: nat, male: male}
}

func (g *generator) greek() person {
	first := g.pick(greekFirst)
	prefix := g.pick(greekPrefix)
	stem := g.pick(greekStem)
	if prefix != "-" {
		stem = prefix + strings.ToLower(stem)
	}
	gr := first + " " + stem + g.pick(greekSuffix)
	conv := g.r.IntN(len(greekConventions))
	names := []watchlist.Name{{Full: romanizeGreek(gr, conv), Kind: watchlist.NamePrimary}}
	cands := []watchlist.Name{
		{Full: gr, Kind: watchlist.NameAlias},
		{Full: romanizeGreek(gr, (conv+1)%len(greekConventions)), Kind: watchlist.NameAlias},
		{Full: strings.ToUpper(stripMarks(gr)), Kind: watchlist.NameAlias},
	}
	return person{names: g.addAliases(names, cands), nat: []string{g.pick(words("gr gr cy"))}, male: g.chance(0.7)}
}

func (g *generator) arabic() person {
	first := arabicFirst[g.r.IntN(len(arabicFirst))]
	var father, family []string
	if g.chance(0.7) {
		father = arabicFirst[g.r.IntN(arabicMale)]
	}
	if g.chance(0.8) || father == nil {
		family = arabicFamily[g.r.IntN(len(arabicFamily))]
	}
	bin := father != nil && g.chance(0.2)
	spell := func(group []string, i int) string {
		if group == nil {
			return ""
		}
		return group[min(i, len(group)-2)] // the last is Arabic script
	}
	build := func(pick func([]string) string, withFather bool) string {
		parts := []string{pick(first)}
		if withFather && father != nil {
			if bin {
				parts = append(parts, "bin")
			}
			parts = append(parts, pick(father))
		}
		if family != nil {
			parts = append(parts, pick(family))
		}
		return strings.Join(parts, " ")
	}
	names := []watchlist.Name{{Full: build(func(s []string) string { return spell(s, 0) }, true), Kind: watchlist.NamePrimary}}
	rnd := func(s []string) string { return spell(s, g.r.IntN(len(s)-1)) }
	cands := []watchlist.Name{
		{Full: build(rnd, true), Kind: watchlist.NameAlias},
		{Full: build(rnd, true), Kind: watchlist.NameAlias},
		{Full: build(rnd, false), Kind: watchlist.NameAlias},
	}
	if g.chance(0.25) {
		ar := build(func(s []string) string { return s[len(s)-1] }, true)
		ar = strings.ReplaceAll(ar, "bin", "بن")
		cands = append(cands, watchlist.Name{Full: ar, Kind: watchlist.NameAlias})
	}
	return person{names: g.addAliases(names, cands), nat: []string{g.pick(words("sy iq sa ae eg lb ly ye jo ps sd"))}, male: g.chance(0.8)}
}

func (g *generator) chinese() person {
	sur := g.pick(chineseSurname)
	s1 := g.pick(chineseSyllable)
	given := titleCase(s1)
	spaced := given
	hyph := given
	if g.chance(0.6) {
		s2 := g.pick(chineseSyllable)
		given = titleCase(s1 + s2)
		spaced = titleCase(s1) + " " + titleCase(s2)
		hyph = titleCase(s1) + "-" + s2
	}
	names := []watchlist.Name{{Full: sur + " " + given, Kind: watchlist.NamePrimary, First: given, Last: sur}}
	cands := []watchlist.Name{
		{Full: given + " " + sur, Kind: watchlist.NameAlias},
		{Full: sur + " " + hyph, Kind: watchlist.NameAlias},
		{Full: strings.ToUpper(sur) + " " + spaced, Kind: watchlist.NameAlias},
	}
	return person{names: g.addAliases(names, cands), nat: []string{g.pick(words("cn cn hk tw"))}, male: g.chance(0.7)}
}

func (g *generator) org() []watchlist.Name {
	var parts []string
	for range 1 + g.r.IntN(2) {
		parts = append(parts, g.pick(orgWord))
	}
	parts = append(parts, g.pick(orgNoun))
	base := strings.Join(parts, " ")
	form := g.pick(orgForm)
	names := []watchlist.Name{{Full: base + " " + form, Kind: watchlist.NamePrimary}}
	cands := []watchlist.Name{
		{Full: base, Kind: watchlist.NameAlias},
		{Full: strings.ToUpper(base) + " " + strings.ToUpper(form), Kind: watchlist.NameAlias},
	}
	if g.chance(0.3) {
		w := g.pick(orgCyr)
		cands = append(cands, watchlist.Name{Full: "ООО «" + w + "»", Kind: watchlist.NameAlias},
			watchlist.Name{Full: romanizeCyrillic(w, 0) + " " + g.pick(orgNoun) + " OOO", Kind: watchlist.NameAlias})
	}
	return g.addAliases(names, cands)
}

func titleCase(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// stripMarks removes diacritics (NFD, combining marks dropped).
func stripMarks(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return norm.NFC.String(b.String())
}

// romanConventions are the romanisations lists use for Cyrillic names; the
// generator picks one per entity so aliases differ as they do in real lists.
var romanConventions = []map[string]string{
	// BGN/PCGN-like
	{"ё": "yo", "ж": "zh", "й": "y", "х": "kh", "ц": "ts", "ч": "ch", "ш": "sh", "щ": "shch", "ы": "y", "ю": "yu", "я": "ya", "ий": "iy", "ей": "ey", "е0": "ye", "кс": "ks"},
	// ICAO 9303 (passports)
	{"ё": "e", "ж": "zh", "й": "i", "х": "kh", "ц": "ts", "ч": "ch", "ш": "sh", "щ": "shch", "ы": "y", "ю": "iu", "я": "ia", "ий": "ii", "ей": "ei", "е0": "e", "кс": "ks"},
	// Popular English
	{"ё": "yo", "ж": "zh", "й": "y", "х": "kh", "ц": "ts", "ч": "ch", "ш": "sh", "щ": "shch", "ы": "y", "ю": "yu", "я": "ya", "ий": "y", "ей": "ei", "е0": "ye", "кс": "x"},
	// German/French-influenced
	{"ё": "jo", "ж": "sh", "й": "j", "х": "ch", "ц": "z", "ч": "tsch", "ш": "sch", "щ": "schtsch", "ы": "y", "ю": "ju", "я": "ja", "ий": "ij", "ей": "ej", "е0": "je", "кс": "ks"},
}

var cyrBase = map[rune]string{
	'а': "a", 'б': "b", 'в': "v", 'г': "g", 'д': "d", 'е': "e", 'з': "z", 'и': "i", 'к': "k", 'л': "l",
	'м': "m", 'н': "n", 'о': "o", 'п': "p", 'р': "r", 'с': "s", 'т': "t", 'у': "u", 'ф': "f", 'ъ': "",
	'ь': "", 'э': "e", 'і': "i", 'ї': "yi", 'є': "ye", 'ґ': "g",
	'ђ': "đ", 'ј': "j", 'љ': "lj", 'њ': "nj", 'ћ': "ć", 'џ': "dž",
}

// romanizeCyrillic writes a Cyrillic name in Latin letters by convention
// conv; Serbian names are written in Serbian Latin (with diacritics) and
// Ukrainian ones with the Ukrainian readings of г and и.
func romanizeCyrillic(s string, conv int) string {
	c := romanConventions[conv]
	serb := strings.ContainsAny(strings.ToLower(s), "ђјљњћџ")
	ukr := strings.ContainsAny(strings.ToLower(s), "іїєґ") || strings.HasSuffix(strings.ToLower(s), "енко")
	var out []string
	for _, w := range strings.Fields(s) {
		r := []rune(strings.ToLower(w))
		var b strings.Builder
		for i := 0; i < len(r); i++ {
			ch := r[i]
			if serb {
				if l, ok := map[rune]string{'ч': "č", 'ш': "š", 'ж': "ž", 'ц': "c", 'х': "h"}[ch]; ok {
					b.WriteString(l)
					continue
				}
			}
			if ukr {
				if l, ok := map[rune]string{'г': "h", 'и': "y"}[ch]; ok {
					b.WriteString(l)
					continue
				}
			}
			if i+1 < len(r) {
				if l, ok := c[string(r[i:i+2])]; ok && (i+2 == len(r) || r[i : i+2][0] == 'к') {
					b.WriteString(l)
					i++
					continue
				}
			}
			if ch == 'е' && (i == 0 || strings.ContainsRune("аеёиоуыэюяьъ", r[i-1])) {
				b.WriteString(c["е0"])
				continue
			}
			if l, ok := c[string(ch)]; ok {
				b.WriteString(l)
			} else if l, ok := cyrBase[ch]; ok {
				b.WriteString(l)
			} else {
				b.WriteRune(ch)
			}
		}
		out = append(out, titleCase(b.String()))
	}
	return strings.Join(out, " ")
}

// greekConventions: how lists write η, υ, χ, β and the final -ος.
var greekConventions = []map[rune]string{
	{'η': "i", 'υ': "y", 'χ': "ch", 'β': "v", 'γ': "g", 'δ': "d", 'θ': "th"},
	{'η': "e", 'υ': "i", 'χ': "kh", 'β': "v", 'γ': "g", 'δ': "d", 'θ': "th"},
	{'η': "i", 'υ': "i", 'χ': "h", 'β': "b", 'γ': "g", 'δ': "d", 'θ': "th"},
}

var greekBase = map[rune]string{
	'α': "a", 'ε': "e", 'ζ': "z", 'ι': "i", 'κ': "k", 'λ': "l", 'μ': "m", 'ν': "n", 'ξ': "x", 'ο': "o",
	'π': "p", 'ρ': "r", 'σ': "s", 'ς': "s", 'τ': "t", 'φ': "f", 'ψ': "ps", 'ω': "o",
}

// romanizeGreek writes a Greek name in Latin letters by convention conv.
func romanizeGreek(s string, conv int) string {
	c := greekConventions[conv]
	var out []string
	for _, w := range strings.Fields(stripMarks(s)) {
		r := []rune(strings.ToLower(w))
		var b strings.Builder
		for i := 0; i < len(r); i++ {
			if i+1 < len(r) {
				switch string(r[i : i+2]) {
				case "ου":
					b.WriteString("ou")
					i++
					continue
				case "μπ":
					if i == 0 {
						b.WriteString("b")
						i++
						continue
					}
				case "ντ":
					if i == 0 {
						b.WriteString("d")
						i++
						continue
					}
				case "γγ", "γκ":
					b.WriteString("ng")
					i++
					continue
				}
			}
			if l, ok := c[r[i]]; ok {
				b.WriteString(l)
			} else if l, ok := greekBase[r[i]]; ok {
				b.WriteString(l)
			} else {
				b.WriteRune(r[i])
			}
		}
		out = append(out, titleCase(b.String()))
	}
	return strings.Join(out, " ")
}
