package app

import (
	"strings"
	"testing"
)

// Verification links are credentials: the api and worker refuse to hand
// them out over plain HTTP to another machine.
func TestPublicURLMustBeHTTPS(t *testing.T) {
	for _, tc := range []struct {
		url, allow string
		ok         bool
	}{
		{"https://kyc.example.com", "", true},
		{"http://localhost:8080", "", true},
		{"http://127.0.0.1:8080", "", true},
		{"http://[::1]:8080", "", true},
		{"http://kyc.localhost", "", true},
		{"http://kyc.example.com", "", false},
		{"http://10.0.0.5:8080", "", false},
		{"http://localhost.example.com", "", false},
		{"http://kyc.example.com", "1", true},
		{"ftp://kyc.example.com", "1", false},
		{"kyc.example.com", "", false},
	} {
		err := Config{PublicURL: tc.url, PublicURLAllowHTTP: tc.allow == "1"}.CheckPublicURL()
		if (err == nil) != tc.ok {
			t.Errorf("%q (allow %q): %v", tc.url, tc.allow, err)
		}
		if err != nil && !strings.Contains(err.Error(), "PUBLIC_URL") {
			t.Errorf("%q: the error does not name PUBLIC_URL: %v", tc.url, err)
		}
	}
}

// kycflow dev listens on loopback unless told otherwise; kycflow api on
// every interface (a container's port).
func TestHTTPAddr(t *testing.T) {
	if got := (Config{}).HTTPAddrFor(true); got != "127.0.0.1:8080" {
		t.Errorf("dev: %s", got)
	}
	if got := (Config{}).HTTPAddrFor(false); got != ":8080" {
		t.Errorf("api: %s", got)
	}
	if got := (Config{HTTPAddr: "0.0.0.0:9000"}).HTTPAddrFor(true); got != "0.0.0.0:9000" {
		t.Errorf("dev with HTTP_ADDR: %s", got)
	}
}
