package signin

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/argon2"
)

func testKey(t testing.TB, b byte) *Key {
	k, err := NewKey([]byte(strings.Repeat(string(rune(b)), 32)))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// A password verifies against its own hash only, under its own key; the
// hash carries its parameters, the key's id and a salt of its own; a
// malformed hash is an error, not a match; passwords outside the limits
// are refused. A hash made before passwords were peppered still verifies.
func TestPassword(t *testing.T) {
	ctx := t.Context()
	const pw = "correct horse battery"
	k := testKey(t, 'a')
	h, err := k.HashPassword(ctx, pw)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1,k="+k.ID()+"$") {
		t.Fatalf("hash %q", h)
	}
	if again, _ := k.HashPassword(ctx, pw); again == h {
		t.Fatal("two hashes of one password alike: no salt")
	}
	for _, c := range []struct {
		pw   string
		want bool
	}{{pw, true}, {pw + " ", false}, {"Correct horse battery", false}, {strings.Repeat("x", 4000), false}} {
		if ok, err := k.VerifyPassword(ctx, h, c.pw); err != nil || ok != c.want {
			t.Errorf("verify %.20q: %v %v", c.pw, ok, err)
		}
	}
	// Under another key the hash is not even tried; nor is it the plain
	// argon2id of the password (the pepper).
	if ok, err := testKey(t, 'b').VerifyPassword(ctx, h, pw); ok || err == nil {
		t.Errorf("another key verified: %v %v", ok, err)
	}
	h2, _ := parsePHC(h)
	if plain := argon2.IDKey([]byte(pw), h2.salt, argonTime, argonMemory, argonThreads, argonKeyLen); string(plain) == string(h2.key) {
		t.Error("the stored hash is the password's argon2id without the key")
	}
	// A hash of before the pepper (no k parameter).
	salt := []byte("0123456789abcdef")
	b64 := base64.RawStdEncoding
	legacy := "$argon2id$v=19$m=19456,t=2,p=1$" + b64.EncodeToString(salt) + "$" +
		b64.EncodeToString(argon2.IDKey([]byte(pw), salt, argonTime, argonMemory, argonThreads, argonKeyLen))
	if ok, err := k.VerifyPassword(ctx, legacy, pw); !ok || err != nil {
		t.Errorf("a hash of before the pepper: %v %v", ok, err)
	}
	for _, bad := range []string{"", "plain", "$argon2i$v=19$m=19456,t=2,p=1$c2FsdA$a2V5", "$argon2id$v=19$m=99999999,t=2,p=1$c2FsdHNhbHQ$" + strings.Repeat("A", 43),
		"$argon2id$v=19$m=19456,t=2,p=1,p=2$c2FsdHNhbHQ$" + strings.Repeat("A", 43), "$argon2id$v=19$m=19456,t=2,p=1,x=1$c2FsdHNhbHQ$" + strings.Repeat("A", 43)} {
		if ok, err := k.VerifyPassword(ctx, bad, pw); ok || err == nil {
			t.Errorf("hash %q verified: %v %v", bad, ok, err)
		}
	}
	for _, weak := range []string{"short", strings.Repeat("y", MaxPasswordLength+1), "bad utf8 \xff\xfe here"} {
		if _, err := k.HashPassword(ctx, weak); err == nil {
			t.Errorf("password %.20q accepted", weak)
		}
	}
}

// No more than HashSlots hashes run at once: with every slot held, a hash
// waits, and is refused with ErrBusy once HashWait has passed (or its
// context ends first).
func TestHashSlots(t *testing.T) {
	k := testKey(t, 'a')
	for range HashSlots {
		slots <- struct{}{}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if err := k.WasteTime(ctx, "a password of some length"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("with every slot held, before the wait ends: %v", err)
	}
	if _, err := k.VerifyPassword(t.Context(), "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$"+strings.Repeat("A", 43), "pw"); !errors.Is(err, ErrBusy) {
		t.Errorf("with every slot held for HashWait: %v", err)
	}
	<-slots
	if err := k.WasteTime(t.Context(), "a password of some length"); err != nil {
		t.Errorf("a slot free: %v", err)
	}
	for range HashSlots - 1 {
		<-slots
	}
}

// RFC 6238's test vectors (SHA-1, the last six of their eight digits),
// a step either side accepted and no further, and no code twice.
func TestTOTP(t *testing.T) {
	secret := []byte("12345678901234567890")
	for _, v := range []struct {
		unix int64
		code string
	}{{59, "287082"}, {1111111109, "081804"}, {1111111111, "050471"}, {1234567890, "005924"}, {2000000000, "279037"}, {20000000000, "353130"}} {
		if got := Code(secret, Step(time.Unix(v.unix, 0))); got != v.code {
			t.Errorf("at %d: %s, want %s", v.unix, got, v.code)
		}
	}
	now := time.Unix(1234567890, 0)
	code := Code(secret, Step(now))
	step, ok := VerifyTOTP(secret, code, now.Add(29*time.Second), 0)
	if !ok || step != Step(now) {
		t.Fatalf("a code of the step before: %v", ok)
	}
	if _, ok := VerifyTOTP(secret, code, now, step); ok {
		t.Fatal("a code used twice")
	}
	if _, ok := VerifyTOTP(secret, code, now.Add(61*time.Second), 0); ok {
		t.Fatal("a code two steps old")
	}
	for _, bad := range []string{"", "12345", "1234567", "abcdef"} {
		if _, ok := VerifyTOTP(secret, bad, now, 0); ok {
			t.Errorf("code %q", bad)
		}
	}
	uri := TOTPURI(secret, "kycflow acme.test", "ana@acme.test")
	if !strings.HasPrefix(uri, "otpauth://totp/kycflow%20acme.test:ana@acme.test?") || !strings.Contains(uri, "secret="+SecretText(secret)) {
		t.Fatalf("uri %s", uri)
	}
}

// Tokens are random; their hashes are keyed: the store's key under one
// STAFF_KEY and nothing under another.
func TestToken(t *testing.T) {
	k := testKey(t, 'a')
	a, ha, err := k.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	b, _, _ := k.NewToken()
	if a == b || len(a) != 43 || string(k.HashToken(a)) != string(ha) || string(k.HashToken(b)) == string(ha) {
		t.Fatalf("tokens %q %q", a, b)
	}
	if other := testKey(t, 'b').HashToken(a); string(other) == string(ha) {
		t.Fatal("another key hashes a token alike")
	}
	if sum := sha256.Sum256([]byte(a)); string(sum[:]) == string(ha) {
		t.Fatal("a token's hash is its plain SHA-256")
	}
	if g1, g2 := k.Guard("t", "a@b", "1.2.3.4"), k.Guard("t", "a@b1", ".2.3.4"); string(g1) == string(g2) {
		t.Fatal("guards of other parts alike")
	}
}

// What a sign-in's password check costs (docs/BENCHMARKS.md): one argon2id
// hash at the parameters HashPassword uses.
func BenchmarkVerifyPassword(b *testing.B) {
	k := testKey(b, 'a')
	h, err := k.HashPassword(b.Context(), "correct horse battery")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if ok, _ := k.VerifyPassword(b.Context(), h, "correct horse battery"); !ok {
			b.Fatal("no match")
		}
	}
}
