package verify

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kycflow/kycflow/engines/eu"
	"github.com/kycflow/kycflow/store"
)

// A page speaks the language asked for, else the browser's, else Dutch to
// Dutch customers and English to the rest.
func TestLanguage(t *testing.T) {
	dutch, belgian := &store.Customer{CountryID: eu.NetherlandsNumeric}, &store.Customer{CountryID: 56}
	for _, tc := range []struct {
		query, accept string
		customer      *store.Customer
		want          string
	}{
		{"lang=en", "nl-NL", dutch, "en"},
		{"lang=nl", "", belgian, "nl"},
		{"lang=de", "nl-BE,en;q=0.8", belgian, "nl"},
		{"", "fr-FR, en-GB;q=0.9", dutch, "en"},
		{"", "fr-FR", dutch, "nl"},
		{"", "", belgian, "en"},
		{"", "", nil, "en"},
	} {
		r := httptest.NewRequest("GET", "/verify/x?"+tc.query, nil)
		if tc.accept != "" {
			r.Header.Set("Accept-Language", tc.accept)
		}
		if got := language(r, tc.customer); got != tc.want {
			t.Errorf("?%s Accept-Language %q: %s, want %s", tc.query, tc.accept, got, tc.want)
		}
	}
}

// The form's MRZ check names each problem in the person's language, and
// passes a valid MRZ.
func TestMRZProblems(t *testing.T) {
	const specimen = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10"
	if p := mrzProblems(english, specimen); p != nil {
		t.Fatalf("valid MRZ: %v", p)
	}
	if p := mrzProblems(dutch, strings.Repeat("X", maxMRZ+1)); len(p) != 1 || p[0] != dutch.Unreadable {
		t.Fatalf("too long: %v", p)
	}
	p := mrzProblems(english, strings.Replace(specimen, "L898902C36", "L898902C37", 1))
	if len(p) == 0 || !strings.Contains(p[0], "document number") {
		t.Fatalf("check digit: %v", p)
	}
	if p := mrzProblems(dutch, strings.Replace(specimen, "L898902C36", "L898902C37", 1)); len(p) == 0 || !strings.Contains(p[0], "documentnummer") {
		t.Fatalf("in Dutch: %v", p)
	}
}
