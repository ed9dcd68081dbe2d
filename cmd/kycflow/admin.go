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

	"github.com/kycflow/kycflow/store"
)

// Admin commands connect as the owner (DATABASE_ADMIN_URL): creating tenants
// and finding a check's tenant are above any one tenant.

type hostList []string

func (h *hostList) String() string     { return strings.Join(*h, ",") }
func (h *hostList) Set(v string) error { *h = append(*h, v); return nil }

func runTenant(ctx context.Context, cfg config, args []string) error {
	if len(args) == 0 {
		return errUsage
	}
	s, err := store.Open(ctx, cfg.DatabaseAdminURL, 2)
	if err != nil {
		return err
	}
	defer s.Close()
	switch args[0] {
	case "create":
		fs := flag.NewFlagSet("tenant create", flag.ContinueOnError)
		name := fs.String("name", "", "tenant name")
		sandbox := fs.Bool("sandbox", false, "sandbox tenant (kyc_test_ keys)")
		linkTTL := fs.Duration("link-ttl", 0, "how long verification links stay valid (default 168h)")
		var hosts hostList
		fs.Var(&hosts, "host", "hostname the tenant's API is reached at (repeatable)")
		if err := fs.Parse(args[1:]); err != nil {
			return errUsage
		}
		if *name == "" || len(hosts) == 0 {
			return fmt.Errorf("tenant create needs --name and at least one --host")
		}
		t, key, err := s.CreateTenant(ctx, *name, hosts, *sandbox)
		if err != nil {
			return err
		}
		if *linkTTL != 0 {
			if err := s.SetLinkTTL(ctx, t.ID, *linkTTL); err != nil {
				return err
			}
		}
		fmt.Printf("tenant %s (%s) hosts %s\n", t.ID, t.Name, strings.Join(t.Hosts, ", "))
		fmt.Println("API key (shown once):")
		fmt.Println(key)
		return nil
	case "update":
		fs := flag.NewFlagSet("tenant update", flag.ContinueOnError)
		id := fs.String("tenant", "", "tenant id")
		linkTTL := fs.Duration("link-ttl", 0, "how long new verification links stay valid, e.g. 72h")
		threshold := fs.Float64("aml-threshold", 0, "watchlist score from which a hit alerts (awaits review), e.g. 0.85")
		hard := fs.String("aml-hard-conflict", "", "on: drop watchlist hits whose birth date or nationality contradicts the customer's (verified data); off: only score them lower (default)")
		window := fs.Duration("aml-review-window", 0, "how long an aml check awaits its review before it expires, e.g. 720h (default 30 days)")
		lists := fs.String("aml-lists", "", "the watchlists the tenant screens against, comma-separated (see kycflow watchlist list), or all (the default)")
		if err := fs.Parse(args[1:]); err != nil {
			return errUsage
		}
		tid, err := uuid.Parse(*id)
		if err != nil || (*linkTTL == 0 && *threshold == 0 && *hard == "" && *window == 0 && *lists == "") {
			return fmt.Errorf("tenant update needs --tenant ID and --link-ttl DURATION, --aml-threshold SCORE, --aml-hard-conflict on|off, --aml-review-window DURATION and/or --aml-lists NAMES|all")
		}
		if *hard != "" && *hard != "on" && *hard != "off" {
			return fmt.Errorf("--aml-hard-conflict %q: want on or off", *hard)
		}
		if *linkTTL != 0 {
			if err := s.SetLinkTTL(ctx, tid, *linkTTL); err != nil {
				return fmt.Errorf("tenant %s: %w", tid, err)
			}
			fmt.Printf("tenant %s: new verification links are valid for %s\n", tid, *linkTTL)
		}
		if *threshold != 0 {
			if err := s.SetAMLThreshold(ctx, tid, *threshold); err != nil {
				return fmt.Errorf("tenant %s: %w", tid, err)
			}
			fmt.Printf("tenant %s: watchlist hits from %.2f alert\n", tid, *threshold)
		}
		if *lists != "" {
			var names []string // nil: all
			if *lists != "all" {
				names = []string{}
				for _, n := range strings.Split(*lists, ",") {
					if n = strings.TrimSpace(n); n != "" {
						names = append(names, n)
					}
				}
			}
			if err := s.SetAMLLists(ctx, tid, names); err != nil {
				return fmt.Errorf("tenant %s: %w", tid, err)
			}
			if names == nil {
				fmt.Printf("tenant %s: screens against every watchlist\n", tid)
			} else {
				fmt.Printf("tenant %s: screens against %s only\n", tid, strings.Join(names, ", "))
			}
		}
		if *window != 0 {
			if err := s.SetAMLReviewWindow(ctx, tid, *window); err != nil {
				return fmt.Errorf("tenant %s: %w", tid, err)
			}
			fmt.Printf("tenant %s: new aml checks await review for %s, then expire\n", tid, *window)
		}
		if *hard != "" {
			if err := s.SetAMLHardConflict(ctx, tid, *hard == "on"); err != nil {
				return fmt.Errorf("tenant %s: %w", tid, err)
			}
			if *hard == "on" {
				fmt.Printf("tenant %s: watchlist hits contradicted by birth date or nationality are dropped\n", tid)
			} else {
				fmt.Printf("tenant %s: watchlist hits contradicted by birth date or nationality score lower\n", tid)
			}
		}
		return nil
	case "list":
		ts, err := s.Tenants(ctx)
		if err != nil {
			return err
		}
		w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "ID\tNAME\tSANDBOX\tHOSTS\tCREATED")
		for _, t := range ts {
			fmt.Fprintf(w, "%s\t%s\t%v\t%s\t%s\n", t.ID, t.Name, t.Sandbox, strings.Join(t.Hosts, ","), t.CreatedAt.Format("2006-01-02 15:04"))
		}
		return w.Flush()
	case "key":
		return runTenantKey(ctx, s, args[1:])
	}
	return errUsage
}

func runTenantKey(ctx context.Context, s *store.Store, args []string) error {
	if len(args) == 0 {
		return errUsage
	}
	fs := flag.NewFlagSet("tenant key", flag.ContinueOnError)
	tenant := fs.String("tenant", "", "tenant id")
	if err := fs.Parse(args[1:]); err != nil {
		return errUsage
	}
	id, err := uuid.Parse(*tenant)
	if err != nil {
		return fmt.Errorf("--tenant must be a tenant id (see kycflow tenant list)")
	}
	switch args[0] {
	case "create":
		key, keyID, err := s.CreateKey(ctx, id)
		if err != nil {
			return err
		}
		fmt.Printf("key %s created (shown once):\n%s\n", keyID, key)
		return nil
	case "revoke":
		if fs.NArg() != 1 {
			return fmt.Errorf("tenant key revoke needs the key id or its prefix (kyc_live_xxxx)")
		}
		if err := s.RevokeKey(ctx, id, fs.Arg(0)); err != nil {
			return err
		}
		fmt.Println("revoked")
		return nil
	case "list":
		ks, err := s.Keys(ctx, id)
		if err != nil {
			return err
		}
		w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "ID\tPREFIX\tCREATED\tLAST USED\tREVOKED")
		for _, k := range ks {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", k.ID, k.Prefix, k.CreatedAt.Format("2006-01-02 15:04"), fmtTime(k.LastUsedAt), fmtTime(k.RevokedAt))
		}
		return w.Flush()
	}
	return errUsage
}

func runCheck(ctx context.Context, cfg config, args []string) error {
	if len(args) < 2 || (args[0] != "retry" && args[0] != "review") || (args[0] == "retry" && len(args) != 2) {
		return errUsage
	}
	id, err := uuid.Parse(strings.TrimPrefix(args[1], "check-"))
	if err != nil {
		return fmt.Errorf("%q is not a check id (the workflow id check-<uuid> works too)", args[1])
	}
	s, err := store.Open(ctx, cfg.DatabaseAdminURL, 2)
	if err != nil {
		return err
	}
	defer s.Close()
	tenant, err := s.CheckTenant(ctx, id)
	if err != nil {
		return fmt.Errorf("check %s: %w", id, err)
	}
	if args[0] == "review" {
		return runReview(ctx, cfg, s, tenant, id, args[2:])
	}
	chk, err := s.RequestRetry(ctx, tenant, id)
	if errors.Is(err, store.ErrConflict) {
		return fmt.Errorf("check %s is %s: only a failed check can be retried", id, chk.Status)
	}
	if err != nil {
		return fmt.Errorf("check %s: %w", id, err)
	}
	fmt.Printf("retry of check %s queued; the worker resumes it\n", id)
	return nil
}
