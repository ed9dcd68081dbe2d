package sanctions

import "strings"

// Transliteration tables. Every non-Latin letter maps to two Latin
// spellings: scheme 0 is BGN/PCGN-like (kh, yu, ya, y for й), scheme 1 the
// common alternative (ICAO 9303 iu/ia/i, h for х, j for дж, kh for Greek
// χ, ...). A name written in one of these scripts is indexed and searched
// under both spellings when they differ, so the usual romanisations of the
// same name land within a typo of one of them.

// pair is a letter's scheme-0 and scheme-1 romanisation.
type pair [2]string

func same(s string) pair { return pair{s, s} }

// cyrillic is Russian (with Belarusian ў and the Ukrainian/Serbian letters
// that have no Russian counterpart). Letters whose reading differs by
// language (г, и, ч, ...) are overridden by ukrainian and serbian below.
var cyrillic = map[rune]pair{
	'а': same("a"), 'б': same("b"), 'в': same("v"), 'г': same("g"),
	'д': same("d"), 'е': same("e"), 'ё': {"e", "yo"}, 'ж': same("zh"),
	'з': same("z"), 'и': same("i"), 'й': {"y", "i"}, 'к': same("k"),
	'л': same("l"), 'м': same("m"), 'н': same("n"), 'о': same("o"),
	'п': same("p"), 'р': same("r"), 'с': same("s"), 'т': same("t"),
	'у': same("u"), 'ф': same("f"), 'х': {"kh", "h"}, 'ц': same("ts"),
	'ч': same("ch"), 'ш': same("sh"), 'щ': same("shch"), 'ъ': same(""),
	'ы': same("y"), 'ь': same(""), 'э': same("e"), 'ю': {"yu", "iu"},
	'я': {"ya", "ia"},
	// Ukrainian, Belarusian
	'і': same("i"), 'ї': {"yi", "i"}, 'є': {"ye", "ie"}, 'ґ': same("g"), 'ў': {"w", "u"},
	// Serbian, Macedonian
	'ђ': same("dj"), 'ј': same("j"), 'љ': same("lj"), 'њ': same("nj"),
	'ћ': same("c"), 'џ': same("dz"), 'ѓ': same("gj"), 'ќ': same("kj"), 'ѕ': same("dz"),
}

// ukrainian overrides, used when a word holds і, ї, є or ґ (letters Russian
// lacks): г is h and и is y in Ukrainian.
var ukrainian = map[rune]pair{'г': {"h", "g"}, 'и': {"y", "i"}, 'х': {"kh", "h"}}

// serbian overrides, used when a word holds ђ, ј, љ, њ, ћ or џ: Serbian Latin
// writes č, š, ž, c, h, which lose their carons to c, s, z.
var serbian = map[rune]pair{'ч': same("c"), 'ш': same("s"), 'ж': same("z"), 'ц': same("c"), 'х': same("h"), 'й': same("j")}

// greek is modern Greek, letter by letter, after accents are stripped; the
// digraphs are in greekDigraphs.
var greek = map[rune]pair{
	'α': same("a"), 'β': same("v"), 'γ': same("g"), 'δ': same("d"),
	'ε': same("e"), 'ζ': same("z"), 'η': same("i"), 'θ': same("th"),
	'ι': same("i"), 'κ': same("k"), 'λ': same("l"), 'μ': same("m"),
	'ν': same("n"), 'ξ': same("x"), 'ο': same("o"), 'π': same("p"),
	'ρ': same("r"), 'σ': same("s"), 'ς': same("s"), 'τ': same("t"),
	'υ': {"y", "i"}, 'φ': same("f"), 'χ': {"ch", "kh"}, 'ψ': same("ps"),
	'ω': same("o"),
}

// greekDigraphs are read before single letters. μπ and ντ are b and d at
// the start of a word (mb, nt inside it); γκ likewise g / ng.
var greekDigraphs = map[string]pair{
	"αι": same("ai"), "ει": same("ei"), "οι": same("oi"),
	"ου": {"ou", "u"}, "αυ": {"av", "af"}, "ευ": {"ev", "ef"}, "γγ": same("ng"), "τζ": {"tz", "j"},
	"τσ": same("ts"), "μπ": {"mb", "b"}, "ντ": {"nt", "d"}, "γκ": {"ng", "g"},
}

// greekInitial overrides greekDigraphs at the start of a word.
var greekInitial = map[string]pair{"μπ": same("b"), "ντ": same("d"), "γκ": same("g")}

// arabic is a consonant-skeleton romanisation. Arabic script leaves short
// vowels unwritten, so "محمد" reads "mhmd", not "muhammad"; the scorer
// therefore compares a word that came from Arabic script with the other
// word's consonant skeleton (see phonetic.go). Limits: no vowel
// restoration, emphatic consonants merge with plain ones (ص→s, ض→d, ط→t,
// ظ→z), ع and ء vanish, و/ي stand for both w/y and long u/i, and the
// article ال stays glued to its word ("عبدالله" → "bdallh").
var arabic = map[rune]pair{
	'ا': same("a"), 'أ': same("a"), 'إ': same("i"), 'آ': same("a"), 'ٱ': same("a"),
	'ب': same("b"), 'ت': same("t"), 'ث': same("th"), 'ج': same("j"),
	'ح': same("h"), 'خ': same("kh"), 'د': same("d"), 'ذ': same("dh"),
	'ر': same("r"), 'ز': same("z"), 'س': same("s"), 'ش': same("sh"),
	'ص': same("s"), 'ض': same("d"), 'ط': same("t"), 'ظ': same("z"),
	'ع': same(""), 'غ': same("gh"), 'ف': same("f"), 'ق': same("q"),
	'ك': same("k"), 'ل': same("l"), 'م': same("m"), 'ن': same("n"),
	'ه': same("h"), 'و': {"w", "u"}, 'ي': {"y", "i"}, 'ى': same("a"),
	'ة': same("a"), 'ء': same(""), 'ؤ': same("u"), 'ئ': same("y"),
	'پ': same("p"), 'چ': same("ch"), 'ژ': same("zh"), 'گ': same("g"), 'ک': same("k"), 'ی': {"y", "i"},
}

// latinSpecial are Latin letters that NFKD does not split into a base
// letter and a mark.
var latinSpecial = map[rune]string{
	'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'ł': "l", 'đ': "dj",
	'ð': "d", 'þ': "th", 'ı': "i", 'ħ': "h", 'ŀ': "l",
}

// Script names, as reported in explanations.
const (
	scriptLatin    = ""
	scriptCyrillic = "Cyrillic"
	scriptGreek    = "Greek"
	scriptArabic   = "Arabic"
)

func scriptOf(r rune) string {
	switch {
	case r >= 0x0400 && r <= 0x04FF:
		return scriptCyrillic
	case r >= 0x0370 && r <= 0x03FF, r >= 0x1F00 && r <= 0x1FFF:
		return scriptGreek
	case r >= 0x0600 && r <= 0x06FF:
		return scriptArabic
	}
	return scriptLatin
}

// transliterateWord romanises one lower-case word (accents already stripped
// for Greek, not for Cyrillic, where й and ё are letters) under both
// schemes. Letters it does not know are copied.
func transliterateWord(w []rune) (s0, s1 string) {
	var b0, b1 strings.Builder
	var over map[rune]pair
	for _, r := range w {
		switch r {
		case 'і', 'ї', 'є', 'ґ':
			over = ukrainian
		case 'ђ', 'ј', 'љ', 'њ', 'ћ', 'џ':
			over = serbian
		}
	}
	put := func(p pair) { b0.WriteString(p[0]); b1.WriteString(p[1]) }
	for i := 0; i < len(w); i++ {
		r := w[i]
		if i+1 < len(w) {
			// Two-letter readings.
			dg := string(w[i : i+2])
			if p, ok := greekInitial[dg]; ok && i == 0 {
				put(p)
				i++
				continue
			}
			if p, ok := greekDigraphs[dg]; ok {
				put(p)
				i++
				continue
			}
			if dg == "дж" && over == nil {
				put(pair{"dzh", "j"})
				i++
				continue
			}
			if dg == "кс" {
				put(pair{"ks", "x"}) // Aleksandr, Alexander
				i++
				continue
			}
		}
		if p, ok := over[r]; ok {
			put(p)
			continue
		}
		if r == 'е' && over == nil && (i == 0 || isCyrVowel(w[i-1])) {
			// Initial or post-vowel е is "ye" in BGN/PCGN (Yelena), "e" in ICAO.
			put(pair{"ye", "e"})
			continue
		}
		if p, ok := cyrillic[r]; ok {
			put(p)
			continue
		}
		if p, ok := greek[r]; ok {
			put(p)
			continue
		}
		if p, ok := arabic[r]; ok {
			put(p)
			continue
		}
		b0.WriteRune(r)
		b1.WriteRune(r)
	}
	return b0.String(), b1.String()
}

func isCyrVowel(r rune) bool {
	return strings.ContainsRune("аеёиоуыэюяіїєъь", r)
}
