package sink_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/smtp"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	gosmtp "github.com/emersion/go-smtp"

	"github.com/kycflow/kycflow/providers/mail/sink"
)

// start runs a sink on a free loopback port for the test.
func start(t *testing.T, opts ...sink.Option) *sink.Sink {
	t.Helper()
	s, err := sink.Start("127.0.0.1:0", opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// send delivers raw (CRLF line ends) with net/smtp, as any client would.
func send(t *testing.T, s *sink.Sink, from string, to []string, raw string) {
	t.Helper()
	if err := smtp.SendMail(s.Addr(), nil, from, to, []byte(raw)); err != nil {
		t.Fatalf("SendMail: %v", err)
	}
}

// crlf turns a readable literal into wire format.
func crlf(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

func simple(subject string) string {
	return crlf("From: a@example.com\nTo: b@example.com\nSubject: " + subject + "\n\nhello\n")
}

func waitCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestMultipartQuotedPrintableAndBase64(t *testing.T) {
	s := start(t)
	// A long QP line with a soft break, an encoded é, and a base64 HTML
	// part split over lines, the way real clients write them.
	html := "<p>Caf\u00e9 <a href=\"https://example.com/verify/tok\">go</a></p>"
	b64 := "PHA+Q2Fmw6kgPGEgaHJlZj0iaHR0cHM6Ly9leGFtcGxlLmNvbS92ZXJpZnkvdG9rIj5nbzwv\nYT48L3A+"
	raw := crlf(`From: "kycflow" <no-reply@kycflow.local>
To: Jan <jan@example.nl>
Subject: =?UTF-8?Q?Bevestig_uw_identiteit_voor_Caf=C3=A9?= =?UTF-8?B?IEJW?=
Date: Sun, 17 May 2026 14:30:00 +0200
MIME-Version: 1.0
Content-Type: multipart/alternative; boundary="b1"

--b1
Content-Type: text/plain; charset=UTF-8
Content-Transfer-Encoding: quoted-printable

Caf=C3=A9 link: https://example.com/verify/=
tok
--b1
Content-Type: text/html; charset=UTF-8
Content-Transfer-Encoding: base64

` + b64 + `
--b1--
`)
	send(t, s, "bounce@kycflow.local", []string{"jan@example.nl", "audit@example.nl"}, raw)

	m, err := s.Wait(waitCtx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != 1 || m.From != "bounce@kycflow.local" || strings.Join(m.To, ",") != "jan@example.nl,audit@example.nl" {
		t.Errorf("envelope: id %d from %q to %q", m.ID, m.From, m.To)
	}
	if want := "Bevestig uw identiteit voor Café BV"; m.Subject != want {
		t.Errorf("Subject = %q, want %q", m.Subject, want)
	}
	if want := "Café link: https://example.com/verify/tok"; m.Text != want {
		t.Errorf("Text = %q, want %q", m.Text, want)
	}
	if m.HTML != html {
		t.Errorf("HTML = %q, want %q", m.HTML, html)
	}
	if want := time.Date(2026, 5, 17, 12, 30, 0, 0, time.UTC); !m.Date.Equal(want) {
		t.Errorf("Date = %v, want %v", m.Date, want)
	}
	if m.Received.IsZero() || time.Since(m.Received) > time.Minute {
		t.Errorf("Received = %v", m.Received)
	}
	if string(m.Raw) != raw {
		t.Errorf("Raw differs from what was sent:\n%q\n%q", m.Raw, raw)
	}
	if m.ParseError != "" {
		t.Errorf("ParseError = %q", m.ParseError)
	}
}

func TestSinglePartLatin1Base64(t *testing.T) {
	s := start(t)
	// "Één café" in ISO-8859-1 (C9 E9 6E 20 63 61 66 E9), base64 in the
	// body and Q-encoded in the subject.
	raw := crlf(`From: a@example.com
To: b@example.com
Subject: =?ISO-8859-1?Q?=C9=E9n_caf=E9?=
Content-Type: text/plain; charset=ISO-8859-1
Content-Transfer-Encoding: base64

yeluIGNhZuk=
`)
	send(t, s, "a@example.com", []string{"b@example.com"}, raw)
	m, err := s.Wait(waitCtx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Subject != "Één café" || m.Text != "Één café" || m.HTML != "" {
		t.Errorf("Subject %q, Text %q, HTML %q", m.Subject, m.Text, m.HTML)
	}
	// No Date header: the receive time stands in.
	if !m.Date.Equal(m.Received) {
		t.Errorf("Date %v, want Received %v", m.Date, m.Received)
	}
}

func TestNestedMultipartSkipsAttachments(t *testing.T) {
	s := start(t)
	raw := crlf(`From: a@example.com
To: b@example.com
Subject: nested
Content-Type: multipart/mixed; boundary=outer

--outer
Content-Type: text/plain; name=notes.txt
Content-Disposition: attachment; filename=notes.txt

not the body
--outer
Content-Type: multipart/alternative; boundary=inner

--inner
Content-Type: text/plain

the body
--inner
Content-Type: text/html

<b>the body</b>
--inner--
--outer--
`)
	send(t, s, "a@example.com", []string{"b@example.com"}, raw)
	m, err := s.Wait(waitCtx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Text != "the body" || m.HTML != "<b>the body</b>" {
		t.Errorf("Text %q, HTML %q", m.Text, m.HTML)
	}
}

func TestUnparsableKeepsRaw(t *testing.T) {
	s := start(t)
	raw := crlf("From: a@example.com\nSubject: broken\nContent-Type: multipart/alternative\n\nno boundary\n")
	send(t, s, "a@example.com", []string{"b@example.com"}, raw)
	m, err := s.Wait(waitCtx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.ParseError == "" || string(m.Raw) != raw || m.Subject != "broken" {
		t.Errorf("ParseError %q, Subject %q, Raw %q", m.ParseError, m.Subject, m.Raw)
	}
}

func TestWait(t *testing.T) {
	s := start(t)
	send(t, s, "a@example.com", []string{"old@example.com"}, simple("first"))

	// Already there: returns at once.
	m, err := s.Wait(waitCtx(t), func(m Message) bool { return m.Subject == "first" })
	if err != nil || m.ID != 1 {
		t.Fatalf("Wait for an existing message: %v, %+v", err, m)
	}

	// Arrives later, after a non-matching one.
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(50 * time.Millisecond)
		_ = smtp.SendMail(s.Addr(), nil, "a@example.com", []string{"x@example.com"}, []byte(simple("other")))
		_ = smtp.SendMail(s.Addr(), nil, "a@example.com", []string{"jan@example.nl"}, []byte(simple("second")))
	}()
	m, err = s.Wait(waitCtx(t), func(m Message) bool { return len(m.To) == 1 && m.To[0] == "jan@example.nl" })
	<-done
	if err != nil || m.Subject != "second" || m.ID != 3 {
		t.Fatalf("Wait for a later message: %v, %+v", err, m)
	}

	// Nothing matches: the context ends the wait.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := s.Wait(ctx, func(Message) bool { return false }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait without a match: %v, want deadline exceeded", err)
	}

	// Close wakes a waiter.
	errc := make(chan error, 1)
	go func() {
		_, err := s.Wait(context.Background(), func(Message) bool { return false })
		errc <- err
	}()
	time.Sleep(20 * time.Millisecond)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, sink.ErrClosed) {
			t.Fatalf("Wait after Close: %v, want ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not wake Wait")
	}
	// Still readable after Close; no longer listening.
	if n := len(s.Messages()); n != 3 {
		t.Errorf("after Close: %d messages, want 3", n)
	}
	if c, err := net.DialTimeout("tcp", s.Addr(), time.Second); err == nil {
		_ = c.Close()
		t.Error("still accepting connections after Close")
	}
}

// Message is a local alias so the predicates above read short.
type Message = sink.Message

func TestCapacityDropsOldest(t *testing.T) {
	s := start(t, sink.WithCapacity(3))
	for i := 1; i <= 5; i++ {
		send(t, s, "a@example.com", []string{"b@example.com"}, simple(fmt.Sprint("m", i)))
	}
	msgs := s.Messages()
	var got []string
	for _, m := range msgs {
		got = append(got, fmt.Sprint(m.ID, m.Subject))
	}
	if want := "5m5 4m4 3m3"; strings.Join(got, " ") != want {
		t.Errorf("Messages = %q, want newest first %q", got, want)
	}
	if _, ok := s.Message(2); ok {
		t.Error("Message(2) still kept beyond capacity")
	}
	if m, ok := s.Message(4); !ok || m.Subject != "m4" {
		t.Errorf("Message(4) = %+v, %v", m, ok)
	}
	if _, err := sink.Start("127.0.0.1:0", sink.WithCapacity(0)); err == nil {
		t.Error("Start accepted capacity 0")
	}
}

func TestRejectAndDeferRecipients(t *testing.T) {
	s := start(t,
		sink.WithRejectRecipient(func(a string) bool { return strings.HasPrefix(a, "nobody@") }),
		sink.WithDeferRecipient(func(a string) bool { return strings.HasPrefix(a, "later@") }),
	)
	for addr, code := range map[string]int{"nobody@example.com": 550, "later@example.com": 451} {
		err := smtp.SendMail(s.Addr(), nil, "a@example.com", []string{addr}, []byte(simple("x")))
		var te *textproto.Error
		if !errors.As(err, &te) || te.Code != code {
			t.Errorf("RCPT %s: %v, want code %d", addr, err, code)
		}
	}
	if n := len(s.Messages()); n != 0 {
		t.Errorf("%d messages caught, want 0", n)
	}
}

func TestAuthAcceptsAnything(t *testing.T) {
	s := start(t)
	// PLAIN via net/smtp (which allows it unencrypted to 127.0.0.1 only).
	host, _, _ := net.SplitHostPort(s.Addr())
	if err := smtp.SendMail(s.Addr(), smtp.PlainAuth("", "any", "thing", host), "a@example.com",
		[]string{"b@example.com"}, []byte(simple("plain"))); err != nil {
		t.Fatalf("AUTH PLAIN: %v", err)
	}
	// LOGIN via go-smtp's client, which sends the user name as initial response.
	c, err := gosmtp.Dial(s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Auth(sasl.NewLoginClient("any", "thing")); err != nil {
		t.Fatalf("AUTH LOGIN: %v", err)
	}
	if err := c.SendMail("a@example.com", []string{"b@example.com"}, strings.NewReader(simple("login"))); err != nil {
		t.Fatal(err)
	}
	if n := len(s.Messages()); n != 2 {
		t.Errorf("%d messages caught, want 2", n)
	}
}

// LeftWithoutTLS counts the sessions that ended without a message where
// STARTTLS was not offered (a TLS-only client's refused attempt), and no
// other session.
func TestLeftWithoutTLS(t *testing.T) {
	cert, _, err := sink.SelfSigned()
	if err != nil {
		t.Fatal(err)
	}
	s := start(t, sink.WithSTARTTLS(&tls.Config{Certificates: []tls.Certificate{cert}}))
	// session greets the sink, sends a message or not, quits, and returns
	// once the sink has closed the connection: it ends the session before
	// closing, so the count is final then.
	session := func(message bool) (offered bool) {
		t.Helper()
		conn, err := net.DialTimeout("tcp", s.Addr(), 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		c := textproto.NewConn(conn)
		cmd := func(want int, line string) string {
			t.Helper()
			if err := c.PrintfLine("%s", line); err != nil {
				t.Fatal(err)
			}
			_, msg, err := c.ReadResponse(want)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return msg
		}
		if _, _, err := c.ReadResponse(220); err != nil {
			t.Fatal(err)
		}
		offered = strings.Contains(cmd(250, "EHLO client.example"), "STARTTLS")
		if message {
			cmd(250, "MAIL FROM:<a@example.com>")
			cmd(250, "RCPT TO:<b@example.com>")
			cmd(354, "DATA")
			cmd(250, strings.TrimSuffix(simple("plain"), "\r\n")+"\r\n.")
		}
		cmd(221, "QUIT")
		if _, err := io.ReadAll(conn); err != nil {
			t.Fatalf("waiting for the sink to close: %v", err)
		}
		return offered
	}
	s.SetSTARTTLS(false)
	if session(true) || s.LeftWithoutTLS() != 0 {
		t.Fatalf("a plain session with a message: counted %d", s.LeftWithoutTLS())
	}
	s.SetSTARTTLS(true)
	if !session(false) || s.LeftWithoutTLS() != 0 {
		t.Fatalf("a session offered STARTTLS: counted %d", s.LeftWithoutTLS())
	}
	s.SetSTARTTLS(false)
	if session(false) || s.LeftWithoutTLS() != 1 {
		t.Fatalf("a session that left without TLS: counted %d, want 1", s.LeftWithoutTLS())
	}
}
