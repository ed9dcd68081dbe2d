package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Guard keeps deliveries off the networks behind kycflow (SSRF): a URL's
// host is resolved, every address it resolves to must be public, and the
// connection goes to an address so checked, never to a second lookup's
// answer (DNS rebinding cannot swap a private address in between).
type Guard struct {
	// Allow are networks the operator lets deliveries reach although they
	// are private (a receiver on loopback in development, an internal
	// network on purpose). Empty in production.
	Allow []netip.Prefix
	// Resolve looks a host up; nil: the system resolver. Tests inject one.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	// Dial connects to an address already checked ("ip:port"); nil: a
	// net.Dialer. Tests inject one that fails on anything not loopback.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// BlockedError is a host that resolves to an address deliveries may not reach.
type BlockedError struct {
	Host   string
	Addr   netip.Addr
	Reason string
}

func (e *BlockedError) Error() string {
	if e.Host == e.Addr.String() {
		return fmt.Sprintf("%s is a %s address, which webhooks may not reach", e.Host, e.Reason)
	}
	return fmt.Sprintf("%s resolves to %s, a %s address, which webhooks may not reach", e.Host, e.Addr, e.Reason)
}

// ResolveError is a host that does not resolve.
type ResolveError struct {
	Host string
	Err  error
}

func (e *ResolveError) Error() string { return fmt.Sprintf("%s could not be resolved", e.Host) }
func (e *ResolveError) Unwrap() error { return e.Err }

// Ranges refused besides what netip classifies (loopback, private,
// link-local, multicast, unspecified).
var reserved = []struct {
	prefix netip.Prefix
	reason string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "reserved"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared (carrier-grade NAT)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "reserved"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	// Azure's wire server and instance metadata: public addresses that
	// answer only from inside the cloud.
	{netip.MustParsePrefix("168.63.129.16/32"), "cloud metadata service"},
	// IPv6 forms that carry an IPv4 address (NAT64, 6to4) could reach a
	// private one; and the discard and documentation prefixes.
	{netip.MustParsePrefix("64:ff9b::/96"), "NAT64"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "NAT64"},
	{netip.MustParsePrefix("2002::/16"), "6to4"},
	{netip.MustParsePrefix("100::/64"), "discard"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
}

// The cloud metadata services' addresses inside ranges refused anyway,
// named for the message.
var metadata = []netip.Addr{netip.MustParseAddr("169.254.169.254"), netip.MustParseAddr("fd00:ec2::254")}

// Refused says why an address may not be reached ("" when it may).
func (g *Guard) Refused(a netip.Addr) string {
	a = a.Unmap()
	for _, p := range g.Allow {
		if p.Contains(a) {
			return ""
		}
	}
	switch {
	case slices.Contains(metadata, a):
		return "cloud metadata service"
	case a.IsLoopback():
		return "loopback"
	case a.IsPrivate():
		return "private network"
	case a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast():
		return "link-local"
	case a.IsUnspecified():
		return "unspecified"
	case a.IsMulticast() || a.IsInterfaceLocalMulticast():
		return "multicast"
	case a == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "broadcast"
	}
	for _, r := range reserved {
		if r.prefix.Contains(a) {
			return r.reason
		}
	}
	return ""
}

// resolve returns the host's addresses when every one of them may be
// reached; otherwise a *BlockedError (naming the first refused address) or
// a *ResolveError.
func (g *Guard) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	host = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(host, "]"), "["), ".")
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		lookup := g.Resolve
		if lookup == nil {
			lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
				return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
			}
		}
		if addrs, err = lookup(ctx, host); err != nil || len(addrs) == 0 {
			return nil, &ResolveError{Host: host, Err: err}
		}
	}
	for _, a := range addrs {
		if why := g.Refused(a); why != "" {
			return nil, &BlockedError{Host: host, Addr: a.Unmap(), Reason: why}
		}
	}
	return addrs, nil
}

// URLError is an endpoint URL refused at registration.
type URLError struct{ Reason string }

func (e *URLError) Error() string { return e.Reason }

// CheckURL vets an endpoint URL when it is registered: https (http only
// when allowHTTP), a host, no credentials or fragment, and a host whose
// every address may be reached.
func (g *Guard) CheckURL(ctx context.Context, raw string, allowHTTP bool) error {
	if len(raw) > MaxURL {
		return &URLError{fmt.Sprintf("must not be longer than %d characters.", MaxURL)}
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return &URLError{"must be an absolute URL, such as https://example.com/webhooks."}
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && allowHTTP:
	case u.Scheme == "http":
		return &URLError{"must use https: plain http is accepted for sandbox tenants only."}
	default:
		return &URLError{"must be an https URL."}
	}
	if u.User != nil {
		return &URLError{"must not carry credentials: deliveries are authenticated by their signature."}
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return &URLError{"must not have a fragment (#…)."}
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return &URLError{"has an invalid port."}
		}
	}
	if _, err := g.resolve(ctx, u.Hostname()); err != nil {
		return &URLError{"is refused: " + err.Error() + "."}
	}
	return nil
}

// DialContext connects to a checked address of addr's host: the dialer of
// the sender's transport.
func (g *Guard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	addrs, err := g.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	dial := g.Dial
	if dial == nil {
		d := &net.Dialer{Timeout: 5 * time.Second}
		dial = d.DialContext
	}
	var errs []error
	for _, a := range addrs {
		c, err := dial(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}
