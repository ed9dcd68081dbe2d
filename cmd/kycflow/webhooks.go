package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/api"
	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/webhook"
	"github.com/kycflow/kycflow/webhook/catcher"
)

// webhooks is the webhook configuration every process shares: the cipher
// (nil without WEBHOOK_SECRET_KEY) and the guard.
func (c config) webhooks() (api.Webhooks, error) {
	w := api.Webhooks{Guard: &webhook.Guard{Allow: c.WebhookAllow}, AllowHTTP: c.WebhookAllowHTTP}
	if c.WebhookKey == "" {
		return w, nil
	}
	ci, err := webhook.NewCipher(c.WebhookKey)
	if err != nil {
		return w, fmt.Errorf("WEBHOOK_SECRET_KEY: %w", err)
	}
	w.Cipher = ci
	return w, nil
}

// devKeyFile is where `kycflow dev` keeps its sealing key.
const devKeyFile = "webhook-secret-key"

// devWebhooks gives `kycflow dev` a sealing key kept in the data dir and
// lets deliveries reach loopback (the catcher, a developer's receiver),
// unless the environment says otherwise.
func devWebhooks(cfg *config, dir string) error {
	if _, set := lookupSet("WEBHOOK_ALLOW_NETS"); !set {
		cfg.WebhookAllow = loopbackNets
	}
	if cfg.WebhookKey != "" || useDevKey(cfg, dir) {
		return nil
	}
	file := filepath.Join(dir, devKeyFile)
	k := make([]byte, 32)
	rand.Read(k)
	cfg.WebhookKey = hex.EncodeToString(k)
	return os.WriteFile(file, []byte(cfg.WebhookKey+"\n"), 0o600)
}

// useDevKey, without WEBHOOK_SECRET_KEY, takes the key `kycflow dev` keeps
// in dir (so `kycflow webhook` works against `make run` as is) and, as dev
// does, lets deliveries reach loopback unless WEBHOOK_ALLOW_NETS says.
func useDevKey(cfg *config, dir string) bool {
	if cfg.WebhookKey != "" {
		return false
	}
	b, err := os.ReadFile(filepath.Join(dir, devKeyFile))
	if err != nil {
		return false
	}
	cfg.WebhookKey = strings.TrimSpace(string(b))
	if _, set := lookupSet("WEBHOOK_ALLOW_NETS"); !set {
		cfg.WebhookAllow = loopbackNets
	}
	return true
}

// loopbackNets are what `kycflow dev` lets deliveries reach.
var loopbackNets = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// runWebhook manages a tenant's webhook endpoints as the operator (the
// tenant's own way is the API).
func runWebhook(ctx context.Context, cfg config, args []string) error {
	if len(args) == 0 {
		return errUsage
	}
	fs := flag.NewFlagSet("webhook "+args[0], flag.ContinueOnError)
	tenant := fs.String("tenant", "", "tenant id")
	url := fs.String("url", "", "endpoint URL")
	desc := fs.String("description", "", "what the endpoint is for")
	endpoint := fs.String("endpoint", "", "endpoint id (redeliver: only to this one)")
	var events hostList
	fs.Var(&events, "event", "event type, check.* or * (repeatable; default *)")
	if err := fs.Parse(args[1:]); err != nil {
		return errUsage
	}
	tid, err := uuid.Parse(*tenant)
	if err != nil {
		return fmt.Errorf("--tenant must be a tenant id (see kycflow tenant list)")
	}
	arg := func(what string) (uuid.UUID, error) {
		if fs.NArg() != 1 {
			return uuid.Nil, fmt.Errorf("webhook %s needs the %s id", args[0], what)
		}
		return uuid.Parse(fs.Arg(0))
	}
	useDevKey(&cfg, cfg.DataDir)
	hooks, err := cfg.webhooks()
	if err != nil {
		return err
	}
	s, err := store.Open(ctx, cfg.DatabaseAdminURL, 2)
	if err != nil {
		return err
	}
	defer s.Close()
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	defer w.Flush()
	switch args[0] {
	case "create":
		if hooks.Cipher == nil {
			return errors.New("set WEBHOOK_SECRET_KEY (the key the api and worker use) to create endpoints")
		}
		sandbox, err := s.IsSandbox(ctx, tid)
		if err != nil {
			return fmt.Errorf("tenant %s: %w", tid, err)
		}
		if err := hooks.Guard.ForTenant(sandbox).CheckURL(ctx, *url, sandbox || hooks.AllowHTTP); err != nil {
			return fmt.Errorf("--url %s", err)
		}
		names, bad := check.EventNames(events)
		if bad >= 0 {
			return fmt.Errorf("--event %q is not an event type", events[bad])
		}
		secret := webhook.NewSecret()
		e := store.Endpoint{ID: store.NewID(), TenantID: tid, URL: *url, Events: names}
		if *desc != "" {
			e.Description = desc
		}
		e.Secret = hooks.Cipher.Seal(secret, e.ID.String())
		if _, err := s.CreateEndpoint(ctx, e); err != nil {
			return err
		}
		fmt.Printf("endpoint %s → %s (events %s)\nsigning secret (shown once):\n%s\n", e.ID, e.URL, strings.Join(names, ", "), secret)
	case "list":
		p, err := s.ListEndpoints(ctx, tid, store.PageQuery{Limit: webhook.MaxEndpoints})
		if err != nil {
			return err
		}
		fmt.Fprintln(w, "ID\tURL\tEVENTS\tSTATUS\tCREATED")
		for _, e := range p.Items {
			status := "enabled"
			if e.DisabledAt != nil {
				status = "disabled (" + *e.DisabledReason + ")"
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", e.ID, e.URL, strings.Join(e.Events, ","), status, e.CreatedAt.Format("2006-01-02 15:04"))
		}
	case "delete":
		id, err := arg("endpoint")
		if err != nil {
			return err
		}
		if err := s.DeleteEndpoint(ctx, tid, id); err != nil {
			return fmt.Errorf("endpoint %s: %w", id, err)
		}
		fmt.Println("deleted")
	case "rotate-secret":
		if hooks.Cipher == nil {
			return errors.New("set WEBHOOK_SECRET_KEY (the key the api and worker use) to rotate secrets")
		}
		id, err := arg("endpoint")
		if err != nil {
			return err
		}
		secret := webhook.NewSecret()
		e, err := s.RotateSecret(ctx, tid, id, hooks.Cipher.Seal(secret, id.String()))
		if err != nil {
			return fmt.Errorf("endpoint %s: %w", id, err)
		}
		fmt.Printf("new signing secret (shown once); the old one signs too until %s:\n%s\n", e.PreviousExpiresAt.Format("2006-01-02 15:04 MST"), secret)
	case "deliveries":
		id, err := arg("endpoint")
		if err != nil {
			return err
		}
		p, err := s.ListDeliveries(ctx, tid, id, store.PageQuery{Limit: 100})
		if err != nil {
			return fmt.Errorf("endpoint %s: %w", id, err)
		}
		fmt.Fprintln(w, "DELIVERY\tEVENT\tTYPE\tSTATUS\tATTEMPTS\tLAST")
		for _, d := range p.Items {
			last := "-"
			if n := len(d.Tries); n > 0 {
				t := d.Tries[n-1]
				last = t.At.Format("2006-01-02 15:04:05")
				if t.StatusCode != nil {
					last += fmt.Sprintf(" %d", *t.StatusCode)
				}
				if t.Error != nil {
					last += " " + *t.Error
				}
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%s\n", d.ID, d.EventID, d.EventType, d.Status, d.Attempts, last)
		}
	case "redeliver":
		id, err := arg("event")
		if err != nil {
			return err
		}
		var only *uuid.UUID
		if *endpoint != "" {
			eid, err := uuid.Parse(*endpoint)
			if err != nil {
				return fmt.Errorf("--endpoint must be an endpoint id")
			}
			only = &eid
		}
		ds, err := s.Redeliver(ctx, tid, id, only)
		if errors.Is(err, store.ErrConflict) {
			return fmt.Errorf("event %s: no enabled endpoint takes it", id)
		}
		if err != nil {
			return fmt.Errorf("event %s: %w", id, err)
		}
		for _, d := range ds {
			fmt.Printf("redelivery %s to endpoint %s queued\n", d.ID, d.EndpointID)
		}
	default:
		return errUsage
	}
	return nil
}

// webhookCatcher serves `kycflow dev`'s webhook catcher and registers it,
// once, as an endpoint of the demo tenant for every event; the signing
// secret is kept in the data dir so the catcher verifies across restarts.
// It returns the line dev prints.
func (sb *sandboxes) webhookCatcher(ctx context.Context, cfg config, adminDSN, dir string) (string, error) {
	c := catcher.New()
	base, err := sb.serve("webhook catcher", cfg.DevWebhookAddr, c.Handler())
	if err != nil {
		return "", err
	}
	hooks, err := cfg.webhooks()
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
