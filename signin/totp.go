package signin

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1" //nolint:gosec // RFC 6238's default, what authenticator apps compute
	"crypto/subtle"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"net/url"
	"time"
)

// TOTP parameters every authenticator app accepts: SHA-1, six digits, a
// 30-second step (RFC 6238's defaults).
const (
	totpStep   = 30 * time.Second
	totpDigits = 6
	secretLen  = 20
)

// NewTOTPSecret is a new random second-factor secret.
func NewTOTPSecret() ([]byte, error) {
	s := make([]byte, secretLen)
	_, err := rand.Read(s)
	return s, err
}

// SecretText is a secret as people type it into an app: base32, no
// padding.
func SecretText(secret []byte) string {
	return base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(secret)
}

// TOTPURI is the otpauth:// URI an app scans (as a QR code) to add the
// account: issuer and account shown in the app.
func TOTPURI(secret []byte, issuer, account string) string {
	label := url.PathEscape(issuer) + ":" + url.PathEscape(account)
	q := url.Values{"secret": {SecretText(secret)}, "issuer": {issuer}, "algorithm": {"SHA1"},
		"digits": {fmt.Sprint(totpDigits)}, "period": {fmt.Sprint(int(totpStep.Seconds()))}}
	return "otpauth://totp/" + label + "?" + q.Encode()
}

// Step is the TOTP time step of t.
func Step(t time.Time) int64 { return t.Unix() / int64(totpStep.Seconds()) }

// Code is the code of secret for step (RFC 4226's HOTP of the step).
func Code(secret []byte, step int64) string {
	mac := hmac.New(sha1.New, secret)
	var msg [8]byte
	binary.BigEndian.PutUint64(msg[:], uint64(step))
	mac.Write(msg[:])
	sum := mac.Sum(nil)
	off := sum[len(sum)-1] & 0x0f
	bin := binary.BigEndian.Uint32(sum[off:off+4]) & 0x7fffffff
	mod := uint32(1)
	for range totpDigits {
		mod *= 10
	}
	return fmt.Sprintf("%0*d", totpDigits, bin%mod)
}

// VerifyTOTP reports whether code is secret's code at now, a step early or
// late (clocks drift), and newer than the step last used: a code is good
// once (RFC 6238 §5.2). It returns the step the code is of, to be kept as
// the last used.
func VerifyTOTP(secret []byte, code string, now time.Time, lastUsed int64) (int64, bool) {
	if len(code) != totpDigits {
		return 0, false
	}
	at := Step(now)
	for _, s := range []int64{at - 1, at, at + 1} {
		if s > lastUsed && subtle.ConstantTimeCompare([]byte(Code(secret, s)), []byte(code)) == 1 {
			return s, true
		}
	}
	return 0, false
}
