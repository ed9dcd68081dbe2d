package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/kycflow/kycflow/activities"
	"github.com/kycflow/kycflow/webhook"
)

// DeliveryInput is a webhook delivery's workflow input: ids only (the
// event, the URL and the secrets stay in the store).
type DeliveryInput struct {
	Delivery webhook.Ref
	// Schedule of retries; nil: webhook.DefaultSchedule (tests shorten it).
	Schedule *webhook.Schedule
}

// DeliveryResult is how the delivery ended.
type DeliveryResult struct {
	Status   webhook.Status
	Attempts int
}

// DeliveryWorkflow delivers one event to one endpoint. Each step is a local
// activity (no task round trip between the commit and the receiver) that
// attempts when it is the delivery's turn in its subject's line, and then
// sends the line behind it while the receiver answers. Between attempts
// the workflow waits on a durable timer (the schedule: about 1 min, 5 min,
// 30 min, 2 h, 5 h, 10 h, then every 12 h, for 3 days), or for a wake
// signal (its turn came; its endpoint is back). DeliveryStatus shows where
// it stands.
func DeliveryWorkflow(ctx workflow.Context, in DeliveryInput) (DeliveryResult, error) {
	sched := webhook.DefaultSchedule
	if in.Schedule != nil {
		sched = *in.Schedule
	}
	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		// The receiver's timeout, a drain of the line behind, the store.
		StartToCloseTimeout: time.Minute,
		// Errors here are the worker's (database down, no signing key),
		// not the receiver's: retried until they clear.
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute},
	})
	wake := workflow.GetSignalChannel(ctx, activities.SignalWake)
	shown := webhook.Pending
	show := func(st webhook.Status) error {
		if st == shown {
			return nil
		}
		shown = st
		return workflow.UpsertTypedSearchAttributes(ctx, SADeliveryStatus.ValueSet(string(st)))
	}
	// wait returns at `until`, or earlier on a wake signal: now reports
	// whether a wake asked to retry at once.
	wait := func(until time.Time) (now bool) {
		tctx, cancel := workflow.WithCancel(ctx)
		defer cancel()
		timer := workflow.NewTimer(tctx, until.Sub(workflow.Now(ctx)))
		sel := workflow.NewSelector(ctx)
		sel.AddFuture(timer, func(workflow.Future) {})
		sel.AddReceive(wake, func(c workflow.ReceiveChannel, _ bool) {
			var w activities.Wake
			c.Receive(ctx, &w)
			now = w.Now
		})
		sel.Select(ctx)
		var w activities.Wake
		for wake.ReceiveAsync(&w) { // one wake is enough
			now = now || w.Now
		}
		return now
	}

	step := activities.DeliverInput{Delivery: in.Delivery, Schedule: sched}
	for {
		var res activities.DeliverResult
		if err := workflow.ExecuteLocalActivity(lctx, a.Deliver, step).Get(ctx, &res); err != nil {
			return DeliveryResult{}, err
		}
		if res.Outcome == activities.OutcomeWait {
			if err := show(res.Status); err != nil {
				return DeliveryResult{}, err
			}
			step.Now = wait(res.Until)
			continue
		}
		if err := show(res.Status); err != nil {
			return DeliveryResult{}, err
		}
		if res.Recovered {
			// The endpoint is back: its other waiting deliveries go now.
			actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 5 * time.Minute,
				RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 3}})
			if err := workflow.ExecuteActivity(actx, a.WakeEndpoint, activities.WakeInput{Delivery: in.Delivery}).Get(ctx, nil); err != nil {
				workflow.GetLogger(ctx).Warn("waking the endpoint's deliveries failed; they keep their schedule", "error", err)
			}
		}
		// Hand the line on: the deliveries sent in this step only need to
		// see that, and the new head of the line may go. A lost signal
		// costs a poll.
		wakes := append([]webhook.Ref(nil), res.Drained...)
		if res.Next != nil {
			wakes = append(wakes, *res.Next)
		}
		var sent []workflow.Future
		for _, r := range wakes {
			sent = append(sent, workflow.SignalExternalWorkflow(ctx, r.WorkflowID(), "", activities.SignalWake, activities.Wake{}))
		}
		for i, f := range sent {
			if err := f.Get(ctx, nil); err != nil {
				workflow.GetLogger(ctx).Info("a delivery in line was not waiting", "workflow_id", wakes[i].WorkflowID(), "error", err)
			}
		}
		return DeliveryResult{Status: res.Status, Attempts: res.Attempts}, nil
	}
}
