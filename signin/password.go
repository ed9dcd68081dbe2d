package signin

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
)

// argon2id's cost: OWASP's recommendation for argon2id (19 MiB, two
// passes, one lane); docs/BENCHMARKS.md has what a hash costs here.
const (
	argonMemory  = 19 * 1024 // KiB
	argonTime    = 2
	argonThreads = 1
	argonKeyLen  = 32
	saltLen      = 16
)

// Password limits: long enough to resist guessing once hashed, short
// enough that hashing cannot be made a denial of service.
const (
	MinPasswordLength = 12
	MaxPasswordLength = 128
)

// ErrWeakPassword: a password outside the limits.
var ErrWeakPassword = fmt.Errorf("a password has %d to %d characters", MinPasswordLength, MaxPasswordLength)

// CheckPassword says why a new password is refused, or nil.
func CheckPassword(pw string) error {
	if n := utf8.RuneCountInString(pw); n < MinPasswordLength || n > MaxPasswordLength || !utf8.ValidString(pw) {
		return ErrWeakPassword
	}
	return nil
}

// HashPassword hashes pw with argon2id and a random salt, in the PHC
// string format ($argon2id$v=19$m=…,t=…,p=…$salt$hash), which carries its
// parameters so they can be raised without invalidating older hashes.
func HashPassword(pw string) (string, error) {
	if err := CheckPassword(pw); err != nil {
		return "", err
	}
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(pw), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// errHash: a stored hash that is not an argon2id PHC string.
var errHash = errors.New("signin: not an argon2id hash")

// VerifyPassword reports whether pw is the password hash was made from,
// in time independent of where they differ. A malformed hash is an error.
func VerifyPassword(hash, pw string) (bool, error) {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errHash
	}
	var version int
	var m uint32
	var t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, errHash
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil || m < 8 || m > 1<<22 || t < 1 || t > 16 || p < 1 {
		return false, errHash
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	key, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(key) < 16 || len(key) > 64 {
		return false, errHash
	}
	if utf8.RuneCountInString(pw) > MaxPasswordLength {
		return false, nil // never hashed: no password that long was ever set
	}
	got := argon2.IDKey([]byte(pw), salt, t, m, p, uint32(len(key)))
	return subtle.ConstantTimeCompare(got, key) == 1, nil
}

// dummyHash is verified against when no account matches, so that a
// sign-in for an unknown address takes as long as one for a known one.
var dummyHash = func() string {
	h, err := HashPassword("not a password anyone has")
	if err != nil {
		panic(err)
	}
	return h
}()

// WasteTime verifies pw against a hash no password matches: the cost of a
// sign-in whose account does not exist.
func WasteTime(pw string) { VerifyPassword(dummyHash, pw) } //nolint:errcheck // the answer is always no
