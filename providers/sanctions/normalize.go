package sanctions

import (
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// token is one normalised word of a name.
type token struct {
	s string
	// c is canonical(s), "" for non-ASCII words.
	c string
	// skel is set when the word came from Arabic script: it is a consonant
	// skeleton and is compared as one (see tokenSim).
	skel bool
}

// normName is a name after normalisation: one or two spellings (the two
// transliteration schemes, when they differ) of its tokens.
type normName struct {
	variants [][]token
	// script is the non-Latin script the name was written in, or "".
	script string
}

// recompose puts back the Cyrillic letters that NFKD splits into a base
// letter and a mark but which are letters of their own (й is not и).
var recompose = map[[2]rune]rune{
	{'и', 0x306}: 'й', {'е', 0x308}: 'ё', {'і', 0x308}: 'ї', {'у', 0x306}: 'ў',
	{'г', 0x301}: 'ѓ', {'к', 0x301}: 'ќ',
}

// honorifics are titles and forms of address: they are not part of who a
// person is, and lists and customers use them inconsistently.
var honorifics = setOf(`mr mrs ms miss mx dr doctor prof professor sir dame lord lady
	sheikh shaikh shaykh sheik haji hajji hadji alhaj alhajj hajj
	general gen colonel col major maj captain capt lieutenant lt admiral adm
	sergeant sgt commander marshal brigadier president minister senator
	imam mullah mulla ayatollah mufti maulana mawlana rev reverend
	his her excellency hon honourable honorable jr sr ii iii`)

// legalForms state an organisation's legal form, not its identity; they
// are dropped from organisation names only ("General" may be a name part
// of a company, "Co" of a person is unlikely to matter).
var legalForms = setOf(`ltd limited plc llp lp inc incorporated corp corporation co company llc
	gmbh ag kg ohg ug eg ev kgaa mbh bv nv vof cv sa sas sasu sarl eurl sca snc
	spa srl sl slu sau sro as oy oyj ab aps kft zrt doo dd ad ood eood
	ooo zao oao pao ao tov pat pjsc ojsc cjsc jsc fze fzco fzc fzllc sal saog saoc
	pte pty bhd sdn tbk pt cia ltda sae`)

func setOf(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// normalize turns a name as written into tokens: NFKD with diacritics
// stripped, lower case, transliteration of Cyrillic, Greek and Arabic, every
// character that is not a letter or digit a separator (apostrophes join:
// O'Brien is "obrien"), then honorifics (persons) or legal forms
// (organisations) dropped, unless that would leave nothing.
func normalize(full string, org bool) normName {
	var out normName
	var words [][]rune
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, cur)
			cur = nil
		}
	}
	lower := strings.ToLower(full)
	if !isASCII(lower) {
		lower = norm.NFKD.String(lower)
	}
	for _, r := range lower {
		switch {
		case unicode.Is(unicode.Mn, r):
			if n := len(cur); n > 0 {
				if c, ok := recompose[[2]rune{cur[n-1], r}]; ok {
					cur[n-1] = c
				}
			}
		case r == '\'' || r == '’' || r == 'ʼ' || r == '`' || r == '‘':
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			cur = append(cur, unicode.ToLower(r))
		default:
			flush()
		}
	}
	flush()

	var v0, v1 []token
	for _, w := range words {
		script := scriptLatin
		for _, r := range w {
			if s := scriptOf(r); s != scriptLatin {
				script = s
				break
			}
		}
		var s0, s1 string
		if script == scriptLatin {
			s0 = latinWord(w)
			s1 = s0
		} else {
			if out.script == "" {
				out.script = script
			}
			s0, s1 = transliterateWord(w)
			s0, s1 = latinWord([]rune(s0)), latinWord([]rune(s1))
		}
		skel := script == scriptArabic
		if skel && len(w) > 3 && w[0] == 'ا' && w[1] == 'ل' {
			// The article is written joined to its word: "التكريتي" is
			// "al-Tikriti".
			s0, s1 = "al "+s0[2:], "al "+s1[2:]
		}
		for _, p := range [2]struct {
			s string
			v *[]token
		}{{s0, &v0}, {s1, &v1}} {
			// A transliteration may itself contain separators (none today),
			// so split again.
			for _, f := range strings.Fields(p.s) {
				c := ""
				if isASCII(f) {
					c = canonical(f)
				}
				*p.v = append(*p.v, token{s: f, c: c, skel: skel})
			}
		}
	}
	drop := honorifics
	if org {
		drop = legalForms
		// "S.A.", "B.V.": letters separated by dots are one word.
		v0, v1 = joinLetters(v0), joinLetters(v1)
	}
	v0, v1 = dropWords(v0, drop), dropWords(v1, drop)
	if len(v0) == 0 {
		return out
	}
	out.variants = append(out.variants, v0)
	if !sameTokens(v0, v1) {
		out.variants = append(out.variants, v1)
	}
	return out
}

// latinWord maps the Latin letters NFKD leaves alone (ß, ø, ł, ...).
func latinWord(w []rune) string {
	var b strings.Builder
	for _, r := range w {
		if s, ok := latinSpecial[r]; ok {
			b.WriteString(s)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func dropWords(ts []token, drop map[string]bool) []token {
	if !slices.ContainsFunc(ts, func(t token) bool { return drop[t.s] }) {
		return ts
	}
	var kept []token
	for _, t := range ts {
		if !drop[t.s] {
			kept = append(kept, t)
		}
	}
	if len(kept) == 0 {
		return ts
	}
	return kept
}

// joinLetters joins runs of single-letter tokens ("s a" → "sa").
func joinLetters(ts []token) []token {
	var out []token
	for i := 0; i < len(ts); i++ {
		if len(ts[i].s) == 1 && i+1 < len(ts) && len(ts[i+1].s) == 1 {
			s := ts[i].s
			for i+1 < len(ts) && len(ts[i+1].s) == 1 {
				i++
				s += ts[i].s
			}
			out = append(out, token{s: s, c: canonical(s)})
			continue
		}
		out = append(out, ts[i])
	}
	return out
}

func sameTokens(a, b []token) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// isOrgSchema reports whether entities of a schema have organisation names.
func isOrgSchema(schema string) bool {
	switch schema {
	case "Organization", "Company", "LegalEntity", "PublicBody":
		return true
	}
	return false
}
