// Package documents holds what kycflow does with photos of identity
// documents outside reading them (engines/mrzread): the keys that seal
// them at rest, and taking an upload in — checked, its metadata stripped,
// sealed for the store.
package documents

import (
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"

	"github.com/kycflow/kycflow/sealing"
)

// Keys seal images at rest with AES-256-GCM. Each sealed image names its
// key, so keys can rotate: new images are sealed with the first key, and
// every listed key opens what it sealed. A key is retired by listing it
// last until every image it sealed is past its retention.
type Keys struct {
	ids   []string
	aeads map[string]cipher.AEAD
}

// ParseKeys reads IMAGE_KEYS: comma-separated ID:KEY pairs, the key 32
// bytes as 64 hex digits or base64, the first pair sealing.
func ParseKeys(spec string) (*Keys, error) {
	k := &Keys{aeads: map[string]cipher.AEAD{}}
	for part := range strings.SplitSeq(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		id, key, ok := strings.Cut(part, ":")
		if !ok || id == "" || len(id) > 32 || strings.ContainsAny(id, " \t") {
			return nil, errors.New("want ID:KEY pairs, comma-separated (an ID of up to 32 characters)")
		}
		if _, dup := k.aeads[id]; dup {
			return nil, fmt.Errorf("key id %q is listed twice", id)
		}
		aead, err := sealing.NewGCM(key)
		if err != nil {
			return nil, fmt.Errorf("key %q: %w", id, err)
		}
		k.ids = append(k.ids, id)
		k.aeads[id] = aead
	}
	if len(k.ids) == 0 {
		return nil, errors.New("no key")
	}
	return k, nil
}

// Seal encrypts plain with the sealing key; context binds it to its row
// (tenant, check and the image's hash), so a sealed image copied onto
// another check's row does not open.
func (k *Keys) Seal(plain []byte, context string) (keyID string, sealed []byte) {
	id := k.ids[0]
	aead := k.aeads[id]
	nonce := make([]byte, aead.NonceSize())
	rand.Read(nonce)
	return id, aead.Seal(nonce, nonce, plain, []byte(context))
}

// ErrNoKey: an image sealed with a key that is not (or no longer) listed.
var ErrNoKey = errors.New("documents: the image's key is not in IMAGE_KEYS")

// Open decrypts what Seal made with the same key and context.
func (k *Keys) Open(keyID string, sealed []byte, context string) ([]byte, error) {
	aead, ok := k.aeads[keyID]
	if !ok {
		return nil, fmt.Errorf("%w (key id %q)", ErrNoKey, keyID)
	}
	n := aead.NonceSize()
	if len(sealed) < n {
		return nil, errors.New("documents: sealed image too short")
	}
	plain, err := aead.Open(nil, sealed[:n], sealed[n:], []byte(context))
	if err != nil {
		return nil, fmt.Errorf("documents: image %q does not open: %w", keyID, err)
	}
	return plain, nil
}
