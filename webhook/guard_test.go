package webhook

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"
)

// loopbackOnly is the dialer tests inject: a dial anywhere but loopback
// fails the test instead of sending a packet.
func loopbackOnly(t *testing.T, dialed *[]string, mu *sync.Mutex) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			t.Errorf("dial %q: not ip:port", addr)
			return nil, err
		}
		a, err := netip.ParseAddr(host)
		if err != nil || !a.IsLoopback() {
			t.Errorf("dial to %q: only loopback may be dialled in tests (and only checked addresses at all)", addr)
			return nil, errors.New("test dialer: not loopback")
		}
		mu.Lock()
		*dialed = append(*dialed, addr)
		mu.Unlock()
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
}

// fakeDNS answers from a table; a name not in it does not resolve.
func fakeDNS(table map[string][]string) func(ctx context.Context, host string) ([]netip.Addr, error) {
	return func(_ context.Context, host string) ([]netip.Addr, error) {
		var out []netip.Addr
		for _, s := range table[host] {
			out = append(out, netip.MustParseAddr(s))
		}
		if len(out) == 0 {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		return out, nil
	}
}

func TestRefused(t *testing.T) {
	g := &Guard{}
	cases := map[string]string{
		"127.0.0.1": "loopback", "127.3.4.5": "loopback", "::1": "loopback", "::ffff:127.0.0.1": "loopback",
		"10.0.0.1": "private network", "172.16.5.4": "private network", "192.168.1.1": "private network", "fd12::1": "private network (unique local)",
		"169.254.169.254": "cloud metadata service", "fd00:ec2::254": "cloud metadata service", "168.63.129.16": "cloud metadata service",
		"169.254.1.1": "link-local", "fe80::1": "link-local", "0.0.0.0": "unspecified", "::": "unspecified",
		"100.64.0.1": "shared (carrier-grade NAT)", "239.1.2.3": "multicast", "255.255.255.255": "broadcast",
		"64:ff9b::a00:1": "NAT64 form of 10.0.0.1, a private network", "2002:a00:1::": "6to4 (deprecated) form of 10.0.0.1, a private network", "198.18.0.1": "benchmarking", "240.0.0.1": "reserved",
		"::ffff:10.0.0.1": "private network",
		"93.184.216.34":   "", "2606:2800:220:1:248:1893:25c8:1946": "", "8.8.8.8": "",
	}
	for s, want := range cases {
		if got := g.Refused(netip.MustParseAddr(s)); got != want {
			t.Errorf("%s: %q, want %q", s, got, want)
		}
	}
	// The operator's allow-list opens exactly its networks.
	g.Allow = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	for _, s := range []string{"127.0.0.1", "::1", "::ffff:127.0.0.1"} {
		if got := g.Refused(netip.MustParseAddr(s)); got != "" {
			t.Errorf("%s allowed by the list: %q", s, got)
		}
	}
	if got := g.Refused(netip.MustParseAddr("10.0.0.1")); got == "" {
		t.Error("10.0.0.1 allowed by a loopback list")
	}
}

func TestCheckURL(t *testing.T) {
	g := &Guard{Resolve: fakeDNS(map[string][]string{
		"hooks.example.com": {"93.184.216.34"},
		"internal.example":  {"10.0.0.1"},
		"mixed.example":     {"93.184.216.34", "192.168.0.7"},
		"metadata.example":  {"169.254.169.254"},
		"v6loop.example":    {"::1"},
		"localhost":         {"127.0.0.1", "::1"},
	})}
	ctx := context.Background()
	ok := []string{"https://hooks.example.com/kycflow", "https://hooks.example.com:8443/x?y=1", "https://93.184.216.34/x"}
	for _, u := range ok {
		if err := g.CheckURL(ctx, u, false); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	bad := map[string]string{
		"http://127.0.0.1/hook":                            "must use https",
		"https://127.0.0.1/hook":                           "127.0.0.1 is a loopback address",
		"https://169.254.169.254/latest":                   "cloud metadata service",
		"https://[::1]:8443/":                              "::1 is a loopback address",
		"https://internal.example/":                        "internal.example resolves to 10.0.0.1, a private network address",
		"https://mixed.example/":                           "192.168.0.7",
		"https://metadata.example/":                        "cloud metadata service",
		"https://v6loop.example/":                          "loopback",
		"https://localhost/":                               "loopback",
		"https://nowhere.example/":                         "could not be resolved",
		"ftp://hooks.example.com/":                         "must be an https URL",
		"hooks.example.com/x":                              "absolute URL",
		"https://u:p@hooks.example.com/":                   "credentials",
		"https://hooks.example.com/#frag":                  "fragment",
		"https:///nohost":                                  "absolute URL",
		"https://" + strings.Repeat("a", MaxURL) + ".com/": "longer than",
		"https://[::ffff:10.0.0.1]/":                       "private network",
		"https://0x7f.0.0.1/":                              "standard notation",
	}
	for u, want := range bad {
		err := g.CheckURL(ctx, u, false)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error with %q", u, err, want)
		}
	}
	if err := g.CheckURL(ctx, "http://hooks.example.com/", true); err != nil {
		t.Errorf("http allowed: %v", err)
	}
}

func TestSendSignsAndPins(t *testing.T) {
	secret := NewSecret()
	var got struct {
		sync.Mutex
		header http.Header
		body   string
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, 1024)
		n, _ := r.Body.Read(b)
		got.Lock()
		got.header, got.body = r.Header.Clone(), string(b[:n])
		got.Unlock()
		w.Write([]byte(strings.Repeat("x", 5000)))
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	var dialed []string
	var mu sync.Mutex
	g := &Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
		Resolve: fakeDNS(map[string][]string{"receiver.test": {"127.0.0.1"}}), Dial: loopbackOnly(t, &dialed, &mu)}
	s := &Sender{Guard: g}
	body := []byte(`{"id":"e1"}`)
	r := s.Send(context.Background(), Message{URL: "http://receiver.test:" + port + "/hook", EventID: "e1", EventType: "check.completed", Body: body, Secrets: [][]byte{[]byte(secret)}, Sandbox: true})
	if !r.OK || r.StatusCode != 200 || len(r.Response) != MaxResponse || r.Error != "" {
		t.Fatalf("result %+v", r)
	}
	got.Lock()
	defer got.Unlock()
	if got.body != string(body) || got.header.Get(HeaderEventID) != "e1" || got.header.Get(HeaderEventType) != "check.completed" || got.header.Get("Content-Type") != "application/json" {
		t.Fatalf("received %q %v", got.body, got.header)
	}
	if err := Verify(got.header.Get(HeaderSignature), []byte(got.body), secret, time.Now()); err != nil {
		t.Fatalf("signature: %v", err)
	}
	// The connection went to the checked address, not to a name a second
	// lookup could have answered differently.
	mu.Lock()
	defer mu.Unlock()
	if len(dialed) != 1 || dialed[0] != "127.0.0.1:"+port {
		t.Fatalf("dialled %v", dialed)
	}
	mu.Unlock()
	// The operator's allow-list is the sandbox tenants': a live tenant's
	// delivery to the same receiver is refused (with the connection the
	// sandbox one left open idle), and so is its registration.
	r = s.Send(context.Background(), Message{URL: "http://receiver.test:" + port + "/hook", Body: body, Secrets: [][]byte{[]byte(secret)}})
	if r.OK || !strings.Contains(r.Error, "refused: receiver.test resolves to 127.0.0.1, a loopback address") {
		t.Fatalf("live delivery to an allowed network: %+v", r)
	}
	if err := g.ForTenant(false).CheckURL(context.Background(), "https://receiver.test/", false); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("live registration on an allowed network: %v", err)
	}
	if err := g.ForTenant(true).CheckURL(context.Background(), "https://receiver.test/", false); err != nil {
		t.Fatalf("sandbox registration on an allowed network: %v", err)
	}
	mu.Lock()
	if len(dialed) != 1 {
		t.Fatalf("dialled %v", dialed)
	}
}

func TestSendRefusesPrivateAndRedirects(t *testing.T) {
	hit := make(chan string, 10)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hit <- r.URL.Path }))
	defer target.Close()
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/internal", http.StatusFound)
	}))
	defer redirect.Close()
	gone := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusGone) }))
	defer gone.Close()
	var dialed []string
	var mu sync.Mutex
	dns := fakeDNS(map[string][]string{"rebind.test": {"10.0.0.1"}, "meta.test": {"169.254.169.254"}})
	// Production guard (nothing private allowed): loopback, private and
	// metadata addresses are refused before any dial.
	strict := &Sender{Guard: &Guard{Resolve: dns, Dial: loopbackOnly(t, &dialed, &mu)}}
	for u, want := range map[string]string{
		target.URL:                       "127.0.0.1 is a loopback address",
		"http://[::1]:9/":                "::1 is a loopback address",
		"http://rebind.test/":            "rebind.test resolves to 10.0.0.1",
		"http://meta.test/latest":        "cloud metadata service",
		"http://169.254.169.254/latest/": "cloud metadata service",
	} {
		r := strict.Send(context.Background(), Message{URL: u, Body: []byte(`{}`)})
		if r.OK || !strings.Contains(r.Error, want) || !strings.HasPrefix(r.Error, "refused: ") {
			t.Errorf("%s: %+v, want %q", u, r, want)
		}
	}
	mu.Lock()
	if len(dialed) != 0 {
		t.Fatalf("dialled %v", dialed)
	}
	mu.Unlock()
	// With loopback allowed (development), a redirect to loopback is
	// still not followed: it is a failed attempt.
	dev := &Sender{Guard: &Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, Dial: loopbackOnly(t, &dialed, &mu)}}
	r := dev.Send(context.Background(), Message{URL: redirect.URL, Body: []byte(`{}`), Sandbox: true})
	if r.OK || r.StatusCode != http.StatusFound || !strings.Contains(r.Error, "redirect") {
		t.Fatalf("redirect: %+v", r)
	}
	select {
	case p := <-hit:
		t.Fatalf("the redirect was followed to %s", p)
	default:
	}
	if r := dev.Send(context.Background(), Message{URL: gone.URL, Body: []byte(`{}`), Sandbox: true}); r.OK || !r.Gone || r.StatusCode != 410 {
		t.Fatalf("410: %+v", r)
	}
	// Connection refused and a receiver too slow are failed attempts that
	// say so.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	if r := dev.Send(context.Background(), Message{URL: "http://" + addr + "/", Body: []byte(`{}`), Sandbox: true}); r.OK || !strings.Contains(r.Error, "could not connect") {
		t.Fatalf("refused: %+v", r)
	}
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { time.Sleep(300 * time.Millisecond) }))
	defer slow.Close()
	quick := &Sender{Guard: dev.Guard, Timeout: 50 * time.Millisecond}
	if r := quick.Send(context.Background(), Message{URL: slow.URL, Body: []byte(`{}`), Sandbox: true}); r.OK || !strings.Contains(r.Error, "no answer within 50ms") {
		t.Fatalf("timeout: %+v", r)
	}
}
