package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/app"
	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/devstack"
	"github.com/kycflow/kycflow/sealing"
	"github.com/kycflow/kycflow/signin"
	"github.com/kycflow/kycflow/store"
)

// staffCmd is `staff create|list|disable|invite`: the console's accounts
// (docs/CONSOLE.md).
func staffCmd(sub string) func(*flag.FlagSet) runFunc {
	return func(fs *flag.FlagSet) runFunc {
		tenant := fs.String("tenant", "", "tenant id")
		email := fs.String("email", "", "the staff member's email address")
		role := fs.String("role", "", "viewer, reviewer, support or admin")
		return func(ctx context.Context, cfg app.Config, args []string) error {
			tid, err := uuid.Parse(*tenant)
			if err != nil || len(args) > 0 {
				return errors.New("staff " + sub + " needs --tenant ID (see kycflow tenant list)")
			}
			var addr string
			if sub != "list" {
				if addr, err = check.StaffEmail(*email); err != nil {
					return fmt.Errorf("staff %s needs --email ADDRESS: %q is %w", sub, *email, err)
				}
			}
			r := check.Role(*role)
			if sub == "create" && !r.Valid() {
				return fmt.Errorf("staff create needs --role viewer, reviewer, support or admin, not %q", *role)
			}
			return withAdmin(ctx, cfg, func(s *store.Store) error {
				switch sub {
				case "list":
					return listStaff(ctx, s, tid)
				case "disable":
					st, err := s.DisableStaff(ctx, tid, addr)
					if errors.Is(err, store.ErrNotFound) {
						return fmt.Errorf("tenant %s has no staff member %s", tid, addr)
					}
					if err == nil {
						fmt.Printf("staff %s (%s) disabled: signed out everywhere, invitations void\n", st.Email, st.ID)
					}
					return err
				}
				key, err := staffKey(cfg)
				if err != nil {
					return fmt.Errorf("staff %s: %w", sub, err)
				}
				token, hash, err := key.NewToken()
				if err != nil {
					return err
				}
				var st store.Staff
				if sub == "create" {
					st, err = s.CreateStaff(ctx, tid, addr, r, hash)
				} else {
					st, err = s.Reinvite(ctx, tid, addr, hash)
				}
				if err != nil {
					return err
				}
				link, err := invitationLink(ctx, s, cfg.PublicURL, tid, token)
				if err != nil {
					return err
				}
				fmt.Printf("staff %s (%s, %s) invited; the link, single-use, good for %s (shown once):\n%s\n", st.Email, st.ID, st.Role, store.InvitationTTL, link)
				return nil
			})
		}
	}
}

// staffKey is STAFF_KEY, the api's: an invitation's hash is keyed with it
// (the console looks invitations up by it). Unset, the key `kycflow dev`
// keeps in KYCFLOW_DATA_DIR, if there is one.
func staffKey(cfg app.Config) (*signin.Key, error) {
	key := cfg.StaffKey
	if key == "" {
		if b, err := os.ReadFile(filepath.Join(cfg.DataDir, devstack.StaffKeyFile)); err == nil {
			key = strings.TrimSpace(string(b))
		}
	}
	if key == "" {
		return nil, errors.New("STAFF_KEY is needed: the api's, which keys the invitation's hash (make cluster: STAFF_KEY=$(cat .data/cluster/staff-key))")
	}
	raw, err := sealing.Decode(key)
	if err != nil {
		return nil, fmt.Errorf("STAFF_KEY: %w", err)
	}
	return signin.NewKey(raw)
}

func listStaff(ctx context.Context, s *store.Store, tid uuid.UUID) error {
	list, err := s.ListStaff(ctx, tid)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "EMAIL\tROLE\tSTATUS\tID\tCREATED")
	for _, st := range list {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", st.Email, st.Role, st.Status, st.ID, st.CreatedAt.Format("2006-01-02 15:04"))
	}
	return w.Flush()
}

// invitationLink is the console's invitation page on the tenant's own
// host (the console knows its tenant by the host), with PUBLIC_URL's
// scheme and port.
func invitationLink(ctx context.Context, s *store.Store, publicURL string, tid uuid.UUID, token string) (string, error) {
	ts, err := s.Tenants(ctx)
	if err != nil {
		return "", err
	}
	base, err := url.Parse(publicURL)
	if err != nil {
		return "", fmt.Errorf("PUBLIC_URL: %w", err)
	}
	for _, t := range ts {
		if t.ID != tid {
			continue
		}
		if len(t.Hosts) == 0 {
			return "", fmt.Errorf("tenant %s has no host", tid)
		}
		host := t.Hosts[0]
		if port := base.Port(); port != "" {
			host += ":" + port
		}
		return (&url.URL{Scheme: base.Scheme, Host: host, Path: "/console/invite/" + token}).String(), nil
	}
	return "", fmt.Errorf("no tenant %s (see kycflow tenant list)", tid)
}
