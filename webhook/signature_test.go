package webhook

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestSignVerify(t *testing.T) {
	body := []byte(`{"id":"e1","type":"check.completed"}`)
	now := time.Unix(1_800_000_000, 0)
	oldSecret, newSecret := NewSecret(), NewSecret()
	if !strings.HasPrefix(newSecret, SecretPrefix) || len(newSecret) != len(SecretPrefix)+43 || oldSecret == newSecret {
		t.Fatalf("secrets %q %q", oldSecret, newSecret)
	}
	h := Sign(now, body, []byte(newSecret), []byte(oldSecret))
	if !strings.HasPrefix(h, "t=1800000000,v1=") || strings.Count(h, ",v1=") != 2 {
		t.Fatalf("header %q", h)
	}
	// During a rotation, receivers holding either secret verify.
	for _, s := range []string{newSecret, oldSecret} {
		if err := Verify(h, body, s, now.Add(time.Minute)); err != nil {
			t.Fatalf("verify: %v", err)
		}
	}
	cases := []struct {
		name   string
		header string
		body   []byte
		secret string
		now    time.Time
		want   error
	}{
		{"other secret", h, body, NewSecret(), now, ErrBadSignature},
		{"changed body", h, []byte(`{"id":"e2","type":"check.completed"}`), newSecret, now, ErrBadSignature},
		{"replayed later", h, body, newSecret, now.Add(Tolerance + time.Second), ErrTooOld},
		{"from the future", h, body, newSecret, now.Add(-Tolerance - time.Second), ErrTooOld},
		{"no header", "", body, newSecret, now, ErrNoSignature},
		{"no v1", "t=1800000000", body, newSecret, now, ErrNoSignature},
		{"time changed", strings.Replace(h, "t=1800000000", "t=1800000001", 1), body, newSecret, now, ErrBadSignature},
	}
	for _, c := range cases {
		if err := Verify(c.header, c.body, c.secret, c.now); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// The documented recipe, by hand: HMAC-SHA256 of "<t>.<body>" under the
// whole secret string.
func TestSignatureKnownAnswer(t *testing.T) {
	got := Sign(time.Unix(1700000000, 0), []byte(`{}`), []byte("whsec_test"))
	// printf '%s' '1700000000.{}' | openssl dgst -sha256 -hmac whsec_test
	want := "t=1700000000,v1=35495024f4ef3f94e5a93e22221544c4b75e9a42300cd965ab81cb85cd994e91"
	if got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestNextAttempt(t *testing.T) {
	first := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	last := first
	var waits []time.Duration
	for n := 1; ; n++ {
		at, ok := DefaultSchedule.Next(first, last, n)
		if !ok {
			break
		}
		waits = append(waits, at.Sub(last))
		last = at
	}
	want := []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 12 * time.Hour, 12 * time.Hour, 12 * time.Hour, 12 * time.Hour}
	if len(waits) != len(want) {
		t.Fatalf("waits %v, want %v", waits, want)
	}
	for i := range want {
		if waits[i] != want[i] {
			t.Fatalf("waits %v, want %v", waits, want)
		}
	}
	if last.Sub(first) > DefaultSchedule.Window {
		t.Fatalf("last attempt %v after the first, past the window", last.Sub(first))
	}
}

func TestCipher(t *testing.T) {
	c, err := NewCipher(strings.Repeat("ab", 32))
	if err != nil {
		t.Fatal(err)
	}
	s := NewSecret()
	sealed := c.Seal(s, "endpoint-1")
	if strings.Contains(string(sealed), s[len(SecretPrefix):]) {
		t.Fatal("the secret is readable in its sealed form")
	}
	if got, err := c.Open(sealed, "endpoint-1"); err != nil || got != s {
		t.Fatalf("open: %q %v", got, err)
	}
	if _, err := c.Open(sealed, "endpoint-2"); err == nil {
		t.Fatal("a secret opened on another row")
	}
	other, _ := NewCipher(strings.Repeat("cd", 32))
	if _, err := other.Open(sealed, "endpoint-1"); err == nil {
		t.Fatal("a secret opened with another key")
	}
	for _, bad := range []string{"", "short", strings.Repeat("ab", 31)} {
		if _, err := NewCipher(bad); err == nil {
			t.Fatalf("key %q accepted", bad)
		}
	}
}
