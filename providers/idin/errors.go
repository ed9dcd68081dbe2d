package idin

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/kycflow/kycflow/providers/internal/httpfail"
)

// ErrInvalidRequest: the request was rejected before sending (Validate), or
// by CM with HTTP 400. Fix the request; retrying will not help.
var ErrInvalidRequest = errors.New("idin: invalid request")

// ErrUnauthorized: CM refused the merchant token (HTTP 401/403). A
// configuration problem, not a per-check one.
var ErrUnauthorized = errors.New("idin: merchant token refused")

// ErrNotFound: CM does not know the transaction (HTTP 404).
var ErrNotFound = errors.New("idin: transaction not found")

// Error is a failed call: CM's error body, a transport failure, or an
// answer that cannot be used. It never contains the merchant token.
// errors.Is(err, ErrInvalidRequest / ErrUnauthorized / ErrNotFound) works
// through it.
type Error struct {
	Op     string // "directory", "transaction" or "status"
	Status int    // HTTP status; 0 when no answer was received
	// Code is CM's error code (a number, as text) when CM sent one; else
	// HTTP_<status>, INVALID_REQUEST, CONFIG, TRANSPORT, TIMEOUT, CANCELED,
	// TLS, DECODE or MISMATCH.
	Code      string
	Message   string // CM's message, or what went wrong
	Retryable bool   // asking again later may succeed

	// RetryAfter is the server's Retry-After hint (429/503), 0 when absent.
	RetryAfter time.Duration

	kind  error // one of the Err* sentinels, or nil
	cause error // underlying transport error, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("idin: ")
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
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

// Unwrap exposes the sentinel and the transport cause to errors.Is/As.
func (e *Error) Unwrap() []error {
	var out []error
	for _, err := range []error{e.kind, e.cause} {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

// IsRetryable reports whether err is worth retrying later: HTTP 5xx, 429
// and 408, timeouts and connection failures. Bad requests, refused tokens,
// unknown transactions, other 4xx and unusable answers are final, and so
// is anything that is not an *Error.
func IsRetryable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Retryable
}

// invalid is a request problem found before sending.
func invalid(op, msg string) *Error {
	return &Error{Op: op, Code: "INVALID_REQUEST", Message: msg, kind: ErrInvalidRequest}
}

// errorBody is CM's error answer. Its shape is from CM's swagger model
// (status int, message string, code int); both numbers are read leniently.
type errorBody struct {
	Status  flexString `json:"status"`
	Message string     `json:"message"`
	Code    flexString `json:"code"`
}

// httpError turns a non-2xx answer into an *Error; redact removes secrets
// from anything the server said.
func httpError(op string, status int, header http.Header, body []byte, redact func(string) string) *Error {
	e := &Error{Op: op, Status: status, Code: fmt.Sprintf("HTTP_%d", status), Message: http.StatusText(status)}
	var b errorBody
	if json.Unmarshal(body, &b) == nil {
		if b.Code != "" {
			e.Code = string(b.Code)
		}
		if m := strings.TrimSpace(b.Message); m != "" {
			e.Message = m
		}
	} else if s := strings.TrimSpace(string(body)); s != "" && len(s) <= 200 && !strings.HasPrefix(s, "<") {
		// A short plain-text answer (a gateway's) says more than the
		// status text; HTML error pages say nothing useful.
		e.Message = s
	}
	e.Message = redact(e.Message)
	switch {
	case status == http.StatusBadRequest:
		e.kind = ErrInvalidRequest
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.kind = ErrUnauthorized
	case status == http.StatusNotFound:
		e.kind = ErrNotFound
	}
	e.Retryable, e.RetryAfter = httpfail.RetryableStatus(status), httpfail.RetryAfter(header)
	return e
}

// transportError classifies a failure to get an answer at all.
func transportError(op string, ctxErr, err error, redact func(string) string) *Error {
	code, retryable := httpfail.Transport(ctxErr, err)
	return &Error{Op: op, Code: code, Message: redact(err.Error()), Retryable: retryable, cause: err}
}
