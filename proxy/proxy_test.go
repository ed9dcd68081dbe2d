package proxy

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// An api that refuses connections (starting, stopping, gone) costs no
// request: the proxy hands it, POST body and all, to one that accepts.
func TestProxyPassesOverARefusingUpstream(t *testing.T) {
	var (
		mu    sync.Mutex
		hosts []string
	)
	live := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		hosts = append(hosts, r.Host)
		mu.Unlock()
		w.Write(append([]byte(r.Method+" "), body...))
	}))
	defer live.Close()
	// A port nothing listens on: taken, then released.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refusing := l.Addr().String()
	l.Close()
	b, err := NewBalancer([]string{refusing, strings.TrimPrefix(live.URL, "http://")})
	if err != nil {
		t.Fatal(err)
	}
	proxy := httptest.NewServer(b.Handler())
	defer proxy.Close()
	for i := range 6 {
		req, _ := http.NewRequest(http.MethodPost, proxy.URL+"/api/v1/businesses/create", strings.NewReader(`{"n":1}`))
		req.Host = "tenant.example"
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || string(got) != `POST {"n":1}` {
			t.Fatalf("request %d: %d %s", i, res.StatusCode, got)
		}
	}
	// Once it accepts again, it gets its share: no connection to the other
	// api was kept in its name.
	back, err := net.Listen("tcp", refusing)
	if err != nil {
		t.Fatalf("listen again on %s: %v", refusing, err)
	}
	var backServed atomic.Int32
	revived := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { backServed.Add(1) })}
	go revived.Serve(back)
	defer revived.Close()
	for range 6 {
		req, _ := http.NewRequest(http.MethodGet, proxy.URL+"/api/v1/businesses", nil)
		req.Host = "tenant.example"
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	if backServed.Load() != 3 {
		t.Errorf("the upstream back up served %d of 6 requests, want 3", backServed.Load())
	}
	mu.Lock()
	defer mu.Unlock()
	for _, h := range hosts {
		if h != "tenant.example" {
			t.Fatalf("the api saw Host %q, want the client's", h)
		}
	}
}

// An api may answer a large upload before reading it (413, or 410 for a
// used link): the answer reaches the client whole, though the proxy was
// still sending the body on when it came.
func TestProxyPassesAnEarlyAnswerWhole(t *testing.T) {
	answer := strings.Repeat("The photo is larger than 15 MB. ", 4096)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		io.WriteString(w, answer)
	}))
	defer api.Close()
	b, err := NewBalancer([]string{strings.TrimPrefix(api.URL, "http://")})
	if err != nil {
		t.Fatal(err)
	}
	proxy := httptest.NewServer(b.Handler())
	defer proxy.Close()
	client := &http.Client{Timeout: time.Minute}
	for i := range 5 {
		res, err := client.Post(proxy.URL+"/verify/token/document", "image/jpeg", bytes.NewReader(make([]byte, 32<<20)))
		if err != nil {
			t.Fatalf("upload %d: %v", i, err)
		}
		got, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusRequestEntityTooLarge || string(got) != answer {
			t.Fatalf("upload %d: %d, %d of %d bytes, %v", i, res.StatusCode, len(got), len(answer), err)
		}
	}
}
