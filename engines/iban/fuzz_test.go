package iban

import "testing"

func FuzzValidate(f *testing.F) {
	for _, ex := range registryExamples {
		f.Add(ex.iban)
	}
	for _, s := range []string{"", "IBAN NL91 ABNA 0417 1643 00", "iban:iban:", "XX00", "DE00370400440532013000", "ıban NL91", "\xff\xfeNL"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := Validate(s)
		if r.Valid != (r.Reason == ReasonNone) {
			t.Fatalf("Validate(%q): Valid=%v Reason=%q", s, r.Valid, r.Reason)
		}
		if r.Valid == (r.Message != "") {
			t.Fatalf("Validate(%q): Valid=%v Message=%q", s, r.Valid, r.Message)
		}
		if r.IBAN != Normalize(s) {
			t.Fatalf("Validate(%q).IBAN = %q, Normalize = %q", s, r.IBAN, Normalize(s))
		}
		if r2 := Validate(Normalize(s)); r2 != r {
			t.Fatalf("Validate(Normalize(%q)) = %+v, Validate = %+v", s, r2, r)
		}
		if r.Valid && (r.BankCode == "" || len(r.IBAN) < 15 || r.IBAN[:2] != r.CountryCode) {
			t.Fatalf("Validate(%q): inconsistent valid result %+v", s, r)
		}
		_ = Masked(s)
	})
}
