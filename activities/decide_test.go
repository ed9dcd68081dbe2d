package activities

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/engines/mrz"
	"github.com/kycflow/kycflow/engines/vatnum"
	"github.com/kycflow/kycflow/providers/idin"
	"github.com/kycflow/kycflow/providers/kvk"
	"github.com/kycflow/kycflow/providers/vies"
	"github.com/kycflow/kycflow/store"
)

func reasonOf(r *string) string {
	if r == nil {
		return ""
	}
	return *r
}

// The register's answer decides a coc check: active and a registered name
// like the business's; the visiting address goes onto the business unless
// the register shields it.
func TestDecideCoC(t *testing.T) {
	visiting := kvk.Address{Type: "bezoekadres", Street: "Hizzaarderlaan", HouseNumber: "3", HouseNumberAddition: "A",
		PostalCode: "8823SJ", City: "Lollum", Country: "Nederland", Full: "Hizzaarderlaan 3 A 8823SJ Lollum"}
	postal := kvk.Address{Type: "correspondentieadres", Street: "Postbus", HouseNumber: "10", PostalCode: "1000AA", City: "Amsterdam"}
	for _, tc := range []struct {
		name      string
		business  string
		profile   kvk.Profile
		validated bool
		reason    string
		copied    bool
	}{
		{"active, statutory name", "Test BV Donald", kvk.Profile{KvKNumber: "68750110", Name: "Test BV Donald", StatutoryName: "Test BV Donald", Active: true, Addresses: []kvk.Address{postal, visiting}}, true, "", true},
		{"a trade name matches", "Donald's Diner", kvk.Profile{KvKNumber: "1", Name: "Holding BV", TradeNames: []string{"Donald's Diner"}, Active: true}, true, "", false},
		{"ended", "Test BV Donald", kvk.Profile{KvKNumber: "1", Name: "Test BV Donald", Active: false, EndDate: "2020-01-31"}, false, check.ReasonInactive, false},
		{"another company", "Acme Trading", kvk.Profile{KvKNumber: "1", Name: "Test BV Donald", Active: true}, false, check.ReasonNameMismatch, false},
		{"shielded address", "Test BV Donald", kvk.Profile{KvKNumber: "1", Name: "Test BV Donald", Active: true, Addresses: []kvk.Address{{Type: "bezoekadres", Shielded: true}}}, true, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			validated, d, onto := decideCoC(tc.business, tc.profile)
			if validated != tc.validated || reasonOf(d.Reason) != tc.reason || (onto != nil) != tc.copied {
				t.Fatalf("validated %v reason %q address copied %v", validated, reasonOf(d.Reason), onto != nil)
			}
			if d.Outcome != check.OutcomeChecked || d.TradeNames == nil || d.NameMatchScore == nil || (tc.reason != "") != (d.Message != nil) {
				t.Fatalf("data %+v", d)
			}
			if tc.reason == check.ReasonInactive && !strings.Contains(*d.Message, "2020-01-31") {
				t.Fatalf("message %q does not say when", *d.Message)
			}
			if tc.copied && (*onto.City != "Lollum" || *onto.Addition != "A" || d.Address.Type != "bezoekadres") {
				t.Fatalf("the visiting address should win: %+v %+v", onto, d.Address)
			}
		})
	}
}

// VIES's answer is the vat check's verdict; the name it gives (when it
// gives one) is scored, not decisive.
func TestVATData(t *testing.T) {
	n := vatnum.Number{CountryCode: "NL", Number: "854750137B01"}
	d := vatData("Test BV Donald", n, false, vies.Result{Valid: true, Name: "TEST BV DONALD", RequestIdentifier: "WAPIAAAAW1"})
	if d.Reason != nil || *d.NameMatchScore < 0.9 || *d.RequestIdentifier != "WAPIAAAAW1" || *d.CountryCode != "NL" {
		t.Fatalf("valid: %+v", d)
	}
	d = vatData("Test BV Donald", n, true, vies.Result{Valid: false})
	if reasonOf(d.Reason) != check.ReasonNotRegistered || d.NameMatchScore != nil || d.Name != nil || !d.TestService {
		t.Fatalf("invalid, name withheld: %+v", d)
	}
}

// A provider's failure becomes the error a check records: its code, a
// plain message, retried unless final; a cancelled call stays a
// cancellation.
func TestProviderErrorMapping(t *testing.T) {
	detail := func(err error) (check.Error, bool) {
		var appErr *temporal.ApplicationError
		if !errors.As(err, &appErr) || appErr.Type() != ErrTypeProvider {
			t.Fatalf("%v is no provider error", err)
		}
		var ce check.Error
		appErr.Details(&ce)
		return ce, appErr.NonRetryable()
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name       string
		err        error
		code, pc   string
		final      bool
		msgContain string
	}{
		{"vies member state down", viesError(ctx, &vies.Error{Code: "MS_UNAVAILABLE"}), check.CodeProviderUnavailable, "MS_UNAVAILABLE", false, "member state"},
		{"vies blocked", viesError(ctx, &vies.Error{Code: "VAT_BLOCKED"}), check.CodeProviderError, "VAT_BLOCKED", true, "blocked"},
		{"vies 503", viesError(ctx, &vies.Error{Code: "HTTP_503", Status: 503}), check.CodeProviderUnavailable, "HTTP_503", false, "could not be reached"},
		{"vies certificate", viesError(ctx, &vies.Error{Code: "TLS"}), check.CodeProviderError, "TLS", true, "could not be reached"},
		{"kvk outage", kvkError(ctx, &kvk.Error{Code: "HTTP_500", Retryable: true}), check.CodeProviderUnavailable, "HTTP_500", false, "could not be reached"},
		{"kvk refusal with its text", kvkError(ctx, &kvk.Error{Code: "IPD1002", Message: "Het KvK-nummer is ongeldig."}), check.CodeProviderError, "IPD1002", true, "ongeldig"},
		{"idin broker", idinError(ctx, &idin.Error{Retryable: true}), check.CodeProviderUnavailable, "", false, "iDIN broker"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ce, final := detail(tc.err)
			if ce.Code != tc.code || (tc.pc != "" && ce.ProviderCode != tc.pc) || final != tc.final || !strings.Contains(ce.Message, tc.msgContain) {
				t.Fatalf("%+v final %v", ce, final)
			}
		})
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	raw := errors.New("context canceled")
	if err := viesError(cancelled, raw); err != raw {
		t.Fatalf("a cancelled consultation became %v", err)
	}
}

func birthdate(s string) *time.Time {
	t, _ := time.Parse(time.DateOnly, s)
	return &t
}

// The bank's answer decides an idin check; only a validated one writes
// the confirmed identity and address onto the customer.
func TestDecideIDIN(t *testing.T) {
	yes := true
	jan := &store.Customer{Name: "Jan de Vries", FirstName: ptr("Jan"), LastName: ptr("de Vries"), Birthdate: birthdate("1990-05-17")}
	attrs := &idin.Attributes{BIN: "NLINGB123", Initials: "J", LegalLastName: "Vries", LegalLastNamePrefix: "de",
		DateOfBirth: "1990-05-17", Gender: idin.GenderMale, Street: "Dorpsstraat", HouseNumber: "1", HouseNumberSuffix: "a",
		PostalCode: "1234AB", City: "Ons Dorp", CountryCode: "NL", Is18OrOlder: &yes}
	withAttrs := func(f func(a *idin.Attributes)) *idin.Attributes { a := *attrs; f(&a); return &a }
	for _, tc := range []struct {
		name     string
		res      idin.Result
		customer *store.Customer
		reason   string
	}{
		{"confirmed", idin.Result{Status: idin.StatusSuccess, Attributes: attrs}, jan, ""},
		{"cancelled at the bank", idin.Result{Status: idin.StatusCancelled}, jan, check.ReasonBankCancelled},
		{"expired at the bank", idin.Result{Status: idin.StatusExpired}, jan, check.ReasonBankExpired},
		{"failure", idin.Result{Status: idin.StatusFailure}, jan, check.ReasonBankFailure},
		{"success without data", idin.Result{Status: idin.StatusSuccess}, jan, check.ReasonBankFailure},
		{"another person", idin.Result{Status: idin.StatusSuccess, Attributes: withAttrs(func(a *idin.Attributes) { a.Initials, a.LegalLastName, a.LegalLastNamePrefix = "P", "Jansen", "" })}, jan, check.ReasonNameMismatch},
		{"another birth date", idin.Result{Status: idin.StatusSuccess, Attributes: withAttrs(func(a *idin.Attributes) { a.DateOfBirth = "1991-05-17" })}, jan, check.ReasonBirthdateMismatch},
		{"a partial birth date is not judged", idin.Result{Status: idin.StatusSuccess, Attributes: withAttrs(func(a *idin.Attributes) { a.DateOfBirth = "1990-00-00" })}, jan, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, id, addr := decideIDIN(tc.res, tc.customer)
			if reasonOf(d.Reason) != tc.reason {
				t.Fatalf("reason %q, want %q (%+v)", reasonOf(d.Reason), tc.reason, d)
			}
			if (tc.reason == "") != (id != nil) {
				t.Fatalf("identity %+v for reason %q", id, tc.reason)
			}
			if tc.name == "confirmed" && (*id.Gender != "male" || id.Birthdate == nil || *addr.Address != "Dorpsstraat 1a" || *d.BIN != "NLINGB123") {
				t.Fatalf("confirmed: %+v %+v %+v", d, id, addr)
			}
			if tc.name == "a partial birth date is not judged" && (d.BirthdateMatch != nil || id.Birthdate != nil) {
				t.Fatalf("partial birth date: %+v %+v", d, id)
			}
		})
	}
}

// ICAO's specimen passport (Doc 9303 part 4): Anna Maria Eriksson, born
// 1974-08-12, valid until 2012-04-15.
const specimen = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10"

// withExpiry is a TD3 MRZ with another expiry date, its check digits
// made to hold.
func withExpiry(t *testing.T, td3, expiry string) string {
	t.Helper()
	lines := strings.Split(td3, "\n")
	l2 := []byte(lines[1])
	copy(l2[21:27], expiry)
	cd := func(s string) byte {
		d, ok := mrz.CheckDigit(s)
		if !ok {
			t.Fatalf("check digit of %q", s)
		}
		return byte(d)
	}
	l2[27] = cd(string(l2[21:27]))
	l2[43] = cd(string(l2[0:10]) + string(l2[13:20]) + string(l2[21:43]))
	return lines[0] + "\n" + string(l2)
}

// The MRZ decides an idscan check: every check digit, the expiry, the name
// and the birth date; only a validated document goes onto the record.
func TestVerifyMRZ(t *testing.T) {
	anna := &store.Customer{Name: "Anna Maria Eriksson", FirstName: ptr("Anna Maria"), LastName: ptr("Eriksson"), Birthdate: birthdate("1974-08-12")}
	before := time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC)
	all := store.IDScanSettings{MaxAttempts: 5}
	for _, tc := range []struct {
		name     string
		mrz      string
		customer *store.Customer
		now      time.Time
		settings store.IDScanSettings
		reason   string
		sub      func(check.IDScanChecks) *check.SubCheck // the sub-check that fails, with the reason
	}{
		{"valid", specimen, anna, before, all, "", nil},
		{"not an MRZ", "hello", anna, before, all, check.ReasonUnreadable, func(c check.IDScanChecks) *check.SubCheck { return c.CheckDigits }},
		{"a check digit off", strings.Replace(specimen, "L898902C36", "L898902C37", 1), anna, before, all, check.ReasonCheckDigit, func(c check.IDScanChecks) *check.SubCheck { return c.CheckDigits }},
		{"expired", specimen, anna, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), all, check.ReasonDocumentExpired, func(c check.IDScanChecks) *check.SubCheck { return c.DocumentExpired }},
		{"expired in 1998 (read as 2098 before)", withExpiry(t, specimen, "980104"), anna, time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC), all, check.ReasonDocumentExpired, func(c check.IDScanChecks) *check.SubCheck { return c.DocumentExpired }},
		{"another person", specimen, &store.Customer{Name: "Jan de Vries", Birthdate: birthdate("1974-08-12")}, before, all, check.ReasonNameMismatch, func(c check.IDScanChecks) *check.SubCheck { return c.DataComparison }},
		{"another birth date", specimen, &store.Customer{Name: "Anna Maria Eriksson", Birthdate: birthdate("1975-08-12")}, before, all, check.ReasonBirthdateMismatch, func(c check.IDScanChecks) *check.SubCheck { return c.DataComparison }},
		{"identity cards only", specimen, anna, before, store.IDScanSettings{Documents: []string{"I", "ID"}}, check.ReasonDocumentRefused, func(c check.IDScanChecks) *check.SubCheck { return c.DocumentAccepted }},
		{"Dutch passports only", specimen, anna, before, store.IDScanSettings{Documents: []string{"P:NLD"}}, check.ReasonDocumentRefused, func(c check.IDScanChecks) *check.SubCheck { return c.DocumentAccepted }},
		{"passports of Utopia", specimen, anna, before, store.IDScanSettings{Documents: []string{"p:uto"}}, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, id := verifyMRZ(tc.mrz, tc.customer, tc.settings, tc.now)
			if reasonOf(d.Reason) != tc.reason {
				t.Fatalf("reason %q, want %q: %+v", reasonOf(d.Reason), tc.reason, d)
			}
			if tc.sub != nil {
				if s := tc.sub(d.Checks); s == nil || s.Result != check.Fail || reasonOf(s.Reason) != tc.reason {
					t.Errorf("sub-checks %+v: want the failing one with %s", d.Checks, tc.reason)
				}
			} else if d.Checks.CheckDigits.Result != check.Clear || d.Checks.DocumentExpired.Result != check.Clear ||
				d.Checks.DataComparison.Result != check.Clear || d.Checks.DocumentAccepted.Result != check.Clear {
				t.Errorf("sub-checks of a valid document: %+v", d.Checks)
			}
			if (tc.reason == "") != (id != nil) {
				t.Fatalf("identity %+v for reason %q", id, tc.reason)
			}
			if tc.reason == "" && (*d.DocumentNumber != "L898902C3" || *d.BirthDate != "1974-08-12" || *d.ExpiryDate != "2012-04-15" ||
				*id.DocumentType != check.DocumentTypePassport || *id.Gender != "female" || id.NationalityID != nil) {
				t.Fatalf("valid: %+v %+v", d, id)
			}
		})
	}
}
