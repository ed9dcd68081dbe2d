package mail

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/kycflow/kycflow/providers/mail/sink"
)

// The sink speaks plain SMTP only, so the TLS paths are tested here against
// a go-smtp server with a certificate made for 127.0.0.1, trusted by
// swapping the Mailer's root CAs.

// selfSigned returns a server certificate for 127.0.0.1 and a pool that
// trusts it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	cert, pool, err := sink.SelfSigned()
	if err != nil {
		t.Fatal(err)
	}
	return cert, pool
}

// delivery is what tlsServer saw of one message.
type delivery struct {
	tls  bool   // the DATA came over TLS
	user string // the AUTH PLAIN user, if any
	data string
}

type tlsServer struct {
	mu         sync.Mutex
	deliveries []delivery
}

func (s *tlsServer) NewSession(c *smtp.Conn) (smtp.Session, error) {
	return &tlsSession{srv: s, conn: c}, nil
}

type tlsSession struct {
	srv  *tlsServer
	conn *smtp.Conn
	user string
}

func (s *tlsSession) AuthMechanisms() []string { return []string{sasl.Plain} }
func (s *tlsSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, _ string) error { s.user = user; return nil }), nil
}
func (s *tlsSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s *tlsSession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (s *tlsSession) Reset()                               {}
func (s *tlsSession) Logout() error                        { return nil }
func (s *tlsSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	_, isTLS := s.conn.TLSConnectionState()
	s.srv.mu.Lock()
	defer s.srv.mu.Unlock()
	s.srv.deliveries = append(s.srv.deliveries, delivery{isTLS, s.user, string(b)})
	return nil
}

// startTLSServer serves SMTP with STARTTLS offered, or with implicit TLS.
func startTLSServer(t *testing.T, cert tls.Certificate, implicit bool) (*tlsServer, int) {
	t.Helper()
	backend := &tlsServer{}
	srv := smtp.NewServer(backend)
	srv.Domain = "localhost"
	srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if implicit {
		ln = tls.NewListener(ln, srv.TLSConfig)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return backend, port
}

func testLinkMail() LinkMail {
	return LinkMail{
		To: "jan@example.nl", TenantName: "Acme", Purpose: PurposeDocument,
		URL: "https://kyc.example/verify/t0k", ExpiresAt: time.Now().Add(time.Hour),
	}
}

func TestSendLinkOverTLS(t *testing.T) {
	cert, pool := selfSigned(t)
	for _, tc := range []struct {
		mode     string
		implicit bool
		user     string
	}{
		{TLSStartTLS, false, ""},
		{TLSStartTLS, false, "user"},
		{TLSImplicit, true, "user"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			srv, port := startTLSServer(t, cert, tc.implicit)
			cfg := Config{Host: "127.0.0.1", Port: port, TLS: tc.mode, From: "no-reply@kycflow.local"}
			if tc.user != "" {
				cfg.Username, cfg.Password = tc.user, "secret"
			}
			m, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			m.tlsConfig.RootCAs = pool
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if err := m.SendLink(ctx, testLinkMail()); err != nil {
				t.Fatalf("SendLink: %v", err)
			}
			srv.mu.Lock()
			defer srv.mu.Unlock()
			if len(srv.deliveries) != 1 {
				t.Fatalf("%d deliveries, want 1", len(srv.deliveries))
			}
			d := srv.deliveries[0]
			if !d.tls || d.user != tc.user || !strings.Contains(d.data, "verify/t0k") {
				t.Errorf("delivery: tls %v, user %q, data has link %v", d.tls, d.user, strings.Contains(d.data, "verify/t0k"))
			}
		})
	}
}

// An opportunistic STARTTLS whose handshake fails must not fall back to
// plain text: the offer was there, so a failure is an attack or a broken
// server, and the mail waits for a retry.
func TestSendLinkUntrustedCertificate(t *testing.T) {
	cert, _ := selfSigned(t)
	for _, mode := range []string{TLSStartTLS, TLSImplicit} {
		t.Run(mode, func(t *testing.T) {
			srv, port := startTLSServer(t, cert, mode == TLSImplicit)
			m, err := New(Config{Host: "127.0.0.1", Port: port, TLS: mode, From: "no-reply@kycflow.local"})
			if err != nil {
				t.Fatal(err)
			}
			err = m.SendLink(context.Background(), testLinkMail())
			if err == nil || IsPermanent(err) || !strings.Contains(err.Error(), "certificate") {
				t.Fatalf("SendLink: %v, want a temporary certificate error", err)
			}
			t.Logf("error: %v", err)
			srv.mu.Lock()
			defer srv.mu.Unlock()
			if len(srv.deliveries) != 0 {
				t.Fatal("delivered despite the failed handshake")
			}
		})
	}
}
