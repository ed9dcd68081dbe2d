package sealing

import (
	"encoding/base64"
	"strings"
	"testing"
)

// A key is taken as hex or base64 of 32 bytes, and nothing else.
func TestNewGCM(t *testing.T) {
	raw := []byte(strings.Repeat("k", 32))
	for _, key := range []string{strings.Repeat("6b", 32), base64.StdEncoding.EncodeToString(raw),
		base64.RawURLEncoding.EncodeToString(raw), " " + strings.Repeat("6b", 32) + "\n"} {
		if _, err := NewGCM(key); err != nil {
			t.Errorf("%q: %v", key, err)
		}
	}
	for _, key := range []string{"", strings.Repeat("6b", 31), base64.StdEncoding.EncodeToString(raw[:16]), "not a key"} {
		if _, err := NewGCM(key); err == nil {
			t.Errorf("%q taken as a key", key)
		}
	}
}
