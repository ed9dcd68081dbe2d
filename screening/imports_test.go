package screening

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// loopbackOnly dials loopback addresses and fails any other, so no test
// traffic leaves the machine.
func loopbackOnly(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return nil, errors.New("test dialer: refusing to dial " + addr)
	}
	return (&net.Dialer{}).DialContext(ctx, network, addr)
}

// A list URL is downloaded within its size cap and time limit; a server
// that sends too much, or never answers, is refused and leaves no file.
func TestWatchlistDownloadBounds(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/small.json":
			w.Write([]byte(strings.Repeat("x", 100)))
		case "/declared-big.json":
			w.Header().Set("Content-Length", "5000")
			w.Write([]byte(strings.Repeat("x", 5000)))
		case "/endless.json": // chunked, no length: the cap is found while reading
			for range 100 {
				w.Write([]byte(strings.Repeat("x", 100)))
				w.(http.Flusher).Flush()
			}
		case "/silent.json":
			<-release
		case "/missing.json":
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	defer close(release)
	d := Download{MaxBytes: 1000, Timeout: 500 * time.Millisecond, Dial: loopbackOnly}
	ctx := context.Background()

	paths, cleanup, err := d.fetchAll(ctx, []string{srv.URL + "/small.json", "local.json"})
	if err != nil || len(paths) != 2 || paths[1] != "local.json" {
		t.Fatalf("small: %v %v", paths, err)
	}
	if b, err := os.ReadFile(paths[0]); err != nil || len(b) != 100 {
		t.Fatalf("small file: %d bytes, %v", len(b), err)
	}
	cleanup()
	if _, err := os.Stat(paths[0]); !os.IsNotExist(err) {
		t.Fatalf("cleanup left %s", paths[0])
	}
	for path, want := range map[string]string{
		"/declared-big.json": "over the 1000-byte limit",
		"/endless.json":      "more than the 1000-byte limit",
		"/silent.json":       "Timeout",
		"/missing.json":      "HTTP 404",
	} {
		_, cleanup, err := d.fetchAll(ctx, []string{srv.URL + path})
		cleanup()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error with %q", path, err, want)
		}
	}
	// The injected dialer is what connects: another address is never tried.
	if _, cleanup, err := d.fetchAll(ctx, []string{"http://192.0.2.1/list.json"}); err == nil || !strings.Contains(err.Error(), "refusing to dial") {
		t.Errorf("non-loopback URL: %v", err)
	} else {
		cleanup()
	}
}
