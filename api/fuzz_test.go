package api

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The create handlers' input path (body reading and validation) must answer
// every byte string with a result or a 4xx naming what is wrong: never a
// panic, never a 5xx, never an unnamed 422.
func fuzzCreate(f *testing.F, seeds []string, validate func(*object) error) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		o, err := readBody(bodyRequest(body, "application/json"))
		if err == nil {
			err = validate(o)
		}
		if err == nil {
			return
		}
		var ae *apiError
		if !errors.As(err, &ae) || ae.status < 400 || ae.status >= 500 {
			t.Fatalf("body %q: %v", body, err)
		}
		if ae.status == http.StatusUnprocessableEntity && (ae.fields == nil || ae.fields.empty() || ae.message == "") {
			t.Fatalf("body %q: 422 without fields", body)
		}
	})
}

func FuzzCreateBusiness(f *testing.F) {
	fuzzCreate(f, []string{goodBusiness, `{}`, `{"coc_number":12345678e3}`, `{"checks":{"coc":true}}`, `[`, `{"name":"\u0000"}`},
		func(o *object) error { _, err := parseCreateBusiness(o); return err })
}

func FuzzCreateCustomer(f *testing.F) {
	fuzzCreate(f, []string{
		`{"name":"A","email":"a@example.com","country_code":"NLD","checks":{"idin":true,"idscan":false,"iban":false},"phone":"+31612345678","birthdate":"1990-01-01"}`,
		`{"birthdate":"0000-00-00","phone":"++++++++++++"}`, `{"business_id":"` + strings.Repeat("0", 36) + `"}`,
	}, func(o *object) error { _, err := parseCreateCustomer(o, time.Now()); return err })
}

func FuzzCursor(f *testing.F) {
	f.Add(cursor{Next: true}.encode())
	f.Add("eyJpZCI6IjAxIn0")
	f.Fuzz(func(t *testing.T, s string) {
		if c, ok := decodeCursor(s); ok {
			if back, ok := decodeCursor(c.encode()); !ok || back != c {
				t.Fatalf("%q: re-encoding changed the cursor", s)
			}
		}
	})
}
