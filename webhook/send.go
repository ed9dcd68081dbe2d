package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// Sender delivers events over HTTP through a Guard. Safe for concurrent use.
type Sender struct {
	// Guard checks every connection: its Allow networks open to sandbox
	// tenants' deliveries only (Guard.ForTenant).
	Guard *Guard
	// Timeout is how long a receiver has to answer; 0: Timeout.
	Timeout time.Duration
	// TLS, when set, configures https connections (tests trust their own
	// receivers' certificates with it); nil: the system's roots.
	TLS *tls.Config

	once sync.Once
	// Live and sandbox tenants' deliveries go through clients of their
	// own, so a connection one opened to an allowed network is never
	// reused for the other.
	live, sandbox *http.Client
}

// Message is one delivery attempt.
type Message struct {
	URL       string
	EventID   string
	EventType string
	Body      []byte
	// Secrets sign the body, newest first.
	Secrets [][]byte
	// Sandbox: the endpoint is a sandbox tenant's (Guard.ForTenant).
	Sandbox bool
}

// Result is what became of an attempt. OK: the receiver answered 2xx.
// Gone: it answered 410 (the endpoint is to be disabled). Otherwise Error
// says what went wrong, for the tenant to read.
type Result struct {
	OK         bool
	Gone       bool
	StatusCode int // 0 when no answer came
	Duration   time.Duration
	// Response is the start of the receiver's answer (MaxResponse bytes).
	Response []byte
	Error    string
}

func (s *Sender) init() {
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = Timeout
	}
	guard := s.Guard
	if guard == nil {
		guard = &Guard{}
	}
	s.live, s.sandbox = s.newClient(guard.ForTenant(false), timeout), s.newClient(guard, timeout)
}

func (s *Sender) newClient(guard *Guard, timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			Proxy:                 nil, // a proxy would resolve the host itself, past the guard
			DialContext:           guard.DialContext,
			TLSHandshakeTimeout:   timeout,
			ResponseHeaderTimeout: timeout,
			MaxIdleConnsPerHost:   8,
			IdleConnTimeout:       90 * time.Second,
			ForceAttemptHTTP2:     true,
			TLSClientConfig:       s.TLS,
		},
		// A redirect is an answer, not an instruction: following it would
		// let a receiver point deliveries at a host the guard never saw.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Send makes one attempt, signing the body at the time of sending.
func (s *Sender) Send(ctx context.Context, m Message) Result {
	s.once.Do(s.init)
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.URL, bytes.NewReader(m.Body))
	if err != nil {
		return Result{Error: "the endpoint URL is invalid: " + err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "kycflow-webhooks/1")
	req.Header.Set(HeaderEventID, m.EventID)
	req.Header.Set(HeaderEventType, m.EventType)
	req.Header.Set(HeaderSignature, Sign(start, m.Body, m.Secrets...))
	client := s.live
	if m.Sandbox {
		client = s.sandbox
	}
	resp, err := client.Do(req)
	r := Result{Duration: time.Since(start)}
	if err != nil {
		r.Error = describe(err, client.Timeout)
		return r
	}
	defer resp.Body.Close()
	r.StatusCode = resp.StatusCode
	r.Response, _ = io.ReadAll(io.LimitReader(resp.Body, MaxResponse))
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets the connection be reused
	r.Duration = time.Since(start)
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		r.OK = true
	case resp.StatusCode == http.StatusGone:
		r.Gone = true
		r.Error = "the receiver answered 410 Gone: the endpoint is disabled"
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		r.Error = fmt.Sprintf("the receiver answered %d, a redirect (to %q), which deliveries do not follow", resp.StatusCode, resp.Header.Get("Location"))
	default:
		r.Error = fmt.Sprintf("the receiver answered %d", resp.StatusCode)
	}
	return r
}

// describe says what became of an attempt that got no answer, in words for
// the tenant.
func describe(err error, timeout time.Duration) string {
	var blocked *BlockedError
	var notation *NotationError
	var unresolved *ResolveError
	var netErr net.Error
	switch {
	case errors.As(err, &blocked):
		return "refused: " + blocked.Error()
	case errors.As(err, &notation):
		return "refused: " + notation.Error()
	case errors.As(err, &unresolved):
		return unresolved.Error()
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()):
		return fmt.Sprintf("no answer within %s", timeout)
	case errors.Is(err, context.Canceled):
		return "the attempt was interrupted"
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return "could not connect: " + opErr.Err.Error()
	}
	var certErr *tls.CertificateVerificationError
	if errors.As(err, &certErr) {
		return "the receiver's TLS certificate did not verify: " + certErr.Err.Error()
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		err = urlErr.Err // the URL is the endpoint's, known already
	}
	return "the request failed: " + err.Error()
}
