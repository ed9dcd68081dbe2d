package e2e

import (
	"strings"
	"testing"
)

// Bad input of every kind gets a 4xx with a clear message, never a 5xx
// (request fails the test on any 5xx).
func TestBadInput(t *testing.T) {
	create := "/api/v1/businesses/create"
	cases := []struct {
		name, method, path, contentType string
		body                            any
		status                          int
		message                         string
	}{
		{"malformed json", "POST", create, "application/json", `{"name":`, 400, "Malformed JSON body."},
		{"array body", "POST", create, "application/json", `[{"name":"x"}]`, 400, "Malformed JSON body."},
		{"null body", "POST", create, "application/json", `null`, 400, "Malformed JSON body."},
		{"2 MiB body", "POST", create, "application/json", `{"name":"` + strings.Repeat("x", 2<<20) + `"}`, 413, "Request body too large"},
		{"form body", "POST", create, "application/x-www-form-urlencoded", `name=x`, 415, "Unsupported media type"},
		{"empty body", "POST", create, "", nil, 422, "The name field is required."},
		{"NUL in a string", "POST", create, "application/json", `{"name":"a\u0000b","country_code":"NLD","coc_number":"12345678","checks":{"coc":false,"vat":false,"iban":false}}`, 422, "The name field must not contain NUL characters."},
		{"NUL in a customer field", "POST", "/api/v1/customers/create", "application/json", `{"name":"A","email":"a@example.com","country_code":"NLD","city":"\u0000","checks":{"idin":false,"idscan":false,"iban":false}}`, 422, "The city field must not contain NUL"},
		{"wrong field types", "POST", create, "application/json", `{"name":[],"country_code":1,"coc_number":{},"checks":true}`, 422, "The name field must be a string."},
		{"non-uuid id", "GET", "/api/v1/businesses/123", "", nil, 404, "Not found."},
		{"uuid-like id with braces", "GET", "/api/v1/businesses/{01a20129-913d-74e6-8ada-c4ef86b85b1b}", "", nil, 404, "Not found."},
		{"unknown id", "GET", "/api/v1/customers/01a20129-913d-74e6-8ada-c4ef86b85b1b", "", nil, 404, "Not found."},
		{"unknown route", "GET", "/api/v1/nothing", "", nil, 404, "Not found."},
		{"trailing slash is the same route", "GET", "/api/v1/businesses/?per_page=0", "", nil, 422, "between 1 and 100"},
		{"wrong method", "PUT", "/api/v1/businesses", "", nil, 405, "Method not allowed."},
		{"forged cursor", "GET", "/api/v1/businesses?cursor=eyJpZCI6ImV2aWwifQ", "", nil, 422, "The cursor is invalid"},
		{"garbage cursor", "GET", "/api/v1/customers?cursor=%00%01", "", nil, 422, "The cursor is invalid"},
		{"per_page zero", "GET", "/api/v1/businesses?per_page=0", "", nil, 422, "per page field must be an integer between 1 and 100"},
		{"per_page too big", "GET", "/api/v1/businesses?per_page=101", "", nil, 422, "between 1 and 100"},
		{"per_page text", "GET", "/api/v1/customers?per_page=ten", "", nil, 422, "between 1 and 100"},
		{"check on unknown business", "POST", "/api/v1/businesses/01a20129-913d-74e6-8ada-c4ef86b85b1b/check", "application/json", `{"type":"iban"}`, 404, "Not found."},
		{"retry of unknown check", "POST", "/api/v1/checks/01a20129-913d-74e6-8ada-c4ef86b85b1b/retry", "", nil, 404, "Not found."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := requestWith(t, c.method, c.path, env.a.host, "Bearer "+env.a.key, c.contentType, c.body).want(t, c.status)
			if msg, _ := r.body["message"].(string); !strings.Contains(msg, c.message) {
				t.Fatalf("message %q, want %q", msg, c.message)
			}
			if r.header.Get("X-Request-Id") == "" {
				t.Fatal("no X-Request-Id")
			}
		})
	}
}
