package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Tolerance is how old a signature's timestamp may be before a receiver
// rejects it (a replayed delivery).
const Tolerance = 5 * time.Minute

// Sign makes the Kycflow-Signature header for a body sent at t: the time,
// then one v1 signature per secret (during a rotation both the new and the
// old secret sign, so receivers holding either verify).
func Sign(t time.Time, body []byte, secrets ...[]byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	var b strings.Builder
	b.WriteString("t=" + ts)
	for _, s := range secrets {
		b.WriteString(",v1=" + hex.EncodeToString(mac(s, ts, body)))
	}
	return b.String()
}

func mac(secret []byte, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(ts))
	m.Write([]byte("."))
	m.Write(body)
	return m.Sum(nil)
}

// Errors Verify returns.
var (
	ErrNoSignature  = errors.New("webhook: no valid Kycflow-Signature header")
	ErrTooOld       = errors.New("webhook: signature timestamp outside the tolerance")
	ErrBadSignature = errors.New("webhook: no signature matches the secret")
)

// Verify checks a Kycflow-Signature header against the raw body, a secret
// (the whole whsec_… string) and the current time. This is what a receiver
// written in Go calls.
func Verify(header string, body []byte, secret string, now time.Time) error {
	var ts string
	var sigs [][]byte
	for _, part := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		switch k {
		case "t":
			ts = v
		case "v1":
			if s, err := hex.DecodeString(v); err == nil {
				sigs = append(sigs, s)
			}
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return ErrNoSignature
	}
	if d := now.Sub(time.Unix(sec, 0)); d > Tolerance || d < -Tolerance {
		return ErrTooOld
	}
	want := mac([]byte(secret), ts, body)
	for _, s := range sigs {
		if hmac.Equal(s, want) {
			return nil
		}
	}
	return ErrBadSignature
}
