// Package sealing makes the AES-256-GCM ciphers kycflow seals secrets and
// images at rest with, from keys as configuration gives them.
package sealing

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
)

// NewGCM is an AES-256-GCM cipher under key: 32 bytes as 64 hex digits or
// base64 (standard or URL alphabet, padded or not).
func NewGCM(key string) (cipher.AEAD, error) {
	raw, err := Decode(key)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(raw)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// Decode is a configured key's 32 bytes (64 hex digits, or base64), for
// what needs the key itself besides a cipher (a keyed hash).
func Decode(key string) ([]byte, error) {
	s := strings.TrimSpace(key)
	if raw, err := hex.DecodeString(s); err == nil && len(raw) == 32 {
		return raw, nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.RawURLEncoding, base64.URLEncoding} {
		if raw, err := enc.DecodeString(s); err == nil && len(raw) == 32 {
			return raw, nil
		}
	}
	return nil, errors.New("the key must be 32 bytes: 64 hex digits or base64 (openssl rand -hex 32)")
}
