package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/kycflow/kycflow/activities"
)

// HousekeepingScheduleID names the Temporal Schedule that runs
// HousekeepingWorkflow every HousekeepingEvery: one run per interval
// however many workers there are, visible (and pausable) in the Temporal
// UI under Schedules.
const (
	HousekeepingScheduleID = "kycflow-housekeeping"
	HousekeepingEvery      = time.Hour
)

// HousekeepingInput is empty: what to prune and how old is the store's.
type HousekeepingInput struct{}

// HousekeepingResult counts what was pruned.
type HousekeepingResult struct {
	IdempotencyKeys int64
	Events          int64
	Images          int64
}

// HousekeepingWorkflow deletes what kycflow keeps for a while only:
// idempotency keys past their 24 hours, events past their 30 days,
// document images past their tenant's retention.
func HousekeepingWorkflow(ctx workflow.Context, _ HousekeepingInput) (HousekeepingResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 5 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 5 * time.Second, MaximumAttempts: 10},
	})
	var out activities.PruneResult
	err := workflow.ExecuteActivity(ctx, a.Prune, activities.PruneInput{}).Get(ctx, &out)
	return HousekeepingResult{IdempotencyKeys: out.IdempotencyKeys, Events: out.Events, Images: out.Images}, err
}
