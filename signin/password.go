package signin

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
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

// Every argon2id hash takes argonMemory while it runs: at most HashSlots
// run at once in a process, so a burst of sign-ins (from anyone: the
// sign-in page is public) cannot take the process's memory. A hash that
// finds no slot within HashWait is refused with ErrBusy.
const (
	HashSlots = 4
	HashWait  = 2 * time.Second
)

// ErrBusy: every hashing slot stayed taken for HashWait.
var ErrBusy = errors.New("signin: too many sign-ins at once")

var slots = make(chan struct{}, HashSlots)

// hash is argon2id of pw under salt, in a slot.
func hash(ctx context.Context, pw, salt []byte, t, m uint32, p uint8, n uint32) ([]byte, error) {
	select {
	case slots <- struct{}{}:
	default:
		wait := time.NewTimer(HashWait)
		defer wait.Stop()
		select {
		case slots <- struct{}{}:
		case <-wait.C:
			return nil, ErrBusy
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	defer func() { <-slots }()
	return argon2.IDKey(pw, salt, t, m, p, n), nil
}

// pepper is what argon2id hashes of a password: its keyed hash, so that a
// stored hash cannot be tested against guesses without the key.
func (k *Key) pepper(pw string) []byte { return k.mac("password", []byte(pw)) }

// HashPassword hashes pw with argon2id, a random salt and the key's
// pepper, in the PHC string format ($argon2id$v=19$m=…,t=…,p=…,k=…$salt$hash),
// which carries its parameters (k: the key's id) so they can be raised
// without invalidating older hashes.
func (k *Key) HashPassword(ctx context.Context, pw string) (string, error) {
	if err := CheckPassword(pw); err != nil {
		return "", err
	}
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key, err := hash(ctx, k.pepper(pw), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	if err != nil {
		return "", err
	}
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d,k=%s$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads, k.id,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// errHash: a stored hash that is not an argon2id PHC string, or one made
// under another key.
var errHash = errors.New("signin: not an argon2id hash of this key")

// phc is a parsed hash.
type phc struct {
	m, t      uint32
	p         uint8
	keyID     string // "": made before passwords were peppered
	salt, key []byte
}

func parsePHC(s string) (phc, error) {
	var h phc
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[1] != "argon2id" || parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return h, errHash
	}
	seen := map[string]bool{}
	for param := range strings.SplitSeq(parts[3], ",") {
		name, v, _ := strings.Cut(param, "=")
		if seen[name] {
			return h, errHash
		}
		seen[name] = true
		if name == "k" {
			h.keyID = v
			continue
		}
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			return h, errHash
		}
		switch name {
		case "m":
			h.m = uint32(n)
		case "t":
			h.t = uint32(n)
		case "p":
			h.p = uint8(min(n, 255))
		default:
			return h, errHash
		}
	}
	if h.m < 8 || h.m > 1<<22 || h.t < 1 || h.t > 16 || h.p < 1 {
		return h, errHash
	}
	var err1, err2 error
	h.salt, err1 = base64.RawStdEncoding.DecodeString(parts[4])
	h.key, err2 = base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(h.key) < 16 || len(h.key) > 64 {
		return h, errHash
	}
	return h, nil
}

// VerifyPassword reports whether pw is the password stored was made from,
// in time independent of where they differ. A malformed hash, or one
// peppered under another key, is an error; a hash made before passwords
// were peppered (no k parameter) is verified as it was made.
func (k *Key) VerifyPassword(ctx context.Context, stored string, pw string) (bool, error) {
	h, err := parsePHC(stored)
	if err != nil {
		return false, err
	}
	if h.keyID != "" && h.keyID != k.id {
		return false, errHash
	}
	if utf8.RuneCountInString(pw) > MaxPasswordLength {
		return false, nil // never hashed: no password that long was ever set
	}
	in := []byte(pw)
	if h.keyID != "" {
		in = k.pepper(pw)
	}
	got, err := hash(ctx, in, h.salt, h.t, h.m, h.p, uint32(len(h.key)))
	if err != nil {
		return false, err
	}
	return subtle.ConstantTimeCompare(got, h.key) == 1, nil
}

// dummySalt is what WasteTime hashes with.
var dummySalt = make([]byte, saltLen)

// WasteTime costs what verifying pw against a hash of today's parameters
// costs, for a sign-in whose address has no account (or none that signs
// in): it answers as late as one that has. ErrBusy as VerifyPassword.
func (k *Key) WasteTime(ctx context.Context, pw string) error {
	if utf8.RuneCountInString(pw) > MaxPasswordLength {
		return nil
	}
	_, err := hash(ctx, k.pepper(pw), dummySalt, argonTime, argonMemory, argonThreads, argonKeyLen)
	return err
}
