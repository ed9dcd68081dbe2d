package mrz

import (
	"fmt"
	"sort"
)

// Field names an MRZ field in a CheckError or Correction; the values are
// stable snake_case identifiers meant for APIs and logs.
type Field string

// MRZ fields.
const (
	FieldDocumentCode   Field = "document_code"
	FieldIssuingState   Field = "issuing_state"
	FieldName           Field = "name"
	FieldDocumentNumber Field = "document_number"
	FieldNationality    Field = "nationality"
	FieldBirthDate      Field = "birth_date"
	FieldSex            Field = "sex"
	FieldExpiryDate     Field = "expiry_date"
	FieldPersonalNumber Field = "personal_number" // TD3 optional data
	FieldOptionalData   Field = "optional_data"   // TD1, TD2, MRV optional data
	FieldComposite      Field = "composite"
	FieldLayout         Field = "layout" // Document.Lines do not fit Document.Format
)

// Kind says what is wrong with a field.
type Kind string

// Kinds of CheckError.
const (
	// KindCheckDigit: the check digit does not match its data; Expected and
	// Found are set.
	KindCheckDigit Kind = "check_digit"
	// KindInvalidCharacter: a character the field does not allow; Found is
	// set. Only the first one in a field is reported.
	KindInvalidCharacter Kind = "invalid_character"
	// KindInvalidDate: a date part is out of range or malformed, or an expiry
	// date has unknown parts.
	KindInvalidDate Kind = "invalid_date"
	// KindInvalidValue: a field is well formed character by character but
	// not a possible value (an empty name, "<UT" as a country code, ...).
	KindInvalidValue Kind = "invalid_value"
)

// CheckError is one problem Validate found.
type CheckError struct {
	Field Field
	Kind  Kind
	// Line and Pos (1-based) locate the check digit for KindCheckDigit, the
	// character for KindInvalidCharacter, the field's start otherwise.
	Line, Pos int
	Expected  rune   // KindCheckDigit: the digit the data calls for
	Found     rune   // KindCheckDigit, KindInvalidCharacter: what the MRZ has
	Detail    string // KindInvalidDate, KindInvalidValue: what is wrong
}

// Error describes e, naming the field first so the text reads on its own.
func (e CheckError) Error() string {
	switch e.Kind {
	case KindCheckDigit:
		return fmt.Sprintf("mrz: %s check digit at line %d position %d: expected %q, found %q", e.Field, e.Line, e.Pos, e.Expected, e.Found)
	case KindInvalidCharacter:
		return fmt.Sprintf("mrz: %s: invalid character %q at line %d position %d", e.Field, e.Found, e.Line, e.Pos)
	}
	return fmt.Sprintf("mrz: %s: %s (line %d position %d)", e.Field, e.Detail, e.Line, e.Pos)
}

// CheckDigit computes the Doc 9303 check digit of data: characters weighted
// 7, 3, 1, 7, 3, 1, ... with digits worth their value, A–Z 10–35 and '<' 0,
// summed modulo 10. ok is false if data holds any other character
// (lowercase included).
func CheckDigit(data string) (digit rune, ok bool) {
	return checkDigit([]rune(data))
}

func checkDigit(data []rune) (rune, bool) {
	weights := [3]int{7, 3, 1}
	sum := 0
	for i, r := range data {
		v, ok := charValue(r)
		if !ok {
			return 0, false
		}
		sum += v * weights[i%3]
	}
	return rune('0' + sum%10), true
}

func charValue(r rune) (int, bool) {
	switch {
	case isDigit(r):
		return int(r - '0'), true
	case isLetter(r):
		return int(r-'A') + 10, true
	case r == '<':
		return 0, true
	}
	return 0, false
}

func isLetter(r rune) bool { return 'A' <= r && r <= 'Z' }

// Validate checks d.Lines as laid out by d.Format and returns every problem,
// in MRZ order, or nil. It verifies every check digit of the format
// (document number, birth date, expiry date, TD3 personal number, composite),
// the character class of every field, date values and the country-code
// shape. Validate reads d.Lines only: edits to the decoded fields are not
// seen.
//
// A check digit is computed over any MRZ characters (A–Z, 0–9, '<'), even
// ones its field does not allow. When its data holds another character it
// cannot be computed, and only the KindInvalidCharacter error is reported.
func (d *Document) Validate() []CheckError {
	if d == nil {
		return []CheckError{{Field: FieldLayout, Kind: KindInvalidValue, Detail: "nil document"}}
	}
	n, width, ok := d.Format.shape()
	if !ok {
		return []CheckError{{Field: FieldLayout, Kind: KindInvalidValue, Detail: fmt.Sprintf("unknown format %q", d.Format)}}
	}
	if len(d.Lines) != n {
		return []CheckError{{Field: FieldLayout, Kind: KindInvalidValue, Detail: fmt.Sprintf("%s has %d lines, got %d", d.Format, n, len(d.Lines))}}
	}
	lines := make([][]rune, n)
	for i, s := range d.Lines {
		lines[i] = []rune(s)
		if len(lines[i]) != width {
			return []CheckError{{Field: FieldLayout, Kind: KindInvalidValue, Line: i + 1, Pos: 1,
				Detail: fmt.Sprintf("%s lines have %d characters, got %d", d.Format, width, len(lines[i]))}}
		}
	}
	return validate(resolve(d.Format, lines), lines)
}

// validator collects the errors of one document.
type validator struct {
	lines [][]rune
	errs  []CheckError
}

func validate(l layout, lines [][]rune) []CheckError {
	v := &validator{lines: lines}

	code := text(lines, l.docCode)
	switch {
	case !isLetter(code[0]):
		v.invalidChar(FieldDocumentCode, l.docCode.line, l.docCode.start, code[0])
	case !isLetter(code[1]) && code[1] != '<':
		v.invalidChar(FieldDocumentCode, l.docCode.line, l.docCode.start+1, code[1])
	}

	v.country(FieldIssuingState, l.issuing)

	if v.chars(FieldName, l.name, isNameChar) && allFiller(text(lines, l.name)) {
		v.invalidValue(FieldName, l.name, "name is empty")
	}

	number := append(append([]rune(nil), text(lines, l.docNumber)...), text(lines, l.overflow)...)
	okNumber := v.chars(FieldDocumentNumber, l.docNumber, isAlnumChar)
	okNumber = v.chars(FieldDocumentNumber, l.overflow, isAlnumChar) && okNumber
	if okNumber && allFiller(number) {
		v.invalidValue(FieldDocumentNumber, l.docNumber, "document number is empty")
	}
	if l.overflowMark && l.overflow.end == l.overflow.start {
		v.invalidValue(FieldDocumentNumber, l.docCheck,
			"the check digit position holds '<', announcing a long document number, but the optional data has only one character before the next filler")
	}
	v.check(FieldDocumentNumber, l.docCheck, false, l.docNumber, l.overflow)

	v.country(FieldNationality, l.nationality)

	v.date(FieldBirthDate, l.birth, false)
	v.check(FieldBirthDate, l.birthCheck, false, l.birth)

	if sex := at(lines, l.sex); sex != 'M' && sex != 'F' && sex != 'X' && sex != '<' {
		v.invalidChar(FieldSex, l.sex.line, l.sex.start, sex)
	}

	v.date(FieldExpiryDate, l.expiry, true)
	v.check(FieldExpiryDate, l.expiryCheck, false, l.expiry)

	v.chars(l.optionalField, l.optional1, isAlnumChar)
	if l.optionalCheck.end > l.optionalCheck.start {
		// Doc 9303 part 4: the personal-number check digit may be '<' when
		// the personal number is all filler.
		v.check(FieldPersonalNumber, l.optionalCheck, allFiller(text(lines, l.optional1)), l.optional1)
	}
	v.chars(FieldOptionalData, l.optional2, isAlnumChar)

	if l.composite.end > l.composite.start {
		v.check(FieldComposite, l.composite, false, l.compositeData...)
	}

	sort.SliceStable(v.errs, func(i, j int) bool {
		a, b := v.errs[i], v.errs[j]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Pos < b.Pos
	})
	return v.errs
}

// check verifies the check digit at pos against data; fillerOK accepts '<'.
func (v *validator) check(f Field, pos span, fillerOK bool, data ...span) {
	var all []rune
	for _, s := range data {
		all = append(all, text(v.lines, s)...)
	}
	want, ok := checkDigit(all)
	if !ok {
		return // not an MRZ character: reported by its field
	}
	found := at(v.lines, pos)
	if found == want || fillerOK && found == '<' {
		return
	}
	v.errs = append(v.errs, CheckError{Field: f, Kind: KindCheckDigit, Line: pos.line + 1, Pos: pos.start + 1, Expected: want, Found: found})
}

// chars reports the first character of s that allowed rejects; it returns
// whether there was none.
func (v *validator) chars(f Field, s span, allowed func(rune) bool) bool {
	for i, r := range text(v.lines, s) {
		if !allowed(r) {
			v.invalidChar(f, s.line, s.start+i, r)
			return false
		}
	}
	return true
}

// date checks the characters and the value of a date; complete requires
// every part to be known, as Doc 9303 does for expiry dates.
func (v *validator) date(f Field, s span, complete bool) {
	if !v.chars(f, s, func(r rune) bool { return isDigit(r) || r == '<' }) {
		return
	}
	d := parseDate(string(text(v.lines, s)))
	switch problem := d.problem(); {
	case problem != "":
		v.errs = append(v.errs, CheckError{Field: f, Kind: KindInvalidDate, Line: s.line + 1, Pos: s.start + 1, Detail: problem})
	case complete && !d.Complete():
		v.errs = append(v.errs, CheckError{Field: f, Kind: KindInvalidDate, Line: s.line + 1, Pos: s.start + 1, Detail: "date has unknown parts"})
	}
}

// country checks a three-letter code: letters, then only fillers ("D<<").
func (v *validator) country(f Field, s span) {
	if !v.chars(f, s, func(r rune) bool { return isLetter(r) || r == '<' }) {
		return
	}
	if !countryCode(text(v.lines, s)) {
		v.invalidValue(f, s, fmt.Sprintf("%q is not a country code: letters followed only by fillers", string(text(v.lines, s))))
	}
}

func (v *validator) invalidChar(f Field, line, pos int, r rune) {
	v.errs = append(v.errs, CheckError{Field: f, Kind: KindInvalidCharacter, Line: line + 1, Pos: pos + 1, Found: r})
}

func (v *validator) invalidValue(f Field, s span, detail string) {
	v.errs = append(v.errs, CheckError{Field: f, Kind: KindInvalidValue, Line: s.line + 1, Pos: s.start + 1, Detail: detail})
}

func isNameChar(r rune) bool  { return isLetter(r) || r == '<' }
func isAlnumChar(r rune) bool { return isLetter(r) || isDigit(r) || r == '<' }

func allFiller(rs []rune) bool {
	for _, r := range rs {
		if r != '<' {
			return false
		}
	}
	return true
}
