package sanctions

import (
	"fmt"
	"math/bits"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A person's name one letter off a listed name as a whole — its letters
// in order, word breaks, articles and hyphens aside — is that name
// mistyped, however the slip falls among its words: in a short syllable
// (KIM Sang-hf for Sang-ho), in the article of a compound (Husam-rl-Din for
// Husam-al-Din). Word by word such a slip can cost a whole word; over the
// name it is one letter in n, and the name scores 1 − 1/n: nine letters or
// more reach the default threshold, a shorter name is shown, and one under
// six letters is left to its words.
const wholeSlipLetters = 6

// spelt is a Latin-script name's letters and digits, lower case,
// diacritics stripped, in the order written, and its words' places
// (words are parted by spaces or commas: a hyphenated compound is one).
type spelt struct {
	s     string
	set   uint32 // letterSet(s)
	words []word
}

// letterSet is the set of letters in s, a bit each (others share one): a
// slip changes at most two, so it rules most names out before oneEdit.
func letterSet(s string) uint32 {
	var m uint32
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z':
			m |= 1 << (c - 'a')
		default:
			m |= 1 << 31
		}
	}
	return m
}

// word is a word of a spelt name, s[at:end].
type word struct {
	at, end int
	title   bool // a title or honorific
}

// nameLetters spells a name as written, and given name first when it is
// written "SURNAME, Given"; none for other scripts.
func nameLetters(full string) []spelt {
	last, given, cut := strings.Cut(full, ",")
	w, ok := letters(full, spelt{})
	if !ok || w.s == "" {
		return nil
	}
	out := []spelt{w}
	if cut {
		g, _ := letters(given, spelt{})
		if o, _ := letters(last, g); o.s != "" {
			out = append(out, o)
		}
	}
	for i := range out {
		out[i].set = letterSet(out[i].s)
	}
	return out
}

// listedLetters are what a name record keeps for wholeSlip: how many
// letters the name has, and which (none over 255).
func listedLetters(full string) (uint8, uint32) {
	if ls := nameLetters(full); len(ls) > 0 && len(ls[0].s) <= 0xFF {
		return uint8(len(ls[0].s)), ls[0].set
	}
	return 0, 0
}

// letters appends s's letters to sp (see writtenWords): a word is what
// spaces or commas part, its hyphenated parts one word; a title is a word
// of one part that is an honorific.
func letters(s string, sp spelt) (spelt, bool) {
	words, apart := writtenWords(s)
	b := []byte(sp.s)
	at, parts := len(b), 0
	endWord := func() {
		if len(b) > at {
			sp.words = append(sp.words, word{at, len(b), parts == 1 && honorifics[string(b[at:])]})
		}
		at, parts = len(b), 0
	}
	for i, w := range words {
		if apart[i] {
			endWord()
		}
		n := len(b)
		for _, r := range w {
			switch l, special := latinSpecial[r]; {
			case special:
				b = append(b, l...)
			case r < 0x80 || unicode.Is(unicode.Latin, r):
				b = utf8.AppendRune(b, r)
			case !unicode.Is(unicode.Lm, r):
				return sp, false // another script
			}
		}
		if len(b) > n {
			parts++
		}
	}
	endWord()
	sp.s = string(b)
	return sp, true
}

// slipOrName is the most a whole-name slip scores whose slipped word
// may be a slip or a name (anotherName): shown, never alerting.
const slipOrName = 0.84

// wholeSlipped is what wholeSlip found: the score (0: no slip), the
// letters of the longer name, and whether the slipped word may be a name.
type wholeSlipped struct {
	score   float64
	letters int
	maybe   bool
	korean  bool // a syllable no Korean one (koreanSlip)
}

// explain says what wholeSlip found.
func (w wholeSlipped) explain() string {
	s := fmt.Sprintf("the whole name one letter off the listed name (one in %d): a slip, wherever it falls among the words", w.letters)
	if w.korean {
		s += "; the slipped syllable is none a Korean name has, so a slip for certain"
	}
	if w.maybe {
		s += fmt.Sprintf("; the slipped word short and reading as a name no listed name has, so it may be another name: shown, at most %.2f", slipOrName)
	}
	return s
}

// wholeSlip is what a query (its letters from nameLetters) one edit off
// listed name id's letters scores as a slip (else 0), unless the edit
// makes another name (anotherName) and is no Korean slip (koreanSlip).
func (ix *Index) wholeSlip(qn normName, id uint32) wholeSlipped {
	var best wholeSlipped
	nr := &ix.names[id]
	if len(qn.letters) == 0 || nr.letters == 0 {
		return best
	}
	full, v := ix.entities[nr.entity].Names[nr.name].Full, ix.vocabOf(id)
	var listed []spelt
	korean, judged := false, false // koreanSlip, the same for every reading
	for _, w := range qn.letters {
		if d := len(w.s) - int(nr.letters); d < -1 || d > 1 || len(w.s) < wholeSlipLetters || bits.OnesCount32(w.set^nr.letterSet) > 2 {
			continue
		}
		if listed == nil {
			listed = nameLetters(full)
		}
		for _, n := range listed {
			if oneEdit(w.s, n.s) {
				i := 0 // where the edit is
				for i < len(w.s) && i < len(n.s) && w.s[i] == n.s[i] {
					i++
				}
				l := max(len(w.s), len(n.s))
				s := 1 - 1/float64(l)
				if !judged {
					korean, judged = koreanSlip(qn.written, full, v), true
				}
				another, maybe := anotherName(v, w, n, i)
				switch {
				case korean:
					s, maybe = max(s, koreanSlipScore), false
				case another:
					continue
				case maybe:
					s = min(s, slipOrName)
				}
				if s > best.score {
					best = wholeSlipped{s, l, maybe, korean}
				}
			}
		}
	}
	return best
}

// wordAt is the word holding letter i (the last word for i past the end).
func (sp spelt) wordAt(i int) word {
	for _, w := range sp.words {
		if i < w.end {
			return w
		}
	}
	return sp.words[len(sp.words)-1]
}

// anotherName reports whether the slip at letter i makes another name of
// the listed word, as typoOrName and dropTitleSlips judge it word by word
// (v: the listed name's list's vocabulary): a query word the list uses,
// and no spelling of the listed word (Tzanidis beside Tzanitis, Yong
// beside Ying); or a title on one side and a word the lists hold on the
// other (Hadi Bando, BANDO, Haji). It may be another name (maybe) when the
// query word is short (five letters at most) and reads as a name in the
// list's languages (AL-ALU Adnan for AL-ALI, Adnan). A long word changes
// too few of its letter sequences for them to tell: Mhuammad reads as a
// name.
func anotherName(v *vocabulary, q, n spelt, i int) (another, maybe bool) {
	wq, wn := q.wordAt(i), n.wordAt(i)
	w, l := q.s[wq.at:wq.end], n.s[wn.at:wn.end]
	switch {
	case wq.title && !wn.title:
		return true, false // l is a listed word
	case wn.title && !wq.title:
		return v.uses(w) > 0, false
	case v.variant(w, l):
		return false, false
	}
	return v.uses(w) > 0, len(w) <= 5 && v.plausible(w)
}

// Korean names are syllables, each romanised as one (McCune–Reischauer or
// the revised scheme; breves and apostrophes aside): a slip that makes a
// syllable no Korean one is a slip for certain ("HAN YM-RO" for HAN
// YU-RO), where otherwise a slip in a syllable may make another (Kwang,
// Kang) and a short name has too few letters to tell. koreanSlipScore is
// what it scores: it alerts.
const koreanSlipScore = 0.9

// chineseSyllable is loosely a Chinese syllable in pinyin or Wade–Giles:
// a Korean name's syllable slipped into one may be a Chinese name's.
var chineseSyllable = regexp.MustCompile(`^(b|p|m|f|d|t|n|l|g|k|h|j|q|x|zh|ch|sh|r|z|c|s|y|w|hs|ts|tz|ss|sz)?` +
	`(a|o|e|i|u|v|ai|ei|ao|ou|an|en|ang|eng|ong|er|ia|ie|iao|iu|ian|in|iang|ing|iong|ua|uo|uai|ui|uan|un|uang|ueng|ue|ih|ieh|uei|ung|iung|eh|uen)$`)

var koreanSyllable = regexp.MustCompile(`^(g|k|kk|gg|n|d|t|tt|r|l|m|b|p|pp|s|ss|sh|j|ch|tch|jj|ts|h)?` +
	`(a|ae|ya|yae|eo|o|e|ye|yeo|yo|u|eu|wa|wae|oe|wo|we|wi|yu|ui|i|oi|ou|oo)(k|g|n|t|d|l|r|m|p|b|ng)?$`)

// koreanSlip reports whether query q slips one syllable of listed name n,
// a name of two or more Korean syllables, into no Korean or Chinese
// syllable nor any word n's list uses (v).
func koreanSlip(q, n string, v *vocabulary) bool {
	ln, _ := writtenWords(n)
	if len(ln) < 2 {
		return false
	}
	left := map[string]int{}
	for _, w := range ln {
		if !koreanSyllable.MatchString(string(w)) {
			return false
		}
		left[string(w)]++
	}
	qw, _ := writtenWords(q)
	var odd []string
	for _, w := range qw {
		if left[string(w)] > 0 {
			left[string(w)]--
		} else {
			odd = append(odd, string(w))
		}
	}
	return len(odd) == 1 && len(qw) == len(ln) && !koreanSyllable.MatchString(odd[0]) && !chineseSyllable.MatchString(odd[0]) && v.uses(odd[0]) == 0
}
