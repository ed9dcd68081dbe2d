package sanctions

import "slices"

// vocabulary is what the list itself says about words: which words names
// on it use, and which pairs of similar words it uses for one person.
//
// Why: a fuzzy match is for misspellings. When a query word is itself a
// word of the list, spelled as listed, and differs from the listed word it
// resembles, it is most often a different name (Yang and Wang, Nelson and
// Nilsson, Bogdanov and Bogdanev), and a match on it is weaker evidence —
// unless the list spells some person's name both ways (Hussein and Hussain
// as aliases of one entity), which shows the two are one name's variants.
// Customers with such near-namesake names are where false alerts come from
// (docs/DECISIONS.md, aml).
type vocabulary struct {
	words    map[string]uint16      // entities using the word (saturating)
	grams    map[uint32]uint32      // words holding each letter trigram (see plausible)
	variants map[[2]string]struct{} // ordered pairs, smaller first
}

func newVocabulary() *vocabulary {
	return &vocabulary{words: map[string]uint16{}, grams: map[uint32]uint32{}, variants: map[[2]string]struct{}{}}
}

// addEntity records the words of one entity's names (all its spellings) and
// the pairs among them that fuzzy-match in different names: the list's own
// spelling variants.
func (v *vocabulary) addEntity(names []nameRec) {
	var ws []token
	for _, nr := range names {
		for _, t := range nr.tokens {
			if t.skel || !blocks(t) || slices.ContainsFunc(ws, func(w token) bool { return w.s == t.s }) {
				continue
			}
			switch c := v.words[t.s]; {
			case c == 0 && isASCII(t.s):
				eachGram(t.s, func(g uint32) bool { v.grams[g]++; return true })
				fallthrough
			case c < 0xffff:
				v.words[t.s]++
			}
			ws = append(ws, t)
		}
	}
	for i, a := range ws {
		for _, b := range ws[i+1:] {
			if d := len(a.s) - len(b.s); d > 3 || d < -3 {
				continue
			}
			if _, kind := tokenSim(a, b); kind == matchFuzzy && !together(names, a.s, b.s) {
				v.variants[pairKey(a.s, b.s)] = struct{}{}
			}
		}
	}
}

// together reports whether one name holds both words: then they are two
// parts of it (Karim Qasim), not two spellings of one part.
func together(names []nameRec, a, b string) bool {
	for _, nr := range names {
		hasA := slices.ContainsFunc(nr.tokens, func(t token) bool { return t.s == a })
		if hasA && slices.ContainsFunc(nr.tokens, func(t token) bool { return t.s == b }) {
			return true
		}
	}
	return false
}

func pairKey(a, b string) [2]string {
	if a > b {
		a, b = b, a
	}
	return [2]string{a, b}
}

// uses is how many entities use word q.
func (v *vocabulary) uses(q string) int {
	if v == nil {
		return 0
	}
	return int(v.words[q])
}

// variant reports whether the list spells one entity's name both as q and
// as n.
func (v *vocabulary) variant(q, n string) bool {
	if v == nil {
		return false
	}
	_, ok := v.variants[pairKey(q, n)]
	return ok
}

// commonUses is how many entities must use a word for it to count as a
// name of its own whatever its spelling (see typoOrName).
const commonUses = 3

// plausible reports whether every three-letter sequence of ^w$ occurs in
// at least commonGram of the list's words: a word the list's languages
// could have produced. A list with no vocabulary finds everything
// plausible.
func (v *vocabulary) plausible(w string) bool {
	if v == nil || len(v.grams) == 0 {
		return true
	}
	ok := true
	eachGram(w, func(g uint32) bool {
		if v.grams[g] < commonGram {
			ok = false
		}
		return ok
	})
	return ok
}

// commonGram: see plausible.
const commonGram = 3

// eachGram calls f with each three-letter sequence of ^w$ packed into an
// integer, until f returns false.
func eachGram(w string, f func(uint32) bool) {
	b := func(i int) uint32 {
		switch {
		case i < 0:
			return '^'
		case i >= len(w):
			return '$'
		}
		return uint32(w[i])
	}
	for i := -1; i+2 <= len(w); i++ {
		if !f(b(i)<<16 | b(i+1)<<8 | b(i+2)) {
			return
		}
	}
}

// memoryBytes approximates the maps' size (entries and their overhead; the
// words themselves are the index's).
func (v *vocabulary) memoryBytes() int {
	return len(v.words)*48 + len(v.grams)*16 + len(v.variants)*64
}
