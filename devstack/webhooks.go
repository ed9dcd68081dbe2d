package devstack

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/app"
	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/webhook"
	"github.com/kycflow/kycflow/webhook/catcher"
)

// devKeyFile is where `kycflow dev` keeps its sealing key.
const devKeyFile = "webhook-secret-key"

// devWebhooks gives `kycflow dev` a sealing key kept in the data dir and
// lets deliveries reach loopback (the catcher, a developer's receiver),
// unless the environment says otherwise.
func devWebhooks(cfg *app.Config, dir string) error {
	if !cfg.WebhookAllowSet {
		cfg.WebhookAllow = loopbackNets
	}
	if cfg.WebhookKey != "" || UseDevKey(cfg, dir) {
		return nil
	}
	file := filepath.Join(dir, devKeyFile)
	k := make([]byte, 32)
	rand.Read(k)
	cfg.WebhookKey = hex.EncodeToString(k)
	return os.WriteFile(file, []byte(cfg.WebhookKey+"\n"), 0o600)
}

// UseDevKey, without WEBHOOK_SECRET_KEY, takes the key `kycflow dev` keeps
// in dir (so `kycflow webhook` works against `make run` as is) and, as dev
// does, lets deliveries reach loopback unless WEBHOOK_ALLOW_NETS says.
func UseDevKey(cfg *app.Config, dir string) bool {
	if cfg.WebhookKey != "" {
		return false
	}
	b, err := os.ReadFile(filepath.Join(dir, devKeyFile))
	if err != nil {
		return false
	}
	cfg.WebhookKey = strings.TrimSpace(string(b))
	if !cfg.WebhookAllowSet {
		cfg.WebhookAllow = loopbackNets
	}
	return true
}

// loopbackNets are what `kycflow dev` lets deliveries reach.
var loopbackNets = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// webhookCatcher serves `kycflow dev`'s webhook catcher and registers it,
// once, as an endpoint of the demo tenant for every event; the signing
// secret is kept in the data dir so the catcher verifies across restarts.
// It returns the line dev prints.
func (sb *sandboxes) webhookCatcher(ctx context.Context, cfg app.Config, adminDSN, dir string) (string, error) {
	c := catcher.New()
	base, err := sb.serve("webhook catcher", cfg.DevWebhookAddr, c.Handler())
	if err != nil {
		return "", err
	}
	hooks, err := cfg.Webhooks()
	if err != nil {
		return "", err
	}
	s, err := store.Open(ctx, adminDSN, 2)
	if err != nil {
		return "", err
	}
	defer s.Close()
	tenant, err := s.TenantByHost(ctx, "localhost")
	if err != nil {
		return "", err
	}
	url := base + "/hooks/demo"
	file := filepath.Join(dir, "demo-webhook")
	var secret string
	if b, err := os.ReadFile(file); err == nil {
		if id, sec, ok := strings.Cut(strings.TrimSpace(string(b)), " "); ok {
			if eid, err := uuid.Parse(id); err == nil {
				if e, err := s.GetEndpoint(ctx, tenant, eid); err == nil && e.URL == url {
					secret = sec
				}
			}
		}
	}
	if secret == "" {
		secret = webhook.NewSecret()
		desc := "kycflow dev's webhook catcher"
		e := store.Endpoint{ID: store.NewID(), TenantID: tenant, URL: url, Events: []string{check.AllEvents}, Description: &desc}
		e.Secret = hooks.Cipher.Seal(secret, e.ID.String())
		if _, err := s.CreateEndpoint(ctx, e); err != nil {
			return "", fmt.Errorf("register the demo webhook endpoint: %w", err)
		}
		if err := os.WriteFile(file, []byte(e.ID.String()+" "+secret+"\n"), 0o600); err != nil {
			return "", err
		}
	}
	c.AddSecret("demo endpoint", secret)
	return fmt.Sprintf("%s   (every event of the demo tenant, signature checked; secret %s)", base, secret), nil
}
