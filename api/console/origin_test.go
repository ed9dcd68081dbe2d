package console

import (
	"net/http/httptest"
	"testing"
)

// A POST is the console's own only from the console's scheme and the
// request's host: an Origin of another scheme, with credentials or a
// path, or a Referer of another origin, is refused.
func TestSameOrigin(t *testing.T) {
	for _, c := range []struct {
		origin, referer string
		want            bool
	}{
		{"https://acme.test", "", true},
		{"HTTPS://ACME.TEST", "", true},
		{"", "https://acme.test/console/sign-in?x=1", true},
		{"null", "https://acme.test/console", true},
		{"http://acme.test", "", false},
		{"ftp://acme.test", "", false},
		{"https://evil@acme.test", "", false},
		{"http://evil@acme.test", "", false},
		{"https://acme.test/console", "", false},
		{"https://acme.test.evil.test", "", false},
		{"https://acme.test:444", "", false},
		{"//acme.test", "", false},
		{"acme.test", "", false},
		{"", "http://acme.test/console", false},
		{"", "https://u:p@acme.test/console", false},
		{"", "", false},
		{"null", "", false},
	} {
		r := httptest.NewRequest("POST", "https://acme.test/console/sign-in", nil)
		r.Host = "acme.test"
		if c.origin != "" {
			r.Header.Set("Origin", c.origin)
		}
		if c.referer != "" {
			r.Header.Set("Referer", c.referer)
		}
		if got := sameOrigin(r, "https"); got != c.want {
			t.Errorf("Origin %q Referer %q: %v, want %v", c.origin, c.referer, got, c.want)
		}
	}
}
