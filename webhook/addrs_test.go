package webhook

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"testing"
)

// The IANA special-purpose address registries (IPv4 and IPv6, as of
// 2026), written out here from the registries themselves and not from
// addrs.go's tables: the test's oracle. Multicast, the IPv6 space outside
// global unicast and the deprecated site-local prefix are added, being
// no unicast destination either.
var (
	iana4 = []string{
		"0.0.0.0/8", "0.0.0.0/32", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
		"172.16.0.0/12", "192.0.0.0/24", "192.0.0.0/29", "192.0.0.8/32", "192.0.0.9/32", "192.0.0.10/32",
		"192.0.0.170/32", "192.0.0.171/32", "192.0.2.0/24", "192.31.196.0/24", "192.52.193.0/24",
		"192.88.99.0/24", "192.168.0.0/16", "192.175.48.0/24", "198.18.0.0/15", "198.51.100.0/24",
		"203.0.113.0/24", "240.0.0.0/4", "255.255.255.255/32",
		"224.0.0.0/4",      // multicast
		"168.63.129.16/32", // a cloud's metadata service on a public address
	}
	iana6 = []string{
		"::1/128", "::/128", "::ffff:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "100:0:0:1::/64",
		"2001::/23", "2001::/32", "2001:1::1/128", "2001:1::2/128", "2001:1::3/128", "2001:2::/48",
		"2001:3::/32", "2001:4:112::/48", "2001:10::/28", "2001:20::/28", "2001:30::/28", "2001:db8::/32",
		"2002::/16", "2620:4f:8000::/48", "3fff::/20", "5f00::/16", "fc00::/7", "fe80::/10",
		"fec0::/10", "ff00::/8", // site-local (deprecated), multicast
		"::/96", "::ffff:0:0:0/96", // IPv4-compatible, IPv4-translated (both deprecated)
	}
)

func prefixes(ss []string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

var registry4, registry6 = prefixes(iana4), prefixes(iana6)

// public is the oracle: a public unicast address, by the registries. An
// address of NAT64's well-known prefix reaches the IPv4 address it
// carries, and is public when that is.
func public(a netip.Addr) bool {
	if a.Zone() != "" {
		return false
	}
	a = a.Unmap()
	in := func(ps []netip.Prefix) bool {
		for _, p := range ps {
			if p.Contains(a) {
				return true
			}
		}
		return false
	}
	if a.Is4() {
		return !in(registry4)
	}
	if netip.MustParsePrefix("64:ff9b::/96").Contains(a) {
		b := a.As16()
		return public(netip.AddrFrom4([4]byte(b[12:])))
	}
	return netip.MustParsePrefix("2000::/3").Contains(a) && !in(registry6)
}

// samples are a range's first and last addresses and one in between.
func samples(p netip.Prefix) []netip.Addr {
	first := p.Masked().Addr()
	b := first.AsSlice()
	last := make([]byte, len(b))
	mid := make([]byte, len(b))
	for i := range b {
		hostBits := max(0, min(8, (i+1)*8-p.Bits()))
		mask := byte(1<<hostBits - 1)
		last[i] = b[i] | mask
		mid[i] = b[i] | (0x5a & mask)
	}
	l, _ := netip.AddrFromSlice(last)
	m, _ := netip.AddrFromSlice(mid)
	return []netip.Addr{first, m, l}
}

// hex4 is an IPv4 address as two IPv6 groups.
func hex4(v4 netip.Addr) (string, string) {
	b := v4.As4()
	return fmt.Sprintf("%x", binary.BigEndian.Uint16(b[:2])), fmt.Sprintf("%x", binary.BigEndian.Uint16(b[2:]))
}

// full writes an IPv6 address as eight groups of four digits.
func full(a netip.Addr) string {
	b := a.As16()
	g := make([]string, 8)
	for i := range g {
		g[i] = fmt.Sprintf("%04x", binary.BigEndian.Uint16(b[2*i:]))
	}
	return strings.Join(g, ":")
}

// notations4 are the hosts a URL may carry for an IPv4 address: itself,
// every IPv6 form that carries it (mapped, compatible, translated, NAT64
// at both prefixes, 6to4, Teredo as server and as client), in lower and
// upper case, with leading zeros and with a zone, and the non-standard
// IPv4 forms resolvers accept (hex, one number, octal).
func notations4(v4 netip.Addr) []string {
	s := v4.String()
	hi, lo := hex4(v4)
	b := v4.As4()
	x := binary.BigEndian.Uint32(b[:]) ^ 0xffffffff
	v6 := []string{
		"::ffff:" + s, "::FFFF:" + s, "::ffff:" + hi + ":" + lo, "0:0:0:0:0:ffff:" + s,
		fmt.Sprintf("0000:0000:0000:0000:0000:ffff:%04s:%04s", hi, lo),
		"::" + s, "::" + hi + ":" + lo, "::ffff:0:" + s, "::ffff:0:" + hi + ":" + lo,
		"64:ff9b::" + s, "64:FF9B::" + strings.ToUpper(hi) + ":" + strings.ToUpper(lo), "0064:ff9b:0000:0000:0000:0000:" + s,
		fmt.Sprintf("64:ff9b:1:%02x%02x:%02x:%02x00::", b[0], b[1], b[2], b[3]),
		"2002:" + hi + ":" + lo + "::1", "2002:" + hi + ":" + lo + ":1::",
		"2001:0:" + hi + ":" + lo + "::",                                 // Teredo, as server
		fmt.Sprintf("2001:0:4136:e378:8000:63bf:%x:%x", x>>16, x&0xffff), // Teredo, as client
	}
	out := []string{s, s + "."}
	for _, h := range v6 {
		out = append(out, "["+h+"]", "["+h+"%25eth0]", "["+strings.ToUpper(h)+"%25lo]")
	}
	return append(out,
		fmt.Sprintf("0x%02x.%d.%d.%d", b[0], b[1], b[2], b[3]),
		fmt.Sprintf("%d", binary.BigEndian.Uint32(b[:])),
		fmt.Sprintf("0%o.0%o.0%o.0%o", b[0], b[1], b[2], b[3]),
		fmt.Sprintf("%d.%d", b[0], uint32(b[1])<<16|uint32(b[2])<<8|uint32(b[3])))
}

// notations6 are the hosts a URL may carry for an IPv6 address.
func notations6(a netip.Addr) []string {
	s := a.String()
	b := a.As16()
	dotted := full(a)[:30] + netip.AddrFrom4([4]byte(b[12:])).String()
	var out []string
	for _, h := range []string{s, strings.ToUpper(s), full(a), strings.ToUpper(full(a)), dotted} {
		out = append(out, "["+h+"]", "["+h+"%25eth0]", "["+h+"%251]")
	}
	return out
}

// refusedHosts are every special-purpose range's samples in every notation.
func refusedHosts() []string {
	var hosts []string
	for _, p := range registry4 {
		for _, a := range samples(p) {
			hosts = append(hosts, notations4(a)...)
		}
	}
	for _, p := range registry6 {
		for _, a := range samples(p) {
			if !public(a) { // NAT64's and the mapped range's may carry a public address
				hosts = append(hosts, notations6(a)...)
			}
		}
	}
	// A public address with a zone is scoped to an interface of kycflow's
	// host all the same.
	return append(hosts, "[2606:4700::1111%25eth0]", "[64:ff9b::808:808%25x]")
}

// Every address of every special-purpose range, in every notation, is
// refused when an endpoint is registered and when a delivery is sent, and
// the sender never dials (the injected dialer fails the test on any
// address off loopback, and nothing is allowed here).
func TestSpecialPurposeRangesRefused(t *testing.T) {
	var dialed []string
	var mu sync.Mutex
	g := &Guard{Resolve: fakeDNS(nil), Dial: loopbackOnly(t, &dialed, &mu)}
	s := &Sender{Guard: g}
	ctx := context.Background()
	hosts := refusedHosts()
	for _, h := range hosts {
		u := "https://" + h + "/hook"
		if err := g.CheckURL(ctx, u, false); err == nil || !strings.Contains(err.Error(), "is refused") {
			t.Errorf("registration of %s: %v", u, err)
		}
		r := s.Send(ctx, Message{URL: "https://" + h + ":8443/hook", Body: []byte(`{}`)})
		if r.OK || r.StatusCode != 0 || !strings.HasPrefix(r.Error, "refused: ") && !strings.Contains(r.Error, "invalid") {
			t.Errorf("delivery to %s: %+v", h, r)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(dialed) != 0 {
		t.Fatalf("dialled %v", dialed)
	}
	if len(hosts) < 5000 {
		t.Fatalf("only %d hosts tried", len(hosts))
	}
}

// The reason names the address an IPv6 form carries, so a tenant sees why.
func TestRefusedNamesTheCarriedAddress(t *testing.T) {
	g := &Guard{}
	for s, want := range map[string]string{
		"64:ff9b::a00:1":         "NAT64 form of 10.0.0.1, a private network",
		"64:ff9b::a9fe:a9fe":     "NAT64 form of 169.254.169.254, a cloud metadata service",
		"64:ff9b::808:808":       "",
		"64:ff9b:1:a00:0:100::":  "local-use NAT64 form of 10.0.0.1, a private network",
		"64:ff9b:1:808:8:800::":  "local-use NAT64 form",
		"2002:a00:1::":           "6to4 (deprecated) form of 10.0.0.1, a private network",
		"2002:808:808::1":        "6to4 (deprecated) form",
		"::10.0.0.1":             "IPv4-compatible (deprecated) form of 10.0.0.1, a private network",
		"::127.0.0.1":            "IPv4-compatible (deprecated) form of 127.0.0.1, a loopback",
		"::8.8.8.8":              "IPv4-compatible (deprecated) form",
		"::ffff:0:a00:1":         "IPv4-translated (deprecated) form of 10.0.0.1, a private network",
		"::ffff:10.0.0.1":        "private network",
		"2001:0:a00:1::":         "Teredo form of 10.0.0.1, a private network",
		"fec0::1":                "site-local (deprecated)",
		"fe80::1%eth0":           "scoped (with a zone)",
		"64:ff9b::a00:1%eth0":    "scoped (with a zone)",
		"2606:4700::1111":        "",
		"100::1":                 "discard",
		"4000::1":                "reserved",
		"93.184.216.34":          "",
		"168.63.129.16":          "cloud metadata service",
		"2001:db8::1":            "documentation",
		"3fff::1":                "documentation",
		"2620:4f:8000::1":        "anycast (AS112)",
		"::":                     "unspecified",
		"::1":                    "loopback",
		"fd00:ec2::254":          "cloud metadata service",
		"2001:0:4136:e378::ffff": "Teredo form of 255.255.0.0, a reserved",
	} {
		if got := g.Refused(netip.MustParseAddr(s)); got != want {
			t.Errorf("%s: %q, want %q", s, got, want)
		}
	}
}

// Hosts written as IPv4 addresses in another notation are refused, not
// resolved (a resolver could read 0x7f.1 as 127.0.0.1).
func TestNonStandardIPv4Refused(t *testing.T) {
	g := &Guard{Resolve: func(ctx context.Context, host string) ([]netip.Addr, error) {
		t.Errorf("%s was looked up", host)
		return nil, nil
	}}
	for _, h := range []string{"0x7f.1", "2130706433", "017700000001", "127.1", "010.0.0.1", "0x0A.0.0.1", "1.2.3.0x4", "8.8.8.010", "example.0x10", "example.123"} {
		err := g.CheckURL(context.Background(), "https://"+h+"/", false)
		if err == nil || !strings.Contains(err.Error(), "standard notation") {
			t.Errorf("%s: %v", h, err)
		}
	}
}

// FuzzRefused: the guard refuses an address unless it is public unicast
// by the registries (public, above), and lets every public one through;
// in every notation Go's parser accepts.
func FuzzRefused(f *testing.F) {
	for _, s := range []string{"10.0.0.1", "8.8.8.8", "::ffff:10.0.0.1", "64:ff9b::a00:1%eth0", "2002:a00:1::", "2001::1",
		"2606:4700::1111", "fe80::1%1", "::10.0.0.1", "0064:FF9B:0000:0000:0000:0000:0A00:0001", "fec0::1", "64:ff9b::808:808"} {
		f.Add([]byte(s), "")
	}
	f.Add([]byte{8, 8, 8, 8}, "")
	f.Add([]byte{0x20, 0x01, 0, 0, 10, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0}, "eth0")
	g := &Guard{}
	f.Fuzz(func(t *testing.T, raw []byte, zone string) {
		var a netip.Addr
		switch len(raw) {
		case 4, 16:
			a, _ = netip.AddrFromSlice(raw)
			if a.Is6() && zone != "" && !strings.ContainsAny(zone, "%]") {
				a = a.WithZone(zone)
			}
		default:
			var err error
			if a, err = netip.ParseAddr(string(raw)); err != nil {
				return
			}
		}
		why := g.Refused(a)
		if public(a) != (why == "") {
			t.Fatalf("%s: refused %q, public %v", a, why, public(a))
		}
	})
}
