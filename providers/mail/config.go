package mail

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"
)

// TLS modes for Config.TLS.
const (
	// TLSNone speaks plain SMTP and never tries STARTTLS. Only for a relay
	// on the same host or network, or the dev sink on loopback. Default
	// port 25.
	TLSNone = "none"
	// TLSStartTLS (the default) upgrades with STARTTLS and fails
	// (temporarily, so the send is retried) when the server does not offer
	// it or the handshake fails: never plain text, so an attacker who strips
	// the offer learns nothing. Default port 587.
	TLSStartTLS = "starttls"
	// TLSStartTLSRequired is the former name of TLSStartTLS, still accepted.
	TLSStartTLSRequired = "starttls-required"
	// TLSImplicit speaks TLS from the first byte (SMTPS, RFC 8314).
	// Default port 465.
	TLSImplicit = "tls"
)

// DefaultTimeout is Config.Timeout when it is zero.
const DefaultTimeout = 30 * time.Second

// Config says which SMTP server to use and how.
//
// In every TLS mode the server certificate is verified against Host, with
// TLS 1.2 or later.
//
// Authentication happens only when Username is set. go-mail then uses PLAIN
// or, failing that, LOGIN when the server advertises them, and otherwise the
// strongest of SCRAM-SHA-256, SCRAM-SHA-1, NTLM and CRAM-MD5 it offers.
// go-mail refuses to send PLAIN or LOGIN credentials over an unencrypted
// connection except to localhost, 127.0.0.1 or ::1, so with TLS "none"
// authentication to a remote host fails instead of leaking the password.
type Config struct {
	Host     string // SMTP server host name or IP; required
	Port     int    // 0: the TLS mode's default port (25, 587 or 465)
	Username string // empty: no SMTP AUTH
	Password string // required when Username is set

	// From is the From header and envelope sender, an RFC 5322 address
	// with or without a display name, e.g. "kycflow <no-reply@kycflow.local>".
	// Its domain also names the Message-ID.
	From string

	// TLS is one of "none", "starttls" or "tls" (see the TLS* constants);
	// empty means "starttls". "none" must be asked for.
	TLS string

	// RootCAs are the certificate authorities the server's certificate is
	// verified against; nil: the system's.
	RootCAs *x509.CertPool

	// Timeout bounds each of the two phases of a send: connecting (dial,
	// greeting, STARTTLS, AUTH) and transmitting (MAIL, RCPT, DATA); 0 means
	// DefaultTimeout. The context given to SendLink bounds the whole send.
	Timeout time.Duration
}

// normalize checks c and returns it with defaults applied; errors name the
// offending field so a misconfiguration is obvious at startup.
func (c Config) normalize() (Config, *mail.Address, error) {
	var errs []error
	c.Host = strings.TrimSpace(c.Host)
	switch {
	case c.Host == "":
		errs = append(errs, errors.New("mail: Config.Host is required"))
	case strings.ContainsAny(c.Host, "/ \t@") || strings.HasPrefix(c.Host, "["):
		errs = append(errs, fmt.Errorf("mail: Config.Host %q is not a host name or IP address (no scheme, port or brackets)", c.Host))
	}

	switch strings.ToLower(strings.TrimSpace(c.TLS)) {
	case "", TLSStartTLS, TLSStartTLSRequired:
		c.TLS = TLSStartTLS
	case TLSNone:
		c.TLS = TLSNone
	case TLSImplicit:
		c.TLS = TLSImplicit
	default:
		errs = append(errs, fmt.Errorf("mail: Config.TLS %q is not one of none, starttls, tls", c.TLS))
	}

	switch {
	case c.Port == 0:
		c.Port = defaultPort(c.TLS)
	case c.Port < 0 || c.Port > 65535:
		errs = append(errs, fmt.Errorf("mail: Config.Port %d is out of range 1-65535", c.Port))
	}

	switch {
	case c.Username != "" && c.Password == "":
		errs = append(errs, errors.New("mail: Config.Password is required when Config.Username is set"))
	case c.Username == "" && c.Password != "":
		// Almost certainly a missing variable; sending without AUTH would
		// fail later with a less helpful relay-denied error.
		errs = append(errs, errors.New("mail: Config.Username is required when Config.Password is set"))
	}

	var from *mail.Address
	if strings.TrimSpace(c.From) == "" {
		errs = append(errs, errors.New("mail: Config.From is required"))
	} else if a, err := mail.ParseAddress(c.From); err != nil {
		errs = append(errs, fmt.Errorf("mail: Config.From %q is not an e-mail address: %v", c.From, err))
	} else {
		from = a
	}

	switch {
	case c.Timeout == 0:
		c.Timeout = DefaultTimeout
	case c.Timeout < 0:
		errs = append(errs, fmt.Errorf("mail: Config.Timeout %s is negative", c.Timeout))
	}

	return c, from, errors.Join(errs...)
}

func defaultPort(mode string) int {
	switch mode {
	case TLSNone:
		return 25
	case TLSImplicit:
		return 465
	default:
		return 587
	}
}
