package mrz

import (
	"reflect"
	"strings"
	"testing"
)

// replaceAll applies replacements (1-based position → character) to lines.
func replaceAll(lines []string, rs map[pos]byte) []string {
	for p, r := range rs {
		lines = replaceAt(lines, p, r)
	}
	return lines
}

// TestOCRCorrections: letters in digit-only positions and digits in country
// codes are read as what they resemble, recorded, and the document then
// validates as the specimen does.
func TestOCRCorrections(t *testing.T) {
	td3, td1, deID := specimens[0].lines, specimens[1].lines, specimens[6].lines
	tests := []struct {
		name    string
		clean   []string
		changes map[pos]byte
		want    []Correction
	}{
		{"O in a birth date", td3, map[pos]byte{{2, 16}: 'O'},
			[]Correction{{FieldBirthDate, 2, 16, 'O', '0'}}},
		{"I and O in an expiry date", td3, map[pos]byte{{2, 22}: 'I', {2, 24}: 'O', {2, 26}: 'I'},
			[]Correction{{FieldExpiryDate, 2, 22, 'I', '1'}, {FieldExpiryDate, 2, 24, 'O', '0'}, {FieldExpiryDate, 2, 26, 'I', '1'}}},
		{"B in a birth date", td1, map[pos]byte{{2, 4}: 'B'},
			[]Correction{{FieldBirthDate, 2, 4, 'B', '8'}}},
		{"G for the document-number check digit", td3, map[pos]byte{{2, 10}: 'G'},
			[]Correction{{FieldDocumentNumber, 2, 10, 'G', '6'}}},
		{"Z for the birth-date check digit", td3, map[pos]byte{{2, 20}: 'Z'},
			[]Correction{{FieldBirthDate, 2, 20, 'Z', '2'}}},
		{"S for the expiry-date check digit", deID, map[pos]byte{{2, 15}: 'S'},
			[]Correction{{FieldExpiryDate, 2, 15, 'S', '5'}}},
		{"I for the personal-number check digit", td3, map[pos]byte{{2, 43}: 'I'},
			[]Correction{{FieldPersonalNumber, 2, 43, 'I', '1'}}},
		{"O for the composite check digit", td3, map[pos]byte{{2, 44}: 'O'},
			[]Correction{{FieldComposite, 2, 44, 'O', '0'}}},
		{"zero in country codes", td3, map[pos]byte{{1, 5}: '0', {2, 13}: '0'},
			[]Correction{{FieldIssuingState, 1, 5, '0', 'O'}, {FieldNationality, 2, 13, '0', 'O'}}},
		{"several, listed in MRZ order", td1, map[pos]byte{{2, 30}: 'G', {2, 7}: 'Z', {1, 5}: '0', {2, 4}: 'B'},
			[]Correction{{FieldIssuingState, 1, 5, '0', 'O'}, {FieldBirthDate, 2, 4, 'B', '8'}, {FieldBirthDate, 2, 7, 'Z', '2'}, {FieldComposite, 2, 30, 'G', '6'}}},
		{"the long document number's check digit", specimens[3].lines, map[pos]byte{{1, 19}: 'G'},
			// 'G' reads as 6, but the number needs 9: corrected, then wrong.
			[]Correction{{FieldDocumentNumber, 1, 19, 'G', '6'}}},
	}
	for _, tt := range tests {
		dirty := replaceAll(tt.clean, tt.changes)
		d, errs := validateLines(t, dirty)
		if !reflect.DeepEqual(d.Corrections, tt.want) {
			t.Errorf("%s: Corrections = %v, want %v", tt.name, d.Corrections, tt.want)
		}
		if tt.name == "the long document number's check digit" {
			want := []fieldKind{{FieldComposite, KindCheckDigit}, {FieldDocumentNumber, KindCheckDigit}}
			if got := kinds(errs); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: errors %v, want %v", tt.name, errs, want)
			}
			continue
		}
		if !reflect.DeepEqual(d.Lines, tt.clean) {
			t.Errorf("%s: Lines = %q, want %q", tt.name, d.Lines, tt.clean)
		}
		if errs != nil {
			t.Errorf("%s: Validate = %v", tt.name, errs)
		}
	}
}

// TestNoOCRCorrection: fields that may hold letters and digits alike are
// left alone, and so are country codes a correction would not make letters
// only.
func TestNoOCRCorrection(t *testing.T) {
	td3, td1 := specimens[0].lines, specimens[1].lines
	tests := []struct {
		name  string
		lines []string
		want  []fieldKind
	}{
		{"O in a document number", replaceAt(td3, pos{2, 6}, 'O'), // "L8989O2C3"
			[]fieldKind{{FieldComposite, KindCheckDigit}, {FieldDocumentNumber, KindCheckDigit}}},
		{"I in a personal number", replaceAt(td3, pos{2, 31}, 'I'), // "ZEI84226B"
			[]fieldKind{{FieldComposite, KindCheckDigit}, {FieldPersonalNumber, KindCheckDigit}}},
		{"zero in a name", replaceAt(td3, pos{1, 12}, '0'), // "ERIKSS0N"
			[]fieldKind{{FieldName, KindInvalidCharacter}}},
		{"two in a country code", replaceAt(td3, pos{1, 4}, '2'), // "U2O"
			[]fieldKind{{FieldIssuingState, KindInvalidCharacter}}},
		{"five and a two in a country code", replaceAll(td3, map[pos]byte{{2, 11}: '5', {2, 12}: '2'}), // "52O"
			[]fieldKind{{FieldNationality, KindInvalidCharacter}}},
		{"O in TD1 optional data", replaceAt(td1, pos{1, 20}, 'O'),
			[]fieldKind{{FieldComposite, KindCheckDigit}}},
		{"the overflow mark '<' stays", specimens[3].lines, []fieldKind{}},
	}
	for _, tt := range tests {
		d, errs := validateLines(t, tt.lines)
		if d.Corrections != nil {
			t.Errorf("%s: Corrections = %v, want none", tt.name, d.Corrections)
		}
		if got := kinds(errs); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: errors %v, want %v", tt.name, errs, tt.want)
		}
	}
}

func TestCorrectionString(t *testing.T) {
	c := Correction{FieldBirthDate, 2, 16, 'O', '0'}
	if got, want := c.String(), "birth_date: line 2 position 16: read 'O' as '0'"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// TestOCRCorrectionLowercase: lowercase letters are uppercased before the
// corrections, so a typed "o" in a date is corrected too.
func TestOCRCorrectionLowercase(t *testing.T) {
	td3 := specimens[0].lines
	d, err := Parse(strings.ToLower(td3[0]) + "\n" + strings.ToLower(td3[1][:15]) + "o" + td3[1][16:])
	if err != nil {
		t.Fatal(err)
	}
	want := []Correction{{FieldBirthDate, 2, 16, 'O', '0'}}
	if !reflect.DeepEqual(d.Corrections, want) || d.Validate() != nil || d.BirthDate.Raw != "740812" {
		t.Errorf("Corrections %v, Validate %v, BirthDate %+v", d.Corrections, d.Validate(), d.BirthDate)
	}
}

// AsClass takes a character as Parse would where only one class may stand.
func TestAsClass(t *testing.T) {
	for _, tc := range []struct {
		ch    rune
		class Class
		want  rune
		ok    bool
	}{
		{'O', Digits, '0', true}, {'S', Digits, '5', true}, {'7', Digits, '7', true}, {'<', Digits, '<', true}, {'K', Digits, 0, false},
		{'0', Letters, 'O', true}, {'8', Letters, 'B', true}, {'K', Letters, 'K', true}, {'7', Letters, 0, false},
		{'O', Any, 'O', true}, {'0', Any, '0', true},
	} {
		if got, ok := AsClass(tc.ch, tc.class); got != tc.want || ok != tc.ok {
			t.Errorf("AsClass(%q, %v) = %q, %v; want %q, %v", tc.ch, tc.class, got, ok, tc.want, tc.ok)
		}
	}
}
