package worker

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/workflows"
)

// Reviews sends reviews to the workflows of checks awaiting them.
type Reviews struct {
	Client client.Client
}

var notAwaiting = check.ReviewProblems{{Conflict: true, Message: "The check is not awaiting review."}}

// Review sends a review as the check workflow's review update and waits
// until it is recorded. A review the workflow rejects is a
// check.ReviewProblems.
func (r Reviews) Review(ctx context.Context, checkID uuid.UUID, req check.ReviewRequest) error {
	h, err := r.Client.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: workflows.WorkflowID(checkID), UpdateName: workflows.UpdateReview,
		Args: []any{req}, WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err == nil {
		var res workflows.ReviewUpdateResult
		err = h.Get(ctx, &res)
	}
	return reviewError(err)
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
