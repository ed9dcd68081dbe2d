package signin

import (
	"strings"
	"testing"
	"time"
)

// A password verifies against its own hash only; the hash carries its
// parameters and a salt of its own; a malformed hash is an error, not a
// match; passwords outside the limits are refused.
func TestPassword(t *testing.T) {
	const pw = "correct horse battery"
	h, err := HashPassword(pw)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hash %q", h)
	}
	if again, _ := HashPassword(pw); again == h {
		t.Fatal("two hashes of one password alike: no salt")
	}
	for _, c := range []struct {
		pw   string
		want bool
	}{{pw, true}, {pw + " ", false}, {"Correct horse battery", false}, {strings.Repeat("x", 4000), false}} {
		if ok, err := VerifyPassword(h, c.pw); err != nil || ok != c.want {
			t.Errorf("verify %.20q: %v %v", c.pw, ok, err)
		}
	}
	for _, bad := range []string{"", "plain", "$argon2i$v=19$m=19456,t=2,p=1$c2FsdA$a2V5", "$argon2id$v=19$m=99999999,t=2,p=1$c2FsdHNhbHQ$" + strings.Repeat("A", 43)} {
		if ok, err := VerifyPassword(bad, pw); ok || err == nil {
			t.Errorf("hash %q verified: %v %v", bad, ok, err)
		}
	}
	for _, weak := range []string{"short", strings.Repeat("y", MaxPasswordLength+1), "bad utf8 \xff\xfe here"} {
		if _, err := HashPassword(weak); err == nil {
			t.Errorf("password %.20q accepted", weak)
		}
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

// Tokens are random and their hashes the store's key.
func TestToken(t *testing.T) {
	a, ha, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	b, _, _ := NewToken()
	if a == b || len(a) != 43 || string(HashToken(a)) != string(ha) || string(HashToken(b)) == string(ha) {
		t.Fatalf("tokens %q %q", a, b)
	}
}

// What a sign-in's password check costs (docs/BENCHMARKS.md): one argon2id
// hash at the parameters HashPassword uses.
func BenchmarkVerifyPassword(b *testing.B) {
	h, err := HashPassword("correct horse battery")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if ok, _ := VerifyPassword(h, "correct horse battery"); !ok {
			b.Fatal("no match")
		}
	}
}
