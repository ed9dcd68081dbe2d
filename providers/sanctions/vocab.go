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
	words    map[string]struct{}
	variants map[[2]string]struct{} // ordered pairs, smaller first
}

func newVocabulary() *vocabulary {
	return &vocabulary{words: map[string]struct{}{}, variants: map[[2]string]struct{}{}}
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
			v.words[t.s] = struct{}{}
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

// distinct reports whether query word q, fuzzy-matched to listed word n, is
// a listed word of its own that the list never uses as a spelling of n.
func (v *vocabulary) distinct(q, n string) bool {
	if v == nil {
		return false
	}
	if _, ok := v.words[q]; !ok {
		return false
	}
	_, variant := v.variants[pairKey(q, n)]
	return !variant
}

// unknown reports whether the list uses no word q (a list with no
// vocabulary knows nothing, and calls nothing unknown).
func (v *vocabulary) unknown(q string) bool {
	if v == nil || len(v.words) == 0 {
		return false
	}
	_, ok := v.words[q]
	return !ok
}

// memoryBytes approximates the maps' size (entries and their overhead; the
// words themselves are the index's).
func (v *vocabulary) memoryBytes() int {
	return len(v.words)*48 + len(v.variants)*64
}
