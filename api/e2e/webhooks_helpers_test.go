package e2e

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/kycflow/kycflow/providers/mail/sink"
	"github.com/kycflow/kycflow/webhook"
)

// fakeDNS is the harness's resolver: names it does not know do not
// resolve, so no lookup ever leaves the machine.
type fakeDNS struct {
	mu    sync.Mutex
	table map[string][]netip.Addr
}

func newFakeDNS() *fakeDNS { return &fakeDNS{table: map[string][]netip.Addr{}} }

func (d *fakeDNS) set(host string, addrs ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var as []netip.Addr
	for _, a := range addrs {
		as = append(as, netip.MustParseAddr(a))
	}
	d.table[host] = as
}

func (d *fakeDNS) lookup(_ context.Context, host string) ([]netip.Addr, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if as := d.table[host]; len(as) > 0 {
		return as, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

var violations struct {
	sync.Mutex
	addrs []string
}

// loopbackOnly is the webhook sender's dialer in the suite: a dial to
// anything but loopback is recorded (failing the run) and refused, never
// attempted.
func loopbackOnly(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	a, perr := netip.ParseAddr(host)
	if err != nil || perr != nil || !a.IsLoopback() {
		violations.Lock()
		violations.addrs = append(violations.addrs, addr)
		violations.Unlock()
		return nil, errors.New("e2e: dial outside loopback refused")
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

func dialViolations() []string {
	violations.Lock()
	defer violations.Unlock()
	return append([]string(nil), violations.addrs...)
}

// delivery is one request a receiver got.
type delivery struct {
	id, typ, signature string
	body               []byte
	at                 time.Time
}

// receiver is a tenant's webhook endpoint: it records every request and
// answers what answer says (200 unless told otherwise).
type receiver struct {
	srv  *httptest.Server
	addr string
	mu   sync.Mutex
	got  []delivery
	// answer picks the status for a request; nil: 200.
	answer func(d delivery) int
}

// receiverCert is the certificate of the suite's https receivers, for
// every *.test name and receiverIP, and the pool the sender trusts it by.
var receiverCert = sync.OnceValues(func() (receiverTLS, error) {
	cert, pool, err := sink.SelfSigned("*.test", receiverIP)
	return receiverTLS{cert, pool}, err
})

type receiverTLS struct {
	cert tls.Certificate
	pool *x509.CertPool
}

// newReceiver serves a receiver on receiverIP (https when secure), on
// addr when given (to come back on the same port).
func newReceiver(t *testing.T, secure bool, addr string) *receiver {
	t.Helper()
	r := &receiver{}
	r.start(t, secure, addr)
	t.Cleanup(r.stop)
	return r
}

func (r *receiver) start(t *testing.T, secure bool, addr string) {
	t.Helper()
	if addr == "" {
		addr = receiverIP + ":0"
	}
	var l net.Listener
	var err error
	for i := 0; i < 50; i++ { // the port may linger a moment after a stop
		if l, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	r.addr = l.Addr().String()
	r.srv = httptest.NewUnstartedServer(http.HandlerFunc(r.serve))
	r.srv.Listener.Close()
	r.srv.Listener = l
	if secure {
		rt, err := receiverCert()
		if err != nil {
			t.Fatal(err)
		}
		r.srv.TLS = &tls.Config{Certificates: []tls.Certificate{rt.cert}}
		r.srv.StartTLS()
		return
	}
	r.srv.Start()
}

// stop takes the receiver down: connections are refused until start.
func (r *receiver) stop() {
	r.srv.CloseClientConnections()
	r.srv.Close()
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	d := delivery{id: req.Header.Get(webhook.HeaderEventID), typ: req.Header.Get(webhook.HeaderEventType),
		signature: req.Header.Get(webhook.HeaderSignature), body: body, at: time.Now()}
	r.mu.Lock()
	answer := r.answer
	r.mu.Unlock()
	status := http.StatusOK
	if answer != nil {
		status = answer(d)
	}
	if status == 0 {
		time.Sleep(senderTimeout + time.Second) // past the harness sender's timeout
		return
	}
	if status < 300 {
		r.mu.Lock()
		r.got = append(r.got, d)
		r.mu.Unlock()
	}
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"answer":%d}`, status)
}

func (r *receiver) setAnswer(f func(d delivery) int) {
	r.mu.Lock()
	r.answer = f
	r.mu.Unlock()
}

// delivered is what the receiver accepted (2xx), in arrival order.
func (r *receiver) delivered() []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivery(nil), r.got...)
}
