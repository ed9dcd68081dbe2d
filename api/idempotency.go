package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"
)

// HeaderIdempotencyKey names a POST whose repeats must not act again.
const HeaderIdempotencyKey = "Idempotency-Key"

var (
	errIdempotencyKey      = newError(http.StatusBadRequest, "The Idempotency-Key header must be 1 to 255 printable ASCII characters.")
	errIdempotencyMismatch = fieldError(HeaderIdempotencyKey, "This idempotency key was already used with a different request.")
	errIdempotencyInFlight = newError(http.StatusConflict, "A request with this idempotency key is still in progress; retry it shortly.")
)

// idempotent makes a POST with an Idempotency-Key (the IETF draft "The
// Idempotency-Key HTTP Header Field", as Stripe and Persona use it) act
// once per tenant and key: the first request's answer is stored for 24 h
// with a hash of the request (method, path, body); a repeat gets that answer
// again with Idempotent-Replayed: true, and does nothing. A different
// request under the key is 422; a repeat while the first is in flight, 409.
// Server errors are not kept: the request may be retried under its key.
func (s *Server) idempotent(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		key := req.Header.Get(HeaderIdempotencyKey)
		if req.Method != http.MethodPost || key == "" && len(req.Header.Values(HeaderIdempotencyKey)) == 0 {
			return next(c)
		}
		if !validIdempotencyKey(key) {
			return errIdempotencyKey
		}
		body, err := io.ReadAll(io.LimitReader(req.Body, maxBody+1))
		if err != nil {
			return errMalformed
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		h := sha256.New()
		h.Write([]byte(req.Method + " " + req.URL.Path + "\n"))
		h.Write(body)
		tenant := principal(c).TenantID
		ctx := req.Context()
		a, err := s.store.ClaimIdempotencyKey(ctx, tenant, key, h.Sum(nil))
		switch {
		case err != nil:
			return err
		case a.Mismatch:
			return errIdempotencyMismatch
		case a.InFlight:
			return errIdempotencyInFlight
		case !a.Claimed:
			body, err := s.unsealAnswer(a.Body, tenant.String()+"/"+key)
			if err != nil {
				return err
			}
			c.Response().Header().Set("Idempotent-Replayed", "true")
			return c.JSONBlob(a.Status, body)
		}
		// This request holds the key: answer it (errors rendered here, so
		// their answer is what is kept) and keep the answer.
		rec := &recorder{ResponseWriter: c.Response().Writer}
		c.Response().Writer = rec
		if err := next(c); err != nil {
			c.Error(err)
		}
		status := c.Response().Status
		if status >= 500 || ctx.Err() != nil {
			// Nothing worth replaying: free the key (with a context of its
			// own: the request's may be gone).
			if err := s.store.ReleaseIdempotencyKey(context.WithoutCancel(ctx), tenant, key); err != nil {
				s.log.Warn("release idempotency key", "request_id", requestID(c), "error", err)
			}
			return nil
		}
		kept := rec.body.Bytes()
		if sealed, _ := c.Get(sealAnswer).(bool); sealed {
			if s.hooks.Cipher != nil {
				kept = append([]byte{sealedMark}, s.hooks.Cipher.Seal(string(kept), tenant.String()+"/"+key)...)
			} else if kept, _ = c.Get(keptInstead).([]byte); kept == nil {
				kept = []byte("{}")
			}
		}
		if err := s.store.CompleteIdempotencyKey(context.WithoutCancel(ctx), tenant, key, status, kept); err != nil {
			s.log.Error("keep idempotent answer", "request_id", requestID(c), "error", err)
		}
		return nil
	}
}

// sealAnswer marks an answer that carries a secret (a new webhook signing
// secret, a verification link's token): it is kept sealed with the
// webhook key, as the secret itself is, so the idempotency table holds no
// secret in the clear. A server without the key keeps keptInstead.
const (
	sealAnswer  = "idempotency.seal"
	keptInstead = "idempotency.instead"
)

// keepSealed marks this request's answer as carrying a secret; without the
// key to seal it, what is kept and replayed is instead (the answer without
// its secrets).
func (s *Server) keepSealed(c echo.Context, instead any) {
	c.Set(sealAnswer, true)
	if s.hooks.Cipher == nil {
		b, err := json.Marshal(instead)
		if err != nil {
			panic(err) // a shape of this package's own
		}
		c.Set(keptInstead, b)
	}
}

// sealedMark starts a sealed answer (a JSON answer never starts with NUL).
const sealedMark = 0

func (s *Server) unsealAnswer(body []byte, context string) ([]byte, error) {
	if len(body) == 0 || body[0] != sealedMark {
		return body, nil
	}
	if s.hooks.Cipher == nil {
		return nil, errWebhooksOff
	}
	plain, err := s.hooks.Cipher.Open(body[1:], context)
	if err != nil {
		return nil, err
	}
	return []byte(plain), nil
}

// validIdempotencyKey: 1 to 255 printable ASCII characters.
func validIdempotencyKey(k string) bool {
	if len(k) < 1 || len(k) > 255 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// recorder keeps a copy of what a handler writes.
type recorder struct {
	http.ResponseWriter
	body bytes.Buffer
}

func (r *recorder) Write(b []byte) (int, error) {
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}
