package screeneval

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kycflow/kycflow/engines/watchlist"
)

// List is a generated list: its entities, and who its people are (each
// person's name parts, spelling aside), which Queries needs to tell a
// person not listed from a namesake of a listed one.
type List struct {
	Entities []watchlist.Entity
	people   map[string]bool // partsKey of each listed person, and with one middle part left out
}

// GenerateList returns n fictional but realistic listed entities, the same
// for the same seed: persons with Western European, Spanish (double
// surnames), Slavic (Cyrillic with Latin aliases in several romanisations;
// Russian, Ukrainian and Serbian), Greek (Greek script and Latin), Arabic
// (Latin spelling variants, some in Arabic script) and Chinese (pinyin)
// names, and about 8 % organisations. Each entity has a primary name and 1–4
// aliases, most persons a (partial) birth date and a nationality.
func GenerateList(n int, seed int64) List {
	g := newGenerator(seed, 0x5a17)
	l := List{Entities: make([]watchlist.Entity, 0, n), people: map[string]bool{}}
	for i := range n {
		e, parts := g.entity(fmt.Sprintf("gen-%06d", i))
		l.Entities = append(l.Entities, e)
		if parts == nil {
			continue
		}
		l.people[partsKey(parts)] = true
		// The person without one of their middle names: someone called
		// that shares first and last name with a listed person, an alert
		// any screener must raise.
		for i := 1; i < len(parts)-1; i++ {
			l.people[partsKey(slices.Concat(parts[:i], parts[i+1:]))] = true
		}
	}
	return l
}

// partsKey is a person's name parts in any order.
func partsKey(parts []string) string {
	return strings.Join(slices.Sorted(slices.Values(parts)), " ")
}

type generator struct{ r *rand.Rand }

func newGenerator(seed int64, stream uint64) *generator {
	return &generator{r: rand.New(rand.NewPCG(uint64(seed), stream))}
}

func (g *generator) pick(s []string) string { return s[g.r.IntN(len(s))] }
func (g *generator) chance(p float64) bool  { return g.r.Float64() < p }

// person is a generated person's names and nationality, and the parts the
// names are made of, one per given name, patronymic or family name, in the
// script and spelling the generator drew them in: two people with the same
// parts are namesakes, however their names are spelt.
type person struct {
	names []watchlist.Name
	parts []string
	nat   []string
	male  bool
}

// entity draws an entity; parts are a person's (nil for an organisation).
func (g *generator) entity(id string) (watchlist.Entity, []string) {
	e := watchlist.Entity{ID: id, Topics: []string{"sanction"}, Programs: []string{g.pick(words("SDGT UKRAINE-EO13661 IRAN SYRIA EU.1234.56 RUSSIA-EO14024 GLOMAG"))}}
	if g.chance(0.08) {
		e.Schema = g.pick([]string{"Organization", "Company"})
		e.Names = g.org()
		e.Countries = []string{g.pick(words("ru ae ir sy cy hk tr lb kp by"))}
		return e, nil
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
	return e, p.parts
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
	return person{names: g.latinAliases(first, middle, last), parts: latinParts(first, middle, last), nat: []string{g.pick(words("gb us de fr nl it ie se dk at be ch"))}, male: g.chance(0.7)}
}

func (g *generator) spanish() person {
	first := g.pick(spanishFirst)
	if g.chance(0.3) {
		first += " " + g.pick(spanishFirst)
	}
	l1, l2 := g.pick(spanishLast), g.pick(spanishLast)
	p := person{parts: latinParts(first, l1, l2), nat: []string{g.pick(words("es mx co ve ar cu pe ni"))}, male: g.chance(0.7)}
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
	return person{names: g.addAliases(names, cands), parts: cyrillicParts(cyr), nat: nat, male: male}
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
	return person{names: g.addAliases(names, cands), parts: strings.Fields(strings.ToLower(stripMarks(gr))), nat: []string{g.pick(words("gr gr cy"))}, male: g.chance(0.7)}
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
	// A name is one part however it is spelt: its Arabic-script form.
	var parts []string
	for _, grp := range [][]string{first, father, family} {
		if grp != nil {
			parts = append(parts, grp[len(grp)-1])
		}
	}
	return person{names: g.addAliases(names, cands), parts: parts, nat: []string{g.pick(words("sy iq sa ae eg lb ly ye jo ps sd"))}, male: g.chance(0.8)}
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
	return person{names: g.addAliases(names, cands), parts: []string{strings.ToLower(sur), strings.ToLower(given)}, nat: []string{g.pick(words("cn cn hk tw"))}, male: g.chance(0.7)}
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

// latinParts are the parts of a name in Latin letters: its words, lower
// case, accents left out, a double-barrelled name in two.
func latinParts(names ...string) []string {
	return strings.FieldsFunc(strings.ToLower(stripMarks(strings.Join(names, " "))), func(r rune) bool { return r == ' ' || r == '-' })
}

// cyrillicParts are the parts of a Cyrillic name, each word in one
// romanisation: Мария and Марія are one name in Russian and Ukrainian.
func cyrillicParts(cyr string) []string {
	var parts []string
	for _, w := range strings.Fields(cyr) {
		parts = append(parts, strings.ToLower(romanizeCyrillic(w, 0)))
	}
	return parts
}
