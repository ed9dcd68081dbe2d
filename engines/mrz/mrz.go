// Package mrz parses and validates the machine-readable zone (MRZ) of travel
// documents as specified by ICAO Doc 9303 (8th edition):
//
//   - TD1, 3 lines of 30 characters: ID cards (part 5);
//   - TD2, 2 lines of 36 characters: ID cards, older residence permits (part 6);
//   - TD3, 2 lines of 44 characters: passports (part 4);
//   - MRV-A (2×44) and MRV-B (2×36): machine-readable visas (part 7), told
//     apart from TD3 and TD2 by a document code starting with "V". Visas have
//     no composite check digit and no personal-number check digit.
//
// Parse decodes what a person types or pastes; it fails only when the text
// does not have the shape of an MRZ. Wrong check digits, invalid characters
// and impossible dates do not stop it, so that Document.Validate can report
// every problem at once, each naming the field concerned.
//
// Parse accepts:
//
//   - lines separated by "\n", "\r\n" or "\r"; blank lines and white space
//     around lines are ignored;
//   - lowercase ASCII letters, read as uppercase;
//   - the whole MRZ on one line when it has exactly 90 (TD1), 72 (TD2, MRV-B)
//     or 88 (TD3, MRV-A) characters;
//   - spaces, tabs and other white space inside lines, deleted as typing
//     noise, but only when the lines without them have an MRZ shape and the
//     lines with them do not. If the lines already have an MRZ shape with
//     their spaces counted, the spaces may stand for '<' fillers and Parse
//     refuses to guess.
//
// Anything else fails with an error wrapping ErrLayout that names the shapes
// expected. Other characters (say '«' for '<') are kept and reported by
// Validate as invalid characters of the field they are in.
//
// In positions ICAO defines as digits only (dates and check digits) Parse
// reads the letters O, I, B, S, Z and G as 0, 1, 8, 5, 2 and 6, the usual OCR
// confusions; in country codes, which are letters only, it reads 0, 1, 5 and 8
// as O, I, S and B when that makes the code letters only. Every such change is
// listed in Document.Corrections. Names, document numbers and optional data
// may legitimately hold both letters and digits and are never corrected.
//
// Country codes are not checked against a list: Doc 9303 part 3 admits codes
// outside ISO 3166-1 (D for Germany, UTO for the specimen state Utopia, XXA,
// XXB, XXC and XXX for stateless persons, refugees and unspecified
// nationality, EUE for the European Union, UNO, UNA and UNK for United
// Nations documents, ...), so the code is exposed as found.
//
// Not covered: the transliteration of national characters (names are
// returned as the MRZ spells them), national formats of the optional data,
// and the chip.
package mrz

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Format is the MRZ layout of a document.
type Format string

// The formats Parse recognises.
const (
	TD1  Format = "TD1"   // 3 × 30, ID cards
	TD2  Format = "TD2"   // 2 × 36
	TD3  Format = "TD3"   // 2 × 44, passports
	MRVA Format = "MRV-A" // 2 × 44, visa
	MRVB Format = "MRV-B" // 2 × 36, visa
)

// shape returns the number of lines and characters per line of f.
func (f Format) shape() (lines, width int, ok bool) {
	switch f {
	case TD1:
		return 3, 30, true
	case TD2, MRVB:
		return 2, 36, true
	case TD3, MRVA:
		return 2, 44, true
	}
	return 0, 0, false
}

// ErrLayout is wrapped by the error Parse returns when the text does not have
// the shape of any MRZ format.
var ErrLayout = errors.New("mrz: not a machine-readable zone")

// expectedShapes is appended to layout errors so the user learns what to type.
const expectedShapes = "want 3 lines of 30 characters (TD1), 2 lines of 36 (TD2, MRV-B) or 2 lines of 44 (TD3, MRV-A), or all of it on one line of 90, 72 or 88 characters"

// Document is a decoded MRZ. Text fields are as the MRZ spells them with
// filler ('<') trimmed; nothing is validated here (see Validate).
type Document struct {
	Format Format

	// Lines are the MRZ lines Parse decoded: uppercased, noise removed and
	// OCR corrections applied. Validate checks these, not the fields below.
	Lines []string

	DocumentCode   string // "P", "I", "ID", "AC", "V", ...: positions 1–2, filler trimmed
	IssuingState   string // "NLD", "UTO", "D" (for "D<<"), ...
	DocumentNumber string // including TD1/TD2 overflow into the optional data
	Surname        string // primary identifier; name parts joined by spaces
	GivenNames     string // secondary identifier; name parts joined by spaces
	// NameTruncated is true when the name ends in the field's last position:
	// the name may have been truncated (Doc 9303 part 3), or fit exactly.
	NameTruncated bool
	Nationality   string // "UTO", "D", "XXA", ...
	BirthDate     Date
	Sex           string // "M", "F" or "X" ('<' and 'X' both mean unspecified); else the character found
	ExpiryDate    Date

	// OptionalData1 is the optional data field, filler trimmed: TD1 line 1
	// positions 16–30, TD2 line 2 29–35 (both without any document-number
	// overflow and its check digit), TD3 line 2 29–42 (the personal number),
	// MRV-A line 2 29–44, MRV-B line 2 29–36.
	OptionalData1 string
	// OptionalData2 is TD1 line 2 positions 19–29, filler trimmed; empty for
	// the other formats.
	OptionalData2 string

	// CheckDigits are the check digits as found in the MRZ.
	CheckDigits CheckDigits

	// Corrections lists the OCR confusions Parse corrected, in MRZ order.
	Corrections []Correction
}

// CheckDigits holds check-digit characters as they appear in the MRZ (after
// OCR correction). A digit the format does not have is 0.
type CheckDigits struct {
	DocumentNumber rune // at the end of the overflow when the number overflows
	BirthDate      rune
	ExpiryDate     rune
	PersonalNumber rune // TD3 only; may be '<' when the personal number is empty
	Composite      rune // not on visas
}

// Parse decodes an MRZ typed or pasted as text; see the package
// documentation for what it accepts. The error, if any, wraps ErrLayout.
func Parse(text string) (*Document, error) {
	lines, format, err := normalize(text)
	if err != nil {
		return nil, err
	}
	l := resolve(format, lines)
	d := &Document{Format: format, Corrections: correct(l, lines)}
	d.decode(l, lines)
	return d, nil
}

// decode fills d's fields from lines laid out as l.
func (d *Document) decode(l layout, lines [][]rune) {
	get := func(s span) string { return string(text(lines, s)) }
	d.Lines = make([]string, len(lines))
	for i, ln := range lines {
		d.Lines[i] = string(ln)
	}
	d.DocumentCode = strings.TrimRight(get(l.docCode), "<")
	d.IssuingState = strings.TrimRight(get(l.issuing), "<")
	d.DocumentNumber = strings.TrimRight(get(l.docNumber), "<") + get(l.overflow)
	d.Surname, d.GivenNames, d.NameTruncated = splitName(get(l.name))
	d.Nationality = strings.TrimRight(get(l.nationality), "<")
	d.BirthDate = parseDate(get(l.birth))
	d.ExpiryDate = parseDate(get(l.expiry))
	switch sex := get(l.sex); sex {
	case "<":
		d.Sex = "X"
	default:
		d.Sex = sex
	}
	d.OptionalData1 = strings.Trim(get(l.optional1), "<")
	d.OptionalData2 = strings.Trim(get(l.optional2), "<")
	d.CheckDigits = CheckDigits{
		DocumentNumber: at(lines, l.docCheck),
		BirthDate:      at(lines, l.birthCheck),
		ExpiryDate:     at(lines, l.expiryCheck),
		PersonalNumber: at(lines, l.optionalCheck),
		Composite:      at(lines, l.composite),
	}
}

// splitName splits an MRZ name field at the first "<<" into primary and
// secondary identifier; single fillers inside either become spaces.
func splitName(field string) (surname, given string, truncated bool) {
	truncated = field != "" && !strings.HasSuffix(field, "<")
	primary, secondary, _ := strings.Cut(strings.TrimRight(field, "<"), "<<")
	return fillerToSpace(primary), fillerToSpace(secondary), truncated
}

// fillerToSpace joins the parts of s separated by runs of '<' with one space.
func fillerToSpace(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '<' }), " ")
}

// normalize turns input text into MRZ lines of a recognised format.
func normalize(input string) ([][]rune, Format, error) {
	input = strings.ReplaceAll(input, "\r\n", "\n")
	input = strings.ReplaceAll(input, "\r", "\n")
	var raw [][]rune
	spaces := false
	for _, ln := range strings.Split(input, "\n") {
		ln = strings.TrimSpace(ln)
		if ln == "" {
			continue
		}
		rs := []rune(ln)
		for i, r := range rs {
			switch {
			case 'a' <= r && r <= 'z':
				rs[i] = r - 'a' + 'A'
			case unicode.IsSpace(r):
				spaces = true
			}
		}
		raw = append(raw, rs)
	}
	if len(raw) == 0 {
		return nil, "", fmt.Errorf("%w: no text; %s", ErrLayout, expectedShapes)
	}
	if !spaces {
		if lines, f, ok := detect(raw); ok {
			return lines, f, nil
		}
		return nil, "", fmt.Errorf("%w: got %s; %s", ErrLayout, describe(raw), expectedShapes)
	}
	if _, _, ok := detect(raw); ok {
		return nil, "", fmt.Errorf("%w: got %s counting the spaces inside lines, which may stand for '<' fillers; type '<' for fillers", ErrLayout, describe(raw))
	}
	squeezed := make([][]rune, len(raw))
	for i, rs := range raw {
		for _, r := range rs {
			if !unicode.IsSpace(r) {
				squeezed[i] = append(squeezed[i], r)
			}
		}
	}
	if lines, f, ok := detect(squeezed); ok {
		return lines, f, nil
	}
	return nil, "", fmt.Errorf("%w: got %s without spaces; %s", ErrLayout, describe(squeezed), expectedShapes)
}

// detect recognises the format from the number and length of lines, and
// splits a one-line MRZ into its lines.
func detect(lines [][]rune) ([][]rune, Format, bool) {
	if len(lines) == 1 {
		width := map[int]int{90: 30, 72: 36, 88: 44}[len(lines[0])]
		if width == 0 {
			return nil, "", false
		}
		one := lines[0]
		lines = nil
		for i := 0; i < len(one); i += width {
			lines = append(lines, one[i:i+width])
		}
	}
	for _, f := range []Format{TD1, TD2, TD3} {
		n, width, _ := f.shape()
		if len(lines) != n {
			continue
		}
		same := true
		for _, ln := range lines {
			same = same && len(ln) == width
		}
		if !same {
			continue
		}
		if lines[0][0] == 'V' { // Doc 9303 part 7: visa document codes start with V
			switch f {
			case TD2:
				f = MRVB
			case TD3:
				f = MRVA
			}
		}
		return lines, f, true
	}
	return nil, "", false
}

// describe says how many lines of what length text has, for error messages.
func describe(lines [][]rune) string {
	lengths := make([]string, len(lines))
	for i, ln := range lines {
		lengths[i] = strconv.Itoa(len(ln))
	}
	list := lengths[0]
	if n := len(lengths); n > 1 {
		list = strings.Join(lengths[:n-1], ", ") + " and " + lengths[n-1]
	}
	if len(lines) == 1 {
		return "1 line of " + list + " characters"
	}
	return strconv.Itoa(len(lines)) + " lines of " + list + " characters"
}
