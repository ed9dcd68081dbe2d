package worker

import (
	"context"
	"errors"
	"slices"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/kycflow/kycflow/activities"
	"github.com/kycflow/kycflow/screening"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/workflows"
)

// StartRescreens starts the rescreening of every list version loaded and
// not rescreened yet: what a worker does after each refresh of its lists
// (screening.Lists.Run). The import command only stores the version; this
// is what carries it on, so nothing is lost if no worker ran during the
// import.
func StartRescreens(lists *screening.Lists, c client.Client) func(context.Context) error {
	return func(ctx context.Context) error {
		pending, err := lists.Store.PendingRescreens(ctx)
		if err != nil {
			return err
		}
		loaded := lists.Versions()
		for _, v := range pending {
			if !slices.ContainsFunc(loaded, func(l store.WatchlistVersion) bool { return l.ID == v.ID }) {
				// Superseded before its turn: the newest version's
				// rescreening compares with the last rescreened one, so it
				// covers this version's changes, and marks it done with it.
				continue
			}
			_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
				ID: workflows.RescreenWorkflowID(v.ID), TaskQueue: workflows.TaskQueue,
				WorkflowIDReusePolicy: enums.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY,
			}, workflows.RescreenWorkflow, activities.RescreenInput{VersionID: v.ID})
			var started *serviceerror.WorkflowExecutionAlreadyStarted
			if err != nil && !errors.As(err, &started) {
				return err
			}
		}
		return nil
	}
}
