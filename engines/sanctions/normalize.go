package sanctions

import (
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// token is one normalised word of a name.
type token struct {
	s string
	// c is canonical(s), "" for non-ASCII words.
	c string
	// skel is set when the word came from Arabic script: it is a consonant
	// skeleton and is compared as one (see tokenSim).
	skel bool
	// known marks a common word of Arabic names romanised whole
	// (arabicWords): a spelling, not a skeleton, and one kycflow chose, so
	// the list's vocabulary says nothing about it. alt is its other usual
	// spelling (Muhammad, Mohammed): it is compared both ways.
	known bool
	alt   string
	// id numbers a listed word (its s, alt, skel and known) among the
	// index's distinct ones, for the scorer's memo; 0 for a query's.
	id uint32
}

// other is a skeleton's other spelling as a token of its own.
func (t token) other() token {
	return token{s: t.alt, c: canonical(t.alt), skel: true}
}

// normName is a name after normalisation: one or two spellings (the two
// transliteration schemes, when they differ) of its tokens.
type normName struct {
	variants [][]token
	// script is the non-Latin script the name was written in, or "".
	script string
	// surnameFirst: a person's name written "SURNAME, Given Middle", as
	// lists do; its first word is then no given name.
	surnameFirst bool
	// titled: a person's name that came with a title (Haji, Mullah,
	// Shaykh), left out of its tokens.
	titled bool
	// titles are the kinds of title it came with (titleKinds).
	titles titleSet
	// untitled: when a title word stands as the family name (see
	// familyPlaces), the words with it left out as a title all the same:
	// a listed name is read both ways.
	untitled []token
	// lenient, by variant: a titled query down to one word, a nisba or a
	// tribe; what each listed word it leaves out costs instead of the
	// usual share, by how rare the word is in the lists (zero: the usual).
	lenient []leave
	// slips, by variant: a spelling without a word read as a short title
	// mistyped (see addTitleSlipSpellings); zero for the others.
	slips []titleSlip
	// letters: a query's letters as written, and the query itself (see
	// wholeSlip).
	letters []spelt
	written string
	// commonRest: a compound of the query has a name after its head that
	// many listed people have (see commonRest).
	commonRest bool
}

// recompose puts back the Cyrillic letters that NFKD splits into a base
// letter and a mark but which are letters of their own (й is not и).
var recompose = map[[2]rune]rune{
	{'и', 0x306}: 'й', {'е', 0x308}: 'ё', {'і', 0x308}: 'ї', {'у', 0x306}: 'ў',
	{'г', 0x301}: 'ѓ', {'к', 0x301}: 'ќ',
}

// honorifics are titles and forms of address: they are not part of who a
// person is, and lists and customers use them inconsistently.
var honorifics = setOf(`mr mrs ms miss mx dr doctor prof professor sir dame lord lady
	sheikh shaikh shaykh sheik haji hajji hadji hadj alhaj alhajj hajj
	general gen colonel col major maj captain capt lieutenant lt admiral adm
	sergeant sgt commander marshal brigadier president minister senator
	imam mullah mulla ayatollah mufti qari maulana mawlana maulvi mawlawi maulawi moulvi molvi haj rev reverend
	his her excellency hon honourable honorable jr sr ii iii`)

// titleSet is a set of kinds of title, one bit each (titleKinds).
type titleSet uint16

// titleKinds group the religious and customary titles by kind, their
// spellings together: a list's "Hajji" is a customer's "Haji". Among
// namesakes a query's title cannot tell apart by score (see titledShown),
// a listed name with the same kind of title is named first.
var titleKinds = func() map[string]titleSet {
	m := map[string]titleSet{}
	for i, kind := range []string{"haji hajji hadji hadj alhaj alhajj hajj haj", "sheikh shaikh shaykh sheik",
		"mullah mulla", "maulana mawlana maulvi mawlawi maulawi moulvi molvi", "mufti", "imam", "ayatollah", "qari"} {
		for _, w := range strings.Fields(kind) {
			m[w] = 1 << i
		}
	}
	return m
}()

// titleKindNames name titleKinds' kinds, bit by bit (for explanations).
var titleKindNames = []string{"Haji", "Sheikh", "Mullah", "Maulvi", "Mufti", "Imam", "Ayatollah", "Qari"}

// String names the kinds in s.
func (s titleSet) String() string {
	var out []string
	for i, n := range titleKindNames {
		if s&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return strings.Join(out, ", ")
}

// titleKeys are the deletion keys (see deletionKeys) of the honorifics of
// five letters or more: a word sharing one may be within an edit of a title.
var titleKeys = func() map[uint64]bool {
	m := map[uint64]bool{}
	for h := range honorifics {
		if len(h) >= 5 {
			for _, k := range deletionKeys(h, nil) {
				m[k] = true
			}
		}
	}
	return m
}()

// dropTitleSlips drops the query words that are a title mistyped (Shjykh,
// Maulama): words of five letters or more, one edit from an honorific of
// five letters or more, and no word of the list. Shorter titles are left
// alone: one edit from Imam or Haji are names (Iman, Hadi), and leaving out
// their slips cost more typos of names than it found titles.
func dropTitleSlips(ts []token, v *vocabulary) []token {
	var keys [64]uint64
	slip := func(t token) bool {
		// A title itself normalize kept is a family name (familyPlaces).
		if len(t.s) < 5 || len(t.s) > 30 || !isASCII(t.s) || v.uses(t.s) > 0 || honorifics[t.s] {
			return false
		}
		for _, k := range deletionKeys(t.s, keys[:0]) {
			if titleKeys[k] {
				for h := range honorifics {
					if len(h) >= 5 && oneEdit(h, t.s) {
						return true
					}
				}
				return false
			}
		}
		return false
	}
	if len(ts) < 2 || !slices.ContainsFunc(ts, slip) {
		return ts
	}
	kept := slices.DeleteFunc(slices.Clone(ts), slip)
	if len(kept) == 0 {
		return ts
	}
	return kept
}

// legalForms state an organisation's legal form, not its identity; they
// are dropped from organisation names only ("General" may be a name part
// of a company, "Co" of a person is unlikely to matter).
var legalForms = setOf(`ltd limited plc llp lp inc incorporated corp corporation co company llc
	gmbh ag kg ohg ug eg ev kgaa mbh bv nv vof cv sa sas sasu sarl eurl sca snc
	spa srl sl slu sau sro as oy oyj ab aps kft zrt doo dd ad ood eood
	ooo zao oao pao ao tov pat pjsc ojsc cjsc jsc fze fzco fzc fzllc sal saog saoc
	pte pty bhd sdn tbk pt cia ltda sae`)

func setOf(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// joins: apostrophes join (O'Brien); so does the Arabic tatweel, a stretch
// of the line between letters.
func joins(r rune) bool {
	return r == '\'' || r == '’' || r == 'ʼ' || r == '`' || r == '‘' || r == 'ـ'
}

// Where screened names end: MaxQueryWords words (as QueryWords counts
// them) and MaxQueryRunes characters. No listed person's name is longer
// (a few organisations' official names are, and are found by fewer of
// their words); the matcher compares that many words of a name and no
// more, so a longer query only costs more. Callers refuse longer names;
// the matcher, given one anyway (an aml check's customer record), uses
// its first MaxQueryWords words.
const (
	MaxQueryWords = maxTokens
	MaxQueryRunes = 200
)

// QueryWords counts a name's words as the matcher splits them: runs of
// letters and digits (apostrophes and combining marks join), after the
// compatibility decomposition normalize applies (which turns some single
// characters, ligatures and enclosed forms into words of their own).
func QueryWords(name string) int {
	if !isASCII(name) {
		name = norm.NFKD.String(name)
	}
	n, in := 0, false
	for _, r := range name {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if !in {
				n++
				in = true
			}
		case unicode.Is(unicode.Mn, r) || joins(r):
		default:
			in = false
		}
	}
	return n
}

// normalize turns a name as written into tokens: NFKD with diacritics
// stripped, lower case, transliteration of Cyrillic, Greek and Arabic, every
// character that is not a letter or digit a separator (apostrophes join:
// O'Brien is "obrien"), then honorifics (persons) or legal forms
// (organisations) dropped, unless that would leave nothing.
func normalize(full string, org bool) normName {
	var out normName
	if last, given, ok := strings.Cut(full, ","); ok && !org {
		out.surnameFirst = strings.TrimSpace(last) != "" && strings.TrimSpace(given) != ""
	}
	words, _ := writtenWords(full)

	var v0, v1 []token
	for _, w := range words {
		script := scriptLatin
		for _, r := range w {
			if s := scriptOf(r); s != scriptLatin {
				script = s
				break
			}
		}
		var s0, s1 string
		if script == scriptLatin {
			s0 = latinWord(w)
			s1 = s0
		} else {
			if out.script == "" {
				out.script = script
			}
			if script == scriptArabic && len(w) > 5 && (string(w[:5]) == "عبدال" || string(w[:5]) == "ابوال" || string(w[:5]) == "أبوال") {
				// "عبدالحليم" is Abd al-Halim, "أبواليزيد" Abu al-Yazid:
				// the first word and the article are written joined.
				a0, a1 := transliterateWord(w[:3])
				b0, b1 := transliterateWord(w[3:])
				s0, s1 = a0+" "+b0, a1+" "+b1
				if _, known := arabicWords[string(w[3:])]; !known && len(w) > 5 {
					r0, r1 := transliterateWord(w[5:])
					s0, s1 = a0+" al "+r0, a1+" al "+r1
				}
			} else if _, known := arabicWords[string(w)]; !known && script == scriptArabic && len(w) > 3 && w[0] == 'ا' && w[1] == 'ل' {
				// The article is written joined to its word: "التكريتي" is
				// "al-Tikriti".
				s0, s1 = transliterateWord(w[2:])
				s0, s1 = "al "+s0, "al "+s1
			} else {
				s0, s1 = transliterateWord(w)
			}
			s0, s1 = latinWord([]rune(s0)), latinWord([]rune(s1))
		}
		_, known := arabicWords[string(w)]
		skel := script == scriptArabic && !known
		f0, f1 := strings.Fields(s0), strings.Fields(s1)
		for k, p := range [2]struct {
			f []string
			v *[]token
		}{{f0, &v0}, {f1, &v1}} {
			other := f1
			if k == 1 {
				other = f0
			}
			for _, f := range p.f {
				c := ""
				if isASCII(f) {
					c = canonical(f)
				}
				t := token{s: f, c: c, skel: skel, known: known && script == scriptArabic}
				switch {
				case known && s0 != s1 && len(f0) == 1:
					t.alt = other[0]
				}
				*p.v = append(*p.v, t)
			}
		}
	}
	// A name suffix written apart may be a family name of its own (Salar
	// Mahmoud ZADEH), and Allah the head of the name after it: the words
	// as written are a spelling too.
	apart := joinCompoundsBut(v0, false)
	v0, v1 = joinCompounds(v0), joinCompounds(v1)
	if sameTokens(apart, v0) {
		apart = nil
	}
	if len(v0) == len(v1) {
		// A skeleton's other spelling (ذ as dh or z): a name mixes the
		// schemes word by word, so each word is compared under both.
		for i := range v0 {
			if v0[i].skel && v1[i].skel && v0[i].s != v1[i].s {
				v0[i].alt, v1[i].alt = v1[i].s, v0[i].s
			}
		}
	}
	drop := honorifics
	if org {
		drop = legalForms
		// "S.A.", "B.V.": letters separated by dots are one word.
		v0, v1 = joinLetters(v0), joinLetters(v1)
	}
	n0 := len(v0)
	fam0, fam1, famApart := noPlaces, noPlaces, noPlaces
	if !org {
		fam0, fam1, famApart = familyPlaces(v0, out.surnameFirst), familyPlaces(v1, out.surnameFirst), familyPlaces(apart, out.surnameFirst)
		for i, t := range v0 {
			if i != fam0[0] && i != fam0[1] {
				out.titles |= titleKinds[t.s]
			}
		}
		if fam0 != noPlaces {
			out.untitled = dropWords(v0, drop, noPlaces)
		}
	}
	v0, v1 = dropWords(v0, drop, fam0), dropWords(v1, drop, fam1)
	out.titled = !org && len(v0) < n0
	if len(v0) == 0 {
		return out
	}
	out.variants = append(out.variants, v0)
	if !sameTokens(v0, v1) {
		out.variants = append(out.variants, v1)
	}
	if apart = dropWords(apart, drop, famApart); len(apart) > 0 && !org {
		out.variants = append(out.variants, apart)
	}
	return out
}

// writtenWords are a name's words as written: NFKD, lower case, combining
// marks dropped (Cyrillic letters NFKD splits put back), apostrophes and
// the tatweel joining, every other character that is no letter or digit
// a separator. apart tells, for each word, whether a space or comma came
// before it (the first word's is true): a hyphen keeps a compound one.
func writtenWords(full string) (words [][]rune, apart []bool) {
	var cur []rune
	spaced := true
	flush := func() {
		if len(cur) > 0 {
			words, apart = append(words, cur), append(apart, spaced)
			cur, spaced = nil, false
		}
	}
	lower := strings.ToLower(full)
	if !isASCII(lower) {
		lower = norm.NFKD.String(lower)
	}
	for _, r := range lower {
		switch {
		case unicode.Is(unicode.Mn, r):
			if n := len(cur); n > 0 {
				if c, ok := recompose[[2]rune{cur[n-1], r}]; ok {
					cur[n-1] = c
				}
			}
		case joins(r):
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if a, ok := arabicLetterForms[r]; ok {
				r = a // Persian and Urdu forms of Arabic letters
			}
			cur = append(cur, unicode.ToLower(r))
		default:
			flush()
			spaced = spaced || r == ' ' || r == ','
		}
	}
	flush()
	return words, apart
}

// arabicLetterForms maps the Persian and Urdu shapes of Arabic letters
// (Farsi yeh, keheh, Urdu heh) to the Arabic ones, so that علی is علي.
var arabicLetterForms = map[rune]rune{'ی': 'ي', 'ک': 'ك', 'ہ': 'ه', 'ھ': 'ه', 'ۀ': 'ه', 'ە': 'ه', 'ۃ': 'ة', 'ې': 'ي', 'ۍ': 'ي'}

// abdForms are the spellings of "Abd" (servant of) that begin compound
// Arabic names, with the article assimilated or joined: Abdul Rahman,
// Abdel Malek, Abd al-Halim, Abdur Rahman, Abdallah.
var abdForms = []string{"abdoul", "abdul", "abdel", "abdal", "abdol", "abdur", "abdus", "abdou", "abdu", "abd"}

// dinForms end compound names in -ud-Din (faith): Salahaldin, Nuruddin,
// Salah Eddine.
var dinForms = []string{"aldin", "eldin", "uddin", "addin", "eddin", "eddine", "uldin", "aldeen", "uddeen", "din", "deen", "dine"}

// joinCompounds writes Arabic compound names one way, however they are
// split or spelled: Abd with its name (Abdul Hakim, Abd al-Hakim,
// Abdelhakim → abdhakim; Abdallah, Abdullah, Abd Allah → abdlah) and a
// name with ad-Din (Salah al-Din, Salahaldin, Salah Eddine → salahdin).
// Lists and customers split these names at will; as one word each they
// match word for word.
func joinCompounds(ts []token) []token { return joinCompoundsBut(ts, true) }

// joinCompoundsBut is joinCompounds, name suffixes joined only when
// suffixes, and Allah after a name only when suffixes or it ends the name
// (else it may begin the next: Muhammad Allah Dad).
func joinCompoundsBut(ts []token, suffixes bool) []token {
	if len(ts) == 0 {
		return ts
	}
	var out []token
	for i := 0; i < len(ts); i++ {
		t := ts[i]
		// A mistyped Abd alone (not one with its name joined) needs the
		// name after it.
		if w, ok := abdSlip(t.s); ok && (i+1 < len(ts) || len(w) > len("abdoul")) {
			t = token{s: w, c: canonical(w), skel: t.skel, known: t.known}
		}
		if rest, ok := abdRest(t.s); ok {
			switch {
			case rest != "":
				t = merged("abd", rest, fromArabic(t))
			case i+1 < len(ts):
				t, i = withNext("abd", ts, i)
			}
		} else if stem, ok := allahStem(t.s); ok {
			t = merged(stem, "lah", fromArabic(t))
		} else if i+1 < len(ts) && !particles[t.s] && isAllah(ts[i+1].s) && (suffixes || i+2 == len(ts)) {
			t = merged(t.s, "lah", fromArabic(t) || fromArabic(ts[i+1]))
			i++
		} else if isAbu(t.s) && i+1 < len(ts) {
			t, i = withNext("abu", ts, i)
		} else if name, ok := dinStem(t.s); ok {
			t = merged(name, "din", fromArabic(t))
		} else if i+2 < len(ts) && isDinArticle(ts[i+1].s) && isDin(ts[i+2].s) {
			t = merged(t.s, "din", fromArabic(t) || fromArabic(ts[i+2]))
			i += 2
		} else if i+1 < len(ts) && !particles[t.s] && slices.Contains(dinForms[:9], ts[i+1].s) {
			// Salah Eddine, Nur Aldin: the article and Din as one word.
			t = merged(t.s, "din", fromArabic(t))
			i++
		} else if suffixes && i+1 < len(ts) && nameSuffixes[ts[i+1].s] && !particles[t.s] {
			// Persian and Pashto names written apart or as one word:
			// Akhund Zada, Akhundzada; Shahid Khel, Shahidkhel.
			t = merged(t.s, ts[i+1].s, fromArabic(t) || fromArabic(ts[i+1]))
			i++
		}
		out = append(out, t)
	}
	return out
}

// withNext joins ts[i] (written prefix) with the name after it, an
// article between them or joined to it left out; it returns the token and
// the position of the last word it took.
func withNext(prefix string, ts []token, i int) (token, int) {
	j := i + 1
	if particles[ts[j].s] && j+1 < len(ts) {
		j++
	}
	next, skel := stripArticle(ts[j].s), fromArabic(ts[i]) || fromArabic(ts[j])
	// A kunya or an Abd of an Abd compound (Abu Abd al-Rahman, Abou
	// Abdelouadoud) holds the compound as it is joined alone: abdrahman.
	if rest, ok := abdRest(next); ok {
		if rest == "" && j+1 < len(ts) {
			j++
			if particles[ts[j].s] && j+1 < len(ts) {
				j++
			}
			rest, skel = stripArticle(ts[j].s), skel || fromArabic(ts[j])
		}
		if rest != "" {
			next = "abd" + rest
		}
	} else if stem, ok := allahStem(next); ok {
		// A compound in -ullah is joined as it is alone (Abdul
		// Jundullah: abd and jundlah).
		next = stem + "lah"
	}
	return merged(prefix, next, skel), j
}

func merged(a, b string, skel bool) token {
	s := a + b
	return token{s: s, c: canonical(s), skel: skel}
}

// fromArabic reports whether a token came from Arabic script (a skeleton
// or a common word romanised whole): a compound of it is compared as a
// skeleton.
func fromArabic(t token) bool { return t.skel || t.known }

// abdRest splits "abdulhakim" into "hakim", "abd" into "" (its name is the
// next word); ok is false for a word that is no Abd compound.
func abdRest(w string) (string, bool) {
	for _, f := range abdForms {
		if w == f {
			return "", true
		}
		if rest, ok := strings.CutPrefix(w, f); ok && len(rest) >= 3 && f != "abdu" && f != "abdou" {
			if f == "abd" && (strings.HasPrefix(rest, "al") || strings.HasPrefix(rest, "el")) {
				rest = rest[2:]
			}
			if len(rest) >= 3 {
				return rest, true
			}
		}
	}
	return "", false
}

// abdSlip reads a mistyped Abd as one: a word one letter off a long Abd
// form (Abduh Aziz, Abadul Rahman), or beginning with one before a name
// (Adulrahman, for the forms with a u or e), is that form, so that it
// joins its name as the listed spelling does; otherwise one slip splits
// the compound into two words that match nothing. It returns the word
// with the form written right. Names of their own one letter off a form
// (Abel, Adel, Abul, Abdali) are not slips; neither is a word not
// starting Ab or Ad (al-Ahdal).
func abdSlip(w string) (string, bool) {
	if len(w) < 4 || !(strings.HasPrefix(w, "ab") || strings.HasPrefix(w, "ad")) || notAbd[w[:4]] {
		return "", false
	}
	if _, ok := abdRest(w); ok {
		return "", false
	}
	for _, f := range abdSlipForms {
		for k := len(f) - 1; k <= min(len(f)+1, len(w)); k++ {
			if !oneEdit(w[:k], f) {
				continue
			}
			if k == len(w) {
				if strings.HasPrefix(w, f) {
					return "", false // a letter after the form: Abdali, a name
				}
				return f, true
			}
			if len(w)-k >= 4 && (f == "abdul" || f == "abdur" || f == "abdoul" || f == "abdel") {
				// Not Abdal or Abdol: Adalberto, Aballero.
				return f + w[k:], true
			}
		}
	}
	return "", false
}

// abdSlipForms are the Abd forms long enough for a slip in them to be
// told from another word (see abdSlip).
var abdSlipForms = []string{"abdoul", "abdul", "abdel", "abdal", "abdol", "abdur", "abdus"}

// notAbd are names of their own one letter off an Abd form.
var notAbd = setOf(`abel adel abul abil abdi`)

// stripArticle takes a joined article off a word: "allah" is al-lah.
func stripArticle(w string) string {
	for _, a := range []string{"al", "el", "ul"} {
		if rest, ok := strings.CutPrefix(w, a); ok && len(rest) >= 3 {
			return rest
		}
	}
	return w
}

// dinStem splits "salahaldin" into "salah"; ok is false for other words.
func dinStem(w string) (string, bool) {
	for _, f := range dinForms[:9] {
		if stem, ok := strings.CutSuffix(w, f); ok && len(stem) >= 3 {
			return stem, true
		}
	}
	return "", false
}

// allahStem splits "hidayatullah" into "hidayat"; ok is false for other
// words (Abdullah is an Abd compound).
func allahStem(w string) (string, bool) {
	for _, f := range []string{"ullah", "allah", "ulla", "alla"} {
		if stem, ok := strings.CutSuffix(w, f); ok && len(stem) >= 3 && !strings.HasPrefix(w, "abd") {
			return stem, true
		}
	}
	return "", false
}

func isAllah(w string) bool { return w == "allah" || w == "ullah" || w == "ulla" || w == "alla" }

func isAbu(w string) bool { return w == "abu" || w == "abou" || w == "abo" }

// kunyaInOrder reads a kunya a list cut at its comma ("KHALID, Abu",
// "MUHAMMAD AL-ANDUNISIY, Abu") in its order, Abu KHALID, Abu MUHAMMAD
// AL-ANDUNISIY; other names as they are. The index holds such a name both
// ways: as written it is what a query copied from the list looks like
// ("Khalid Abu"), in order it is the kunya, Abu joined to its name.
func kunyaInOrder(full string) string {
	last, given, ok := strings.Cut(full, ",")
	if g := strings.TrimSpace(given); ok && strings.TrimSpace(last) != "" && isAbu(strings.ToLower(g)) {
		return g + " " + strings.TrimSpace(last)
	}
	return full
}

// nameSuffixes end Persian and Pashto names (son of, clan of).
var nameSuffixes = setOf(`zada zadah zadeh zade khel khil khyl`)

func isDinArticle(w string) bool {
	return w == "al" || w == "ad" || w == "ud" || w == "ed" || w == "el" || w == "ul"
}

func isDin(w string) bool { return w == "din" || w == "deen" || w == "dine" }

// latinWord maps the Latin letters NFKD leaves alone (ß, ø, ł, ...).
func latinWord(w []rune) string {
	var b strings.Builder
	for _, r := range w {
		if s, ok := latinSpecial[r]; ok {
			b.WriteString(s)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func dropWords(ts []token, drop map[string]bool, keep [2]int) []token {
	if !slices.ContainsFunc(ts, func(t token) bool { return drop[t.s] }) {
		return ts
	}
	var kept []token
	for i, t := range ts {
		if !drop[t.s] || i == keep[0] || i == keep[1] {
			kept = append(kept, t)
		}
	}
	if len(kept) == 0 {
		return ts
	}
	return kept
}

// familyPlaces are where a person's family name may stand — the last
// word; written surname first, the first that is no particle, and the
// last after two given names or more — when a title word there is that
// name (Ali Khatib HAJI, AL-SHAYKH, Muhammad: a title comes before the
// given names, not after them; BANDO, Haji is Haji Bando), or a laqab
// (Abdul Qader al-Doctor); -1 for none, and none in a name of fewer than
// two words that are no particle or generation. A listed name with such a
// word kept is read without it too (normName.untitled): the list may have
// put a title last.
func familyPlaces(ts []token, surnameFirst bool) [2]int {
	first, last, words := -1, -1, 0
	for i, t := range ts {
		if particles[t.s] || generations[t.s] {
			continue
		}
		if words++; first < 0 {
			first = i
		}
		last = i
	}
	places := noPlaces
	switch {
	case words < 2:
	case !surnameFirst:
		places[1] = last
	case words >= 3:
		places = [2]int{first, last}
	default:
		places[0] = first
	}
	for k, at := range places {
		if at >= 0 && !honorifics[ts[at].s] {
			places[k] = -1
		}
	}
	return places
}

// noPlaces keeps no title (see dropWords).
var noPlaces = [2]int{-1, -1}

// generations follow a name (Jr., III): honorifics, never a family name.
var generations = setOf(`jr sr ii iii`)

// joinLetters joins runs of single-letter tokens ("s a" → "sa").
func joinLetters(ts []token) []token {
	var out []token
	for i := 0; i < len(ts); i++ {
		if len(ts[i].s) == 1 && i+1 < len(ts) && len(ts[i+1].s) == 1 {
			s := ts[i].s
			for i+1 < len(ts) && len(ts[i+1].s) == 1 {
				i++
				s += ts[i].s
			}
			out = append(out, token{s: s, c: canonical(s)})
			continue
		}
		out = append(out, ts[i])
	}
	return out
}

func sameTokens(a, b []token) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// isOrgSchema reports whether entities of a schema have organisation names.
func isOrgSchema(schema string) bool {
	switch schema {
	case "Organization", "Company", "LegalEntity", "PublicBody":
		return true
	}
	return false
}
