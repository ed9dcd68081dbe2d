package api

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
)

func TestValidRequestID(t *testing.T) {
	for id, want := range map[string]bool{
		"abc": true, "A-b_c.9": true, strings.Repeat("z", 64): true,
		"": false, strings.Repeat("z", 65): false, "a b": false, "a\nb": false, "é": false, "a/b": false, "<script>": false,
	} {
		if got := validRequestID(id); got != want {
			t.Errorf("validRequestID(%.10q) = %v", id, got)
		}
	}
}

// The client address is the peer's unless a trusted proxy forwards it, and
// IPv6 clients count by their /64.
func TestClientAddr(t *testing.T) {
	addr := func(trusted []netip.Prefix, peer, xff string) string {
		e := echo.New()
		e.IPExtractor = ipExtractor(trusted)
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = peer
		if xff != "" {
			r.Header.Set("X-Forwarded-For", xff)
		}
		return clientAddr(e.NewContext(r, httptest.NewRecorder())).String()
	}
	proxy := []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")}
	for _, tc := range []struct {
		trusted       []netip.Prefix
		peer, xff, is string
	}{
		{nil, "192.0.2.1:1234", "198.51.100.9", "192.0.2.1"},
		{nil, "10.1.0.5:1234", "198.51.100.9", "10.1.0.5"}, // private peers are not trusted by default
		{proxy, "10.1.0.5:1234", "198.51.100.9", "198.51.100.9"},
		{proxy, "10.1.0.5:1234", "203.0.113.1, 198.51.100.9", "198.51.100.9"}, // the client cannot prepend
		{proxy, "10.2.0.5:1234", "198.51.100.9", "10.2.0.5"},
		{nil, "[2001:db8:1:2:3:4:5:6]:1234", "", "2001:db8:1:2::"},
		{nil, "[::ffff:192.0.2.7]:1234", "", "192.0.2.7"},
	} {
		if got := addr(tc.trusted, tc.peer, tc.xff); got != tc.is {
			t.Errorf("peer %s, X-Forwarded-For %q, trusted %v: %s, want %s", tc.peer, tc.xff, tc.trusted, got, tc.is)
		}
	}
}

// Idle addresses are forgotten, so a flood from many addresses does not
// grow the limiter without bound.
func TestKeyedForgetsIdleAddresses(t *testing.T) {
	k := perMinute(10)
	now := time.Now()
	for i := range 1000 {
		k.get(netip.AddrFrom4([4]byte{192, 0, 2, byte(i)}).Next(), now)
	}
	k.get(netip.MustParseAddr("198.51.100.1"), now.Add(idleAfter+2*time.Minute))
	if n := len(k.m); n != 1 {
		t.Fatalf("%d addresses kept, want 1", n)
	}
	if perSecond(0) != nil || perMinute(-1) != nil {
		t.Fatal("a zero limit must be off")
	}
}
