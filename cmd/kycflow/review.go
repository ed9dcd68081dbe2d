package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/kycflow/kycflow/app"
	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/reviews"
	"github.com/kycflow/kycflow/store"
)

// checkReview decides one alerting hit of an aml check awaiting review, as
// POST /api/v1/checks/{id}/review does, as the API key KYCFLOW_API_KEY
// (the four-eyes rules included: the check's workflow compares who
// authenticated each review, so the key is who reviews, and --reviewer
// the name its holder claims).
func checkReview(fs *flag.FlagSet) runFunc {
	reviewer := fs.String("reviewer", "", "who decides (required)")
	entity := fs.String("entity", "", "the listed entity's id, as the hit shows it (an aml check), or face_match (an idscan check's selfie)")
	decision := fs.String("decision", "", "false_positive or true_match (an aml hit); same_person or different_person (a face match)")
	note := fs.String("note", "", "why (required for a false positive or the same person, 10 characters or more)")
	return func(ctx context.Context, cfg app.Config, args []string) error {
		req := check.ReviewRequest{Reviewer: strings.TrimSpace(*reviewer), Decisions: []check.ReviewDecision{
			{EntityID: strings.TrimSpace(*entity), Decision: check.Decision(*decision), Note: strings.TrimSpace(*note)}}}
		if ps := req.Problems(""); len(ps) > 0 {
			return cliProblems(ps)
		}
		return withAdmin(ctx, cfg, func(s *store.Store) error {
			id, tenant, err := checkArg(ctx, s, args)
			if err != nil {
				return err
			}
			chk, err := s.GetCheck(ctx, tenant, id)
			if err != nil {
				return fmt.Errorf("check %s: %w", id, err)
			}
			if chk.Type != check.AML && chk.Type != check.IDScan || chk.Status != check.AwaitingReview {
				return fmt.Errorf("check %s is %s, %s: only an aml or idscan check awaiting review can be reviewed", id, chk.Type, chk.Status)
			}
			if ps := req.Problems(chk.Type); len(ps) > 0 {
				return cliProblems(ps)
			}
			if cfg.APIKey == "" {
				return errors.New("check review needs KYCFLOW_API_KEY: the tenant's API key the review is by (four eyes tells reviewers apart by their keys)")
			}
			keyID, err := s.ActiveKey(ctx, tenant, store.HashKey(cfg.APIKey))
			if err != nil {
				return fmt.Errorf("KYCFLOW_API_KEY is not an active key of the check's tenant: %w", err)
			}
			c, err := client.NewLazyClient(client.Options{HostPort: cfg.TemporalAddress, Namespace: cfg.TemporalNS,
				Logger: sdklog.NewStructuredLogger(cfg.Logger())})
			if err != nil {
				return err
			}
			defer c.Close()
			if _, err := (reviews.Client{Store: s, Temporal: c}).Review(ctx, store.Principal{TenantID: tenant, KeyID: keyID}, id, req); err != nil {
				var ps check.ReviewProblems
				if errors.As(err, &ps) {
					return cliProblems(ps)
				}
				return fmt.Errorf("check %s: %w", id, err)
			}
			if chk, err = s.GetCheck(ctx, tenant, id); err != nil {
				return err
			}
			fmt.Printf("review of %s on check %s recorded; the check is %s\n", req.Decisions[0].EntityID, id, chk.Status)
			return nil
		})
	}
}

// cliProblems says a review's problems, with the flags for its fields.
func cliProblems(ps check.ReviewProblems) error {
	flags := strings.NewReplacer("decisions.0.entity_id", "--entity", "decisions.0.decision", "--decision", "decisions.0.note", "--note", "reviewer", "--reviewer")
	var msgs []string
	for _, p := range ps {
		m := p.Message
		if p.Field != "" {
			m = flags.Replace(p.Field) + ": " + m
		}
		msgs = append(msgs, m)
	}
	return errors.New(strings.Join(msgs, "; "))
}
