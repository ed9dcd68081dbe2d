package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
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

// Refused says why an address may not be reached ("" when it may): the
// operator's Allow networks, else public unicast only (addrs.go).
func (g *Guard) Refused(a netip.Addr) string {
	if a.Zone() == "" {
		for _, p := range g.Allow {
			if p.Contains(a.Unmap()) {
				return ""
			}
		}
	}
	return refusedAddr(a)
}

// ForTenant is the guard for a tenant's endpoints: the operator's Allow
// networks open to sandbox tenants only (the development stack's
// receivers on loopback); a live tenant's deliveries reach public
// addresses alone, whatever the operator allowed.
func (g *Guard) ForTenant(sandbox bool) *Guard {
	if sandbox || len(g.Allow) == 0 {
		return g
	}
	strict := *g
	strict.Allow = nil
	return &strict
}

// resolve returns the host's addresses when every one of them may be
// reached; otherwise a *BlockedError (naming the first refused address) or
// a *ResolveError.
func (g *Guard) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	literal := strings.HasPrefix(host, "[") || strings.Contains(host, ":")
	host = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(host, "]"), "["), ".")
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else if literal {
		return nil, &NotationError{Host: host, Reason: "is not a valid IPv6 address"}
	} else if endsInNumber(host) {
		return nil, &NotationError{Host: host, Reason: "is not an IPv4 address in standard notation (four decimal numbers, no leading zeros)"}
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

// NotationError is a host written as an address in a form other than the
// standard one. Resolvers and browsers read "0x7f.1", "2130706433" or
// "010.0.0.1" as IPv4 addresses, each its own way (octal, hex, a number
// for the last parts): such a host is refused, not guessed at.
type NotationError struct {
	Host   string
	Reason string
}

func (e *NotationError) Error() string { return e.Host + " " + e.Reason }

// endsInNumber: the host's last label is a number (decimal, or hex with
// 0x), which makes the whole host an IPv4 address to a URL parser
// (WHATWG's "ends in a number"); no top-level domain is numeric.
func endsInNumber(host string) bool {
	label := host[strings.LastIndexByte(host, '.')+1:]
	if label == "" {
		return false
	}
	if len(label) >= 2 && (label[:2] == "0x" || label[:2] == "0X") {
		label = label[2:]
		return strings.Trim(label, "0123456789abcdefABCDEF") == ""
	}
	return strings.Trim(label, "0123456789") == ""
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
