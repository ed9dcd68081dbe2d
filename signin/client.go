package signin

import (
	"context"
	"net/netip"
)

type clientKey struct{}

// WithClient is ctx carrying the client address a request comes from, as
// the server's limits count it (behind a trusted proxy, the client it
// names): what a sign-in's lock-out is counted per.
func WithClient(ctx context.Context, a netip.Addr) context.Context {
	return context.WithValue(ctx, clientKey{}, a)
}

// Client is the client address WithClient gave ctx; the unspecified
// address when none was given (every such request is one client).
func Client(ctx context.Context) netip.Addr {
	if a, ok := ctx.Value(clientKey{}).(netip.Addr); ok {
		return a
	}
	return netip.IPv4Unspecified()
}
