package signin

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
)

// NewToken is a random token for an invitation link or a session cookie
// (256 bits, URL-safe), and the hash the store keeps of it: a leaked
// table opens no session.
func NewToken() (token string, hash []byte, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", nil, err
	}
	token = base64.RawURLEncoding.EncodeToString(b)
	return token, HashToken(token), nil
}

// HashToken is the hash of a token as the store keeps it.
func HashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}
