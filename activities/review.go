package activities

import (
	"context"
	"time"

	"github.com/kycflow/kycflow/check"
)

// ReviewInput is a review the check's workflow accepted.
type ReviewInput struct {
	Check     check.Ref
	Review    check.ReviewRequest
	DecidedAt time.Time
	// FourEyes: decisions wait for a second reviewer's approval.
	FourEyes bool `json:",omitempty"`
}

// ReviewResult is the check after the review.
type ReviewResult struct {
	Applied   bool
	Status    check.Status
	Validated *bool
}

// RecordReview records a review's decisions (see store.RecordReview): the
// check completes once every alerting hit is decided. Idempotent, so a
// retried attempt changes nothing.
func (a *Activities) RecordReview(ctx context.Context, in ReviewInput) (ReviewResult, error) {
	out, err := a.Store.RecordReview(ctx, in.Check, in.Review, in.DecidedAt, in.FourEyes)
	if err != nil {
		return ReviewResult{}, wrap(err, "record review")
	}
	return ReviewResult{Applied: out.Applied, Status: out.Status, Validated: out.Validated}, nil
}
