package webhook

import (
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/kycflow/kycflow/sealing"
)

// SecretPrefix starts every signing secret.
const SecretPrefix = "whsec_"

// NewSecret returns a fresh signing secret: whsec_ and 32 random bytes.
// The whole string is the HMAC key.
func NewSecret() string {
	b := make([]byte, 32)
	rand.Read(b)
	return SecretPrefix + base64.RawURLEncoding.EncodeToString(b)
}

// Cipher encrypts signing secrets at rest (AES-256-GCM). Signing needs the
// secret itself, so it cannot be stored hashed; a database copy without
// the key reveals none.
type Cipher struct{ aead cipher.AEAD }

// NewCipher takes the key as 64 hex digits or 32 base64 bytes.
func NewCipher(key string) (*Cipher, error) {
	aead, err := sealing.NewGCM(key)
	if err != nil {
		return nil, err
	}
	return &Cipher{aead: aead}, nil
}

// Seal encrypts a secret; context binds it to its row (the endpoint id),
// so a sealed secret copied onto another row does not open.
func (c *Cipher) Seal(secret, context string) []byte {
	nonce := make([]byte, c.aead.NonceSize())
	rand.Read(nonce)
	return c.aead.Seal(nonce, nonce, []byte(secret), []byte(context))
}

// Open decrypts what Seal made with the same context.
func (c *Cipher) Open(sealed []byte, context string) (string, error) {
	n := c.aead.NonceSize()
	if len(sealed) < n {
		return "", errors.New("webhook: sealed secret too short")
	}
	plain, err := c.aead.Open(nil, sealed[:n], sealed[n:], []byte(context))
	if err != nil {
		return "", fmt.Errorf("webhook: the secret does not open with this key (WEBHOOK_SECRET_KEY changed?): %w", err)
	}
	return string(plain), nil
}
