package kvk

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/kycflow/kycflow/providers/internal/httpfail"
)

// ErrNotFound: KvK has no registration it can deliver for the number (fout
// IPD0005 with HTTP 404; IPD5200 from Zoeken). A bare 404 without KvK's
// `fout` body is NOT this: that is a wrong path or gateway, and reading it
// as "company does not exist" would be a silent false negative.
var ErrNotFound = errors.New("kvk: no registration for this KvK number")

// ErrInvalidNumber: not a KvK number (8 digits). Profile returns it without
// calling; KvK's own IPD0004 (HTTP 400) unwraps to it too.
var ErrInvalidNumber = errors.New("kvk: invalid KvK number (want 8 digits)")

// Error is a failed call: KvK's `fout` entry ({"code","omschrijving"}) or a
// transport failure. errors.Is(err, ErrNotFound / ErrInvalidNumber) works
// through it when KvK's code says so.
type Error struct {
	Status    int    // HTTP status; 0 for transport failures
	Code      string // KvK's IPDxxxx; else HTTP_<status>, TIMEOUT, TRANSPORT, TLS, CANCELED, DECODE, MISMATCH
	Message   string // KvK's omschrijving, or what went wrong
	Retryable bool   // asking again later may succeed

	// RetryAfter is the server's Retry-After hint (429/503), 0 when absent.
	RetryAfter time.Duration

	kind  error // ErrNotFound, ErrInvalidNumber or nil
	cause error // underlying transport error, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("kvk: ")
	if e.Status != 0 {
		fmt.Fprintf(&b, "HTTP %d ", e.Status)
	}
	b.WriteString(e.Code)
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

func (e *Error) Unwrap() []error {
	var out []error
	for _, err := range []error{e.kind, e.cause} {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

// IsRetryable reports whether err is a KvK failure worth retrying later: 5xx,
// 429, 408, KvK's "temporarily unavailable" codes, timeouts and connection
// errors. Bad keys (401/403), bad requests (400), not-found and certificate
// failures are final.
func IsRetryable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Retryable
}

// fout is one entry of KvK's error body.
type fout struct {
	Code         string `json:"code"`
	Omschrijving string `json:"omschrijving"`
}

// wireError accepts the shapes KvK has used: {"fout":[...]} (current
// Basisprofiel/Zoeken), {"meldingen":{"fout":[...]}} (older releases) and a
// bare {"code","omschrijving"} (seen from KvK's open-data endpoints).
type wireError struct {
	Fout      []fout `json:"fout"`
	Meldingen struct {
		Fout []fout `json:"fout"`
	} `json:"meldingen"`
	fout
}

func (w wireError) first() (fout, bool) {
	for _, list := range [][]fout{w.Fout, w.Meldingen.Fout} {
		for _, f := range list {
			if f.Code != "" || f.Omschrijving != "" {
				return f, true
			}
		}
	}
	if w.Code != "" {
		return w.fout, true
	}
	return fout{}, false
}

// KvK codes that say the data exists but is being processed: try later,
// although they arrive with HTTP 404.
var temporaryCodes = map[string]bool{"IPD1002": true, "IPD1003": true, "IPD9999": true}

// httpError turns a non-200 answer into an *Error.
func httpError(status int, header http.Header, body []byte) *Error {
	e := &Error{Status: status, Code: fmt.Sprintf("HTTP_%d", status), Message: http.StatusText(status)}
	var w wireError
	if json.Unmarshal(body, &w) == nil {
		if f, ok := w.first(); ok {
			if f.Code != "" {
				e.Code = f.Code
			}
			e.Message = strings.TrimSpace(f.Omschrijving)
		}
	}
	switch e.Code {
	case "IPD0005", "IPD5200":
		e.kind = ErrNotFound
	case "IPD0004":
		e.kind = ErrInvalidNumber
	}
	e.Retryable = httpfail.RetryableStatus(status) || temporaryCodes[e.Code]
	e.RetryAfter = httpfail.RetryAfter(header)
	return e
}

// transportError classifies a failure to get an answer at all (a TLS
// failure usually means the KvK root is missing: see NewRootCAs).
func transportError(ctxErr, err error) *Error {
	code, retryable := httpfail.Transport(ctxErr, err)
	return &Error{Code: code, Message: err.Error(), Retryable: retryable, cause: err}
}
