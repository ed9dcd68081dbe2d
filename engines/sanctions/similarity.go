package sanctions

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/kycflow/kycflow/engines/namematch"
)

// Token match kinds, for explanations.
const (
	matchNone = iota
	matchExact
	matchInitial
	matchFuzzy
	matchSkeleton
	matchVariant // one name's spellings: canonical() equal
	matchOther   // fuzzy, but the query word is another listed name (see vocabulary)
	matchSlip    // one edit, and the query word reads as a slip (see typoOrName)
)

// Scoring constants. Why these values: see the package documentation.
const (
	initialScore      = 0.90  // "J." for "John"
	initialRest       = 0.25  // weight share of the letters an initial leaves out
	fuzzyFloor        = 0.72  // a stretched similarity below this is a different word
	fuzzyStretch      = 2.0   // 1−JW is doubled: 0.95 → 0.90, 0.85 → 0.70
	lengthPenalty     = 0.15  // per relative length difference
	variantScore      = 0.985 // words equal after canonical()
	skeletonScale     = 0.95  // Arabic-script consonant skeletons are less certain
	skeletonShort     = 0.02  // ... less per consonant a skeleton has under three (Said, Saad and Zayed are all sd)
	skeletonApart     = 0.92  // ... and less when the skeletons differ
	skeletonCoarse    = 0.02  // taken off when they differ only in h or a dental (coarseSkeleton)
	knownSkeleton     = 0.97  // a common Arabic word spelt another way (Mohamad for Muhammad)
	missingQuery      = 1.00  // weight share of a query token the name lacks
	missingName       = 0.20  // weight share of a middle name token the query lacks
	missingEdge       = 0.8   // ... of a first or last name token the query lacks
	missingEdgeLong   = 0.45  // ... of the last word in a listed name of four words or more
	missingPatronymic = 0.01  // ... of a patronymic the query lacks: next to nothing, so an exact name still ranks first
	missingCap        = 5     // weight cap of a missing token (long patronymics)
	conflicting       = 1.0   // weight share of a leftover on both sides: a different word, not an omission
	maxTokens         = 12    // longer names are cut (lists hold few that long)
	maxSpellings      = 4     // a query's spellings the scorer numbers words of (two schemes, each with a title slip dropped)
	knownWord         = 0.12  // taken off a fuzzy match when the query word is a listed word itself
	typoEdit          = 0.05  // what one edit costs a listed word when the query word is a slip (see typoOrName)
	typoEditPlausible = 0.09  // ... when the query word might be a name of its own
	typoMaxLen        = 6     // ... in listed words up to this length (longer ones lose less to an edit anyway)
	missingChainFirst = 0.10  // weight share of the first middle name left out of an anchored name chain
	missingChain      = 0.06  // ... of each further one
	chainAnchor       = 0.85  // the least match of the given and the family name that anchors a chain
	missingTitled     = 0.08  // ... of any, when the query is a title and one name rare in the lists (Haji Noorzai)
)

// sayyids are the spellings of Sayyid, a title of descent from the
// Prophet's family that Afghan and Pakistani names carry first (Sayed
// Esmatullah Asem) and customers leave out — and a given name too (Sayed
// Mohammad), so it is not dropped as honorifics are: left out of a query
// in front of two or more names, it costs what a middle name costs.
var sayyids = setOf(`sayyid sayed syed sayid seyed sayyed`)

// particles are connecting words of names (al-, bin, van, de, ...): they
// carry little identity, so they weigh like an initial.
var particles = setOf(`al el ul ad ar as ash at az bin ibn bint ben abu um
	de da do das dos del della di du der den van von ten ter la le los las y e mac`)

// nasabs are the particles of a nasab, the chain of a person's father's
// and forefathers' names (Ali bin Taher bin Faleh).
var nasabs = setOf(`bin ibn bint ben`)

// arabicParticles are the particles of Arabic names.
var arabicParticles = setOf(`al el ul ad ar as ash at az bin ibn bint ben abu um`)

// tokenWeight: longer words say more about identity; capped so that one very
// long word does not drown the rest.
func tokenWeight(t token) float64 {
	n := len(t.s)
	if n <= 1 || particles[t.s] {
		return 1
	}
	return float64(min(n, 8))
}

// tokenSim is the similarity of two tokens after the fuzzy stretch, 0 when
// they are not taken to be the same word.
func tokenSim(a, b token) (float64, int) { return tokenSimBy(a, b, skeletonKey) }

// tokenSimBy is tokenSim with the words' consonant skeletons from skeleton
// (skeletonKey, or a query's cache of it).
func tokenSimBy(a, b token, skeleton func(string) string) (float64, int) {
	if a.s == b.s {
		return 1, matchExact
	}
	if len(a.s) == 1 || len(b.s) == 1 {
		// An initial matches any word starting with it.
		if a.s[0] == b.s[0] {
			return initialScore, matchInitial
		}
		return 0, matchNone
	}
	if joinedArticle(a.s, b.s) || joinedArticle(b.s, a.s) {
		// Fuzzy, not a variant: Albert is not al-Bert, and the vocabulary
		// tells such names apart.
		return 1 - fuzzyStretch*(1-variantScore), matchFuzzy
	}
	kind := matchFuzzy
	var jw float64
	if a.skel || b.skel {
		ka, kb := skeleton(a.s), skeleton(b.s)
		// Equal skeletons: the fewer consonants, the more words share them
		// (Said, Saad, Assad and Zayed are all sd).
		jw = skeletonScale - skeletonShort*float64(max(0, 3-len(ka)))
		if ka != kb {
			// Skeletons that differ: a consonant more or less is a
			// different word more often than in a full spelling.
			jw = namematch.JaroWinkler(ka, kb) * skeletonApart
			if ca := coarseSkeleton(ka); len(ca) >= 2 && ca == coarseSkeleton(kb) {
				// The same but for an h lists drop or a dental they
				// spell another way (Kadhim, Kazim, Kathim): near.
				jw = max(jw, skeletonScale-skeletonShort*float64(max(0, 3-len(ca)))-skeletonCoarse)
			}
		}
		kind = matchSkeleton
		if pw := namematch.JaroWinkler(a.s, b.s); pw > jw {
			jw, kind = pw, matchFuzzy
		}
	} else {
		jw = fuzzySim(a.s, b.s)
		if a.c != "" && b.c != "" {
			if a.c == b.c {
				// Spelling variants of one name (Yemelyanchuk, Iemelianchouk).
				jw = max(jw, variantScore)
				kind = matchVariant
			} else {
				jw = max(jw, namematch.JaroWinklerSeq([]byte(a.c), []byte(b.c)))
				// Jaro-Winkler is generous to words sharing a prefix or
				// (reversed) a suffix (Karachristakis, Karaathanasitis;
				// Paropoulos, Blahopoulos): cap by the edit distance of the
				// raw or canonical spellings, whichever is smaller.
				// (Below the fuzzy floor already, no cap matters.)
				if 1-fuzzyStretch*(1-jw) >= fuzzyFloor {
					d := min(osa(a.c, b.c), osa(a.s, b.s))
					jw = min(jw, 1-float64(d)*perEdit(max(len(a.s), len(b.s))))
				}
			}
		}
	}
	sim := 1 - fuzzyStretch*(1-jw)
	if sim < fuzzyFloor {
		return 0, matchNone
	}
	return sim, kind
}

// skeletonKey is the consonant skeleton Arabic-script words are compared
// by: phonetic(), with c read as s (the French "ch" of Maghrebi spellings,
// Alouche, is the English "sh") and g as k (ق is Qadhafi and Gaddafi).
var skeletonClasses = strings.NewReplacer("c", "s", "g", "k")

// zhApart reads a Latin "zh" as z and h: in romanised Arabic it is ظه or زه
// (Mazhari), not the ж it is in Slavic names.
var zhApart = strings.NewReplacer("zh", "zah")

func skeletonKey(w string) string { return skeletonClasses.Replace(phonetic(zhApart.Replace(w))) }

// coarseSkeleton is a skeleton with h left out (but for a first one) and
// the dentals t, d, s as one: what romanisations of ح, ه, ث, ذ, ض and ظ
// most often disagree on.
func coarseSkeleton(k string) string {
	b := make([]byte, 0, len(k))
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch c {
		case 'h':
			if i > 0 {
				continue
			}
		case 'd', 's':
			c = 't'
		}
		if n := len(b); n > 0 && b[n-1] == c {
			continue
		}
		b = append(b, c)
	}
	return string(b)
}

// joinedArticle reports whether j is w with the Arabic article joined to
// it, as "Alghamdi" writes "al-Ghamdi".
func joinedArticle(j, w string) bool {
	return len(j) == len(w)+2 && len(w) >= 4 && (j[:2] == "al" || j[:2] == "el") && j[2:] == w
}

// fuzzySim is the Jaro-Winkler similarity taken both ways round (the
// reversed strings get the prefix boost for a common suffix, so a typo in
// the first letter costs what one in the last does), less a penalty for the
// length difference (so "yong" is not nearly "yongwei" just because it is
// its prefix).
func fuzzySim(a, b string) float64 {
	if !isASCII(a) || !isASCII(b) {
		return namematch.JaroWinkler(a, b)
	}
	fw := namematch.JaroWinklerSeq([]byte(a), []byte(b))
	var ra, rb [64]byte
	if len(a) <= 64 && len(b) <= 64 {
		for i := range len(a) {
			ra[len(a)-1-i] = a[i]
		}
		for i := range len(b) {
			rb[len(b)-1-i] = b[i]
		}
		fw = max(fw, namematch.JaroWinklerSeq(ra[:len(a)], rb[:len(b)]))
	}
	la, lb := len(a), len(b)
	return fw - lengthPenalty*float64(max(la-lb, lb-la))/float64(max(la, lb))
}

// perEdit is what one edit costs a word of length n, at most: a typo is one
// edit whatever the length, and in a short word one edit is a larger
// share. Two edits cap a word of six letters or more at 0.84, which the
// stretch takes below fuzzyFloor: two edits make a different word unless
// canonical() explains them (and blocking, built on one-letter deletions,
// would not find them reliably).
func perEdit(n int) float64 {
	switch {
	case n <= 5:
		return 0.12
	}
	return 0.08
}

// oneEdit reports whether a and b are exactly one edit apart (an
// insertion, deletion, substitution or swap of neighbours): osa(a, b) == 1
// in linear time, for the many pairs that are not.
func oneEdit(a, b string) bool {
	if len(a) < len(b) {
		a, b = b, a
	}
	i := 0
	for i < len(b) && a[i] == b[i] {
		i++
	}
	switch len(a) - len(b) {
	case 1:
		return a[i+1:] == b[i:]
	case 0:
		if i == len(a) {
			return false // equal
		}
		return a[i+1:] == b[i+1:] || i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
	}
	return false
}

// osa is the optimal-string-alignment (restricted Damerau-Levenshtein)
// distance: insertions, deletions, substitutions and adjacent swaps.
func osa(a, b string) int {
	if len(a) > 30 || len(b) > 30 {
		return max(len(a), len(b)) // not worth the work: names are shorter
	}
	var rows [3][32]int
	pp, p, c := rows[0][:len(b)+1], rows[1][:len(b)+1], rows[2][:len(b)+1]
	for j := range p {
		p[j] = j
	}
	for i := 1; i <= len(a); i++ {
		c[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			c[j] = min(p[j]+1, c[j-1]+1, p[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				c[j] = min(c[j], pp[j-2]+1)
			}
		}
		pp, p, c = p, c, pp
	}
	return p[len(b)]
}

// tokenScorer holds scratch space for nameScore; not safe for concurrent use.
type tokenScorer struct {
	sim  [maxTokens * maxTokens]float64
	kind [maxTokens * maxTokens]int8
	// memo caches tokenSim for the current query: list names repeat the
	// same words, so one query compares few distinct pairs many times.
	memo map[memoKey]simMemo
	// byID is the memo of the query's words against listed words (by
	// token.id): the pairs nameScore compares, for a fraction of memo's
	// cost per lookup, memo not asked. A query word is numbered by units:
	// a word both spellings hold alike is one.
	byID  map[uint64]simMemo
	units [maxSpellings * maxTokens]uint8
	slot  int // the query spelling nameScore is given (variant), -1: none
	// lenient: the query spelling is a title and one listed name
	// (normName.lenient): when on, what each listed word it lacks costs and
	// the most it then scores.
	lenient leave
	// weakBound: the last name scored is a weak alias, of a person who
	// bears the query's title, that a title and a name several listed
	// people share was let off on and that reaches the most its
	// namesakes score: that most (see Index.search).
	weakBound float64
	// vocab is the vocabulary of the list of the name being scored (see
	// knownWord), list its number: the memos are kept per list.
	vocab *vocabulary
	list  uint8
	// join is scratch space for joinScratch.
	join []byte
	// raw memoises tokenSim itself where a word came from Arabic script:
	// a query's two spellings hold each such word once as s and once as
	// alt, and both compare it under both readings (see rawSim). skels
	// caches skeletonKey; skeleton is ts.skeletonOf, bound once.
	raw      map[rawKey]simMemo
	skels    map[string]string
	skeleton func(string) string
}

// rawKey is a pair of tokens as tokenSim reads them: c follows from s
// where it is set (flags say where not), alt and known are not read.
type rawKey struct {
	a, b  string
	flags uint8
}

// memoKey is a pair of tokens: all that tokenSim reads of them (c follows
// from s).
type memoKey struct {
	a, aAlt, b, bAlt string
	flags, list      uint8
}

func keyOf(a, b token) memoKey {
	var f uint8
	for i, set := range [4]bool{a.skel, a.known, b.skel, b.known} {
		if set {
			f |= 1 << i
		}
	}
	return memoKey{a: a.s, aAlt: a.alt, b: b.s, bAlt: b.alt, flags: f}
}

type simMemo struct {
	sim  float64
	kind int8
}

// reset empties the memo and sets the index's vocabulary; call it before
// each query.
func (ts *tokenScorer) reset(v *vocabulary) {
	if ts.memo == nil {
		ts.memo = make(map[memoKey]simMemo, 256)
		ts.byID = make(map[uint64]simMemo, 1024)
		ts.raw = make(map[rawKey]simMemo, 256)
		ts.skels = make(map[string]string, 256)
		ts.skeleton = ts.skeletonOf
	}
	clear(ts.memo)
	clear(ts.byID)
	clear(ts.raw)
	clear(ts.skels)
	ts.slot = -1
	ts.vocab, ts.list = v, 0
}

// judgeBy sets the vocabulary for scoring name id: its list's.
func (ts *tokenScorer) judgeBy(ix *Index, id uint32) {
	if len(ix.vocabs) > 1 {
		ts.vocab, ts.list = ix.vocabOf(id), ix.list[id]
	}
}

// numberUnits numbers the query's words for byID: slot vi*maxTokens+i is
// spelling vi's word i; equal words share a number.
func (ts *tokenScorer) numberUnits(spellings [][]token) {
	var seen []token
	for vi, v := range spellings[:min(len(spellings), maxSpellings)] {
		for i, t := range v[:min(len(v), maxTokens)] {
			u := slices.Index(seen, t)
			if u < 0 {
				u, seen = len(seen), append(seen, t)
			}
			ts.units[vi*maxTokens+i] = uint8(u)
		}
	}
}

// tokenSim is tokenSim tempered by the index's vocabulary, memoised.
func (ts *tokenScorer) tokenSim(a, b token) (float64, int) {
	memo := ts.memo != nil
	k := keyOf(a, b)
	k.list = ts.list
	if memo {
		if m, ok := ts.memo[k]; ok {
			return m.sim, int(m.kind)
		}
	}
	s, kind := ts.judge(a, b)
	if memo {
		ts.memo[k] = simMemo{s, int8(kind)}
	}
	return s, kind
}

// judge is tokenSim tempered by the index's vocabulary.
func (ts *tokenScorer) judge(a, b token) (float64, int) {
	s, kind := ts.rawSim(a, b)
	if a.skel && a.alt != "" {
		if s2, k2 := ts.rawSim(a.other(), b); s2 > s {
			s, kind = s2, k2
		}
	}
	if b.skel && b.alt != "" {
		if s2, k2 := ts.rawSim(a, b.other()); s2 > s {
			s, kind = s2, k2
		}
	}
	if a.known || b.known {
		s, kind = ts.knownSim(a, b, s, kind)
	}
	if (kind == matchFuzzy || kind == matchNone && len(a.s) >= 3 && oneEdit(a.s, b.s)) && !a.known && isASCII(a.s) && isASCII(b.s) {
		s, kind = ts.typoOrName(a.s, b.s, s)
	}
	if kind != matchExact && len(a.s) > 3 && len(b.s) > 3 && a.s[:3] == b.s[:3] && (a.s[:3] == "abd" || a.s[:3] == "abu") && !a.known {
		// Abd al-Majeed as one word: a slip in the name after Abd is a
		// slip in that name, not in a long word.
		if r, _ := ts.tokenSim(token{s: a.s[3:], c: canonical(a.s[3:])}, token{s: b.s[3:], c: canonical(b.s[3:])}); r > 0 {
			if c := (3 + float64(len(b.s)-3)*r) / float64(len(b.s)); c > s {
				s, kind = c, matchFuzzy
			}
		}
	}
	if kind != matchExact {
		if h := compoundHalf(a, b); h > s {
			s, kind = h, matchFuzzy
		}
		if h := abdHalf(a, b); h > s {
			s, kind = h, matchFuzzy
		}
	}
	if kind == matchNone && arabicParticles[b.s] && articleSlip(a.s, b.s, ts.vocab) {
		// Al- mistyped (Rl-Kuwaiti, Ag-Dulaimi): the article, not a word
		// of its own.
		s, kind = 1-fuzzyStretch*typoEdit, matchFuzzy
	}
	return s, kind
}

// articleSlip reports whether query word q is the listed particle p
// mistyped: one edit off it, no particle itself, and no word of the list
// — but two letters before a name are the article whatever the list
// holds (Ag for AG, a company's form, or Ai, a Chinese name).
func articleSlip(q, p string, v *vocabulary) bool {
	return len(q) >= 2 && oneEdit(q, p) && !particles[q] && (len(q) == 2 || v.uses(q) == 0)
}

// compoundHalf is the similarity of a compound in -ad-Din or -ullah (joined
// to stem+"din" or stem+"lah" by joinCompounds: Salah Eddine, salahdin;
// Hayat Ullah, hayatlah) and its first half, as people shorten it (Salah,
// Hayat), one way or the other: an initial's; less when either came from
// Arabic script and the half has the stem's consonants (صالح); 0 for
// other words, and for Abd, which is no half of Abdullah.
func compoundHalf(a, b token) float64 {
	if len(a.s) > len(b.s) {
		a, b = b, a
	}
	stem, ok := strings.CutSuffix(b.s, "din")
	if !ok {
		stem, ok = strings.CutSuffix(b.s, "lah")
		ok = ok && stem != "abd"
	}
	switch {
	case !ok || len(stem) < 3:
		return 0
	case a.s == stem:
		return initialScore
	case (fromArabic(a) || fromArabic(b)) && skeletonKey(a.s) == skeletonKey(stem):
		return initialScore * skeletonScale
	}
	return 0
}

// abdHalf is the similarity of a kunya or Abd compound joined to one word
// (abughaith, abdaziz) and the name after its Abu or Abd alone (Ghaith,
// Aziz), one way or the other: people drop the Abdul of Abdul Aziz, and a
// list or a record may write the name alone. A compound is no such half:
// Abd al-Rahman is the son in Abu Abd al-Rahman, not the father.
func abdHalf(a, b token) float64 {
	if len(a.s) > len(b.s) {
		a, b = b, a
	}
	if r := compoundRest(b); r == "" || compoundHead(a) != "" || a.skel || len(a.s) < 3 || a.s != r {
		return 0
	}
	return halfScore
}

// halfScore is what abdHalf gives.
const halfScore = 0.80

// typoOrName decides what a fuzzy match of query word q to listed word n
// is: a slip of the keyboard (Salem Tahor for Salem Tahir), which costs a
// one-letter edit little even in a short word, or a name of its own (Yang
// for Wang), which counts less than a match. The list is the judge: a word
// many of its entries use is a name; a word it never uses, or one entry
// does, is a slip when it holds a letter sequence the list's words seldom
// show (Tahor's "hor$", Tvaozhi's "tva"), and a name when every sequence
// is common in them (Yingdong beside Ningdong).
func (ts *tokenScorer) typoOrName(q, n string, s float64) (float64, int) {
	v := ts.vocab
	near := oneEdit(q, n)
	if s == 0 && !near {
		return 0, matchNone
	}
	uses := v.uses(q)
	if uses > 0 && v.variant(q, n) {
		return s, matchFuzzy
	}
	if s == 0 {
		// No fuzzy match (a short word): only a slip makes one.
		if uses > 0 || v.plausible(q) {
			return 0, matchNone
		}
		return 1 - fuzzyStretch*typoEdit, matchSlip
	}
	slip := near && uses < commonUses && !v.plausible(q)
	switch {
	case slip:
		s = max(s, 1-fuzzyStretch*typoEdit)
		if uses > 0 {
			return s - knownWord*float64(uses)/commonUses, matchOther
		}
		return s, matchSlip
	case uses > 0 && uses < commonUses && near && len(n) <= typoMaxLen:
		// A word one or two entries use, one letter off a short listed
		// word: as likely that entry's own spelling as a name, so a
		// quarter of a name's penalty per entry that uses it.
		return max(s, 1-fuzzyStretch*typoEditPlausible) - knownWord*float64(uses)/(commonUses+1), matchOther
	case uses > 0:
		return s - knownWord, matchOther
	case near && len(n) <= typoMaxLen:
		// A word the list never uses but might: one edit is still a
		// large share of a short word.
		s = max(s, 1-fuzzyStretch*typoEditPlausible)
	}
	return s, matchFuzzy
}

// rawSim is tokenSim, memoised for the query where either word came from
// Arabic script.
func (ts *tokenScorer) rawSim(a, b token) (float64, int) {
	if !a.skel && !b.skel || ts.raw == nil {
		return tokenSim(a, b)
	}
	var f uint8
	for i, set := range [4]bool{a.skel, a.c == "", b.skel, b.c == ""} {
		if set {
			f |= 1 << i
		}
	}
	k := rawKey{a: a.s, b: b.s, flags: f}
	if m, ok := ts.raw[k]; ok {
		return m.sim, int(m.kind)
	}
	s, kind := tokenSimBy(a, b, ts.skeleton)
	ts.raw[k] = simMemo{s, int8(kind)}
	return s, kind
}

// skeletonOf is skeletonKey, cached for the query.
func (ts *tokenScorer) skeletonOf(w string) string {
	if ts.skels == nil {
		return skeletonKey(w)
	}
	k, ok := ts.skels[w]
	if !ok {
		k = skeletonKey(w)
		ts.skels[w] = k
	}
	return k
}

// knownSim compares a common Arabic word romanised whole (token.known)
// with another word: the better of its two usual spellings, and, since
// lists spell these words many ways (Mohamad, Djamel, Kamel), the same
// consonants with a spelling within two edits count as the same word
// (Mahmud has Muhammad's consonants, not its spelling).
func (ts *tokenScorer) knownSim(a, b token, s float64, kind int) (float64, int) {
	a2, b2 := a, b
	switch {
	case a.alt != "":
		a2 = token{s: a.alt, c: canonical(a.alt)}
	case b.alt != "":
		b2 = token{s: b.alt, c: canonical(b.alt)}
	}
	if a2 != a || b2 != b {
		if s2, k2 := ts.rawSim(a2, b2); s2 > s {
			s, kind = s2, k2
		}
	}
	same := 1 - fuzzyStretch*(1-knownSkeleton)
	if ka := ts.skeletonOf(a.s); s < same && len(ka) >= 3 && ka == ts.skeletonOf(b.s) && min(osa(a.c, b.c), osa(a2.c, b2.c)) <= 2 {
		s, kind = same, matchVariant
	}
	return s, kind
}

// nameScore compares a query's tokens with a name's tokens as multisets:
// every pair is scored, pairs are assigned greedily best-first (each token
// used once), and the score is the weight-averaged pair similarity where a
// token left unmatched still counts in the denominator with a share of its
// weight (missingQuery, missingName). Word order therefore does not count,
// initials match at initialScore, and a missing middle name costs little.
// When explain is set, a description of the token matches is returned.
func (ts *tokenScorer) nameScore(q, n []token, surnameFirst, explain bool) (float64, string) {
	q, n = q[:min(len(q), maxTokens)], n[:min(len(n), maxTokens)]
	nq, nn := len(q), len(n)
	if nq == 0 || nn == 0 {
		return 0, ""
	}
	for i := range q {
		for j := range n {
			var s float64
			var k int
			if ts.slot >= 0 && ts.slot < maxSpellings && n[j].id != 0 && ts.byID != nil {
				key := uint64(n[j].id)<<16 | uint64(ts.list)<<8 | uint64(ts.units[ts.slot*maxTokens+i])
				m, ok := ts.byID[key]
				if !ok {
					s, k = ts.judge(q[i], n[j])
					m = simMemo{s, int8(k)}
					ts.byID[key] = m
				}
				s, k = m.sim, int(m.kind)
			} else {
				s, k = ts.tokenSim(q[i], n[j])
			}
			ts.sim[i*maxTokens+j], ts.kind[i*maxTokens+j] = s, int8(k)
		}
	}
	var usedQ, usedN [maxTokens]bool
	var simN [maxTokens]float64 // what each listed word matched with
	var num, den float64
	var parts []string
	substantive := false
	lq, ln := lastWord(q), lastWord(n)
	for {
		bi, bj, best := -1, -1, 0.0
		for i := range q {
			if usedQ[i] {
				continue
			}
			for j := range n {
				// A word the name has twice is the query's last word
				// there as its last word too (Akhund in "Abdul Razaq
				// Akhund Lala Akhund"): the words between are then what
				// was left out.
				if sim := ts.sim[i*maxTokens+j]; !usedN[j] && (sim > best || sim == best && bi == i && i == lq && j == ln) {
					bi, bj, best = i, j, sim
				}
			}
		}
		if bi < 0 {
			break
		}
		usedQ[bi], usedN[bj] = true, true
		simN[bj] = best
		w := (tokenWeight(q[bi]) + tokenWeight(n[bj])) / 2
		if particles[q[bi].s] != particles[n[bj].s] {
			// A name word taken for a misspelt particle (Hal- for al-,
			// or Ali for al-): the name word's weight is at stake.
			w = max(tokenWeight(q[bi]), tokenWeight(n[bj]))
		}
		if ts.kind[bi*maxTokens+bj] == matchInitial {
			// An initial stands for the word only as far as its first
			// letter: the rest of the word counts as missing on its side.
			w = 1
			full := q[bi]
			if len(full.s) == 1 {
				full = n[bj]
			}
			den += initialRest * (min(tokenWeight(full), missingCap) - 1)
		}
		num += w * best
		den += w
		if w > 1 {
			substantive = true // more than initials and particles agree
		}
		if explain {
			switch ts.kind[bi*maxTokens+bj] {
			case matchExact:
				parts = append(parts, q[bi].s)
			case matchInitial:
				parts = append(parts, fmt.Sprintf("%s~%s (initial) %.2f", q[bi].s, n[bj].s, best))
			case matchVariant:
				parts = append(parts, fmt.Sprintf("%s~%s (spelling variant) %.2f", q[bi].s, n[bj].s, best))
			case matchOther:
				parts = append(parts, fmt.Sprintf("%s~%s (itself a listed name) %.2f", q[bi].s, n[bj].s, best))
			case matchSlip:
				parts = append(parts, fmt.Sprintf("%s~%s (a slip) %.2f", q[bi].s, n[bj].s, best))
			case matchSkeleton:
				parts = append(parts, fmt.Sprintf("%s~%s (consonant skeleton) %.2f", q[bi].s, n[bj].s, best))
			default:
				parts = append(parts, fmt.Sprintf("%s~%s %.2f", q[bi].s, n[bj].s, best))
			}
		}
	}
	// One name written as one word on one side and as several on the
	// other (Walijan, Wali Jan; Binalshibh, Bin al-Shibh).
	for _, side := range [2]bool{false, true} {
		if num == 0 && len(q) > 1 && len(n) > 1 {
			// Nothing else agrees: no join makes a match of it (and most
			// candidates a query is scored against are such names).
			break
		}
		jn, jd, jp := ts.joined(q, n, &usedQ, &usedN, side, explain)
		num, den, parts = num+jn, den+jd, append(parts, jp...)
		if jd > 1 {
			substantive = true
		}
	}
	if !substantive {
		// Only initials or particles agree: not a name match.
		return 0, ""
	}
	var missQ, missN []string
	leftQ, leftN := 0, 0
	for i := range q {
		if !usedQ[i] && tokenWeight(q[i]) > 1 {
			leftQ++
		}
	}
	for j := range n {
		if !usedN[j] && tokenWeight(n[j]) > 1 {
			leftN++
		}
	}
	shareQ, shareN := missingQuery, missingName
	if leftQ > 0 && leftN > 0 {
		// Both sides have a word the other lacks: they differ (Jesús vs
		// Iván), nothing was merely left out.
		shareQ, shareN = conflicting, conflicting
	}
	for i := range q {
		if !usedQ[i] {
			share := shareQ
			if arabicParticles[q[i].s] {
				// A connecting word of an Arabic name (al-, bin) the
				// listed name leaves out or writes joined: little
				// evidence. (Du, Da, Le are Chinese and Vietnamese
				// surnames too, so not every particle.)
				share = missingName
			}
			den += share * min(tokenWeight(q[i]), missingCap)
			if explain {
				missQ = append(missQ, q[i].s)
			}
		}
	}
	pat := -2 // not looked for yet: most names leave no word over
	// An anchored chain: the query holds the listed name's first word and
	// its last (the given and the family name of an Arabic name chain,
	// "A B C D AL-E" asked as "A AL-E"), so the words left out are the
	// father's and grandfather's names. Given and family name in place
	// are strong evidence: the first word left out costs half a middle
	// name's share, each further one little.
	// A leading Sayyid the query leaves out anchors nothing: the given name
	// after it does.
	given := firstWord(n)
	if sayyids[n[given].s] && !usedN[given] && given+1 < ln {
		given++
	}
	chain := shareN < conflicting && nn >= 3 && !surnameFirst && simN[given] >= chainAnchor && simN[ln] >= chainAnchor
	// A title and one rare name stands on a family name or nisba: the
	// listed name's last word (its first, written surname first). On a
	// given name only against a person listed with the title, and then
	// shown, never alerting ("Haji Bashir" is no one in particular).
	leaveOff, givenOff := false, false
	if fam, first := ln, given; ts.lenient.on {
		if surnameFirst {
			fam, first = firstWord(n), firstWord(n)+1
		}
		leaveOff = usedN[fam]
		givenOff = !leaveOff && ts.lenient.given && first < nn && usedN[first]
	}
	dropped, eased := 0, false
	for j := range n {
		if !usedN[j] {
			if pat == -2 {
				pat = patronymicAt(n)
			}
			share := shareN
			switch {
			case particles[n[j].s]:
				share = min(share, missingChain)
			case j == pat && shareN < conflicting:
				// Lists give patronymics, customers almost never do;
				// leaving it out is next to no evidence.
				share = missingPatronymic
			case chain && (j > 0 && j < nn-1 || j < given):
				// The names a nasab particle brings in (bin Taher) are the
				// father's and grandfather's by its own word, and Sayyid a
				// title of descent: each costs what a further name does.
				share = missingChainFirst
				if dropped > 0 || j > 0 && nasabs[n[j-1].s] || sayyids[n[j].s] {
					share = missingChain
				}
				dropped++
			case (j == 0 || j == nn-1 || j == firstWord(n)) && share < missingEdge && !(j == 0 && nn >= 3 && sayyids[n[0].s]):
				// A given name or surname left out says more than a
				// middle name left out — less for the last of four words
				// or more (a second surname: Jean-Pierre Bemba Gombo). The
				// first word is the first that is no article: a family
				// name written first as "AL-OTAIBI, Mohammad" is left out
				// of "Mohammad" as a family name, not a middle one.
				share = missingEdge
				if nn >= 4 && j == nn-1 {
					share = missingEdgeLong
				}
			}
			if leaveOff || givenOff {
				share = min(share, ts.lenient.share)
				eased = true
			}
			den += share * min(tokenWeight(n[j]), missingCap)
			if explain {
				missN = append(missN, n[j].s)
			}
		}
	}
	score := min(num/den, 1)
	most := ts.lenient.most
	if givenOff {
		most = titledGiven
	}
	shown := eased && most > 0 && !ts.lenient.weak
	if shown {
		score = min(score, most)
	}
	ts.weakBound = 0
	if eased && most > 0 && ts.lenient.weak && ts.lenient.given && score >= most {
		ts.weakBound = most
	}
	if !explain {
		return score, ""
	}
	desc := "tokens: " + strings.Join(parts, ", ")
	if len(missQ) > 0 {
		desc += "; not in listed name: " + strings.Join(missQ, " ")
	}
	if len(missN) > 0 {
		desc += "; not in query: " + strings.Join(missN, " ")
		switch {
		case eased && ts.weakBound > 0:
			desc += " (the query is a title and one name several listed people have, on a weak alias of a person listed with that title: the names it leaves out cost nothing)"
		case eased && ts.lenient.weak:
			desc += " (the query is a title and one name, on a weak alias: the names it leaves out cost nothing, the alias's own malus bounds the score)"
		case givenOff:
			desc += fmt.Sprintf(" (the query is a title and the given name of a person listed with that title: the names it leaves out cost less, the score stops at %.2f)", most)
		case shown:
			desc += fmt.Sprintf(" (the query is a title and one name several listed people have: the names it leaves out cost less, the score stops at %.2f)", most)
		case leaveOff:
			desc += " (the query is a title and one name few listed people have: the names it leaves out cost less)"
		}
		if chain && dropped > 0 {
			desc += " (given and family name in place)"
		}
	}
	return score, desc
}

// firstWord is the position of a name's first word that is no particle.
func firstWord(n []token) int {
	for j := range len(n) - 1 {
		if !particles[n[j].s] {
			return j
		}
	}
	return 0
}

// joined matches each word left over on one side with two or three
// adjacent words left over on the other, written together: the query's
// words when listSide is false, the listed name's when it is true. It
// marks what it matches used and returns the weighted similarity and
// weight to add.
func (ts *tokenScorer) joined(q, n []token, usedQ, usedN *[maxTokens]bool, listSide bool, explain bool) (num, den float64, parts []string) {
	many, one, usedMany, usedOne := q, n, usedQ, usedN
	if listSide {
		many, one, usedMany, usedOne = n, q, usedN, usedQ
	}
	left, lone := 0, 0
	for i := range many {
		if !usedMany[i] {
			left++
		}
	}
	for j := range one {
		if !usedOne[j] && len(one[j].s) >= 2 {
			lone++
		}
	}
	if left < 2 || lone == 0 {
		return 0, 0, nil
	}
	for j := range one {
		if usedOne[j] || len(one[j].s) < 2 {
			continue
		}
		w1 := one[j].s
		bi, bk, best := -1, 0, 0.0
		for i := range many {
			if usedMany[i] || !sameStart(many[i].s, w1) {
				continue
			}
			l := len(many[i].s)
			for k := 2; k <= 3 && i+k <= len(many) && !usedMany[i+k-1]; k++ {
				if l += len(many[i+k-1].s); l-len(w1) > 2 || len(w1)-l > 2 {
					continue
				}
				// Compared without the memo, in scratch space: most
				// candidates' leftovers are no such pair.
				sim := 0.0
				for alt := range 2 {
					jt := ts.joinScratch(many[i:i+k], alt == 1)
					if alt == 1 && jt.s == "" {
						break
					}
					if isASCII(jt.s) {
						jt.c = canonical(jt.s)
					}
					js, kind := tokenSim(jt, one[j])
					if kind == matchFuzzy && isASCII(jt.s) && isASCII(w1) {
						// Whether the query's word is a slip or a name of
						// its own, as for a word matched whole.
						q, n := jt.s, w1
						if listSide {
							q, n = w1, jt.s
						}
						js, _ = ts.typoOrName(q, n, js)
					}
					sim = max(sim, js)
				}
				if sim > best {
					bi, bk, best = i, k, sim
				}
			}
		}
		if bi < 0 || particles[w1] {
			continue
		}
		for i := bi; i < bi+bk; i++ {
			usedMany[i] = true
		}
		usedOne[j] = true
		jt := ts.joinScratch(many[bi:bi+bk], false)
		w := (tokenWeight(jt) + tokenWeight(one[j])) / 2
		num += w * best
		den += w
		if explain {
			parts = append(parts, fmt.Sprintf("%s~%s (written together) %.2f", jt.s, w1, best))
		}
	}
	return num, den, parts
}

// joinScratch writes words as one token in the scorer's scratch space,
// valid until the next call: with alt, their other spellings (the token is
// empty when none has one).
func (ts *tokenScorer) joinScratch(ws []token, alt bool) token {
	b := ts.join[:0]
	t, any := token{}, false
	for _, w := range ws {
		if alt && w.skel && w.alt != "" {
			b, any = append(b, w.alt...), true
		} else {
			b = append(b, w.s...)
		}
		t.skel = t.skel || fromArabic(w)
	}
	ts.join = b
	if alt && !any {
		return token{}
	}
	t.s = unsafe.String(unsafe.SliceData(b), len(b))
	return t
}

// sameStart reports whether two words start alike: with the same letter,
// or both with a vowel (al-, el-).
func sameStart(a, b string) bool {
	return a[0] == b[0] || isVowel[a[0]] && isVowel[b[0]]
}

var isVowel = [256]bool{'a': true, 'e': true, 'i': true, 'o': true, 'u': true}

// lastWord is the position of a name's last word that is no particle.
func lastWord(n []token) int {
	for j := len(n) - 1; j > 0; j-- {
		if !particles[n[j].s] {
			return j
		}
	}
	return len(n) - 1
}

// patronymicEndings end Russian, Ukrainian and Belarusian patronymics in
// the usual romanisations (Serbian surnames end in -ović without the h).
var patronymicEndings = []string{"ovich", "evich", "ovych", "evych", "ovitch", "evitch", "ovitsch", "evitsch",
	"owitsch", "ewitsch", "ovna", "evna", "ivna", "ichna"}

// patronymicAt is the position of a name's patronymic, or -1: a middle
// word with a patronymic ending (Vladimir Vladimirovich Putin), else a last
// one in a name of three words or more (PUTIN, Vladimir Vladimirovich).
// Only one: surnames have the same endings (Abramovich), and the first
// word is never taken for one.
func patronymicAt(n []token) int {
	if len(n) < 3 {
		return -1
	}
	for j := 1; j < len(n)-1; j++ {
		if isPatronymic(n[j].s) {
			return j
		}
	}
	if isPatronymic(n[len(n)-1].s) {
		return len(n) - 1
	}
	return -1
}

// isPatronymic reports whether a word looks like a patronymic.
func isPatronymic(w string) bool {
	for _, e := range patronymicEndings {
		if len(w) > len(e)+2 && strings.HasSuffix(w, e) {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
