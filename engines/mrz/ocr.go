package mrz

import (
	"fmt"
	"sort"
)

// Correction records one character Parse changed because OCR (or a typist)
// confused a letter with a digit in a position whose character class ICAO
// fixes.
type Correction struct {
	Field     Field
	Line, Pos int  // 1-based
	From, To  rune // as found, as read
}

// String describes c, e.g. "birth_date: line 2 position 16: read 'O' as '0'".
func (c Correction) String() string {
	return fmt.Sprintf("%s: line %d position %d: read %q as %q", c.Field, c.Line, c.Pos, c.From, c.To)
}

// digitFor maps the letters most often read in place of a digit. It is
// applied only where Doc 9303 allows digits (and '<') alone: dates and check
// digits. Document numbers and optional data are alphanumeric, so an 'O'
// there may be an O.
var digitFor = map[rune]rune{'O': '0', 'I': '1', 'B': '8', 'S': '5', 'Z': '2', 'G': '6'}

// letterFor maps the digits most often read in place of a letter, for
// country codes, which are letters (and trailing '<') only.
var letterFor = map[rune]rune{'0': 'O', '1': 'I', '5': 'S', '8': 'B'}

// AsClass is ch as Parse takes it where only class c may stand: ch itself
// when it may stand there (the filler anywhere), else the look-alike Parse
// corrects it to; false when there is none.
func AsClass(ch rune, c Class) (rune, bool) {
	switch {
	case ch == '<' || c == Any:
		return ch, true
	case c == Digits && ch >= '0' && ch <= '9', c == Letters && ch >= 'A' && ch <= 'Z':
		return ch, true
	case c == Digits:
		d, ok := digitFor[ch]
		return d, ok
	}
	l, ok := letterFor[ch]
	return l, ok
}

// correct applies the OCR corrections to lines in place and lists them in
// MRZ order.
func correct(l layout, lines [][]rune) []Correction {
	var cs []Correction
	digits := func(f Field, s span) {
		for i := s.start; i < s.end; i++ {
			if d, ok := digitFor[lines[s.line][i]]; ok {
				cs = append(cs, Correction{f, s.line + 1, i + 1, lines[s.line][i], d})
				lines[s.line][i] = d
			}
		}
	}
	digits(FieldDocumentNumber, l.docCheck)
	digits(FieldBirthDate, l.birth)
	digits(FieldBirthDate, l.birthCheck)
	digits(FieldExpiryDate, l.expiry)
	digits(FieldExpiryDate, l.expiryCheck)
	digits(FieldPersonalNumber, l.optionalCheck)
	digits(FieldComposite, l.composite)

	country := func(f Field, s span) {
		code := text(lines, s)
		if countryCode(code) {
			return
		}
		fixed := make([]rune, len(code))
		for i, r := range code {
			fixed[i] = r
			if c, ok := letterFor[r]; ok {
				fixed[i] = c
			}
		}
		if !countryCode(fixed) {
			return // still not a code: leave it for Validate to report
		}
		for i := range code {
			if fixed[i] != code[i] {
				cs = append(cs, Correction{f, s.line + 1, s.start + i + 1, code[i], fixed[i]})
				code[i] = fixed[i]
			}
		}
	}
	country(FieldIssuingState, l.issuing)
	country(FieldNationality, l.nationality)

	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].Line != cs[j].Line {
			return cs[i].Line < cs[j].Line
		}
		return cs[i].Pos < cs[j].Pos
	})
	return cs
}

// countryCode reports whether code is letters followed only by fillers, with
// at least one letter: "NLD", "D<<".
func countryCode(code []rune) bool {
	letters := 0
	for _, r := range code {
		switch {
		case 'A' <= r && r <= 'Z':
			if letters < 0 {
				return false // letter after a filler
			}
			letters++
		case r == '<':
			if letters == 0 {
				return false
			}
			letters = -1
		default:
			return false
		}
	}
	return letters != 0
}
