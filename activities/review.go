package activities

import (
	"context"
	"time"

	"github.com/kycflow/kycflow/check"
)

// ReviewInput is a review the check's workflow accepted: ids only (its
// notes and names are in its submission).
type ReviewInput struct {
	Check     check.Ref
	Review    check.ReviewUpdate
	DecidedAt time.Time
	// FourEyes: decisions wait for a second reviewer's approval.
	FourEyes bool `json:",omitempty"`
}

// ReviewResult is the check after the review.
type ReviewResult struct {
	Applied   bool
	Status    check.Status
	Validated *bool
	// Approved are the entities whose pending decision the review
	// approved; Rejected says why the review is not its submission
	// (nothing recorded).
	Approved []string `json:",omitempty"`
	Rejected string   `json:",omitempty"`
}

// RecordReview records a review's decisions (see store.RecordReview): the
// check completes once every alerting hit is decided. Idempotent, so a
// retried attempt changes nothing.
func (a *Activities) RecordReview(ctx context.Context, in ReviewInput) (ReviewResult, error) {
	out, err := a.Store.RecordReview(ctx, in.Check, in.Review, in.DecidedAt, in.FourEyes)
	if err != nil {
		return ReviewResult{}, wrap(err, "record review")
	}
	return ReviewResult{Applied: out.Applied, Status: out.Status, Validated: out.Validated, Approved: out.Approved, Rejected: out.Rejected}, nil
}
