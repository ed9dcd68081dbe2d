package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/app"
	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/devstack"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/webhook"
)

// webhookCmd is `webhook create|list|delete|rotate-secret|deliveries|
// redeliver`: a tenant's webhook endpoints, as the operator manages them
// (the tenant's own way is the API).
func webhookCmd(sub string) func(*flag.FlagSet) runFunc {
	return func(fs *flag.FlagSet) runFunc {
		tenant := fs.String("tenant", "", "tenant id")
		var url, desc, endpoint *string
		var events hostList
		switch sub {
		case "create":
			url = fs.String("url", "", "endpoint URL")
			desc = fs.String("description", "", "what the endpoint is for")
			fs.Var(&events, "event", "event type, check.* or * (repeatable; default *)")
		case "redeliver":
			endpoint = fs.String("endpoint", "", "endpoint id: deliver to this one only (default: every endpoint taking the event)")
		}
		return func(ctx context.Context, cfg app.Config, args []string) error {
			tid, err := uuid.Parse(*tenant)
			if err != nil {
				return fmt.Errorf("--tenant must be a tenant id (see kycflow tenant list)")
			}
			return withAdmin(ctx, cfg, func(s *store.Store) error {
				return manageWebhooks(ctx, cfg, s, sub, tid, args, url, desc, endpoint, events)
			})
		}
	}
}

func manageWebhooks(ctx context.Context, cfg app.Config, s *store.Store, sub string, tid uuid.UUID, args []string, url, desc, endpoint *string, events hostList) error {
	arg := func(what string) (uuid.UUID, error) {
		if len(args) != 1 {
			return uuid.Nil, fmt.Errorf("webhook %s needs the %s id", sub, what)
		}
		return uuid.Parse(args[0])
	}
	devstack.UseDevKey(&cfg, cfg.DataDir)
	hooks, err := cfg.Webhooks()
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	defer w.Flush()
	switch sub {
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
	}
	return nil
}
