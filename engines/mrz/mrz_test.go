package mrz

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseInputForms(t *testing.T) {
	td3, td1, td2 := specimens[0].lines, specimens[1].lines, specimens[2].lines
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{"newlines", td3[0] + "\n" + td3[1], td3},
		{"trailing newline", td3[0] + "\n" + td3[1] + "\n", td3},
		{"CRLF", td1[0] + "\r\n" + td1[1] + "\r\n" + td1[2] + "\r\n", td1},
		{"CR", td2[0] + "\r" + td2[1], td2},
		{"blank lines and surrounding white space",
			"\n\n  " + td3[0] + " \t\r\n\r\n\t" + td3[1] + "  \n\n", td3},
		{"lowercase", strings.ToLower(td3[0] + "\n" + td3[1]), td3},
		{"mixed case", "p<utoEriksson<<anna<maria<<<<<<<<<<<<<<<<<<<\n" + td3[1], td3},
		{"concatenated TD3 (88)", td3[0] + td3[1], td3},
		{"concatenated TD1 (90)", td1[0] + td1[1] + td1[2], td1},
		{"concatenated TD2 (72)", td2[0] + td2[1], td2},
		{"concatenated with a space", td3[0] + " " + td3[1], td3},
		{"concatenated, lowercase, surrounded by blanks", "\n " + strings.ToLower(td1[0]+td1[1]+td1[2]) + " \n", td1},
		{"spaces grouping fields",
			td3[0] + "\nL898902C3 6 UTO 740812 2 F 120415 9 ZE184226B<<<<< 1 0", td3},
		{"tabs grouping fields", td1[0] + "\n7408122\tF\t1204159\tUTO<<<<<<<<<<<6\n" + td1[2], td1},
		{"every noise at once",
			"\r\n  i<uto D23145890 7<<<<<<<<<<<<<<<\r\n\r\n 7408122 F 1204159 uto<<<<<<<<<<<6\r\nEriksson<<Anna<Maria<<<<<<<<<< \r\n", td1},
		{"MRV-B by document code V", strings.Join(specimens[10].lines, "\n"), specimens[10].lines},
	}
	for _, tt := range tests {
		d, err := Parse(tt.input)
		if err != nil {
			t.Errorf("%s: Parse(%q): %v", tt.name, tt.input, err)
			continue
		}
		if !reflect.DeepEqual(d.Lines, tt.want) {
			t.Errorf("%s: Lines = %q, want %q", tt.name, d.Lines, tt.want)
		}
		if errs := d.Validate(); errs != nil {
			t.Errorf("%s: Validate = %v", tt.name, errs)
		}
	}
}

func TestParseLayoutErrors(t *testing.T) {
	td3, td1 := specimens[0].lines, specimens[1].lines
	tests := []struct {
		name  string
		input string
		want  string // in the message
	}{
		{"empty", "", "no text"},
		{"blank", " \r\n\t\n ", "no text"},
		{"short second line", td3[0] + "\n" + td3[1][:43], "got 2 lines of 44 and 43 characters; want 3 lines of 30 characters (TD1), 2 lines of 36 (TD2, MRV-B) or 2 lines of 44 (TD3, MRV-A), or all of it on one line of 90, 72 or 88 characters"},
		{"long first line", td3[0] + "<\n" + td3[1], "got 2 lines of 45 and 44 characters"},
		{"one line of 87", (td3[0] + td3[1])[:87], "got 1 line of 87 characters"},
		{"one line", td3[1], "got 1 line of 44 characters"},
		{"four lines", strings.Join(append(td1, td1[2]), "\n"), "got 4 lines of 30, 30, 30 and 30 characters"},
		{"two TD1 lines", td1[0] + "\n" + td1[1], "got 2 lines of 30 and 30 characters"},
		{"three TD3-wide lines", td3[0] + "\n" + td3[1] + "\n" + td3[1], "got 3 lines of 44, 44 and 44 characters"},
		{"spaces, still wrong", td3[0] + "\nL898902C3 6", "got 2 lines of 44 and 10 characters without spaces"},
		{"spaces that may be fillers",
			// 44 characters counting the spaces: they may be fillers.
			"P<UTOERIKSSON  ANNA MARIA                  <\n" + td3[1],
			"got 2 lines of 44 and 44 characters counting the spaces inside lines, which may stand for '<' fillers"},
	}
	for _, tt := range tests {
		d, err := Parse(tt.input)
		if err == nil {
			t.Errorf("%s: Parse(%q) = %+v, want an error", tt.name, tt.input, d)
			continue
		}
		if !errors.Is(err, ErrLayout) {
			t.Errorf("%s: error %v does not wrap ErrLayout", tt.name, err)
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %q does not contain %q", tt.name, err, tt.want)
		}
	}
}

func TestNames(t *testing.T) {
	tests := []struct {
		field, surname, given string
		truncated             bool
	}{
		{"ERIKSSON<<ANNA<MARIA<<<<<<<<<<", "ERIKSSON", "ANNA MARIA", false},
		{"DE<BRUIJN<<WILLEKE<LISELOTTE<<<<<<<<<<<", "DE BRUIJN", "WILLEKE LISELOTTE", false},
		{"MUSTERMANN<<<<<<<<<<<<", "MUSTERMANN", "", false},
		{"MUSTERMANN<<<<<<<<<<<<<", "MUSTERMANN", "", false},
		{"<<ANNA<<<<<<<<<<<<<<<<<", "", "ANNA", false},
		{"ERIKSSON<<ANNA<<MARIA<<<<<<<<", "ERIKSSON", "ANNA MARIA", false},
		{"<<<<<<<<<<", "", "", false},
		// Truncated names are kept as they are; a name ending in the last
		// position may have been cut.
		{"POLLARD<CLARKE<BENTON<<STEPHANIE<JO", "POLLARD CLARKE BENTON", "STEPHANIE JO", true},
		{"ERIKSSONSSONSSONSSONSSONSSONSS", "ERIKSSONSSONSSONSSONSSONSSONSS", "", true},
	}
	for _, tt := range tests {
		surname, given, truncated := splitName(tt.field)
		if surname != tt.surname || given != tt.given || truncated != tt.truncated {
			t.Errorf("splitName(%q) = %q, %q, %v; want %q, %q, %v", tt.field, surname, given, truncated, tt.surname, tt.given, tt.truncated)
		}
	}
	// Through Parse: a TD3 name filling its 39 positions.
	d, err := Parse("P<UTOPOLLARD<CLARKE<BENTON<<STEPHANIE<JOAN<M\n" + specimens[0].lines[1])
	if err != nil {
		t.Fatal(err)
	}
	if d.Surname != "POLLARD CLARKE BENTON" || d.GivenNames != "STEPHANIE JOAN M" || !d.NameTruncated {
		t.Errorf("Parse: %q, %q, %v", d.Surname, d.GivenNames, d.NameTruncated)
	}
}

func TestFillerTrimming(t *testing.T) {
	td1 := specimens[1].lines
	lines := fixCheckDigits(t, []string{
		"AC" + "D<<" + "D23145890" + "7" + "<<ABC<DEF<<<<<<",
		td1[1][:18] + "<X1<<<<<<<<" + "0",
		td1[2],
	})
	d, errs := validateLines(t, lines)
	if errs != nil {
		t.Fatalf("Validate(%q) = %v", lines, errs)
	}
	want := struct{ code, state, opt1, opt2 string }{"AC", "D", "ABC<DEF", "X1"}
	got := struct{ code, state, opt1, opt2 string }{d.DocumentCode, d.IssuingState, d.OptionalData1, d.OptionalData2}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// TestNonISOCountryCodes: Doc 9303 codes outside ISO 3166-1 are exposed, not
// rejected.
func TestNonISOCountryCodes(t *testing.T) {
	td3 := specimens[0].lines
	for _, code := range []string{"D<<", "UTO", "XXA", "XXB", "XXC", "XXX", "EUE", "UNO", "UNA", "UNK", "XOM", "XPO", "RKS"} {
		lines := []string{"P<" + code + td3[0][5:], td3[1][:10] + code + td3[1][13:]}
		d, errs := validateLines(t, lines)
		want := strings.TrimRight(code, "<")
		if errs != nil || d.IssuingState != want || d.Nationality != want {
			t.Errorf("%s: IssuingState %q, Nationality %q, errors %v", code, d.IssuingState, d.Nationality, errs)
		}
	}
}
