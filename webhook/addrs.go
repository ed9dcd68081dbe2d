package webhook

import (
	"encoding/binary"
	"net/netip"
)

// Which addresses a delivery may reach: public unicast only. Everything in
// IANA's special-purpose registries (IPv4 and IPv6) is refused, whatever
// the registry says of its global reachability: a webhook receiver never
// sits on an anycast relay, a benchmarking or documentation range, or a
// transition mechanism's address. An IPv6 address that carries an IPv4
// address (mapped, compatible, translated, NAT64, 6to4, Teredo) is judged
// by the IPv4 address it carries first, so the reason names where the
// packet would go.

type span struct {
	prefix netip.Prefix
	reason string
}

func spans(reason string, prefixes ...string) []span {
	out := make([]span, len(prefixes))
	for i, p := range prefixes {
		out[i] = span{netip.MustParsePrefix(p), reason}
	}
	return out
}

func join(groups ...[]span) []span {
	var out []span
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// special4 is the IPv4 special-purpose registry (RFC 6890 and its
// updates), plus multicast, the reserved block and the cloud metadata
// services; the first match names the reason.
var special4 = join(
	spans("cloud metadata service", "169.254.169.254/32", "168.63.129.16/32", "100.100.100.200/32", "192.0.0.192/32"),
	spans("unspecified", "0.0.0.0/32"),
	spans("broadcast", "255.255.255.255/32"),
	spans("reserved (this network)", "0.0.0.0/8"),
	spans("private network", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"),
	spans("shared (carrier-grade NAT)", "100.64.0.0/10"),
	spans("loopback", "127.0.0.0/8"),
	spans("link-local", "169.254.0.0/16"),
	spans("reserved (IETF protocol assignments)", "192.0.0.0/24"),
	spans("documentation", "192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24"),
	spans("anycast (AS112)", "192.31.196.0/24", "192.175.48.0/24"),
	spans("anycast (AMT)", "192.52.193.0/24"),
	spans("6to4 relay anycast (deprecated)", "192.88.99.0/24"),
	spans("benchmarking", "198.18.0.0/15"),
	spans("multicast", "224.0.0.0/4"),
	spans("reserved", "240.0.0.0/4"),
)

// special6 is the IPv6 special-purpose registry (RFC 6890 and its
// updates), plus what lies outside global unicast (2000::/3); the forms
// that embed IPv4 are in embedded6.
var special6 = join(
	spans("cloud metadata service", "fd00:ec2::254/128"),
	spans("unspecified", "::/128"),
	spans("loopback", "::1/128"),
	spans("discard", "100::/64"),
	spans("dummy prefix", "100:0:0:1::/64"),
	spans("benchmarking", "2001:2::/48"),
	spans("reserved (IETF protocol assignments)", "2001::/23"),
	spans("documentation", "2001:db8::/32", "3fff::/20"),
	spans("anycast (AS112)", "2620:4f:8000::/48"),
	spans("SRv6 segment identifier", "5f00::/16"),
	spans("private network (unique local)", "fc00::/7"),
	spans("link-local", "fe80::/10"),
	spans("site-local (deprecated)", "fec0::/10"),
	spans("multicast", "ff00::/8"),
)

var globalUnicast6 = netip.MustParsePrefix("2000::/3")

// embedding is an IPv6 form that carries an IPv4 address.
type embedding struct {
	prefix netip.Prefix
	form   string
	// public: an address of this form whose IPv4 address is public may be
	// reached (only NAT64's well-known prefix, which is globally routed);
	// the others are deprecated or local.
	public bool
	// v4 returns the carried IPv4 addresses.
	v4 func(b [16]byte) []netip.Addr
}

func last32(b [16]byte) []netip.Addr { return []netip.Addr{netip.AddrFrom4([4]byte(b[12:]))} }

var embedded6 = []embedding{
	// ::ffff:0:0/96 (mapped) is undone by Unmap before this table.
	{netip.MustParsePrefix("::ffff:0:0:0/96"), "IPv4-translated (deprecated) form", false, last32},
	{netip.MustParsePrefix("64:ff9b::/96"), "NAT64 form", true, last32},
	// RFC 6052 at /48: the IPv4 address is bits 48–63 and 72–87 (bits
	// 64–71 are the reserved u octet).
	{netip.MustParsePrefix("64:ff9b:1::/48"), "local-use NAT64 form", false, func(b [16]byte) []netip.Addr {
		return []netip.Addr{netip.AddrFrom4([4]byte{b[6], b[7], b[9], b[10]})}
	}},
	{netip.MustParsePrefix("2002::/16"), "6to4 (deprecated) form", false, func(b [16]byte) []netip.Addr {
		return []netip.Addr{netip.AddrFrom4([4]byte(b[2:6]))}
	}},
	// Teredo: the server's address in bits 32–63, the client's
	// (inverted) in the last 32.
	{netip.MustParsePrefix("2001::/32"), "Teredo form", false, func(b [16]byte) []netip.Addr {
		client := binary.BigEndian.Uint32(b[12:]) ^ 0xffffffff
		var c [4]byte
		binary.BigEndian.PutUint32(c[:], client)
		return []netip.Addr{netip.AddrFrom4([4]byte(b[4:8])), netip.AddrFrom4(c)}
	}},
	// ::/96 (IPv4-compatible, deprecated) but for :: and ::1, which the
	// special table names.
	{netip.MustParsePrefix("::/96"), "IPv4-compatible (deprecated) form", false, last32},
}

// refusedAddr says why a delivery may not reach a: "" for public unicast.
func refusedAddr(a netip.Addr) string {
	if a.Zone() != "" {
		// A zone names an interface of kycflow's own host: no webhook
		// has business there, and netip.Prefix never contains a zoned
		// address, so no range below would see it.
		return "scoped (with a zone)"
	}
	a = a.Unmap()
	if a.Is4() {
		return first(special4, a)
	}
	if why := first(special6[:3], a); why != "" { // metadata, ::, ::1 before ::/96
		return why
	}
	b := a.As16()
	for _, e := range embedded6 {
		if !e.prefix.Contains(a) {
			continue
		}
		for _, v4 := range e.v4(b) {
			if why := first(special4, v4); why != "" {
				return e.form + " of " + v4.String() + ", a " + why
			}
		}
		if !e.public {
			return e.form
		}
		return ""
	}
	if why := first(special6, a); why != "" {
		return why
	}
	if !globalUnicast6.Contains(a) {
		return "reserved"
	}
	return ""
}

func first(table []span, a netip.Addr) string {
	for _, s := range table {
		if s.prefix.Contains(a) {
			return s.reason
		}
	}
	return ""
}
