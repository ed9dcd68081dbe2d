package devstack

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"

	"github.com/kycflow/kycflow/app"
)

// Where `kycflow dev` keeps the keys sealing photos and the console's
// second factors (StaffKeyFile: `kycflow staff` reads it too).
const (
	devImageKeyFile = "image-keys"
	StaffKeyFile    = "staff-key"
)

// devImageKeys gives `kycflow dev` a key sealing idscan photos, kept in
// the data dir so photos stay readable across restarts, unless IMAGE_KEYS
// is set.
func devImageKeys(cfg *app.Config, dir string) error {
	return devKey(&cfg.ImageKeys, filepath.Join(dir, devImageKeyFile), "dev1:")
}

// devStaffKey gives `kycflow dev` a key sealing the console's second
// factors, kept in the data dir so staff can sign in across restarts,
// unless STAFF_KEY is set.
func devStaffKey(cfg *app.Config, dir string) error {
	return devKey(&cfg.StaffKey, filepath.Join(dir, StaffKeyFile), "")
}

// devKey sets *key, unless set, to the key kept in file, or to a new
// random one (32 bytes in hex after prefix) kept there.
func devKey(key *string, file, prefix string) error {
	if *key != "" {
		return nil
	}
	if b, err := os.ReadFile(file); err == nil {
		*key = strings.TrimSpace(string(b))
		return nil
	}
	k := make([]byte, 32)
	rand.Read(k)
	*key = prefix + hex.EncodeToString(k)
	return os.WriteFile(file, []byte(*key+"\n"), 0o600)
}
