// Package reviews submits reviews of aml hits to the workflows of the
// checks awaiting them, as whoever authenticated them — a staff member's
// console session, or an API key (the API, `kycflow check review`): the
// review is kept in PostgreSQL with its reviewer's name and its notes, the
// workflow is sent its id and who it is by (ids only, so nothing personal
// reaches its history, and four eyes compares identities, not names), and
// each decision, once recorded, is audited with who authenticated it.
package reviews

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/workflows"
)

// Client submits reviews.
type Client struct {
	Store    *store.Store
	Temporal client.Client
}

var notAwaiting = check.ReviewProblems{{Conflict: true, Message: "The check is not awaiting review."}}

// isStaff is the problem of an API review in a staff member's name.
var isStaff = check.ReviewProblems{{Field: "reviewer", Message: "The reviewer field names one of the console's staff: staff review in the console, signed in as themselves."}}

// Review keeps req as by's submission, sends it to the check's workflow as
// its review update and waits until it is recorded, then audits each
// decision (review.decided, or review.approved for one that approved
// another's). A review the workflow rejects is a check.ReviewProblems.
// req must have passed its own Problems.
func (c Client) Review(ctx context.Context, by store.Principal, checkID uuid.UUID, req check.ReviewRequest) (check.ReviewOutcome, error) {
	sub, err := c.Store.AddReviewSubmission(ctx, by, checkID, req)
	switch {
	case errors.Is(err, store.ErrReviewerIsStaff):
		return check.ReviewOutcome{}, isStaff
	case errors.Is(err, store.ErrNotFound):
		return check.ReviewOutcome{}, notAwaiting
	case err != nil:
		return check.ReviewOutcome{}, fmt.Errorf("keep the review: %w", err)
	}
	h, err := c.Temporal.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: workflows.WorkflowID(checkID), UpdateName: workflows.UpdateReview,
		Args: []any{req.Update(sub.ID, sub.By())}, WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	var res workflows.ReviewUpdateResult
	if err == nil {
		err = h.Get(ctx, &res)
	}
	if err := reviewError(err); err != nil {
		return check.ReviewOutcome{}, err
	}
	for _, d := range req.Decisions {
		action := "review.decided"
		if slices.Contains(res.Approved, d.EntityID) {
			action = "review.approved"
		}
		if err := c.Store.Audit(ctx, by, action, "check", checkID, map[string]string{"entity_id": d.EntityID, "decision": string(d.Decision),
			"submission_id": sub.ID.String()}); err != nil {
			return check.ReviewOutcome{}, fmt.Errorf("the review is recorded, its audit not: %w", err)
		}
	}
	return check.ReviewOutcome{Status: res.Status, Validated: res.Validated, Approved: res.Approved}, nil
}

// reviewError turns the update's failures into what the caller is told.
func reviewError(err error) error {
	if err == nil {
		return nil
	}
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && appErr.Type() == workflows.ErrTypeReviewRejected {
		var ps check.ReviewProblems
		if appErr.HasDetails() && appErr.Details(&ps) == nil && len(ps) > 0 {
			return ps
		}
	}
	// The workflow ended, or is not waiting for a review: it then rejects
	// the update as unknown (the handler exists only while it waits).
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) || errors.As(err, &appErr) {
		return notAwaiting
	}
	return fmt.Errorf("review update: %w", err)
}
