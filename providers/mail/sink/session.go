package sink

import (
	"bytes"
	"io"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// backend makes a session per SMTP connection; starttls says whether its
// server offers STARTTLS.
type backend struct {
	sink     *Sink
	starttls bool
}

func (b backend) NewSession(c *smtp.Conn) (smtp.Session, error) {
	return &session{sink: b.sink, conn: c, starttls: b.starttls}, nil
}

// session collects one transaction's envelope and hands the message to the
// sink on DATA.
type session struct {
	sink     *Sink
	conn     *smtp.Conn
	starttls bool // offered on this connection
	from     string
	to       []string
	messages int // accepted in this session
}

var (
	_ smtp.Session     = (*session)(nil)
	_ smtp.AuthSession = (*session)(nil)
)

func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	s.from, s.to = from, nil
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	o := s.sink.opts
	switch {
	case o.rejectRcpt != nil && o.rejectRcpt(to):
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "Mailbox unavailable"}
	case o.deferRcpt != nil && o.deferRcpt(to):
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "Try again later"}
	}
	s.to = append(s.to, to)
	return nil
}

func (s *session) Data(r io.Reader) error {
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(r); err != nil {
		return err // go-smtp answers 552 for too large, 554 otherwise
	}
	_, overTLS := s.conn.TLSConnectionState()
	s.sink.add(s.from, append([]string(nil), s.to...), buf.Bytes(), overTLS)
	s.messages++
	return nil
}

func (s *session) Reset() { s.from, s.to = "", nil }

// Logout ends the session (go-smtp calls it when the connection closes,
// and before STARTTLS restarts the session on TLS).
func (s *session) Logout() error {
	if !s.starttls && s.messages == 0 {
		s.sink.leftWithoutTLS.Add(1)
	}
	return nil
}

// AuthMechanisms offers the two mechanisms every client knows.
func (s *session) AuthMechanisms() []string { return []string{sasl.Plain, sasl.Login} }

// Auth accepts any credentials: the sink guards nothing, and clients
// configured for a real relay should work against it unchanged.
func (s *session) Auth(mech string) (sasl.Server, error) {
	if mech == sasl.Login {
		return &loginServer{}, nil
	}
	return sasl.NewPlainServer(func(string, string, string) error { return nil }), nil
}

// loginServer is the server side of the obsolete but common LOGIN
// mechanism, which go-sasl lacks: ask for the user name, then the password,
// then accept.
type loginServer struct{ step int }

func (l *loginServer) Next(response []byte) (challenge []byte, done bool, err error) {
	l.step++
	switch {
	case l.step == 1 && response == nil:
		return []byte("Username:"), false, nil
	case l.step == 1: // the user name came as the initial response
		l.step = 2
		return []byte("Password:"), false, nil
	case l.step == 2:
		return []byte("Password:"), false, nil
	default:
		return nil, true, nil
	}
}
