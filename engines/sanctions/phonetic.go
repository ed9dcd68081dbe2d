package sanctions

import "strings"

// phonetic returns a simplified consonant key for a romanised word: Latin
// digraphs become one sound (ph→f, kh→h, sh→s, zh→j, ts/tz→c, ...), letters
// that sound alike share a class (c/k/q, s/z, v/w), vowels (and y, w after the
// first letter) are dropped and repeated consonants collapsed. Unlike
// Soundex it does not keep the first letter literally, so a typo in the first
// letter of "Vladimir" as "Wladimir" still shares the key; and because it is a
// consonant skeleton it is also how words that came from Arabic script
// (written without short vowels) are compared: "mohammed", "muhammad" and
// "محمد" (mhmd) all give "mhmd".
func phonetic(w string) string {
	var b strings.Builder
	b.Grow(len(w))
	var last byte
	emit := func(c byte) {
		if c != last {
			b.WriteByte(c)
			last = c
		}
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		var next byte
		if i+1 < len(w) {
			next = w[i+1]
		}
		switch {
		case c == 'p' && next == 'h':
			emit('f')
			i++
		case (c == 't' || c == 'd' || c == 'g' || c == 'k') && next == 'h':
			emit(c)
			i++
		case c == 's' && next == 'h':
			emit('s')
			i++
			if strings.HasPrefix(w[i+1:], "ch") { // shch
				i += 2
			}
		case c == 's' && strings.HasPrefix(w[i+1:], "ch"): // German sch
			emit('s')
			i += 2
		case c == 'z' && next == 'h':
			emit('j')
			i++
		case c == 'd' && (next == 'j' || next == 'z' && strings.HasPrefix(w[i+2:], "h")):
			emit('j')
			i++
			if next == 'z' {
				i++
			}
		case c == 'c' && next == 'h':
			emit('c')
			i++
		case c == 't' && (next == 's' || next == 'z'):
			emit('c')
			i++
		case c == 'c' && next == 'k':
			emit('k')
			i++
		case c == 'c':
			if next == 'e' || next == 'i' || next == 'y' {
				emit('s')
			} else {
				emit('k')
			}
		case c == 'q':
			emit('k')
		case c == 'x':
			emit('k')
			emit('s')
		case c == 'z':
			emit('s')
		case c == 'w':
			if i == 0 {
				emit('v')
			} // else a vowel (Arabic و, "ou")
		case c == 'y' && i == 0:
			emit('y')
		case c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || c == 'y':
			// Dropped; consonants either side still collapse ("mamdouh" and
			// "ممدوح" both give "mdh").
		default:
			emit(c)
		}
	}
	if b.Len() == 0 && len(w) > 0 {
		return w[:1]
	}
	return b.String()
}

// canonRules rewrite romanisation variants to one spelling, longest first.
var canonRules = []struct{ from, to string }{
	{"shch", "s"}, {"tsch", "c"}, {"dzh", "j"}, {"sch", "s"}, {"tch", "c"},
	{"ts", "c"}, {"tz", "c"}, {"sh", "s"}, {"zh", "j"}, {"dj", "j"}, {"ph", "f"}, {"th", "t"},
	{"gh", "g"}, {"kh", "h"}, {"ch", "c"}, {"ck", "k"}, {"ou", "u"}, {"oo", "u"}, {"ee", "i"},
	{"mp", "mb"}, {"y", "i"}, {"w", "v"}, {"c", "k"}, {"q", "k"}, {"x", "ks"}, {"z", "s"},
}

// canonByFirst indexes canonRules by first letter, longest first.
var canonByFirst = func() (t [256][]struct{ from, to string }) {
	for _, r := range canonRules {
		t[r.from[0]] = append(t[r.from[0]], r)
	}
	return t
}()

// canonical rewrites a romanised word so that the usual variant spellings of
// one name coincide: "yemelyanchuk" and "iemelianchouk", "kravtschenko" and
// "kravchenko" (ch, tsch → c/h), "wei" and "ouei" (w, or an initial u
// before a vowel, → v), "oleksij" and "oleksiy" (j after a vowel → i),
// "charalampos" and "charalambos", "hamzah" and "hamza" (a final h after a
// vowel dropped). Doubled letters collapse. The scorer measures edit
// distance on this form, so transliteration variants count as near-equal
// while different words of similar shape do not.
func canonical(w string) string {
	if !isASCII(w) {
		return w
	}
	b := make([]byte, 0, len(w)+4)
	for i := 0; i < len(w); {
		matched := false
		for _, r := range canonByFirst[w[i]] {
			if len(w)-i >= len(r.from) && w[i:i+len(r.from)] == r.from {
				b = append(b, r.to...)
				i += len(r.from)
				matched = true
				break
			}
		}
		if !matched {
			b = append(b, w[i])
			i++
		}
	}
	for i := 1; i < len(b); i++ {
		if b[i] == 'j' && strings.IndexByte("aeiou", b[i-1]) >= 0 {
			// After a vowel j is the German and Ukrainian way of writing
			// y/i (Oleksij, Oleksiy; Dmytryjenko, Dmytryyenko).
			b[i] = 'i'
		}
	}
	out := b[:0]
	for i, c := range b {
		if i > 0 && b[i-1] == c {
			continue
		}
		if c == 'u' && i == 0 && len(b) > 1 && strings.IndexByte("aei", b[1]) >= 0 {
			// A word-initial u before a, e or i is how Greek and other
			// scripts without a w write one (Ουέι, Wei). Only initial:
			// within a word it is a vowel (Yuan is not Ivan).
			c = 'v'
		}
		out = append(out, c)
	}
	if n := len(out); n > 2 && out[n-1] == 'h' && strings.IndexByte("aeiou", out[n-2]) >= 0 {
		out = out[:n-1]
	}
	return string(out)
}
