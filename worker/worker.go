// Package worker builds the Temporal worker that runs check workflows and
// their activities, and the outbox relay that starts them.
package worker

import (
	"context"
	"errors"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/kycflow/kycflow/activities"
	"github.com/kycflow/kycflow/workflows"
)

// New returns a worker on the checks task queue with every workflow and
// activity registered. Start it with Run or Start. pollers is the number of
// workflow task pollers (0: 8): with the SDK's default of 2, tasks queue up
// in the server under load while the worker idles.
func New(c client.Client, acts *activities.Activities, pollers int) sdkworker.Worker {
	if pollers <= 0 {
		pollers = 8
	}
	w := sdkworker.New(c, workflows.TaskQueue, sdkworker.Options{MaxConcurrentWorkflowTaskPollers: pollers})
	for _, wf := range workflows.All() {
		w.RegisterWorkflow(wf)
	}
	w.RegisterActivity(acts)
	return w
}

// NewDocuments returns the worker that reads idscan photos, on their own
// task queue: at most readers at once (0: one), each a core's work for
// about a second, so a burst of uploads queues there instead of taking
// the cores other checks need.
func NewDocuments(c client.Client, acts *activities.Activities, readers int) sdkworker.Worker {
	w := sdkworker.New(c, workflows.DocumentsTaskQueue, sdkworker.Options{
		MaxConcurrentActivityExecutionSize: max(1, readers),
		MaxConcurrentActivityTaskPollers:   2,
	})
	w.RegisterActivityWithOptions(acts.IDScanRead, activity.RegisterOptions{Name: "IDScanRead"})
	return w
}

// EnsureHousekeeping creates the Schedule that runs HousekeepingWorkflow
// every hour, unless it exists (it outlives workers; operators may pause
// it). A run still going when the next is due is not doubled.
func EnsureHousekeeping(ctx context.Context, c client.Client) error {
	_, err := c.ScheduleClient().Create(ctx, client.ScheduleOptions{
		ID:   workflows.HousekeepingScheduleID,
		Spec: client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: workflows.HousekeepingEvery}}},
		Action: &client.ScheduleWorkflowAction{
			ID: "housekeeping", Workflow: workflows.HousekeepingWorkflow, TaskQueue: workflows.TaskQueue,
			Args: []any{workflows.HousekeepingInput{}},
		},
		Overlap: enumspb.SCHEDULE_OVERLAP_POLICY_SKIP,
	})
	if errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create housekeeping schedule: %w", err)
	}
	return nil
}

// EnsureSearchAttributes registers the check search attributes on the
// namespace when they are missing (idempotent; the dev server may already
// have them from its command line).
func EnsureSearchAttributes(ctx context.Context, c client.Client, namespace string) error {
	list, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return fmt.Errorf("list search attributes: %w", err)
	}
	missing := map[string]enumspb.IndexedValueType{}
	for _, name := range workflows.SearchAttributeNames() {
		if _, ok := list.GetCustomAttributes()[name]; !ok {
			missing[name] = enumspb.INDEXED_VALUE_TYPE_KEYWORD
		}
	}
	if len(missing) == 0 {
		return nil
	}
	_, err = c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace: namespace, SearchAttributes: missing,
	})
	if err != nil {
		return fmt.Errorf("add search attributes: %w", err)
	}
	return nil
}
