// Package proxy is `kycflow proxy`: a round-robin reverse proxy in front of
// several api processes.
package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Balancer spreads requests over the api processes, round robin: the one
// public port in front of several `kycflow api` (in `kycflow dev --cluster`
// and as docker-compose's `proxy` service). An upstream named by host is
// looked up again every second, so `api:8080` reaches every replica the
// DNS names.
type Balancer struct {
	upstreams []string // host:port
	next      atomic.Uint64

	mu       sync.Mutex
	resolved []string
	at       time.Time
}

func NewBalancer(upstreams []string) (*Balancer, error) {
	for _, u := range upstreams {
		if _, _, err := net.SplitHostPort(u); err != nil {
			return nil, fmt.Errorf("upstream %q: want host:port", u)
		}
	}
	if len(upstreams) == 0 {
		return nil, errors.New("no upstreams: set PROXY_UPSTREAMS")
	}
	return &Balancer{upstreams: upstreams}, nil
}

// addrs are the upstreams' current addresses (names resolved; a name that
// does not resolve is kept as is, for the dialer to report).
func (b *Balancer) addrs(ctx context.Context) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.resolved != nil && time.Since(b.at) < time.Second {
		return b.resolved
	}
	var out []string
	for _, u := range b.upstreams {
		host, port, _ := net.SplitHostPort(u)
		if net.ParseIP(host) != nil {
			out = append(out, u)
			continue
		}
		ips, err := net.DefaultResolver.LookupHost(ctx, host)
		if err != nil || len(ips) == 0 {
			out = append(out, u)
			continue
		}
		for _, ip := range ips {
			out = append(out, net.JoinHostPort(ip, port))
		}
	}
	b.resolved, b.at = out, time.Now()
	return out
}

// passOver is the proxy's transport: a request whose connection the chosen
// api refused (an api starting, stopping or gone) goes to the next one.
// Nothing of it was sent, so any api may take it, a POST too. Only a
// refused connection is retried: any later failure may have reached the api.
type passOver struct {
	b    *Balancer
	next http.RoundTripper
}

func (p passOver) RoundTrip(r *http.Request) (*http.Response, error) {
	var body *keptBody
	if r.Body != nil && r.Body != http.NoBody {
		// Left open for the server to close when the handler returns: an
		// api may answer before it has read the body (a 413 to a large
		// upload), while the transport still sends it, and closing it then
		// would cut the answer off mid-copy.
		body = &keptBody{ReadCloser: r.Body}
		r.Body = body
	}
	addrs := p.b.addrs(r.Context())
	first := slices.Index(addrs, r.URL.Host)
	for k := 1; ; k++ {
		res, err := p.next.RoundTrip(r)
		if err == nil || !errors.Is(err, syscall.ECONNREFUSED) || (body != nil && body.read.Load()) || k >= len(addrs) || first < 0 {
			return res, err
		}
		r = r.Clone(r.Context())
		r.URL.Host = addrs[(first+k)%len(addrs)]
	}
}

// keptBody is a request body the transport may not close (it closes one
// even when it fails to connect, and once the request is sent) and that
// tells whether it was read.
type keptBody struct {
	io.ReadCloser
	read atomic.Bool
}

func (b *keptBody) Read(p []byte) (int, error) {
	b.read.Store(true)
	return b.ReadCloser.Read(p)
}

func (b *keptBody) Close() error { return nil }

// handler proxies each request to the next upstream, keeping the Host
// (tenants are told apart by it) and adding X-Forwarded-For (the apis
// trust it from the proxy: TRUSTED_PROXIES).
func (b *Balancer) Handler() http.Handler {
	return &httputil.ReverseProxy{
		// Idle connections are closed before the apis close them (their
		// idle timeout is 30 s): a request is never sent on a connection
		// the api is closing, which would fail a POST with no retry.
		Transport: passOver{b: b, next: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 64,
			IdleConnTimeout: 20 * time.Second, ResponseHeaderTimeout: time.Minute}},
		Rewrite: func(r *httputil.ProxyRequest) {
			addrs := b.addrs(r.In.Context())
			target := addrs[b.next.Add(1)%uint64(len(addrs))]
			r.SetURL(&url.URL{Scheme: "http", Host: target})
			r.Out.Host = r.In.Host
			r.SetXForwarded()
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			// Never the path: a verification page's path is its link's token.
			fmt.Fprintf(os.Stderr, "proxy: %s to %s: %v\n", r.Method, r.URL.Host, err)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprintln(w, `{"message":"The API is unavailable, try again shortly."}`)
		},
	}
}

// Serve serves b on addr until ctx ends.
func Serve(ctx context.Context, addr string, b *Balancer) error {
	srv := &http.Server{Addr: addr, Handler: b.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	fmt.Printf("proxy on %s → %s\n", addr, strings.Join(b.upstreams, ", "))
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
