package signin

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
)

// Key is STAFF_KEY as the console's hashes use it: the hashes of session
// and invitation tokens, the lock-out's keys and the passwords' pepper are
// keyed with it, so that no one who can only read or write the database
// (SQL as the api's role, a stolen backup) can compute a token's hash, and
// so forge a session or an invitation, or test a password guess offline.
type Key struct {
	raw []byte
	id  string
}

// NewKey is the keyed hashing of a 32-byte key.
func NewKey(raw []byte) (*Key, error) {
	if len(raw) != 32 {
		return nil, errors.New("signin: the key must be 32 bytes")
	}
	sum := sha256.Sum256(raw)
	return &Key{raw: append([]byte(nil), raw...), id: "k" + hex.EncodeToString(sum[:4])}, nil
}

// ID names the key (a hash of it, never the key): what a password hash or
// a sealed secret says it was made under.
func (k *Key) ID() string { return k.id }

// mac is HMAC-SHA-256 under the key of a purpose and its parts, each part
// length-prefixed so that no two inputs run together alike.
func (k *Key) mac(purpose string, parts ...[]byte) []byte {
	m := hmac.New(sha256.New, k.raw)
	m.Write([]byte("kycflow console " + purpose + "\x00"))
	for _, p := range parts {
		m.Write(binary.BigEndian.AppendUint32(nil, uint32(len(p))))
		m.Write(p)
	}
	return m.Sum(nil)
}

// NewToken is a random token for an invitation link or a session cookie
// (256 bits, URL-safe), and the hash the store keeps of it.
func (k *Key) NewToken() (token string, hash []byte, err error) {
	token, err = RandomToken()
	if err != nil {
		return "", nil, err
	}
	return token, k.HashToken(token), nil
}

// HashToken is the hash of a token as the store keeps it.
func (k *Key) HashToken(token string) []byte { return k.mac("token", []byte(token)) }

// Guard is the key of the lock-out that counts wrong sign-ins for an
// address from one client: per address and client, so that a stranger
// who locks themselves out of someone's address locks only themselves
// (the address need not have an account: every address is counted alike).
func (k *Key) Guard(tenant, email, client string) []byte {
	return k.mac("guard", []byte(tenant), []byte(email), []byte(client))
}

// RandomToken is 256 random bits, base64url: a form's CSRF token, a
// session's; and, hashed, a session cookie or an invitation link.
func RandomToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// InvitationSecret is the second-factor secret an invitation offers: a
// keyed hash of its token's hash, so that the invitation page and the
// form's answer agree on it without keeping it anywhere before it is
// accepted, and no one without the key computes it from the database.
func (k *Key) InvitationSecret(tokenHash []byte) []byte {
	return k.mac("invitation totp", tokenHash)[:secretLen]
}
