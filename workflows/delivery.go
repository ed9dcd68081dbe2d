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

// blockedPoll is how often a delivery waiting behind an earlier one looks
// again should its wake signal be lost; the signal is the usual way on.
const blockedPoll = 30 * time.Minute

// DeliveryWorkflow delivers one event to one endpoint: attempts on the
// webhook schedule (about 1 min, 5 min, 30 min, 2 h, 5 h, 10 h, then every
// 12 h) for 3 days from the first, after any earlier delivery of the same
// subject to the endpoint has settled. Its timers are durable: worker and
// server restarts lose nothing. DeliveryStatus shows where it stands.
func DeliveryWorkflow(ctx workflow.Context, in DeliveryInput) (DeliveryResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		// The receiver has webhook.Timeout; the rest is the store.
		StartToCloseTimeout: webhook.Timeout + 20*time.Second,
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
	// wait returns at `until`, or earlier on a wake signal.
	wait := func(until time.Time) {
		tctx, cancel := workflow.WithCancel(ctx)
		defer cancel()
		timer := workflow.NewTimer(tctx, until.Sub(workflow.Now(ctx)))
		sel := workflow.NewSelector(ctx)
		sel.AddFuture(timer, func(workflow.Future) {})
		sel.AddReceive(wake, func(c workflow.ReceiveChannel, more bool) { c.Receive(ctx, nil) })
		sel.Select(ctx)
		for wake.ReceiveAsync(nil) { // one wake is enough
		}
	}

	sched := webhook.DefaultSchedule
	if in.Schedule != nil {
		sched = *in.Schedule
	}
	var first time.Time
	attempts := 0
	for {
		now := workflow.Now(ctx)
		start := first
		if start.IsZero() {
			start = now
		}
		step := activities.DeliverInput{Delivery: in.Delivery}
		if at, ok := sched.Next(start, now, attempts+1); ok {
			step.RetryAt = &at
		}
		var res activities.DeliverResult
		if err := workflow.ExecuteActivity(ctx, a.Deliver, step).Get(ctx, &res); err != nil {
			return DeliveryResult{}, err
		}
		switch res.Outcome {
		case activities.OutcomeBlocked:
			if !first.IsZero() && !now.Before(first.Add(sched.Window)) {
				// Out of time while in line (a retry window reopened by a
				// stuck predecessor): give up without an attempt.
				var end activities.DeliverResult
				if err := workflow.ExecuteActivity(ctx, a.FinishDelivery, activities.FinishDeliveryInput{Delivery: in.Delivery, Status: webhook.Failed}).Get(ctx, &end); err != nil {
					return DeliveryResult{}, err
				}
				return finishDelivery(ctx, in, webhook.Failed, attempts, end.Next, show)
			}
			wait(now.Add(blockedPoll))
			continue
		case activities.OutcomeRetry:
			if first.IsZero() {
				first = now
			}
			attempts++
			if err := show(webhook.Retrying); err != nil {
				return DeliveryResult{}, err
			}
			wait(*step.RetryAt)
			continue
		}
		attempts++
		st := webhook.Cancelled
		switch res.Outcome {
		case activities.OutcomeDelivered:
			st = webhook.Delivered
		case activities.OutcomeFailed:
			st = webhook.Failed
		case activities.OutcomeEnded:
			attempts--
		}
		if res.Recovered {
			// The endpoint is back: its other waiting deliveries go now.
			if err := workflow.ExecuteActivity(ctx, a.WakeEndpoint, activities.WakeInput{Delivery: in.Delivery}).Get(ctx, nil); err != nil {
				workflow.GetLogger(ctx).Warn("waking the endpoint's deliveries failed; they keep their schedule", "error", err)
			}
		}
		return finishDelivery(ctx, in, st, attempts, res.Next, show)
	}
}

// finishDelivery shows the final status and hands the line on to the next
// delivery of the subject (a lost signal costs it one blockedPoll).
func finishDelivery(ctx workflow.Context, in DeliveryInput, st webhook.Status, attempts int, next *webhook.Ref, show func(webhook.Status) error) (DeliveryResult, error) {
	if err := show(st); err != nil {
		return DeliveryResult{}, err
	}
	if next != nil {
		if err := workflow.SignalExternalWorkflow(ctx, next.WorkflowID(), "", activities.SignalWake, nil).Get(ctx, nil); err != nil {
			workflow.GetLogger(ctx).Info("the next delivery was not waiting", "workflow_id", next.WorkflowID(), "error", err)
		}
	}
	return DeliveryResult{Status: st, Attempts: attempts}, nil
}
