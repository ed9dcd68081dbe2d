package mail

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // Europe/Amsterdam must resolve in minimal containers without /usr/share/zoneinfo

	gomail "github.com/wneessen/go-mail"
)

// Mailer sends verification-link e-mails through one SMTP server. It is
// safe for concurrent use: every SendLink opens its own connection.
type Mailer struct {
	cfg       Config        // validated, defaults applied
	from      *mail.Address // parsed Config.From
	zone      *time.Location
	templates map[string]langTemplates
	tlsConfig *tls.Config // shared by all sends; the tls package never modifies it
}

// New checks cfg and returns a Mailer; it does not connect. Errors name the
// offending Config field.
func New(cfg Config) (*Mailer, error) {
	cfg, from, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	zone, err := time.LoadLocation("Europe/Amsterdam")
	if err != nil {
		return nil, fmt.Errorf("mail: load time zone: %w", err)
	}
	tpls, err := parseTemplates()
	if err != nil {
		return nil, err
	}
	return &Mailer{
		cfg:       cfg,
		from:      from,
		zone:      zone,
		templates: tpls,
		tlsConfig: &tls.Config{ServerName: cfg.Host, MinVersion: tls.VersionTLS12, RootCAs: cfg.RootCAs},
	}, nil
}

// SendLink renders lm and sends it as one message, in one attempt: dial,
// optional STARTTLS and AUTH, MAIL, RCPT, DATA. It returns once the server
// has accepted the message (250 to DATA) or the attempt failed, and gives up
// when ctx ends (the connection is closed, aborting the command in flight).
//
// Errors are *Error; IsPermanent tells whether to stop retrying. A failure
// after the server accepted the message (e.g. QUIT) is ignored, so a retry
// never sends the same link twice because of it.
func (m *Mailer) SendLink(ctx context.Context, lm LinkMail) error {
	err := m.sendLink(ctx, lm)
	var e *Error
	if errors.As(err, &e) {
		e.to = strings.TrimSpace(lm.To)
	}
	return err
}

func (m *Mailer) sendLink(ctx context.Context, lm LinkMail) error {
	msg, err := m.message(lm)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return &Error{Err: fmt.Errorf("not sent: %w", context.Cause(ctx))}
	}

	var stops []func() bool
	defer func() {
		for _, stop := range stops {
			stop()
		}
	}()
	client, err := m.client(ctx, &stops)
	if err != nil {
		return classify(err)
	}

	smtpClient, err := client.DialToSMTPClientWithContext(ctx)
	if err == nil {
		err = client.SendWithSMTPClient(smtpClient, msg)
		// A failed QUIT after DATA was accepted does not undo the delivery.
		_ = client.CloseWithSMTPClient(smtpClient)
	}
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		// Closing the connection under go-mail surfaces as some I/O error;
		// report the real cause, which is never permanent.
		return &Error{Err: fmt.Errorf("not sent: %w (%v)", context.Cause(ctx), err)}
	}
	return classify(err)
}

// message builds the go-mail message for lm.
func (m *Mailer) message(lm LinkMail) (*gomail.Msg, error) {
	to, err := mail.ParseAddress(strings.TrimSpace(lm.To))
	if err != nil || to.Name != "" {
		// Quote nothing: the address is personal data and the error may be logged.
		return nil, permanent(errors.New("LinkMail.To is not a bare e-mail address"))
	}
	subject, text, html, err := m.Render(lm)
	if err != nil {
		return nil, err
	}

	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent())
	msg.FromMailAddress(m.from)
	to.Name = oneLine(lm.Name)
	msg.ToMailAddress(to)
	msg.Subject(subject)
	msg.SetDate()
	msg.SetMessageIDWithValue(newMessageID(m.from.Address))
	// RFC 3834: keeps out-of-office and other auto-replies away from the
	// no-reply sender.
	msg.SetGenHeader(gomail.Header("Auto-Submitted"), "auto-generated")
	msg.SetBodyString(gomail.TypeTextPlain, text)
	msg.AddAlternativeString(gomail.TypeTextHTML, html)
	return msg, nil
}

// newMessageID returns a random id-left@domain (go-mail adds the angle
// brackets). Random rather than derived from the link, so it reveals
// nothing about the token.
func newMessageID(from string) string {
	domain := "localhost"
	if i := strings.LastIndexByte(from, '@'); i >= 0 && i+1 < len(from) {
		domain = from[i+1:]
	}
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand panics instead)
	return hex.EncodeToString(b[:]) + "@" + domain
}

// client returns a go-mail client for one send. Its dialer ties the
// connection to ctx, because go-mail itself only watches ctx while dialing;
// the functions that stop those watches, and close the connection, are
// appended to stops.
func (m *Mailer) client(ctx context.Context, stops *[]func() bool) (*gomail.Client, error) {
	tlsConfig := m.tlsConfig
	implicitTLS := m.cfg.TLS == TLSImplicit
	// go-mail joins host and port with a plain colon, which breaks IPv6
	// literals; dial the address ourselves.
	addr := net.JoinHostPort(m.cfg.Host, strconv.Itoa(m.cfg.Port))
	dial := func(dctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		conn, err := d.DialContext(dctx, network, addr)
		if err != nil {
			return nil, err
		}
		// Closed when the send ends, too: go-mail leaves the connection
		// open when the session fails after dialing (a server without
		// STARTTLS, a refused AUTH), which would hold it until GC.
		*stops = append(*stops, context.AfterFunc(ctx, func() { _ = conn.Close() }), func() bool { _ = conn.Close(); return true })
		if !implicitTLS {
			return conn, nil
		}
		// Our own TLS, since go-mail's happens only with its own dialer. A
		// *tls.Conn is what go-mail checks to allow PLAIN/LOGIN.
		tc := tls.Client(conn, tlsConfig)
		if err := tc.HandshakeContext(dctx); err != nil {
			_ = conn.Close()
			return nil, err
		}
		return tc, nil
	}

	// STARTTLS is mandatory: a server that does not offer it (or an
	// attacker who strips the offer) gets nothing, and the send fails
	// temporarily, to be retried.
	policy := gomail.TLSMandatory
	if m.cfg.TLS == TLSNone || implicitTLS { // implicit: already encrypted, no STARTTLS on top
		policy = gomail.NoTLS
	}
	opts := []gomail.Option{
		gomail.WithPort(m.cfg.Port),
		gomail.WithTimeout(m.cfg.Timeout),
		gomail.WithTLSPolicy(policy),
		gomail.WithTLSConfig(tlsConfig),
		gomail.WithDialContextFunc(dial),
	}
	if m.cfg.Username != "" {
		opts = append(opts,
			gomail.WithUsername(m.cfg.Username),
			gomail.WithPassword(m.cfg.Password),
			// Falls back to go-mail's auto-discovery when neither is offered.
			gomail.WithOpportunisticSMTPAuth(gomail.SMTPAuthPlain, gomail.SMTPAuthLogin),
		)
	}
	return gomail.NewClient(m.cfg.Host, opts...)
}
