package sanctions

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kycflow/kycflow/engines/watchlist"
)

// Arabic names are often asked shorter than lists write them: a kunya or a
// theophoric given name in two words (Abu Muhammad, Abd al-Rahman) by its
// first half and the family name or nisba (Abu al-Julani, Abd Khalid); a
// title and a nisba or tribe with the given names left out (Haji
// Noorzai). See docs/AML.md ("How names are built").

// shortenedMax bounds the shortened spellings of one listed name.
const shortenedMax = 3

// Name-score malus of a shortened spelling: little when the name it keeps
// is rare in the lists (it names few people), so the hit alerts; more when
// it is common, so the hit is shown but does not alert on every Abu
// Muhammad al-Masri.
const (
	malusShortenedRare   = -0.05
	malusShortenedCommon = -0.14
)

// shortenedSpellings are the spellings of a listed name that holds a kunya
// or Abd compound (joined to one word by joinCompounds: abumuhammad,
// abdrahman; not Abdullah, a name of its own) as its first half with each
// other name, last first (abujulani, abdkhalid), joined the way a query's
// "Abu al-Julani" is. Lists write the compound first or, surname first,
// after the family name ("Al-Masri, Abu Mohamed"). A kunya's come before
// an Abd compound's: "ABDELOUADOUD, Abou Mossaab" is asked "Abou
// Abdelouadoud" (the other name may be a compound itself), and a kunya is
// no other name of an Abd compound ("Abd Mossaab") unless it is the family
// name (surnameFirst: the first word), written as one (ABUBAKAR, ABUZAID):
// "Abdul Abubakar".
func shortenedSpellings(ts []token, surnameFirst bool) [][]token {
	if len(ts) < 2 {
		return nil
	}
	family := len(ts) - 1
	if surnameFirst {
		family = 0
	}
	var out [][]token
	for _, head := range []string{"abu", "abd"} {
		c := slices.IndexFunc(ts, func(t token) bool { return compoundHead(t) == head })
		for j := len(ts) - 1; c >= 0 && j >= 0 && len(out) < shortenedMax; j-- {
			t := ts[j]
			if j == c || !blocks(t) || t.skel || !isASCII(t.s) || len(t.s) < 3 || compoundHead(t) == "abu" && (head == "abu" || j != family) {
				continue
			}
			out = append(out, []token{merged(head, stripArticle(t.s), false)})
		}
	}
	return out
}

// derivation is how kycflow made a spelling of a listed name that the
// list does not write.
type derivation uint8

const (
	asListed derivation = iota // as the list writes it (or read in order)
	// shortened: a kunya or theophoric compound (Abu Muhammad, Abd
	// al-Rahman) as its first half and another name (Abu al-Julani, Abd
	// Khalid), as people write it (see shortenedSpellings).
	shortened
	// halved: each compound by its second half (Hajji Abd al-Nasr as
	// Nasr), compared only with a query of a title the listed person
	// bears and one name, and shown at titledGiven at most (a weak alias
	// at its own 0.80): "Hajji Nasr" is how he may be called, but Nasr
	// alone no one in particular.
	halved
)

// halvedSpelling is a listed name with each kunya or Abd compound
// replaced by its second half (see halved), nil when it has none.
func halvedSpelling(ts []token) []token {
	var out []token
	for i, t := range ts {
		r := compoundRest(t)
		if len(r) < 3 || !isASCII(t.s) {
			continue
		}
		if out == nil {
			out = slices.Clone(ts)
		}
		out[i] = token{s: r, c: canonical(r)}
	}
	return out
}

// compoundRest is the name after a kunya's or Abd compound's head
// (abuabdwadoud: abdwadoud), "" for a word that is no compound.
func compoundRest(t token) string {
	if compoundHead(t) == "" {
		return ""
	}
	return t.s[len("abu"):]
}

// abdullahs are Abdullah and Abdillah joined (see compoundHead).
var abdullahs = setOf(`abdlah abdillah`)

// isAbdullah reports whether a word as written is one of abdullahs.
func isAbdullah(w string) bool {
	v := normalize(w, false).variants
	return len(v) > 0 && len(v[0]) == 1 && abdullahs[v[0][0].s]
}

// compoundHead is "abu" or "abd" for a token joined from a kunya or an Abd
// compound and its name, else "": Abdullah (abdlah, or Abdillah) is a
// name of its own, Abu Abdullah (abuabdlah) a kunya, and Abd al-Ilah
// (abdilah) or Abdul Nasrullah (abdnasrlah) a compound like any other.
func compoundHead(t token) string {
	if t.skel {
		return ""
	}
	for _, h := range []string{"abu", "abd"} {
		if strings.HasPrefix(t.s, h) && len(t.s) > len(h)+1 && !(h == "abd" && abdullahs[t.s]) {
			return h
		}
	}
	return ""
}

// shortenedMalus is what a shortened spelling's match loses (see
// malusShortenedRare); a weak alias's own malus says it already.
func (ix *Index) shortenedMalus(id uint32, qn normName) float64 {
	nr := &ix.names[id]
	if ix.entities[nr.entity].Names[nr.name].Kind == watchlist.NameWeak {
		return 0
	}
	// Rare over all the lists loaded: a customer's "Abu Jabir" is no one
	// in particular when several lists' people have that name. Rare as
	// the query writes it too (normName.commonRest): "Abu Masri" is no
	// one in particular because one listed person writes it el Masry.
	if qn.commonRest || ix.vocab.uses(compoundRest(nr.tokens[0])) >= commonUses {
		return malusShortenedCommon
	}
	return malusShortenedRare
}

// commonRest reports whether a query compound's name after its head is
// one at least commonUses listed people have (see shortenedMalus): read
// once a query, not for each shortened name it scores.
func commonRest(qn normName, v *vocabulary) bool {
	for _, toks := range qn.variants {
		for _, t := range toks {
			if rest := compoundRest(t); rest != "" && v.uses(rest) >= commonUses {
				return true
			}
		}
	}
	return false
}

// firstCompound is the kunya or Abd compound a listed name's shortened
// spellings are made from, as the list writes it (for explanations): its
// first kunya, else its first Abd compound, wherever the list puts it
// ("AL-FAWAZ, Khalid Abd al-Rahman Hamd"), with the name after it when
// written apart ("Abu Yahya", "Abd al-Rahman", "Adbul WADOOD"), alone
// when joined ("Abdulrahman", "Abu-Ahmad").
func firstCompound(n watchlist.Name) string {
	ws := strings.Fields(strings.ReplaceAll(kunyaInOrder(n.Full), ",", " "))
	plain := func(w string) string { return strings.ToLower(strings.Trim(w, "-'‘’`")) }
	for _, kunya := range []bool{true, false} {
		for i, w := range ws {
			head, joined, _ := strings.Cut(plain(w), "-")
			rest, abd := abdRest(head)
			if _, slip := abdSlip(head); slip {
				abd = true
			}
			switch {
			case kunya && !isAbu(head), !kunya && (!abd || isAbdullah(head)): // Abdullah is a name of its own
				continue
			case joined != "" || rest != "" || i+1 == len(ws):
				return w
			case i+2 < len(ws) && particles[plain(ws[i+1])]:
				return strings.Join(ws[i:i+3], " ")
			}
			return strings.Join(ws[i:i+2], " ")
		}
	}
	return n.Full
}

// titledUncommon: a title's one name used by this many entities or more
// is common: its people are still found, scored lower (titledCommon).
const titledUncommon = 20

// leave is what a title and one name are let off (normName.lenient), when
// on: the share of its weight each listed word they leave out costs, and
// the most the name may then score (0: no bound) — for a name several
// listed people share, short of the default threshold: its people are
// shown as hits, none alerts on the title and that name alone.
type leave struct {
	on          bool
	share, most float64
	// given: the listed person bears the query's title, so the title and
	// the listed given name are let off too, shown at titledGiven at most.
	given bool
	// one: the query is a title and one name, whether it is let off
	// anything or not (a name no list uses as a word is not).
	one bool
	// weak: against a weak alias, which no bound holds (see leaveFor).
	weak bool
}

// titledShown and titledCommon are the most a name scores that a title
// and a name several listed people share, or many, found with leave: above
// DefaultMinScore, below the default alert threshold (0.88), the fewer
// namesakes first.
const (
	titledShown  = 0.86
	titledCommon = 0.83
	// titledGiven is the most a title and the listed given name score
	// against a person who bears the title: shown, below the family
	// names, never alerting ("Haji Bashir" is no one in particular).
	titledGiven = 0.81
)

// lenientAt is query spelling vi's leave for listed words it leaves out,
// off for the usual (see normName.lenient).
func (n normName) lenientAt(vi int) leave {
	if vi < len(n.lenient) {
		return n.lenient[vi]
	}
	return leave{}
}

// leaveFor is query spelling vi's leave against listed name id: on a weak
// alias the names a title and one name leave out cost nothing and no
// bound holds the score, its own malus saying it already (as for a
// shortened kunya: see shortenedMalus) and keeping it at 0.80 at most, so
// that "Hajji Shaklar" shows, not alerting, the person whose weak alias is
// AL-SHAKLAR, Hajji Salim — unless the name is one several listed people
// share and the person bears the title: then it scores as they do
// (tokenScorer.weakBound).
func (ix *Index) leaveFor(qn normName, vi int, id uint32) leave {
	lv := qn.lenientAt(vi)
	nr := &ix.names[id]
	if nr.derived == halved && lv.one {
		// A compound's second half may be a word no list uses alone
		// (Ubaidah): let off as a title's one name is.
		lv = leave{on: true, one: true, share: missingTitled}
	}
	if lv.on && ix.entities[nr.entity].Names[nr.name].Kind == watchlist.NameWeak {
		lv.share, lv.weak = 0, true
	}
	lv.given = lv.on && ix.titles[nr.entity]&qn.titles != 0
	return lv
}

// vocabOf is the vocabulary of the list name id is on.
func (ix *Index) vocabOf(id uint32) *vocabulary {
	if len(ix.vocabs) > 1 {
		return ix.vocabs[min(int(ix.list[id]), len(ix.vocabs)-1)]
	}
	return ix.vocab
}

// shortTitles are the religious titles of four letters, whose slips
// dropTitleSlips leaves alone: one edit from Haji or Imam is often a name
// (Hadi, Iman).
var shortTitles = []string{"haji", "hajj", "imam"}

// titleSlipCost is what a spelling pays for a word read as a short title
// mistyped: what a slip costs a name that might be a name of its own.
const titleSlipCost = typoEditPlausible

// titleSlip is a query word read as a short title mistyped, or as a
// title where a family name stands (written: see
// addFamilyTitleSpellings), and the kind of title it is read as.
type titleSlip struct {
	kind    titleSet
	word    string
	written bool
}

// shortTitleSlip is the kind of short title w is one edit from, when w is
// no title and no word of the lists (a listed word is a name: Hadi).
func shortTitleSlip(w string, v *vocabulary) titleSet {
	if len(w) < 3 || len(w) > 5 || !isASCII(w) || honorifics[w] || v.uses(w) > 0 {
		return 0
	}
	for _, h := range shortTitles {
		if oneEdit(h, w) {
			return titleKinds[h]
		}
	}
	return 0
}

// addAbulSpellings gives a spelling with Abul before a name (Abul Jabbar)
// a spelling of its own read as Abdul, Abdul without its d, where the
// lists hold that Abd compound: Abul is also a kunya (Abul Hasan), which
// the spelling as written still matches.
func (qn *normName) addAbulSpellings(v *vocabulary) {
	for i := range len(qn.variants) {
		ts := qn.variants[i]
		j := slices.IndexFunc(ts, func(t token) bool { return t.s == "abul" })
		if j < 0 || j+1 >= len(ts) {
			continue
		}
		if t, k := withNext("abd", ts, j); v.uses(t.s) > 0 {
			qn.variants = append(qn.variants, slices.Concat(ts[:j], []token{t}, ts[k+1:]))
		}
	}
}

// addTitleSlipSpellings gives a spelling of two words or more, one of
// which may be a short title mistyped ("BANDO Haki" for "BANDO, Haji"), a
// spelling of its own without that word, compared only with the listed
// people who bear a title of its kind: to them the word is their title,
// to anyone else it stays the name it may be.
func (qn *normName) addTitleSlipSpellings(v *vocabulary) {
	n := len(qn.variants)
	for i := range n {
		ts := qn.variants[i]
		if len(ts) < 2 {
			continue
		}
		at, found := -1, 0
		var kind titleSet
		for j, t := range ts {
			if k := shortTitleSlip(t.s, v); k != 0 {
				at, kind, found = j, k, found+1
			}
		}
		if found == 1 {
			qn.addWithout(ts, at, titleSlip{kind: kind, word: ts[at].s})
		}
	}
}

// addWithout adds spelling ts without its word at, read as the title slip
// says (compared only with the people who bear it).
func (qn *normName) addWithout(ts []token, at int, slip titleSlip) {
	for len(qn.slips) < len(qn.variants) {
		qn.slips = append(qn.slips, titleSlip{})
	}
	qn.variants = append(qn.variants, slices.Delete(slices.Clone(ts), at, at+1))
	qn.slips = append(qn.slips, slip)
}

// addFamilyTitleSpellings gives a spelling whose family name is a title
// word (Muhammad HAJJI; NOORULLAH Haji, a family name written first) a
// spelling of its own without that word, compared only with the listed
// people who bear a title of its kind: to them it may be their title, to
// anyone else it is the family name it stands as.
func (qn *normName) addFamilyTitleSpellings() {
	n := len(qn.variants)
	for i := range n {
		ts := qn.variants[i]
		if qn.slipAt(i).kind != 0 {
			continue
		}
		for _, at := range familyPlaces(ts, qn.surnameFirst) {
			if at >= 0 && titleKinds[ts[at].s] != 0 { // Al Doctor is a laqab: no title anyone bears
				qn.addWithout(ts, at, titleSlip{kind: titleKinds[ts[at].s], word: ts[at].s, written: true})
			}
		}
	}
}

// slipAt is query spelling vi's title slip, zero when it has none.
func (n normName) slipAt(vi int) titleSlip {
	if vi < len(n.slips) {
		return n.slips[vi]
	}
	return titleSlip{}
}

// spellingScore is query spelling vi's name score against listed name id,
// with its explanation when explain; ok is false when the spelling is not
// compared with that name (a title slip's with a person without the title;
// a halved name with any query but a title the person bears and one name).
func (ix *Index) spellingScore(ts *tokenScorer, qn normName, vi int, id uint32, explain bool) (s float64, desc string, ok bool) {
	nr := &ix.names[id]
	slip := qn.slipAt(vi)
	if slip.kind != 0 && ix.titles[nr.entity]&slip.kind == 0 {
		return 0, "", false
	}
	ts.slot, ts.lenient = vi, ix.leaveFor(qn, vi, id)
	if nr.derived == halved && !ts.lenient.given {
		return 0, "", false
	}
	s, desc = ts.nameScore(qn.variants[vi], nr.tokens, nr.surnameFirst, explain)
	if nr.derived == halved && !ts.lenient.weak {
		s = min(s, titledGiven)
	}
	switch {
	case slip.written && explain:
		desc += fmt.Sprintf("; %s read as the title %s, which the listed person bears", slip.word, slip.kind)
	case slip.kind != 0 && !slip.written:
		s -= titleSlipCost
		if explain {
			desc += fmt.Sprintf("; %s read as the title %s mistyped, which the listed person bears %s", slip.word, slip.kind, signed(-titleSlipCost))
		}
	}
	return s, desc, true
}

// allahForms are spellings of Abdullah (abdlah once joined): a slip in
// one is read as the name (see repairCompoundSlips).
var allahForms = []string{"abdullah", "abdallah", "abdollah", "abdulla", "abdalla"}

// compoundSlip reads a word as a compound written as one with a slip in
// its Abd (Awdoulaye, Agdelilah; one starting Ab or Ad, which abdSlip
// reads when its name is long, only into a compound the lists hold:
// Addoulaye) or in its -ullah (Saidullh, Khairultah: into a compound the
// lists hold), joined as the listed compound is.
func compoundSlip(w string, v *vocabulary) (token, bool) {
	for _, f := range []string{"abdoul", "abdul", "abdur", "abdel"} {
		for k := len(f) - 1; k <= len(f)+1 && k+3 <= len(w); k++ {
			abd := !strings.HasPrefix(w, "ab") && !strings.HasPrefix(w, "ad") || v.uses("abd"+w[k:]) > 0
			if abd && oneEdit(w[:k], f) {
				return merged("abd", w[k:], false), true
			}
		}
	}
	for _, f := range []string{"ullah", "allah"} {
		for k := len(f) - 1; k <= len(f)+1 && k+3 <= len(w); k++ {
			// Only into a compound the lists hold: Hidabyatullah, joined
			// to hidabyatlah, is a slip in Hidayatullah's stem, not
			// "Hidaby" and a slip in its -ullah.
			if stem := w[:len(w)-k]; oneEdit(w[len(w)-k:], f) && !strings.HasPrefix(stem, "abd") && v.uses(stem+"lah") > 0 {
				return merged(stem, "lah", false), true
			}
		}
	}
	return token{}, false
}

// repairCompoundSlips reads a query word no list uses as the compound it
// mistypes, so that it matches the listed compound, joined as one word,
// instead of nothing: one edit from Abd before a name, where the lists
// hold the compound (Ahd al-Majid); from Abu or Abou before a name, when
// it reads as no name of the lists' languages (Absu Mohamed, Aboiu
// Mohamed; not Abi, Agu); from an Abd form before a name (Apdul Hakim,
// Aqbdul Majeed: joinCompounds reads only slips starting Ab or Ad, not
// knowing the lists' words); from a spelling of Abdullah (Abdullh,
// Ahdollah); or a compound with a slip in its Abd or -ullah
// (compoundSlip). A listed word one edit from a form (al-Ahdal) is left
// alone, and so is a kunya or Abd compound joinCompounds has joined
// already.
func repairCompoundSlips(ts []token, v *vocabulary) []token {
	abuForms := []string{"abu", "abou"}
	listedAbd := func(i int) bool { t, _ := withNext("abd", ts, i); return v.uses(t.s) > 0 }
	slip := func(w string, forms []string) bool {
		return slices.ContainsFunc(forms, func(f string) bool { return oneEdit(w, f) })
	}
	var out []token
	for i := 0; i < len(ts); i++ {
		t := ts[i]
		// Abd Mallah, joined to abdmallah, is one edit from Abdallah.
		rest, joined := strings.CutPrefix(t.s, "abd")
		if !t.skel && !t.known && isASCII(t.s) && v.uses(t.s) == 0 && !(joined && v.uses(rest) > 0) {
			switch {
			case i+1 < len(ts) && oneEdit(t.s, "abd") && listedAbd(i):
				t, i = withNext("abd", ts, i)
			case i+1 < len(ts) && slip(t.s, abuForms) && !v.plausible(t.s):
				t, i = withNext("abu", ts, i)
			case len(t.s) < 5:
			case i+1 < len(ts) && slip(t.s, abdSlipForms):
				t, i = withNext("abd", ts, i)
			case slip(t.s, allahForms):
				t = merged("abd", "lah", false)
			case !joined && !strings.HasPrefix(t.s, "abu"): // abutalleh is Abu Talleh
				if name, ok := compoundSlip(t.s, v); ok {
					t = name
				}
			}
		}
		out = append(out, t)
	}
	return out
}
