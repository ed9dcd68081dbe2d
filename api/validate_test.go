package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kycflow/kycflow/check"
)

func parse(t *testing.T, body string) *object {
	t.Helper()
	o, err := parseObject([]byte(body), "")
	if err != nil {
		t.Fatalf("parse %s: %v", body, err)
	}
	return o
}

// fieldsOf returns the 422's field errors, or fails when err is not one.
func fieldsOf(t *testing.T, err error) map[string][]string {
	t.Helper()
	var ae *apiError
	if !errors.As(err, &ae) || ae.status != http.StatusUnprocessableEntity {
		t.Fatalf("want a 422, got %v", err)
	}
	return ae.fields.msgs
}

const goodBusiness = `{"name":"Acme BV","country_code":"NLD","coc_number":"68750110","vat_number":"NL123456789B01","iban_number":"NL91ABNA0417164300","checks":{"iban":true,"coc":true,"vat":false}}`

func TestCreateBusinessValid(t *testing.T) {
	req, err := parseCreateBusiness(parse(t, goodBusiness))
	if err != nil {
		t.Fatal(err)
	}
	if req.business.CountryID != 528 || req.business.CoCNumber != "68750110" {
		t.Fatalf("business: %+v", req.business)
	}
	// Checks in the order the caller sent them.
	if joinTypes(req.checks) != "iban, coc" {
		t.Fatalf("checks order: %v", req.checks)
	}
	// coc number as a JSON number, and outside NLD any 6–20 digits.
	req, err = parseCreateBusiness(parse(t, `{"name":"A","country_code":"DEU","coc_number":123456,"checks":{"coc":true,"vat":false,"iban":false}}`))
	if err != nil || req.business.CoCNumber != "123456" {
		t.Fatalf("numeric coc: %+v %v", req, err)
	}
}

func TestCreateBusinessInvalid(t *testing.T) {
	cases := []struct {
		name, body string
		want       map[string]string // field → message fragment
	}{
		{"empty", `{}`, map[string]string{"name": "is required", "country_code": "is required", "coc_number": "is required", "checks": "is required"}},
		{"false is a value, absent is not", `{"name":"A","country_code":"NLD","coc_number":"12345678","checks":{"coc":false}}`,
			map[string]string{"checks.vat": "is required", "checks.iban": "is required"}},
		{"wrong types", `{"name":5,"country_code":["NLD"],"coc_number":true,"checks":[]}`,
			map[string]string{"name": "must be a string", "country_code": "must be a string", "coc_number": "must be a string or a whole number", "checks": "must be an object"}},
		{"boolean as string", `{"name":"A","country_code":"NLD","coc_number":"12345678","checks":{"coc":"true","vat":0,"iban":null}}`,
			map[string]string{"checks.coc": "true or false", "checks.vat": "true or false", "checks.iban": "is required"}},
		{"customer check on a business", `{"name":"A","country_code":"NLD","coc_number":"12345678","checks":{"coc":false,"vat":false,"iban":false,"aml":true}}`,
			map[string]string{"checks.aml": "not a check type here (one of coc, vat, iban)"}},
		{"non-EU country", `{"name":"A","country_code":"GBR","coc_number":"12345678","checks":{"coc":false,"vat":false,"iban":false}}`,
			map[string]string{"country_code": "EU member state"}},
		{"lower-case country", `{"name":"A","country_code":"nld","coc_number":"12345678","checks":{"coc":false,"vat":false,"iban":false}}`,
			map[string]string{"country_code": "EU member state"}},
		{"coc too short", `{"name":"A","country_code":"BEL","coc_number":"12345","checks":{"coc":false,"vat":false,"iban":false}}`,
			map[string]string{"coc_number": "between 6 and 20 digits"}},
		{"coc with letters", `{"name":"A","country_code":"BEL","coc_number":"12345A78","checks":{"coc":false,"vat":false,"iban":false}}`,
			map[string]string{"coc_number": "between 6 and 20 digits"}},
		{"coc fractional number", `{"name":"A","country_code":"BEL","coc_number":1234567.5,"checks":{"coc":false,"vat":false,"iban":false}}`,
			map[string]string{"coc_number": "whole number"}},
		{"NLD coc check needs 8 digits", `{"name":"A","country_code":"NLD","coc_number":"1234567890","checks":{"coc":true,"vat":false,"iban":false}}`,
			map[string]string{"coc_number": "8 digits"}},
		{"vat check needs vat number", `{"name":"A","country_code":"NLD","coc_number":"12345678","checks":{"coc":false,"vat":true,"iban":true}}`,
			map[string]string{"vat_number": "required when checks.vat is true", "iban_number": "required when checks.iban is true"}},
		{"blank strings are absent", `{"name":"  ","country_code":"NLD","coc_number":"12345678","iban_number":" ","checks":{"coc":false,"vat":false,"iban":true}}`,
			map[string]string{"name": "is required", "iban_number": "required when checks.iban"}},
		{"name too long", `{"name":"` + strings.Repeat("é", 256) + `","country_code":"NLD","coc_number":"12345678","checks":{"coc":false,"vat":false,"iban":false}}`,
			map[string]string{"name": "not be greater than 255 characters"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseCreateBusiness(parse(t, c.body))
			got := fieldsOf(t, err)
			for f, frag := range c.want {
				if len(got[f]) == 0 || !strings.Contains(got[f][0], frag) {
					t.Errorf("%s: got %q, want %q", f, got[f], frag)
				}
			}
			if len(got) != len(c.want) {
				t.Errorf("fields %v, want exactly %v", got, c.want)
			}
		})
	}
}

func TestValidationBody(t *testing.T) {
	_, err := parseCreateBusiness(parse(t, `{"country_code":"NLD","coc_number":"12345678","checks":{"coc":false,"vat":false,"iban":false}}`))
	var ae *apiError
	errors.As(err, &ae)
	b, _ := json.Marshal(errorBody{Message: ae.message, Errors: ae.fields})
	want := `{"message":"The name field is required.","errors":{"name":["The name field is required."]}}`
	if string(b) != want {
		t.Fatalf("body\n got %s\nwant %s", b, want)
	}
	_, err = parseCreateBusiness(parse(t, `{}`))
	errors.As(err, &ae)
	if ae.message != "The name field is required. (and 3 more errors)" {
		t.Fatalf("summary: %q", ae.message)
	}
}

var today = time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)

func TestCreateCustomerValid(t *testing.T) {
	req, err := parseCreateCustomer(parse(t, `{"name":"Jan de Vries","email":"jan@example.nl","country_code":"NLD",
		"checks":{"idin":false,"idscan":true,"aml":true,"iban":true},"iban_number":"NL91ABNA0417164300","phone":"06 12345678",
		"birthdate":"2008-11-22","address":"Damrak 1A","mails":false,"business_id":"01a20129-913d-74e6-8ada-c4ef86b85b1b"}`), today)
	if err != nil {
		t.Fatal(err)
	}
	c := req.customer
	if *c.Phone != "+31612345678" || c.Mails || *c.Street != "Damrak" || *c.HouseNumber != "1" || *c.Addition != "A" {
		t.Fatalf("customer: phone %v mails %v street %v %v %v", *c.Phone, c.Mails, *c.Street, *c.HouseNumber, *c.Addition)
	}
	if joinTypes(req.checks) != "idscan, aml, iban" {
		t.Fatalf("checks: %v", req.checks)
	}
	// mails defaults to true.
	req, err = parseCreateCustomer(parse(t, `{"name":"A","email":"a@example.com","country_code":"BEL","checks":{"idin":false,"idscan":false,"iban":false}}`), today)
	if err != nil || !req.customer.Mails {
		t.Fatalf("default mails: %v %v", req.customer.Mails, err)
	}
}

func TestCreateCustomerInvalid(t *testing.T) {
	base := `"name":"A","email":"a@example.com","country_code":"NLD","checks":{"idin":false,"idscan":false,"iban":false}`
	cases := []struct{ name, body, field, frag string }{
		{"bad email", `{"name":"A","email":"nope","country_code":"NLD","checks":{"idin":false,"idscan":false,"iban":false}}`, "email", "valid email"},
		{"minor", `{` + base + `,"birthdate":"2008-11-23"}`, "birthdate", "18 years"},
		{"not a date", `{` + base + `,"birthdate":"2001-02-30"}`, "birthdate", "valid date"},
		{"date with time", `{` + base + `,"birthdate":"2001-02-03T00:00:00Z"}`, "birthdate", "valid date"},
		{"short phone", `{` + base + `,"phone":"061234"}`, "phone", "at least 10"},
		{"invalid phone", `{` + base + `,"phone":"0000000000"}`, "phone", "valid phone"},
		{"business id not uuid", `{` + base + `,"business_id":"42"}`, "business_id", "valid UUID"},
		{"iban needed", `{"name":"A","email":"a@example.com","country_code":"NLD","checks":{"idin":false,"idscan":false,"iban":true}}`, "iban_number", "required when checks.iban"},
		{"mails not boolean", `{` + base + `,"mails":"yes"}`, "mails", "true or false"},
		{"missing idin", `{"name":"A","email":"a@example.com","country_code":"NLD","checks":{"idscan":false,"iban":false}}`, "checks.idin", "is required"},
		{"unknown check", `{"name":"A","email":"a@example.com","country_code":"NLD","checks":{"idin":false,"idscan":false,"iban":false,"coc":true}}`, "checks.coc", "not a check type here (one of idin, idscan, iban, aml)"},
		{"aml not boolean", `{"name":"A","email":"a@example.com","country_code":"NLD","checks":{"idin":false,"idscan":false,"iban":false,"aml":"yes"}}`, "checks.aml", "true or false"},
		{"initials too long", `{` + base + `,"initials":"` + strings.Repeat("x", 256) + `"}`, "initials", "255"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseCreateCustomer(parse(t, c.body), today)
			got := fieldsOf(t, err)
			if len(got[c.field]) == 0 || !strings.Contains(got[c.field][0], c.frag) {
				t.Fatalf("%s: got %v, want %q", c.field, got, c.frag)
			}
		})
	}
	// The 18th birthday itself is old enough.
	if _, err := parseCreateCustomer(parse(t, `{`+base+`,"birthdate":"2008-11-22"}`), today); err != nil {
		t.Fatalf("18 today: %v", err)
	}
}

func TestTypeList(t *testing.T) {
	cases := []struct {
		body string
		want map[string]string
	}{
		{`{}`, map[string]string{"type": "is required"}},
		{`{"type":[]}`, map[string]string{"type": "is required"}},
		{`{"type":"iban"}`, map[string]string{"type": "must be an array"}},
		{`{"type":["iban",5]}`, map[string]string{"type.1": "must be a string"}},
		{`{"type":["iban","aml"]}`, map[string]string{"type.1": "The selected type.1 is invalid"}},
		{`{"type":["iban","coc","iban"]}`, map[string]string{"type.2": "duplicate"}},
	}
	for _, c := range cases {
		var fe fieldErrors
		typeList(parse(t, c.body), check.Types(check.Business), &fe)
		for f, frag := range c.want {
			if len(fe.msgs[f]) == 0 || !strings.Contains(fe.msgs[f][0], frag) {
				t.Errorf("%s: %s: got %v, want %q", c.body, f, fe.msgs, frag)
			}
		}
	}
	var fe fieldErrors
	if got := typeList(parse(t, `{"type":["vat","coc"]}`), check.Types(check.Business), &fe); !fe.empty() || joinTypes(got) != "vat, coc" {
		t.Fatalf("valid list: %v %v", got, fe.msgs)
	}
}

func TestSplitAddress(t *testing.T) {
	cases := map[string][3]string{
		"Damrak 1A":                         {"Damrak", "1", "A"},
		"Damrak 1":                          {"Damrak", "1", ""},
		"Laan van Meerdervoort 1234-bis":    {"Laan van Meerdervoort", "1234", "bis"},
		"1e Helmersstraat 12 hs, Amsterdam": {"1e Helmersstraat", "12", "hs"},
		"Keizersgracht  12 / 3":             {"Keizersgracht", "12", "3"},
	}
	for in, want := range cases {
		s, n, a := splitAddress(&in)
		if s == nil || *s != want[0] || *n != want[1] || (want[2] == "" && a != nil) || (want[2] != "" && (a == nil || *a != want[2])) {
			t.Errorf("%q: got %v %v %v", in, deref(s), deref(n), deref(a))
		}
	}
	for _, in := range []string{"Postbus", "12", ""} {
		if s, _, _ := splitAddress(&in); s != nil {
			t.Errorf("%q parsed as street %q", in, *s)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
