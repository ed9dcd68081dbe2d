package mrz

import (
	"reflect"
	"sort"
	"strings"
	"testing"
)

// fieldKind is what the mutation tests compare: which field failed how.
type fieldKind struct {
	field Field
	kind  Kind
}

func kinds(errs []CheckError) []fieldKind {
	out := []fieldKind{}
	for _, e := range errs {
		out = append(out, fieldKind{e.Field, e.Kind})
	}
	sortKinds(out)
	return out
}

func sortKinds(fk []fieldKind) {
	sort.Slice(fk, func(i, j int) bool {
		if fk[i].field != fk[j].field {
			return fk[i].field < fk[j].field
		}
		return fk[i].kind < fk[j].kind
	})
}

// replaceAt returns a copy of lines with the character at p replaced by r.
func replaceAt(lines []string, p pos, r byte) []string {
	out := append([]string(nil), lines...)
	b := []byte(out[p.line-1])
	b[p.pos-1] = r
	out[p.line-1] = string(b)
	return out
}

// validateLines parses lines joined by newlines and validates the result.
func validateLines(t *testing.T, lines []string) (*Document, []CheckError) {
	t.Helper()
	d, err := Parse(strings.Join(lines, "\n"))
	if err != nil {
		t.Fatalf("Parse(%q): %v", lines, err)
	}
	return d, d.Validate()
}

// fixCheckDigits returns lines with every check digit set to what its data
// calls for, to build test documents with one deliberate problem.
func fixCheckDigits(t *testing.T, lines []string) []string {
	t.Helper()
	for range 6 { // the composite depends on the others: fix them first
		_, errs := validateLines(t, lines)
		changed := false
		for _, e := range errs {
			if e.Kind == KindCheckDigit {
				lines = replaceAt(lines, pos{e.Line, e.Pos}, byte(e.Expected))
				changed = true
				break
			}
		}
		if !changed {
			return lines
		}
	}
	return lines
}

func TestCheckDigit(t *testing.T) {
	tests := []struct {
		data string
		want rune
		ok   bool
	}{
		{"", '0', true},
		{"<<<<<<", '0', true},
		{"0", '0', true},
		{"1", '7', true},      // 1·7
		{"A", '0', true},      // 10·7 = 70
		{"Z", '5', true},      // 35·7 = 245
		{"<1", '3', true},     // 1·3
		{"<<1", '1', true},    // 1·1
		{"<<<1", '7', true},   // the weights repeat
		{"AB", '3', true},     // 70 + 11·3 = 103
		{"520727", '3', true}, // 35+6+0+49+6+7 = 103
		{"L898902C3", '6', true},
		{"a", 0, false}, // lowercase is not an MRZ character
		{"L8989 02C3", 0, false},
		{"«", 0, false},
	}
	for _, tt := range tests {
		got, ok := CheckDigit(tt.data)
		if got != tt.want || ok != tt.ok {
			t.Errorf("CheckDigit(%q) = %q, %v; want %q, %v", tt.data, got, ok, tt.want, tt.ok)
		}
	}
}

// TestMutateCheckDigits changes every check digit of every specimen and
// expects exactly that field's error, plus the composite's when the digit is
// covered by the composite.
func TestMutateCheckDigits(t *testing.T) {
	for _, s := range specimens {
		for _, c := range s.checks {
			orig := charAt(s.lines, c.at)
			mutated := '0' + (orig-'0'+1)%10
			lines := replaceAt(s.lines, c.at, mutated)
			_, errs := validateLines(t, lines)
			want := []fieldKind{{c.field, KindCheckDigit}}
			if c.composite {
				want = append(want, fieldKind{FieldComposite, KindCheckDigit})
			}
			sortKinds(want)
			if got := kinds(errs); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %s check digit %c→%c: errors %v, want %v", s.name, c.field, orig, mutated, errs, want)
				continue
			}
			for _, e := range errs {
				if e.Field != c.field {
					continue
				}
				if e.Expected != rune(orig) || e.Found != rune(mutated) || e.Line != c.at.line || e.Pos != c.at.pos {
					t.Errorf("%s: %s: got %+v, want expected %q found %q at %v", s.name, c.field, e, orig, mutated, c.at)
				}
			}
		}
	}
}

// TestMutateData changes every character covered by a check digit and
// expects that check digit (and the composite, where it covers the
// character) to fail, and nothing else.
func TestMutateData(t *testing.T) {
	for _, s := range specimens {
		for _, r := range s.data {
			for p := r.from; p <= r.to; p++ {
				at := pos{r.line, p}
				orig := charAt(s.lines, at)
				m, validDate := mutation(s.lines, at, r)
				lines := replaceAt(s.lines, at, m)
				_, errs := validateLines(t, lines)
				var want []fieldKind
				if !validDate {
					want = append(want, fieldKind{r.field, KindInvalidDate})
				}
				if r.field != FieldComposite {
					want = append(want, fieldKind{r.field, KindCheckDigit})
				}
				if r.composite || r.field == FieldComposite {
					want = append(want, fieldKind{FieldComposite, KindCheckDigit})
				}
				sortKinds(want)
				if got := kinds(errs); !reflect.DeepEqual(got, want) {
					t.Errorf("%s: %s %c→%c at %v: errors %v, want %v", s.name, r.field, orig, charAt(lines, at), at, errs, want)
				}
			}
		}
	}
}

// mutation picks a replacement for the character at p whose value differs
// by an amount the 7-3-1 weights always detect (not a multiple of 10). In a
// date it prefers a digit that keeps the date valid; where none does (the
// tens of month 08 can only be 0 or 1), validDate is false and the date is
// invalid too.
func mutation(lines []string, p pos, r dataRange) (b byte, validDate bool) {
	c := charAt(lines, p)
	switch {
	case r.dateDigits:
		date := []byte(lines[p.line-1][r.from-1 : r.to])
		for d := byte('0'); d <= '9'; d++ {
			date[p.pos-r.from] = d
			if d != c && parseDate(string(date)).Complete() {
				return d, true
			}
		}
		return '0' + (c-'0'+1)%10, false
	case isDigit(rune(c)):
		return '0' + (c-'0'+1)%10, true
	case isLetter(rune(c)):
		return 'A' + (c-'A'+1)%26, true
	default: // '<' is worth 0; 'A' would be worth 10 and go unnoticed
		return '1', true
	}
}

// TestMutateUncheckedFields: the issuing state, the name, the nationality
// and the sex are covered by no check digit, so changing them is no error.
func TestMutateUncheckedFields(t *testing.T) {
	for _, s := range specimens {
		// Positions from the Doc 9303 tables: issuing state, name,
		// nationality, sex.
		fields := []pos{{1, 3}, {1, 6}, {2, 11}, {2, 21}}
		if len(s.lines) == 3 { // TD1
			fields = []pos{{1, 3}, {3, 1}, {2, 16}, {2, 8}}
		}
		for _, at := range fields {
			c := charAt(s.lines, at)
			r := map[byte]byte{'F': 'M', 'M': 'X', 'X': '<', '<': 'F'}[c] // sex
			if isLetter(rune(c)) && at != fields[3] {
				r = 'A' + (c-'A'+1)%26
			}
			if r == 0 {
				t.Fatalf("%s: no mutation for %q at %v", s.name, c, at)
			}
			lines := replaceAt(s.lines, at, r)
			if _, errs := validateLines(t, lines); errs != nil {
				t.Errorf("%s: changing %c to %c at %v: errors %v", s.name, c, r, at, errs)
			}
		}
	}
}

func TestPersonalNumberCheckDigit(t *testing.T) {
	german := specimens[7].lines // empty personal number, check digit '<'
	dutch := specimens[8].lines  // personal number 999999990, check digit 8
	if !strings.HasPrefix(german[1], "C01X00T47") || !strings.HasPrefix(dutch[1], "SPECI") {
		t.Fatal("specimen order changed")
	}
	tests := []struct {
		name  string
		lines []string
		want  []fieldKind
	}{
		{"empty, '<'", german, []fieldKind{}},
		// '0' is the computed digit of an all-filler field, and '<' and '0'
		// weigh the same in the composite.
		{"empty, '0'", replaceAt(german, pos{2, 43}, '0'), []fieldKind{}},
		{"empty, '1'", replaceAt(german, pos{2, 43}, '1'),
			[]fieldKind{{FieldComposite, KindCheckDigit}, {FieldPersonalNumber, KindCheckDigit}}},
		{"set, '<'", replaceAt(dutch, pos{2, 43}, '<'),
			[]fieldKind{{FieldComposite, KindCheckDigit}, {FieldPersonalNumber, KindCheckDigit}}},
	}
	for _, tt := range tests {
		_, errs := validateLines(t, tt.lines)
		if got := kinds(errs); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: errors %v, want %v", tt.name, errs, tt.want)
		}
	}
}

func TestDocumentNumberOverflowEdgeCases(t *testing.T) {
	td1 := specimens[1].lines
	tests := []struct {
		name   string
		line1  string
		number string
		want   []fieldKind
	}{
		{
			// '<' in the check-digit position, nothing after it: the check
			// digit is missing.
			"missing check digit", "I<UTOD23145890<<<<<<<<<<<<<<<<", "D23145890",
			[]fieldKind{{FieldComposite, KindCheckDigit}, {FieldDocumentNumber, KindCheckDigit}},
		},
		{
			// An overflow of only a check digit: announced but empty.
			"overflow without characters", "I<UTOD23145890<7<<<<<<<<<<<<<<", "D23145890",
			[]fieldKind{{FieldComposite, KindCheckDigit}, {FieldDocumentNumber, KindInvalidValue}},
		},
		{
			// A short number padded with fillers is not an overflow.
			"short number", "I<UTOD2314<<<<9<<<<<<<<<<<<<<<", "D2314",
			[]fieldKind{{FieldComposite, KindCheckDigit}},
		},
	}
	for _, tt := range tests {
		lines := []string{tt.line1, td1[1], td1[2]}
		d, errs := validateLines(t, lines)
		if d.DocumentNumber != tt.number {
			t.Errorf("%s: DocumentNumber = %q, want %q", tt.name, d.DocumentNumber, tt.number)
		}
		if got := kinds(errs); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: errors %v, want %v", tt.name, errs, tt.want)
		}
	}
	// "D2314<<<<": 13·7 + 2·3 + 3·1 + 1·7 + 4·3 = 91+6+3+7+12 = 119 → 9.
	lines := fixCheckDigits(t, []string{"I<UTOD2314<<<<4<<<<<<<<<<<<<<<", td1[1], td1[2]})
	if lines[0][14] != '9' {
		t.Errorf("check digit of D2314<<<< = %c, want 9", lines[0][14])
	}
}

func TestInvalidCharacters(t *testing.T) {
	td3 := specimens[0].lines
	td1 := specimens[1].lines
	tests := []struct {
		name  string
		lines []string
		want  CheckError
		also  []fieldKind // other errors expected besides want
	}{
		{"digit in name", replaceAt(td3, pos{1, 12}, '0'),
			CheckError{Field: FieldName, Kind: KindInvalidCharacter, Line: 1, Pos: 12, Found: '0'}, nil},
		{"symbol in document number", replaceAt(td3, pos{2, 3}, '#'),
			// The document-number and composite digits cannot be computed.
			CheckError{Field: FieldDocumentNumber, Kind: KindInvalidCharacter, Line: 2, Pos: 3, Found: '#'}, nil},
		{"letter in birth date", replaceAt(td3, pos{2, 15}, 'A'),
			// 'A' is an MRZ character (worth 10): the check digits can be
			// computed, and fail.
			CheckError{Field: FieldBirthDate, Kind: KindInvalidCharacter, Line: 2, Pos: 15, Found: 'A'},
			[]fieldKind{{FieldBirthDate, KindCheckDigit}, {FieldComposite, KindCheckDigit}}},
		{"bad sex", replaceAt(td3, pos{2, 21}, 'Q'),
			CheckError{Field: FieldSex, Kind: KindInvalidCharacter, Line: 2, Pos: 21, Found: 'Q'}, nil},
		{"digit in issuing state", replaceAt(td3, pos{1, 4}, '2'),
			CheckError{Field: FieldIssuingState, Kind: KindInvalidCharacter, Line: 1, Pos: 4, Found: '2'}, nil},
		{"digit in document code", replaceAt(td3, pos{1, 1}, '9'),
			CheckError{Field: FieldDocumentCode, Kind: KindInvalidCharacter, Line: 1, Pos: 1, Found: '9'}, nil},
		{"symbol in personal number", replaceAt(td3, pos{2, 40}, '*'),
			CheckError{Field: FieldPersonalNumber, Kind: KindInvalidCharacter, Line: 2, Pos: 40, Found: '*'}, nil},
		{"symbol in TD1 optional data 2", replaceAt(td1, pos{2, 20}, '-'),
			CheckError{Field: FieldOptionalData, Kind: KindInvalidCharacter, Line: 2, Pos: 20, Found: '-'}, nil},
		{"guillemet for filler", []string{td3[0], strings.Replace(td3[1], "B<", "B«", 1)},
			CheckError{Field: FieldPersonalNumber, Kind: KindInvalidCharacter, Line: 2, Pos: 38, Found: '«'}, nil},
		{"symbol in check digit", replaceAt(td3, pos{2, 20}, '#'),
			// Reported as the wrong check digit it is; the composite, which
			// covers it, cannot be computed.
			CheckError{Field: FieldBirthDate, Kind: KindCheckDigit, Line: 2, Pos: 20, Expected: '2', Found: '#'}, nil},
		{"filler before letters in nationality", replaceAt(td3, pos{2, 11}, '<'),
			CheckError{Field: FieldNationality, Kind: KindInvalidValue, Line: 2, Pos: 11,
				Detail: `"<TO" is not a country code: letters followed only by fillers`}, nil},
		{"empty name", []string{"P<UTO" + strings.Repeat("<", 39), td3[1]},
			CheckError{Field: FieldName, Kind: KindInvalidValue, Line: 1, Pos: 6, Detail: "name is empty"}, nil},
		{"empty document number", fixCheckDigits(t, []string{td3[0], "<<<<<<<<<" + td3[1][9:]}),
			CheckError{Field: FieldDocumentNumber, Kind: KindInvalidValue, Line: 2, Pos: 1, Detail: "document number is empty"}, nil},
		{"two problems at once", replaceAt(replaceAt(td3, pos{2, 21}, 'Q'), pos{2, 28}, '1'),
			CheckError{Field: FieldSex, Kind: KindInvalidCharacter, Line: 2, Pos: 21, Found: 'Q'},
			[]fieldKind{{FieldComposite, KindCheckDigit}, {FieldExpiryDate, KindCheckDigit}}},
	}
	for _, tt := range tests {
		d, errs := validateLines(t, tt.lines)
		found := false
		for _, e := range errs {
			found = found || e == tt.want
		}
		want := append([]fieldKind{{tt.want.Field, tt.want.Kind}}, tt.also...)
		sortKinds(want)
		if !found || !reflect.DeepEqual(kinds(errs), want) {
			t.Errorf("%s: Validate(%q) = %v, want %+v and %v", tt.name, d.Lines, errs, tt.want, tt.also)
		}
	}
}

func TestInvalidDates(t *testing.T) {
	td3 := specimens[0].lines
	withBirth := func(date string) []string {
		return fixCheckDigits(t, []string{td3[0], td3[1][:13] + date + td3[1][19:]})
	}
	withExpiry := func(date string) []string {
		return fixCheckDigits(t, []string{td3[0], td3[1][:21] + date + td3[1][27:]})
	}
	tests := []struct {
		name   string
		lines  []string
		field  Field
		detail string // "" for a valid date
	}{
		{"month 13", withBirth("741312"), FieldBirthDate, "month 13 out of range"},
		{"month 00", withBirth("740012"), FieldBirthDate, "month 0 out of range"},
		{"day 00", withBirth("740800"), FieldBirthDate, "day 0 out of range for month 8"},
		{"31 April", withBirth("740431"), FieldBirthDate, "day 31 out of range for month 4"},
		{"29 February 01", withBirth("010229"), FieldBirthDate, "day 29 out of range for month 2"},
		{"29 February 04", withBirth("040229"), FieldBirthDate, ""},
		{"29 February 00", withBirth("000229"), FieldBirthDate, ""}, // 2000 was a leap year
		{"unknown day and month", withBirth("74<<<<"), FieldBirthDate, ""},
		{"unknown date", withBirth("<<<<<<"), FieldBirthDate, ""},
		{"half-unknown day", withBirth("74081<"), FieldBirthDate, `day is neither two digits nor "<<"`},
		{"day 32, month unknown", withBirth("74<<32"), FieldBirthDate, "day 32 out of range"},
		{"expiry month 13", withExpiry("121315"), FieldExpiryDate, "month 13 out of range"},
		{"expiry partly unknown", withExpiry("12<<<<"), FieldExpiryDate, "date has unknown parts"},
	}
	for _, tt := range tests {
		_, errs := validateLines(t, tt.lines)
		var want []CheckError
		if tt.detail != "" {
			p := map[Field]int{FieldBirthDate: 14, FieldExpiryDate: 22}[tt.field]
			want = []CheckError{{Field: tt.field, Kind: KindInvalidDate, Line: 2, Pos: p, Detail: tt.detail}}
		}
		if !reflect.DeepEqual(errs, want) {
			t.Errorf("%s: Validate(%q) = %v, want %v", tt.name, tt.lines, errs, want)
		}
	}
}

func TestCheckErrorMessages(t *testing.T) {
	tests := []struct {
		err  CheckError
		want string
	}{
		{CheckError{Field: FieldBirthDate, Kind: KindCheckDigit, Line: 2, Pos: 20, Expected: '2', Found: '3'},
			"mrz: birth_date check digit at line 2 position 20: expected '2', found '3'"},
		{CheckError{Field: FieldName, Kind: KindInvalidCharacter, Line: 1, Pos: 12, Found: '0'},
			"mrz: name: invalid character '0' at line 1 position 12"},
		{CheckError{Field: FieldBirthDate, Kind: KindInvalidDate, Line: 2, Pos: 14, Detail: "month 13 out of range"},
			"mrz: birth_date: month 13 out of range (line 2 position 14)"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

// TestValidateInconsistentDocument: Validate must not trust a Document it
// did not get from Parse.
func TestValidateInconsistentDocument(t *testing.T) {
	td3 := specimens[0].lines
	tests := []struct {
		name string
		doc  *Document
	}{
		{"nil", nil},
		{"zero", &Document{}},
		{"unknown format", &Document{Format: "TD4", Lines: td3}},
		{"too few lines", &Document{Format: TD1, Lines: td3}},
		{"short line", &Document{Format: TD3, Lines: []string{td3[0], td3[1][:40]}}},
	}
	for _, tt := range tests {
		errs := tt.doc.Validate()
		if len(errs) != 1 || errs[0].Field != FieldLayout || errs[0].Kind != KindInvalidValue {
			t.Errorf("%s: Validate = %v, want one layout error", tt.name, errs)
		}
	}
	// Validate reads Lines, not the decoded fields.
	d, _ := validateLines(t, td3)
	d.DocumentNumber = "X"
	if errs := d.Validate(); errs != nil {
		t.Errorf("Validate after editing a field = %v, want none", errs)
	}
}

func TestKnownState(t *testing.T) {
	for _, c := range []string{"NLD", "D", "UTO", "XXA", "GBN", "EUE", "RKS", "USA", "ZWE", "ABW"} {
		if !KnownState(c) {
			t.Errorf("KnownState(%q) = false", c)
		}
	}
	for _, c := range []string{"", "NL", "PDL", "UTD", "E", "NLD ", " NLD", "NLDD", "XYZ", "ABW AFG"} {
		if KnownState(c) {
			t.Errorf("KnownState(%q) = true", c)
		}
	}
}

// Classes: a passport's name and nationality are letters, its dates and
// check digits digits, its document number and personal number either.
func TestClasses(t *testing.T) {
	td3 := Classes(TD3)
	if len(td3) != 2 || len(td3[0]) != 44 {
		t.Fatalf("TD3 classes: %d lines", len(td3))
	}
	for _, c := range []struct {
		line, pos int
		want      Class
	}{{0, 0, Letters}, {0, 3, Letters}, {0, 20, Letters}, {1, 0, Any}, {1, 9, Digits}, {1, 10, Letters}, {1, 13, Digits}, {1, 20, Letters},
		{1, 21, Digits}, {1, 30, Any}, {1, 42, Digits}, {1, 43, Digits}} {
		if got := td3[c.line][c.pos]; got != c.want {
			t.Errorf("TD3 line %d position %d: class %d, want %d", c.line+1, c.pos+1, got, c.want)
		}
	}
	td1 := Classes(TD1)
	if len(td1) != 3 || td1[0][5] != Any || td1[0][14] != Digits || td1[0][20] != Any || td1[1][0] != Digits || td1[1][7] != Letters ||
		td1[1][15] != Letters || td1[1][29] != Digits || td1[2][3] != Letters {
		t.Errorf("TD1 classes %v", td1)
	}
	if Classes("XX") != nil {
		t.Error("classes of an unknown format")
	}
}

// Padding marks the names and the optional data, and nothing else.
func TestPadding(t *testing.T) {
	count := func(p [][]bool) (n []int) {
		for _, l := range p {
			c := 0
			for _, on := range l {
				if on {
					c++
				}
			}
			n = append(n, c)
		}
		return n
	}
	td3, td1 := Padding(TD3), Padding(TD1)
	if got := count(td3); len(got) != 2 || got[0] != 39 || got[1] != 14 || !td3[0][5] || td3[0][4] || !td3[1][28] || td3[1][42] {
		t.Errorf("TD3 padding: %v", got)
	}
	if got := count(td1); len(got) != 3 || got[0] != 15 || got[1] != 11 || got[2] != 30 || !td1[0][15] || td1[0][14] || td1[1][29] {
		t.Errorf("TD1 padding: %v", got)
	}
	if Padding("X") != nil {
		t.Error("padding for an unknown format")
	}
}
