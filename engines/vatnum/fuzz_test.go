package vatnum

import (
	"errors"
	"testing"
)

// FuzzValidate: no panic on any input; every error is a *ValidationError;
// a valid number re-validates to itself after Normalize.
func FuzzValidate(f *testing.F) {
	for _, c := range vatValid {
		f.Add(c.in, "")
	}
	for _, c := range vatInvalid {
		f.Add(c.in, "")
	}
	for _, s := range []string{"094259216", "GD100", "K7399859412", "(0)403019261", "4495445B01", "", "\xff\xfe", "ＤＥ１３６"} {
		f.Add(s, "GR")
		f.Add(s, "XI")
		f.Add(s, "FR")
	}
	f.Fuzz(func(t *testing.T, vat, def string) {
		n, err := Validate(vat, def)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Message == "" {
				t.Fatalf("Validate(%q, %q): error %#v", vat, def, err)
			}
			return
		}
		if vatRules[n.CountryCode] == nil {
			t.Fatalf("Validate(%q, %q) accepted country %q", vat, def, n.CountryCode)
		}
		again, err := Validate(n.CountryCode+n.Number, "")
		if err != nil || again != n {
			t.Fatalf("Validate(%q, %q) = %+v, but that re-validates as %+v, %v", vat, def, n, again, err)
		}
		if err := Check(n); err != nil {
			t.Fatalf("Check(%+v) = %v after Validate accepted it", n, err)
		}
	})
}
