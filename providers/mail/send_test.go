package mail_test

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/mail"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	kmail "github.com/kycflow/kycflow/providers/mail"
	"github.com/kycflow/kycflow/providers/mail/sink"
)

// startSink runs a mail sink on a free loopback port for the test.
func startSink(t *testing.T, opts ...sink.Option) *sink.Sink {
	t.Helper()
	s, err := sink.Start("127.0.0.1:0", opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// mailerFor returns a Mailer pointed at addr (host:port), with cfg's other
// fields.
func mailerFor(t *testing.T, addr string, cfg kmail.Config) *kmail.Mailer {
	t.Helper()
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Host = host
	cfg.Port, _ = strconv.Atoi(port)
	if cfg.TLS == "" {
		cfg.TLS = kmail.TLSNone // the sink on loopback, plain unless a test says otherwise
	}
	if cfg.From == "" {
		cfg.From = "kycflow <no-reply@kycflow.local>"
	}
	m, err := kmail.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestSendLink sends through the real SMTP path (default TLS mode
// "starttls", which must fall back to plain because the sink offers no
// STARTTLS) and checks the message as a mail client would read it.
func TestSendLink(t *testing.T) {
	s := startSink(t)
	m := mailerFor(t, s.Addr(), kmail.Config{})
	lm := linkMail()
	lm.Name = "Jörg van 't Hof"
	lm.Lang = kmail.LangNL
	before := time.Now().Add(-time.Second)
	if err := m.SendLink(testCtx(t), lm); err != nil {
		t.Fatalf("SendLink: %v", err)
	}

	caught, err := s.Wait(testCtx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if caught.From != "no-reply@kycflow.local" || len(caught.To) != 1 || caught.To[0] != "jan@example.nl" {
		t.Errorf("envelope from %q to %q", caught.From, caught.To)
	}

	msg, err := mail.ReadMessage(strings.NewReader(string(caught.Raw)))
	if err != nil {
		t.Fatal(err)
	}
	h := msg.Header
	if from, err := mail.ParseAddress(h.Get("From")); err != nil || from.Name != "kycflow" || from.Address != "no-reply@kycflow.local" {
		t.Errorf("From = %q (%v)", h.Get("From"), err)
	}
	if to, err := mail.ParseAddress(h.Get("To")); err != nil || to.Name != lm.Name || to.Address != "jan@example.nl" {
		t.Errorf("To = %q (%v)", h.Get("To"), err)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(h.Get("Subject"))
	if want := "Bevestig uw identiteit voor Acme <b>&</b> Co"; err != nil || subject != want {
		t.Errorf("Subject = %q (%v), want %q", subject, err, want)
	}
	if caught.Subject != subject {
		t.Errorf("sink parsed Subject %q, want %q", caught.Subject, subject)
	}
	if id := h.Get("Message-Id"); !regexp.MustCompile(`^<[0-9a-f]{32}@kycflow\.local>$`).MatchString(id) {
		t.Errorf("Message-ID = %q", id)
	}
	if date, err := h.Date(); err != nil || date.Before(before) || date.After(time.Now().Add(time.Second)) {
		t.Errorf("Date = %q (%v)", h.Get("Date"), err)
	}
	if h.Get("Auto-Submitted") != "auto-generated" {
		t.Errorf("Auto-Submitted = %q", h.Get("Auto-Submitted"))
	}
	for name, values := range h {
		for _, v := range values {
			if strings.Contains(v, token) {
				t.Errorf("header %s carries the token", name)
			}
		}
	}

	mediaType, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil || mediaType != "multipart/alternative" {
		t.Fatalf("Content-Type = %q (%v)", h.Get("Content-Type"), err)
	}
	parts := map[string]string{}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := mr.NextPart() // decodes quoted-printable itself
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(p)
		if err != nil {
			t.Fatal(err)
		}
		ct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		parts[ct] = string(body)
	}
	if len(parts) != 2 {
		t.Fatalf("parts %v, want text/plain and text/html", len(parts))
	}
	_, wantText, wantHTML, _ := m.Render(lm)
	contains(t, "text part", parts["text/plain"], lm.URL, "Beste Jörg van 't Hof,", "17 mei 2026 om 14:30 CEST")
	contains(t, "HTML part", parts["text/html"], `<html lang="nl">`, `href="https://kyc.example/verify/`+token+`?src=mail&amp;v=1"`)
	// Line ends aside, what arrives is exactly what Render produced, and
	// the sink decoded the same.
	if got := strings.ReplaceAll(parts["text/plain"], "\r\n", "\n"); got != wantText {
		t.Errorf("text part differs from Render:\n%q\n%q", got, wantText)
	}
	if got := strings.ReplaceAll(parts["text/html"], "\r\n", "\n"); got != wantHTML {
		t.Errorf("HTML part differs from Render")
	}
	if strings.ReplaceAll(caught.Text, "\r\n", "\n") != wantText || strings.ReplaceAll(caught.HTML, "\r\n", "\n") != wantHTML {
		t.Errorf("sink decoded different bodies")
	}
}

func TestSendLinkWithAuth(t *testing.T) {
	s := startSink(t)
	// PLAIN without TLS is allowed by go-mail to 127.0.0.1 only; this proves
	// AUTH is attempted (the send fails if the server offers no AUTH).
	m := mailerFor(t, s.Addr(), kmail.Config{TLS: kmail.TLSNone, Username: "user", Password: "secret"})
	if err := m.SendLink(testCtx(t), linkMail()); err != nil {
		t.Fatalf("SendLink: %v", err)
	}
	if n := len(s.Messages()); n != 1 {
		t.Fatalf("%d messages caught, want 1", n)
	}
}

// STARTTLS is mandatory in "starttls" mode, tried against the mail
// catcher both ways: without the offer nothing is sent (a temporary error,
// so the check's activity retries); with it the mail goes over TLS.
func TestSendLinkStartTLSMandatory(t *testing.T) {
	cert, pool, err := sink.SelfSigned()
	if err != nil {
		t.Fatal(err)
	}
	s := startSink(t, sink.WithSTARTTLS(&tls.Config{Certificates: []tls.Certificate{cert}}))
	s.SetSTARTTLS(false)
	m := mailerFor(t, s.Addr(), kmail.Config{TLS: kmail.TLSStartTLS, RootCAs: pool, Username: "user", Password: "secret"})
	err = m.SendLink(testCtx(t), linkMail())
	if err == nil || kmail.IsPermanent(err) || !strings.Contains(err.Error(), "STARTTLS") {
		t.Fatalf("SendLink to a server without STARTTLS: %v, want a temporary STARTTLS error", err)
	}
	if n := len(s.Messages()); n != 0 {
		t.Fatalf("%d messages caught in plain text, want 0", n)
	}
	// The refused attempt hung up when it returned, rather than leave its
	// connection open until the garbage collector closes it.
	for deadline := time.Now().Add(5 * time.Second); s.LeftWithoutTLS() != 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the refused attempt's session has not ended (%d ended)", s.LeftWithoutTLS())
		}
	}
	// The default mode is the same.
	if err := mailerFor(t, s.Addr(), kmail.Config{TLS: " "}).SendLink(testCtx(t), linkMail()); err == nil {
		t.Fatal("the default TLS mode sent without STARTTLS")
	}
	s.SetSTARTTLS(true)
	if err := m.SendLink(testCtx(t), linkMail()); err != nil {
		t.Fatalf("SendLink with STARTTLS offered: %v", err)
	}
	if msgs := s.Messages(); len(msgs) != 1 || !msgs[0].TLS {
		t.Fatalf("caught %+v, want one message over TLS", msgs)
	}
}

func TestSendLinkRejectedRecipientIsPermanent(t *testing.T) {
	s := startSink(t, sink.WithRejectRecipient(func(addr string) bool { return addr == "jan@example.nl" }))
	err := mailerFor(t, s.Addr(), kmail.Config{}).SendLink(testCtx(t), linkMail())
	var e *kmail.Error
	if !errors.As(err, &e) || e.Code != 550 || !kmail.IsPermanent(err) {
		t.Fatalf("SendLink: %v, want a permanent 550", err)
	}
	t.Logf("error: %v", err)
	if strings.Contains(err.Error(), token) {
		t.Error("the error quotes the token")
	}
}

func TestSendLinkDeferredRecipientIsTemporary(t *testing.T) {
	s := startSink(t, sink.WithDeferRecipient(func(string) bool { return true }))
	err := mailerFor(t, s.Addr(), kmail.Config{}).SendLink(testCtx(t), linkMail())
	var e *kmail.Error
	if !errors.As(err, &e) || e.Code != 451 || kmail.IsPermanent(err) {
		t.Fatalf("SendLink: %v, want a temporary 451", err)
	}
	t.Logf("error: %v", err)
}

func TestSendLinkConnectionRefusedIsTemporary(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close() // nothing listens there now
	err = mailerFor(t, addr, kmail.Config{}).SendLink(testCtx(t), linkMail())
	if err == nil || kmail.IsPermanent(err) || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("SendLink: %v, want a temporary connection-refused error", err)
	}
	t.Logf("error: %v", err)
}

func TestSendLinkInvalidInputIsPermanent(t *testing.T) {
	s := startSink(t)
	m := mailerFor(t, s.Addr(), kmail.Config{})
	for name, change := range map[string]func(*kmail.LinkMail){
		"bad address":  func(lm *kmail.LinkMail) { lm.To = "jan at example" },
		"two addrs":    func(lm *kmail.LinkMail) { lm.To = "a@example.com, b@example.com" },
		"no tenant":    func(lm *kmail.LinkMail) { lm.TenantName = "" },
		"bad purpose":  func(lm *kmail.LinkMail) { lm.Purpose = "aml" },
		"no expiry":    func(lm *kmail.LinkMail) { lm.ExpiresAt = time.Time{} },
		"relative URL": func(lm *kmail.LinkMail) { lm.URL = "/verify/x" },
	} {
		lm := linkMail()
		change(&lm)
		if err := m.SendLink(testCtx(t), lm); !kmail.IsPermanent(err) {
			t.Errorf("%s: %v, want a permanent error", name, err)
		}
	}
	if n := len(s.Messages()); n != 0 {
		t.Fatalf("%d messages caught, want 0", n)
	}
}

func TestSendLinkContext(t *testing.T) {
	t.Run("cancelled before", func(t *testing.T) {
		s := startSink(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err := mailerFor(t, s.Addr(), kmail.Config{}).SendLink(ctx, linkMail())
		if !errors.Is(err, context.Canceled) || kmail.IsPermanent(err) {
			t.Fatalf("SendLink: %v, want a temporary context.Canceled", err)
		}
		if n := len(s.Messages()); n != 0 {
			t.Fatalf("%d messages caught, want 0", n)
		}
	})

	t.Run("cancelled mid-conversation", func(t *testing.T) {
		// A server that accepts and then never says a word: go-mail would
		// wait for the greeting until Config.Timeout (a minute here); the
		// context must end the wait.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		defer wg.Wait()
		defer ln.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			var conns []net.Conn
			defer func() {
				for _, c := range conns {
					_ = c.Close()
				}
			}()
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				conns = append(conns, c)
			}
		}()

		m := mailerFor(t, ln.Addr().String(), kmail.Config{Timeout: time.Minute})
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(200*time.Millisecond, cancel)
		start := time.Now()
		err = m.SendLink(ctx, linkMail())
		if elapsed := time.Since(start); elapsed > 10*time.Second {
			t.Fatalf("SendLink took %v after the context was cancelled", elapsed)
		}
		if !errors.Is(err, context.Canceled) || kmail.IsPermanent(err) {
			t.Fatalf("SendLink: %v, want a temporary context.Canceled", err)
		}
	})
}

func TestSendLinkConcurrent(t *testing.T) {
	s := startSink(t)
	m := mailerFor(t, s.Addr(), kmail.Config{})
	var wg sync.WaitGroup
	errs := make(chan error, 5)
	for i := range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lm := linkMail()
			lm.To = "p" + strconv.Itoa(i) + "@example.nl"
			errs <- m.SendLink(testCtx(t), lm)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := len(s.Messages()); n != 5 {
		t.Fatalf("%d messages caught, want 5", n)
	}
}

// A refused recipient's error keeps the server's reply and names no one:
// the server's words list the recipient ("affected recipient(s): …"),
// and the error goes into logs and the check's workflow history.
func TestSendErrorNamesNoOne(t *testing.T) {
	s := startSink(t, sink.WithRejectRecipient(func(string) bool { return true }))
	m := mailerFor(t, s.Addr(), kmail.Config{})
	lm := linkMail()
	err := m.SendLink(testCtx(t), lm)
	var e *kmail.Error
	if !errors.As(err, &e) || e.Code != 550 || !e.Permanent || !strings.Contains(e.Err.Error(), lm.To) {
		t.Fatalf("a refused recipient: %v (the test expects the server's words to name the address)", err)
	}
	if strings.Contains(err.Error(), lm.To) || !strings.Contains(err.Error(), "<recipient>") {
		t.Fatalf("the error names the recipient: %v", err)
	}
}
