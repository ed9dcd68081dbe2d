// Package httpfail classifies failed provider calls the same way for every
// client: which HTTP statuses are worth retrying, what a Retry-After says,
// and what a failure to get any answer was.
package httpfail

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"strconv"
	"time"
)

// RetryableStatus: server errors, too many requests and request timeouts
// may pass; other 4xx answers will not change.
func RetryableStatus(status int) bool {
	return status >= 500 || status == http.StatusTooManyRequests || status == http.StatusRequestTimeout
}

// RetryAfter is the server's Retry-After hint (seconds or an HTTP date), 0
// when absent or unreadable.
func RetryAfter(h http.Header) time.Duration {
	s := h.Get("Retry-After")
	if s == "" {
		return 0
	}
	if n, err := strconv.Atoi(s); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(s); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

// Transport classifies a failure to get an answer at all (err), given the
// call's context error: CANCELED (the caller gave up: their decision, not
// retried), TLS (a certificate that does not verify will not next time:
// a wrong host, a missing root, an intercepting proxy), TIMEOUT, else
// TRANSPORT; the last two are retryable.
func Transport(ctxErr, err error) (code string, retryable bool) {
	var ne net.Error
	var cv *tls.CertificateVerificationError
	switch {
	case errors.Is(ctxErr, context.Canceled):
		return "CANCELED", false
	case errors.As(err, &cv):
		return "TLS", false
	case ctxErr != nil || (errors.As(err, &ne) && ne.Timeout()):
		return "TIMEOUT", true
	}
	return "TRANSPORT", true
}
