package verify

import (
	"net/http/httptest"
	"strings"
	"testing"
)

func TestSameOrigin(t *testing.T) {
	h := &Handler{PublicURL: "https://kyc.example.com"}
	for _, tc := range []struct {
		origin, referer string
		ok              bool
	}{
		{"https://kyc.example.com", "", true},
		{"https://KYC.example.com:443", "", true},
		{"", "https://kyc.example.com/verify/abc", true},
		{"null", "https://kyc.example.com/verify/abc", true},
		{"http://kyc.example.com", "", false},
		{"https://kyc.example.com:8443", "", false},
		{"https://kyc.example.com.evil.example", "", false},
		{"https://evil.example", "https://kyc.example.com/", false},
		{"null", "", false},
		{"", "", false},
		{"", "not a url\x7f", false},
	} {
		r := httptest.NewRequest("POST", "/verify/x", nil)
		if tc.origin != "" {
			r.Header.Set("Origin", tc.origin)
		}
		if tc.referer != "" {
			r.Header.Set("Referer", tc.referer)
		}
		if got := h.sameOrigin(r); got != tc.ok {
			t.Errorf("Origin %q Referer %q: %v, want %v", tc.origin, tc.referer, got, tc.ok)
		}
	}
}

// Entrance codes: 32 characters of iDIN's alphabet, every character about
// equally likely (no modulo bias), never repeated.
func TestEntranceCode(t *testing.T) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	counts := map[rune]int{}
	seen := map[string]bool{}
	const n = 4000
	for range n {
		ec, err := entranceCode()
		if err != nil || len(ec) != 32 || seen[ec] {
			t.Fatalf("entrance code %q %v", ec, err)
		}
		seen[ec] = true
		for _, c := range ec {
			if !strings.ContainsRune(alphabet, c) {
				t.Fatalf("character %q outside the alphabet", c)
			}
			counts[c]++
		}
	}
	// 128 000 draws over 62 characters: ~2 065 each (σ ≈ 45; the bounds
	// are ±5.9σ). Taking a byte modulo 62 would draw the first 8
	// characters 5/256 of the time: ~2 500.
	for _, c := range alphabet {
		if counts[c] < 1800 || counts[c] > 2330 {
			t.Errorf("%q drawn %d times, want about 2065", c, counts[c])
		}
	}
	if !sameSecret("abc", "abc") || sameSecret("abc", "abd") || sameSecret("", "") || sameSecret("ab", "abc") {
		t.Fatal("sameSecret")
	}
}

// Which posts are an app's (no Origin, no Referer: taken as sent) and
// which a browser's, refused from another site: the uploads and the look
// may come from apps; the page's own forms never do.
func TestPostsFromOtherSites(t *testing.T) {
	h := New(nil, nil, nil, "https://kyc.example.com", nil, nil)
	for _, tc := range []struct {
		path, origin string
	}{
		{"/verify/x", ""},
		{"/verify/x", "https://evil.example"},
		{"/verify/x/idin", ""},
		{"/verify/x/document", "https://evil.example"},
		{"/verify/x/selfie", "https://evil.example"},
		{"/verify/x/selfie/look", "https://evil.example"},
		{"/verify/x/selfie", "null"},
	} {
		r := httptest.NewRequest("POST", tc.path, strings.NewReader(""))
		if tc.origin != "" {
			r.Header.Set("Origin", tc.origin)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != 403 {
			t.Errorf("POST %s from Origin %q: %d, want 403", tc.path, tc.origin, w.Code)
		}
	}
}
