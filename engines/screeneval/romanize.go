package screeneval

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

func titleCase(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// stripMarks removes diacritics (NFD, combining marks dropped).
func stripMarks(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return norm.NFC.String(b.String())
}

// romanConventions are the romanisations lists use for Cyrillic names; the
// generator picks one per entity so aliases differ as they do in real lists.
var romanConventions = []map[string]string{
	// BGN/PCGN-like
	{"ё": "yo", "ж": "zh", "й": "y", "х": "kh", "ц": "ts", "ч": "ch", "ш": "sh", "щ": "shch", "ы": "y", "ю": "yu", "я": "ya", "ий": "iy", "ей": "ey", "е0": "ye", "кс": "ks"},
	// ICAO 9303 (passports)
	{"ё": "e", "ж": "zh", "й": "i", "х": "kh", "ц": "ts", "ч": "ch", "ш": "sh", "щ": "shch", "ы": "y", "ю": "iu", "я": "ia", "ий": "ii", "ей": "ei", "е0": "e", "кс": "ks"},
	// Popular English
	{"ё": "yo", "ж": "zh", "й": "y", "х": "kh", "ц": "ts", "ч": "ch", "ш": "sh", "щ": "shch", "ы": "y", "ю": "yu", "я": "ya", "ий": "y", "ей": "ei", "е0": "ye", "кс": "x"},
	// German/French-influenced
	{"ё": "jo", "ж": "sh", "й": "j", "х": "ch", "ц": "z", "ч": "tsch", "ш": "sch", "щ": "schtsch", "ы": "y", "ю": "ju", "я": "ja", "ий": "ij", "ей": "ej", "е0": "je", "кс": "ks"},
}

var cyrBase = map[rune]string{
	'а': "a", 'б': "b", 'в': "v", 'г': "g", 'д': "d", 'е': "e", 'з': "z", 'и': "i", 'к': "k", 'л': "l",
	'м': "m", 'н': "n", 'о': "o", 'п': "p", 'р': "r", 'с': "s", 'т': "t", 'у': "u", 'ф': "f", 'ъ': "",
	'ь': "", 'э': "e", 'і': "i", 'ї': "yi", 'є': "ye", 'ґ': "g",
	'ђ': "đ", 'ј': "j", 'љ': "lj", 'њ': "nj", 'ћ': "ć", 'џ': "dž",
}

// romanizeCyrillic writes a Cyrillic name in Latin letters by convention
// conv; Serbian names are written in Serbian Latin (with diacritics) and
// Ukrainian ones with the Ukrainian readings of г and и.
func romanizeCyrillic(s string, conv int) string {
	c := romanConventions[conv]
	serb := strings.ContainsAny(strings.ToLower(s), "ђјљњћџ")
	ukr := strings.ContainsAny(strings.ToLower(s), "іїєґ") || strings.HasSuffix(strings.ToLower(s), "енко")
	var out []string
	for _, w := range strings.Fields(s) {
		r := []rune(strings.ToLower(w))
		var b strings.Builder
		for i := 0; i < len(r); i++ {
			ch := r[i]
			if serb {
				if l, ok := map[rune]string{'ч': "č", 'ш': "š", 'ж': "ž", 'ц': "c", 'х': "h"}[ch]; ok {
					b.WriteString(l)
					continue
				}
			}
			if ukr {
				if l, ok := map[rune]string{'г': "h", 'и': "y"}[ch]; ok {
					b.WriteString(l)
					continue
				}
			}
			if i+1 < len(r) {
				if l, ok := c[string(r[i:i+2])]; ok && (i+2 == len(r) || r[i : i+2][0] == 'к') {
					b.WriteString(l)
					i++
					continue
				}
			}
			if ch == 'е' && (i == 0 || strings.ContainsRune("аеёиоуыэюяьъ", r[i-1])) {
				b.WriteString(c["е0"])
				continue
			}
			if l, ok := c[string(ch)]; ok {
				b.WriteString(l)
			} else if l, ok := cyrBase[ch]; ok {
				b.WriteString(l)
			} else {
				b.WriteRune(ch)
			}
		}
		out = append(out, titleCase(b.String()))
	}
	return strings.Join(out, " ")
}

// greekConventions: how lists write η, υ, χ, β and the final -ος.
var greekConventions = []map[rune]string{
	{'η': "i", 'υ': "y", 'χ': "ch", 'β': "v", 'γ': "g", 'δ': "d", 'θ': "th"},
	{'η': "e", 'υ': "i", 'χ': "kh", 'β': "v", 'γ': "g", 'δ': "d", 'θ': "th"},
	{'η': "i", 'υ': "i", 'χ': "h", 'β': "b", 'γ': "g", 'δ': "d", 'θ': "th"},
}

var greekBase = map[rune]string{
	'α': "a", 'ε': "e", 'ζ': "z", 'ι': "i", 'κ': "k", 'λ': "l", 'μ': "m", 'ν': "n", 'ξ': "x", 'ο': "o",
	'π': "p", 'ρ': "r", 'σ': "s", 'ς': "s", 'τ': "t", 'φ': "f", 'ψ': "ps", 'ω': "o",
}

// romanizeGreek writes a Greek name in Latin letters by convention conv.
func romanizeGreek(s string, conv int) string {
	c := greekConventions[conv]
	var out []string
	for _, w := range strings.Fields(stripMarks(s)) {
		r := []rune(strings.ToLower(w))
		var b strings.Builder
		for i := 0; i < len(r); i++ {
			if i+1 < len(r) {
				switch string(r[i : i+2]) {
				case "ου":
					b.WriteString("ou")
					i++
					continue
				case "μπ":
					if i == 0 {
						b.WriteString("b")
						i++
						continue
					}
				case "ντ":
					if i == 0 {
						b.WriteString("d")
						i++
						continue
					}
				case "γγ", "γκ":
					b.WriteString("ng")
					i++
					continue
				}
			}
			if l, ok := c[r[i]]; ok {
				b.WriteString(l)
			} else if l, ok := greekBase[r[i]]; ok {
				b.WriteString(l)
			} else {
				b.WriteRune(r[i])
			}
		}
		out = append(out, titleCase(b.String()))
	}
	return strings.Join(out, " ")
}
