package mrz

import (
	"strings"
	"testing"
	"time"
)

// What Compose writes, Parse reads back whole: every check digit holds and
// every field is as given, for both formats.
func TestComposeParses(t *testing.T) {
	for _, f := range []Fields{
		{Format: TD3, DocumentCode: "P", IssuingState: "NLD", Surname: "DE BRUIJN", GivenNames: "WILLEKE LISELOTTE", DocumentNumber: "SPECI2014",
			Nationality: "NLD", BirthDate: "650310", Sex: "F", ExpiryDate: "240309", OptionalData: "999999990"},
		{Format: TD1, DocumentCode: "I", IssuingState: "NLD", Surname: "DE BRUIJN", GivenNames: "WILLEKE", DocumentNumber: "SPECI2021",
			Nationality: "NLD", BirthDate: "650310", Sex: "X", ExpiryDate: "310802", OptionalData: "999999990"},
	} {
		text, err := Compose(f)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Parse(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if errs := d.Validate(); len(errs) > 0 {
			t.Fatalf("%s: %v", text, errs)
		}
		if d.Format != f.Format || d.Surname != f.Surname || d.GivenNames != f.GivenNames || d.DocumentNumber != f.DocumentNumber ||
			d.BirthDate.Raw != f.BirthDate || d.ExpiryDate.Raw != f.ExpiryDate || d.OptionalData1 != f.OptionalData || len(d.Corrections) != 0 {
			t.Fatalf("%s read back as %+v", text, d)
		}
		if d.Expired(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)) {
			t.Fatalf("%s: expired", text)
		}
		for _, l := range strings.Split(text, "\n") {
			if want := map[Format]int{TD1: 30, TD3: 44}[f.Format]; len(l) != want {
				t.Fatalf("line %q: %d characters", l, len(l))
			}
		}
	}
	if _, err := Compose(Fields{Format: TD3, DocumentNumber: "A", BirthDate: "é", ExpiryDate: "1"}); err == nil {
		t.Fatal("a date out of the alphabet composed")
	}
}
