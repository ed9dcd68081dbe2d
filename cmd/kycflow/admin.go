package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/app"
	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
)

// Admin commands connect as the owner (DATABASE_ADMIN_URL): creating tenants
// and finding a check's tenant are above any one tenant.

// withAdmin runs fn with the owner's store.
func withAdmin(ctx context.Context, cfg app.Config, fn func(s *store.Store) error) error {
	s, err := store.Open(ctx, cfg.DatabaseAdminURL, 2)
	if err != nil {
		return err
	}
	defer s.Close()
	return fn(s)
}

type hostList []string

func (h *hostList) String() string     { return strings.Join(*h, ",") }
func (h *hostList) Set(v string) error { *h = append(*h, v); return nil }

func tenantCreate(fs *flag.FlagSet) runFunc {
	name := fs.String("name", "", "tenant name")
	sandbox := fs.Bool("sandbox", false, "sandbox tenant (kyc_test_ keys)")
	linkTTL := fs.Duration("link-ttl", 0, "how long verification links stay valid (0: 168h)")
	var hosts hostList
	fs.Var(&hosts, "host", "hostname the tenant's API is reached at (repeatable)")
	return func(ctx context.Context, cfg app.Config, _ []string) error {
		if *name == "" || len(hosts) == 0 {
			return fmt.Errorf("tenant create needs --name and at least one --host")
		}
		return withAdmin(ctx, cfg, func(s *store.Store) error {
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
		})
	}
}

func tenantUpdate(fs *flag.FlagSet) runFunc {
	id := fs.String("tenant", "", "tenant id")
	linkTTL := fs.Duration("link-ttl", 0, "how long new verification links stay valid, e.g. 72h")
	threshold := fs.Float64("aml-threshold", 0, "watchlist score from which a hit alerts (awaits review), e.g. 0.85")
	hard := fs.String("aml-hard-conflict", "", "on: drop watchlist hits whose birth date or nationality contradicts the customer's (verified data); off: only score them lower (the default)")
	window := fs.Duration("aml-review-window", 0, "how long an aml check awaits its review before it expires, e.g. 720h (the default: 30 days)")
	lists := fs.String("aml-lists", "", "the watchlists the tenant screens against, comma-separated (see kycflow watchlist list), or all (the default)")
	fourEyes := fs.String("aml-four-eyes", "", "on: a decision on an aml hit is final only once a second reviewer approves it (the default for live tenants); off: one reviewer decides (the default for sandbox tenants)")
	typed := fs.String("idscan-typed", "", "on: idscan links also accept a typed MRZ (the default); off: photos only")
	attempts := fs.Int("idscan-attempts", 0, "photos a person may upload for one idscan check before it ends image_unreadable (the default: 5)")
	retention := fs.String("image-retention", "", "how long document photos are kept after their check ends, e.g. 720h (the default: 30 days); 0: none after reading")
	docs := fs.String("idscan-documents", "", "documents idscan accepts: document codes, optionally with an issuing state (P,ID,I:NLD), or all (the default)")
	var sf selfieFlags
	fs.StringVar(&sf.mode, "idscan-selfie", "", "off: no selfie (the default); on: a selfie after the document, matched to its portrait, liveness a signal; required: liveness must pass too")
	fs.StringVar(&sf.clear, "face-match-clear", "", "the similarity (0-1) from which a selfie matches the portrait (the default: 0.5); with --face-match-fail")
	fs.StringVar(&sf.fail, "face-match-fail", "", "the similarity (0-1) under which a selfie is another person (the default: 0.4); between the two a person decides")
	return func(ctx context.Context, cfg app.Config, _ []string) error {
		tid, err := uuid.Parse(*id)
		if err != nil || (*linkTTL == 0 && *threshold == 0 && *hard == "" && *fourEyes == "" && *window == 0 && *lists == "" && *typed == "" && *attempts == 0 && *retention == "" && *docs == "" && sf == (selfieFlags{})) {
			return fmt.Errorf("tenant update needs --tenant ID and --link-ttl DURATION, --aml-threshold SCORE, --aml-hard-conflict on|off, --aml-four-eyes on|off, --aml-review-window DURATION, --aml-lists NAMES|all, --idscan-typed on|off, --idscan-attempts N, --image-retention DURATION, --idscan-documents CODES|all, --idscan-selfie off|on|required and/or --face-match-clear and --face-match-fail SIMILARITY")
		}
		if err := sf.valid(); err != nil {
			return err
		}
		if *hard != "" && *hard != "on" && *hard != "off" {
			return fmt.Errorf("--aml-hard-conflict %q: want on or off", *hard)
		}
		if *fourEyes != "" && *fourEyes != "on" && *fourEyes != "off" {
			return fmt.Errorf("--aml-four-eyes %q: want on or off", *fourEyes)
		}
		if *typed != "" && *typed != "on" && *typed != "off" {
			return fmt.Errorf("--idscan-typed %q: want on or off", *typed)
		}
		var keep time.Duration
		if *retention != "" {
			if keep, err = time.ParseDuration(*retention); err != nil || keep < 0 {
				return fmt.Errorf("--image-retention %q: want a duration such as 720h, or 0", *retention)
			}
		}
		return withAdmin(ctx, cfg, func(s *store.Store) error {
			say := func(err error, format string, args ...any) error {
				if err != nil {
					return fmt.Errorf("tenant %s: %w", tid, err)
				}
				fmt.Printf("tenant %s: "+format+"\n", append([]any{tid}, args...)...)
				return nil
			}
			if *linkTTL != 0 {
				if err := say(s.SetLinkTTL(ctx, tid, *linkTTL), "new verification links are valid for %s", *linkTTL); err != nil {
					return err
				}
			}
			if *threshold != 0 {
				if err := say(s.SetAMLThreshold(ctx, tid, *threshold), "watchlist hits from %.2f alert", *threshold); err != nil {
					return err
				}
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
				what := "screens against every watchlist"
				if names != nil {
					what = "screens against " + strings.Join(names, ", ") + " only"
				}
				if err := say(s.SetAMLLists(ctx, tid, names), "%s", what); err != nil {
					return err
				}
			}
			if *window != 0 {
				if err := say(s.SetAMLReviewWindow(ctx, tid, *window), "new aml checks await review for %s, then expire", *window); err != nil {
					return err
				}
			}
			if *fourEyes != "" {
				what := "a decision on an aml hit is final once made"
				if *fourEyes == "on" {
					what = "a decision on an aml hit is final once a second reviewer approves it (four eyes)"
				}
				if err := say(s.SetAMLFourEyes(ctx, tid, *fourEyes == "on"), "%s", what); err != nil {
					return err
				}
			}
			if *hard != "" {
				what := "watchlist hits contradicted by birth date or nationality score lower"
				if *hard == "on" {
					what = "watchlist hits contradicted by birth date or nationality are dropped"
				}
				if err := say(s.SetAMLHardConflict(ctx, tid, *hard == "on"), "%s", what); err != nil {
					return err
				}
			}
			if err := sf.apply(ctx, s, tid, say); err != nil {
				return err
			}
			return idscanUpdate(ctx, s, tid, say, *typed, *attempts, *retention, keep, *docs)
		})
	}
}

// idscanUpdate applies tenant update's idscan flags.
func idscanUpdate(ctx context.Context, s *store.Store, tid uuid.UUID, say func(error, string, ...any) error,
	typed string, attempts int, retention string, keep time.Duration, docs string) error {
	if typed != "" {
		what := "idscan links accept photos and a typed MRZ"
		if typed == "off" {
			what = "idscan links accept photos only"
		}
		if err := say(s.SetIDScanTyped(ctx, tid, typed == "on"), "%s", what); err != nil {
			return err
		}
	}
	if attempts != 0 {
		if err := say(s.SetIDScanMaxAttempts(ctx, tid, attempts), "idscan checks take up to %d photos", attempts); err != nil {
			return err
		}
	}
	if retention != "" {
		what := fmt.Sprintf("document photos are kept %s after their check ends", keep)
		if keep == 0 {
			what = "document photos are erased once read"
		}
		if err := say(s.SetImageRetention(ctx, tid, keep), "%s", what); err != nil {
			return err
		}
	}
	if docs != "" {
		var list []string // nil: all
		if docs != "all" {
			list = []string{}
			for d := range strings.SplitSeq(docs, ",") {
				if d = strings.ToUpper(strings.TrimSpace(d)); d != "" {
					list = append(list, d)
				}
			}
		}
		what := "idscan accepts every document"
		if list != nil {
			what = "idscan accepts " + strings.Join(list, ", ") + " only"
		}
		if err := say(s.SetIDScanDocuments(ctx, tid, list), "%s", what); err != nil {
			return err
		}
	}
	return nil
}

func tenantList(ctx context.Context, cfg app.Config, _ []string) error {
	return withAdmin(ctx, cfg, func(s *store.Store) error {
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
	})
}

// tenantKey is `tenant key create|list|revoke`.
func tenantKey(sub string) func(*flag.FlagSet) runFunc {
	return func(fs *flag.FlagSet) runFunc {
		tenant := fs.String("tenant", "", "tenant id")
		return func(ctx context.Context, cfg app.Config, args []string) error {
			id, err := uuid.Parse(*tenant)
			if err != nil {
				return fmt.Errorf("--tenant must be a tenant id (see kycflow tenant list)")
			}
			return withAdmin(ctx, cfg, func(s *store.Store) error {
				switch sub {
				case "create":
					key, keyID, err := s.CreateKey(ctx, id)
					if err != nil {
						return err
					}
					fmt.Printf("key %s created (shown once):\n%s\n", keyID, key)
				case "revoke":
					if len(args) != 1 {
						return fmt.Errorf("tenant key revoke needs the key id or its prefix (kyc_live_xxxx)")
					}
					if err := s.RevokeKey(ctx, id, args[0]); err != nil {
						return err
					}
					fmt.Println("revoked")
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
				return nil
			})
		}
	}
}

// checkArg is a check command's check id (the workflow id check-<uuid>
// works too) and its tenant.
func checkArg(ctx context.Context, s *store.Store, args []string) (id, tenant uuid.UUID, err error) {
	if len(args) != 1 {
		return id, tenant, errors.New("name the check: its id")
	}
	if id, err = uuid.Parse(strings.TrimPrefix(args[0], "check-")); err != nil {
		return id, tenant, fmt.Errorf("%q is not a check id (the workflow id check-<uuid> works too)", args[0])
	}
	if tenant, err = s.CheckTenant(ctx, id); err != nil {
		return id, tenant, fmt.Errorf("check %s: %w", id, err)
	}
	return id, tenant, nil
}

func checkRetry(ctx context.Context, cfg app.Config, args []string) error {
	return withAdmin(ctx, cfg, func(s *store.Store) error {
		id, tenant, err := checkArg(ctx, s, args)
		if err != nil {
			return err
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
	})
}

func fmtTime(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.Format("2006-01-02 15:04")
}

// selfieFlags are tenant update's selfie flags.
type selfieFlags struct{ mode, clear, fail string }

func (f selfieFlags) valid() error {
	if f.mode != "" && !slices.Contains(check.SelfieSettings, f.mode) {
		return fmt.Errorf("--idscan-selfie %q: want off, on or required", f.mode)
	}
	if (f.clear == "") != (f.fail == "") {
		return errors.New("--face-match-clear and --face-match-fail go together")
	}
	return nil
}

func (f selfieFlags) apply(ctx context.Context, s *store.Store, tid uuid.UUID, say func(error, string, ...any) error) error {
	if f.mode != "" {
		what := map[string]string{check.SelfieOff: "idscan asks for no selfie",
			check.SelfieOn:       "idscan asks for a selfie after the document, matched to its portrait (liveness a signal)",
			check.SelfieRequired: "idscan asks for a selfie after the document, matched to its portrait, and requires liveness"}[f.mode]
		if err := say(s.SetIDScanSelfie(ctx, tid, f.mode), "%s", what); err != nil {
			return err
		}
	}
	if f.clear != "" {
		clear, err1 := strconv.ParseFloat(f.clear, 64)
		fail, err2 := strconv.ParseFloat(f.fail, 64)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("--face-match-clear %q, --face-match-fail %q: want numbers from 0 to 1", f.clear, f.fail)
		}
		return say(s.SetFaceThresholds(ctx, tid, clear, fail), "a selfie matches its portrait from similarity %.3f, is another person under %.3f", clear, fail)
	}
	return nil
}
