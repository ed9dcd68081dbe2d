package mail

import (
	"errors"
	"net/textproto"
	"strings"

	gomail "github.com/wneessen/go-mail"
)

// Error is what SendLink returns when a message was not sent.
//
// Permanent failures are those that sending the same message again cannot
// fix: an SMTP 5xx reply (e.g. 550 for an unknown mailbox, 535 for bad
// credentials) and invalid input (a bad recipient address, a LinkMail
// that does not render). Everything else is temporary: 4xx replies,
// connection, TLS and timeout errors, a cancelled context.
type Error struct {
	// Code is the SMTP reply code (e.g. 550, 451), 0 when the failure had
	// none.
	Code int
	// Permanent is true when retrying cannot succeed.
	Permanent bool
	// Err is the underlying error.
	Err error
	// to is the recipient's address, which the server's words may hold
	// ("affected recipient(s): …"): Error never says it, so the error can
	// go into logs and workflow histories.
	to string
}

// Error returns the underlying error's text, prefixed with "mail: ", the
// recipient's address left out.
func (e *Error) Error() string {
	s := "mail: " + e.Err.Error()
	if e.to != "" {
		s = strings.ReplaceAll(s, e.to, "<recipient>")
		s = strings.ReplaceAll(s, strings.ToLower(e.to), "<recipient>")
	}
	return s
}

// Unwrap returns Err, so errors.Is(err, context.Canceled) and the like work.
func (e *Error) Unwrap() error { return e.Err }

// IsPermanent reports whether err (from SendLink) is a failure that retrying
// the same message cannot fix; see Error. It is false for nil and for errors
// not from this package, so an unknown failure is retried.
func IsPermanent(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Permanent
}

// permanent marks input errors: no server was asked, and asking later
// would not help.
func permanent(err error) *Error { return &Error{Permanent: true, Err: err} }

// classify turns a go-mail error into an *Error. go-mail reports failures
// of MAIL/RCPT/DATA as *gomail.SendError (its code is parsed from the
// reply), and failures while greeting, upgrading or authenticating as the
// *textproto.Error of the reply, wrapped.
func classify(err error) *Error {
	e := &Error{Err: err}
	var se *gomail.SendError
	var te *textproto.Error
	switch {
	case errors.As(err, &se):
		e.Code = se.ErrorCode()
		e.Permanent = !se.IsTemp() && e.Code >= 500 && e.Code <= 599
	case errors.As(err, &te):
		e.Code = te.Code
		e.Permanent = te.Code >= 500 && te.Code <= 599
	}
	return e
}
