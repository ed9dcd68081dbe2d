package workflows

import (
	"strconv"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/kycflow/kycflow/activities"
)

// RescreenWorkflowID is the id of the rescreening of a list version, so a
// version is rescreened once however often its start is asked for.
func RescreenWorkflowID(versionID int64) string {
	return "rescreen-" + strconv.FormatInt(versionID, 10)
}

// rescreenBatchesPerRun bounds a run's history; the run continues as new
// with its cursor after that many batches.
const rescreenBatchesPerRun = 100

// RescreenWorkflow rescreens the customers a new list version may concern,
// batch by batch with a cursor in its input, so it resumes where it was
// after a crash or a deploy; operators follow it in the Temporal UI
// (`rescreen-<version>`).
func RescreenWorkflow(ctx workflow.Context, in activities.RescreenInput) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Minute,
		HeartbeatTimeout:    time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute},
	})
	log := workflow.GetLogger(ctx)
	for range rescreenBatchesPerRun {
		var r activities.RescreenResult
		if err := workflow.ExecuteActivity(ctx, a.RescreenBatch, in).Get(ctx, &r); err != nil {
			return err
		}
		log.Info("rescreen batch", "Version", in.VersionID, "Screened", r.Screened, "Candidates", r.Candidates, "Requeued", r.Requeued)
		in.Cursor = r.Next
		if r.Done {
			return workflow.ExecuteActivity(ctx, a.MarkRescreened, in).Get(ctx, nil)
		}
	}
	return workflow.NewContinueAsNewError(ctx, RescreenWorkflow, in)
}
