package devstack

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"

	"github.com/kycflow/kycflow/app"
)

// devImageKeyFile is where `kycflow dev` keeps the key sealing photos.
const devImageKeyFile = "image-keys"

// devImageKeys gives `kycflow dev` a key sealing idscan photos, kept in
// the data dir so photos stay readable across restarts, unless IMAGE_KEYS
// is set.
func devImageKeys(cfg *app.Config, dir string) error {
	if cfg.ImageKeys != "" {
		return nil
	}
	file := filepath.Join(dir, devImageKeyFile)
	if b, err := os.ReadFile(file); err == nil {
		cfg.ImageKeys = strings.TrimSpace(string(b))
		return nil
	}
	k := make([]byte, 32)
	rand.Read(k)
	cfg.ImageKeys = "dev1:" + hex.EncodeToString(k)
	return os.WriteFile(file, []byte(cfg.ImageKeys+"\n"), 0o600)
}
