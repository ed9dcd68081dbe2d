// Package namematch compares company names the way a KYB check needs: a
// business's name as a tenant typed it against the names a register holds
// (statutory and trade names).
//
// The rule, documented for tenants in docs/DECISIONS.md:
//  1. Normalise both names: Unicode compatibility decomposition with accents
//     dropped, lower case, "&" and "+" read as "and", dots removed (so
//     "B.V." is "bv"), every other non-letter/digit a separator.
//  2. Drop legal-form words (bv, nv, vof, gmbh, ltd, sarl, …) and the Dutch
//     "h.o.d.n." ("trading as"); "en", "und", "et" are read as "and".
//  3. Score = the larger Jaro-Winkler similarity of (a) the remaining tokens
//     in their order and (b) the tokens sorted, so word order does not count.
//  4. Two names match when the score is at least Threshold.
package namematch

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Threshold is the score at which two names are taken to be the same.
const Threshold = 0.90

// legalForms are words that state a company's legal form, not its identity.
var legalForms = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`bv nv vof cv cooperatie ua wa stichting vereniging eenmanszaak maatschap
		bvba sprl srl sa nv comm commv scrl vzw asbl
		gmbh ag kg ohg ug eg ev kgaa mbh
		ltd limited plc llp lp inc incorporated corp corporation co company llc
		sas sasu sarl eurl sca snc sci
		spa sapa scarl
		sl slu sau
		sro as oy oyj ab aps kft zrt nyrt doo dd ou uab sia ad ood eood
		hodn`) {
		legalForms[w] = true
	}
}

// synonyms reads a few connecting words as the same token.
var synonyms = map[string]string{"en": "and", "und": "and", "et": "and", "e": "and", "y": "and"}

// Tokens returns the normalised identity words of a name.
func Tokens(name string) []string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(name) {
		switch {
		case unicode.Is(unicode.Mn, r), r == '.', r == '\'', r == '’':
			// accents dropped; dots and apostrophes join ("B.V." → "bv", "McDonald's" → "mcdonalds")
		case r == '&' || r == '+':
			b.WriteString(" and ")
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteByte(' ')
		}
	}
	var out []string
	for _, w := range strings.Fields(b.String()) {
		if s, ok := synonyms[w]; ok {
			w = s
		}
		if !legalForms[w] {
			out = append(out, w)
		}
	}
	// A connective left at either end joined a legal form ("GmbH & Co. KG").
	for len(out) > 0 && out[0] == "and" {
		out = out[1:]
	}
	for len(out) > 0 && out[len(out)-1] == "and" {
		out = out[:len(out)-1]
	}
	return out
}

// Score compares two names, from 0 (nothing alike) to 1 (the same after
// normalisation).
func Score(a, b string) float64 {
	ta, tb := Tokens(a), Tokens(b)
	if len(ta) == 0 || len(tb) == 0 {
		return 0
	}
	inOrder := JaroWinkler(strings.Join(ta, " "), strings.Join(tb, " "))
	sa, sb := slices.Clone(ta), slices.Clone(tb)
	slices.Sort(sa)
	slices.Sort(sb)
	return max(inOrder, JaroWinkler(strings.Join(sa, " "), strings.Join(sb, " ")))
}

// Best returns the candidate that scores highest against name, and its score.
func Best(name string, candidates ...string) (string, float64) {
	best, score := "", 0.0
	for _, c := range candidates {
		if s := Score(name, c); s > score {
			best, score = c, s
		}
	}
	return best, score
}

// JaroWinkler is the Jaro similarity of a and b with Winkler's boost for a
// common prefix of up to four characters (scaling factor 0.1, applied when
// the Jaro similarity is above 0.7, as Winkler did). It compares runes; two
// empty strings are identical (1).
func JaroWinkler(a, b string) float64 {
	if isASCII(a) && isASCII(b) {
		return JaroWinklerSeq([]byte(a), []byte(b))
	}
	return JaroWinklerSeq([]rune(a), []rune(b))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// JaroWinklerSeq is JaroWinkler over any byte or rune sequence (callers
// with ASCII text skip the rune conversion).
func JaroWinklerSeq[T byte | rune](a, b []T) float64 {
	j := jaro(a, b)
	if j <= 0.7 {
		return j
	}
	prefix := 0
	for prefix < min(4, len(a), len(b)) && a[prefix] == b[prefix] {
		prefix++
	}
	return j + float64(prefix)*0.1*(1-j)
}

func jaro[T byte | rune](a, b []T) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	window := max(max(len(a), len(b))/2-1, 0)
	// Names are short: flags on the stack when they fit.
	var fa, fb [64]bool
	var matchedA, matchedB []bool
	if len(a) <= 64 && len(b) <= 64 {
		matchedA, matchedB = fa[:len(a)], fb[:len(b)]
	} else {
		matchedA, matchedB = make([]bool, len(a)), make([]bool, len(b))
	}
	matches := 0
	for i := range a {
		for k := max(0, i-window); k < min(len(b), i+window+1); k++ {
			if !matchedB[k] && a[i] == b[k] {
				matchedA[i], matchedB[k] = true, true
				matches++
				break
			}
		}
	}
	if matches == 0 {
		return 0
	}
	transpositions, k := 0, 0
	for i := range a {
		if !matchedA[i] {
			continue
		}
		for !matchedB[k] {
			k++
		}
		if a[i] != b[k] {
			transpositions++
		}
		k++
	}
	m := float64(matches)
	return (m/float64(len(a)) + m/float64(len(b)) + (m-float64(transpositions)/2)/m) / 3
}
