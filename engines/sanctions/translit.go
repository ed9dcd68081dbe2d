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

// arabic romanises Arabic script (Persian and Urdu letters included). The
// script leaves short vowels unwritten, so "محمد" is "mhmd", not
// "muhammad": transliterateWord puts an "a" between two consonants, which
// keeps letters apart that phonetic() would otherwise read as one sound
// (ط+ه is "tah", Taha — not the "th" of ث), and the scorer compares such
// words by their consonant skeletons (see phonetic.go). The two schemes
// hold the spellings lists use for one letter: ق as q (Qasim) or g
// (Gaddafi), ذ as dh or z, ظ as z or dh, ض as d or z, ث as th or s, و and
// ي as w/y or the long vowels u/i. Emphatic consonants merge with plain
// ones (ص→s, ط→t); ع is a vowel (Ali, Umar, Abd), ء vanishes.
var arabic = map[rune]pair{
	'ا': same("a"), 'أ': same("a"), 'إ': same("i"), 'آ': same("a"), 'ٱ': same("a"),
	'ب': same("b"), 'ت': same("t"), 'ث': {"th", "s"}, 'ج': same("j"),
	'ح': same("h"), 'خ': same("kh"), 'د': same("d"), 'ذ': {"dh", "z"},
	'ر': same("r"), 'ز': same("z"), 'س': same("s"), 'ش': same("sh"),
	'ص': same("s"), 'ض': {"d", "z"}, 'ط': same("t"), 'ظ': {"z", "dh"},
	'ع': same("a"), 'غ': same("gh"), 'ف': same("f"), 'ق': {"q", "g"},
	'ك': same("k"), 'ل': same("l"), 'م': same("m"), 'ن': same("n"),
	'ه': same("h"), 'و': {"w", "u"}, 'ي': {"y", "i"}, 'ى': {"a", "i"},
	'ة': same("a"), 'ء': same(""), 'ؤ': same("u"), 'ئ': same("y"),
	'پ': same("p"), 'چ': same("ch"), 'ژ': same("zh"), 'گ': same("g"), 'ک': same("k"), 'ی': {"y", "i"},
	// Pashto and Urdu
	'ځ': {"dz", "z"}, 'څ': {"ts", "s"}, 'ږ': {"zh", "g"}, 'ښ': {"sh", "kh"}, 'ټ': same("t"), 'ډ': same("d"),
	'ړ': same("r"), 'ڼ': same("n"), 'ٹ': same("t"), 'ڈ': same("d"), 'ڑ': same("r"), 'ں': same("n"), 'ے': {"y", "e"},
}

// arabicWords are the commonest words of Arabic names, in the two
// spellings lists use most: letter by letter they would come out without
// their vowels ("mhmd"), and these words make up much of every name.
var arabicWords = map[string]pair{
	"محمد": {"muhammad", "mohammed"}, "احمد": {"ahmad", "ahmed"}, "أحمد": {"ahmad", "ahmed"},
	"محمود": {"mahmud", "mahmoud"}, "مصطفى": {"mustafa", "mostafa"}, "علي": same("ali"), "على": same("ali"),
	"عمر": {"umar", "omar"}, "عثمان": {"uthman", "osman"}, "حسن": {"hasan", "hassan"}, "حسين": {"husayn", "hussein"},
	"حسان": same("hassan"), "يوسف": {"yusuf", "yousef"}, "ابراهيم": same("ibrahim"), "إبراهيم": same("ibrahim"),
	"اسماعيل": {"ismail", "ismael"}, "إسماعيل": {"ismail", "ismael"}, "خالد": {"khalid", "khaled"},
	"سعيد": {"said", "saeed"}, "سعد": {"saad", "sad"}, "صالح": {"salih", "saleh"}, "سالم": {"salim", "salem"},
	"سليمان": {"sulayman", "suleiman"}, "عيسى": {"isa", "issa"}, "موسى": {"musa", "moussa"}, "يحيى": {"yahya", "yahia"},
	"جمال": same("jamal"), "كمال": same("kamal"), "نور": {"nur", "nour"}, "الدين": {"al din", "ad din"},
	"عبد": same("abd"), "الله": same("allah"), "عبدالله": {"abdallah", "abdullah"}, "بن": {"bin", "ben"},
	"ابن": same("ibn"), "بنت": same("bint"), "ابو": {"abu", "abou"}, "أبو": {"abu", "abou"}, "ام": same("umm"),
	"فاطمة": {"fatima", "fatma"}, "عائشة": {"aisha", "aicha"}, "مريم": {"maryam", "mariam"}, "زينب": same("zaynab"),
	"عبدالرحمن": {"abdulrahman", "abdelrahman"}, "الرحمن": {"al rahman", "ar rahman"}, "رحمن": same("rahman"),
	"عزيز": same("aziz"), "العزيز": {"al aziz", "al aziz"}, "حامد": {"hamid", "hamed"}, "حمد": same("hamad"),
	"حمزة": {"hamza", "hamzah"}, "طارق": {"tariq", "tarek"}, "ياسين": {"yasin", "yassin"}, "ناصر": {"nasir", "nasser"},
	"منصور": {"mansur", "mansour"}, "عادل": {"adil", "adel"}, "جابر": {"jabir", "jaber"}, "رشيد": {"rashid", "rachid"},
	"سيف": {"sayf", "saif"}, "فيصل": {"faysal", "faisal"}, "قاسم": {"qasim", "kassem"}, "هاشم": {"hashim", "hashem"},
	"عباس": same("abbas"), "زيد": {"zayd", "zaid"}, "زيدان": {"zaydan", "zidane"}, "شيخ": {"shaykh", "sheikh"}, "ولد": {"ould", "walad"},
	"ملا": same("mullah"), "قاري": same("qari"), "قارى": same("qari"), "بكر": {"bakr", "bakar"}, "سيد": {"sayyid", "syed"}, "خان": same("khan"), "أمير": {"amir", "emir"}, "امير": {"amir", "emir"},
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

// scripts numbers the scripts for compact storage (nameRec.script).
var scripts = [...]string{scriptLatin, scriptCyrillic, scriptGreek, scriptArabic}

func scriptCode(s string) uint8 {
	for i, n := range scripts {
		if n == s {
			return uint8(i)
		}
	}
	return 0
}

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
	if p, ok := arabicWords[string(w)]; ok {
		return p[0], p[1]
	}
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
		if p, ok := arabicAt(w, i); ok {
			// An unwritten short vowel between two consonants.
			if b0.Len() > 0 && p[0] != "" && isArabicConsonant(r) && !endsVowel(b0.String()) {
				p = pair{"a" + p[0], "a" + p[1]}
			}
			put(p)
			continue
		}
		b0.WriteRune(r)
		b1.WriteRune(r)
	}
	return b0.String(), b1.String()
}

// arabicAt is the romanisation of w[i], an Arabic letter, where it stands:
// و and ي begin a word as the consonants w and y; a final ه after a long
// vowel or in -iyah is silent in many spellings (Juma for جمعه, Zeiniye).
func arabicAt(w []rune, i int) (pair, bool) {
	r := w[i]
	switch {
	case i == 0 && r == 'و':
		return same("w"), true
	case i == 0 && r == 'ي':
		return same("y"), true
	case i > 1 && i == len(w)-1 && r == 'ه':
		return pair{"h", ""}, true
	}
	p, ok := arabic[r]
	return p, ok
}

// isArabicConsonant: an Arabic letter that is no long vowel or its seat.
func isArabicConsonant(r rune) bool {
	return !strings.ContainsRune("اأإآٱوىيیةؤئ", r)
}

func endsVowel(s string) bool {
	return s != "" && strings.IndexByte("aeiouwy", s[len(s)-1]) >= 0
}

func isCyrVowel(r rune) bool {
	return strings.ContainsRune("аеёиоуыэюяіїєъь", r)
}
