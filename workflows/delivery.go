package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/kycflow/kycflow/activities"
	"github.com/kycflow/kycflow/webhook"
)

// Webhook deliveries run in two kinds of workflow, both with ids that say
// what they are and no personal data (ids in, statuses out):
//
//   - DispatchWorkflow, one per endpoint with deliveries pending
//     (webhook-<endpoint id>-dispatcher): it sends them while the receiver
//     answers, so a receiver that is up costs no workflow per event.
//   - DeliveryWorkflow, one per delivery whose first attempt failed
//     (webhook-<endpoint id>-<event id>): it owns that delivery's retries,
//     on durable timers, so operators find stuck deliveries by
//     DeliveryStatus = 'retrying'.

// SignalDispatch wakes an endpoint's dispatcher: deliveries are pending.
const SignalDispatch = "dispatch"

// DispatcherID is the id of an endpoint's dispatcher.
func DispatcherID(endpointID string) string { return "webhook-" + endpointID + "-dispatcher" }

// DispatchInput names the endpoint (ids only).
type DispatchInput struct {
	Endpoint webhook.Ref // TenantID and EndpointID
	// Schedule of retries; nil: webhook.DefaultSchedule (tests shorten it).
	Schedule *webhook.Schedule
}

// DispatchResult counts what the run sent.
type DispatchResult struct {
	Sent int
}

// dispatchLinger is how long an idle dispatcher waits for more before it
// ends (the next event starts it again); dispatchRuns bounds a run's
// history, after which it continues as new.
const (
	dispatchLinger = time.Minute
	dispatchRuns   = 200
)

// webhookStep is how delivery steps run: local activities (no task round
// trip between a commit and its receiver), retried while the worker's own
// trouble (database down, no signing key) lasts.
func webhookStep(ctx workflow.Context) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute},
	})
}

// wakeEndpoint wakes a recovered endpoint's waiting deliveries (a failure
// only leaves them on their schedule).
func wakeEndpoint(ctx workflow.Context, ref webhook.Ref) {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 5 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 3}})
	if err := workflow.ExecuteActivity(actx, a.WakeEndpoint, activities.WakeInput{TenantID: ref.TenantID, EndpointID: ref.EndpointID}).Get(ctx, nil); err != nil {
		workflow.GetLogger(ctx).Warn("waking the endpoint's deliveries failed; they keep their schedule", "error", err)
	}
}

// DispatchWorkflow sends an endpoint's pending deliveries, step after
// step while some are due, then waits for the dispatch signal; idle for a
// minute, it ends.
func DispatchWorkflow(ctx workflow.Context, in DispatchInput) (DispatchResult, error) {
	sched := webhook.DefaultSchedule
	if in.Schedule != nil {
		sched = *in.Schedule
	}
	lctx := webhookStep(ctx)
	signals := workflow.GetSignalChannel(ctx, SignalDispatch)
	var out DispatchResult
	for run := 0; ; run++ {
		for signals.ReceiveAsync(nil) { // what they asked for, this step does
		}
		var res activities.DispatchResult
		step := activities.DispatchInput{TenantID: in.Endpoint.TenantID, EndpointID: in.Endpoint.EndpointID, Schedule: sched}
		if err := workflow.ExecuteLocalActivity(lctx, a.Dispatch, step).Get(ctx, &res); err != nil {
			return out, err
		}
		out.Sent += res.Sent
		if res.Recovered {
			wakeEndpoint(ctx, in.Endpoint)
		}
		if run >= dispatchRuns {
			return out, workflow.NewContinueAsNewError(ctx, DispatchWorkflow, in)
		}
		if res.More {
			continue
		}
		woken := false
		tctx, cancel := workflow.WithCancel(ctx)
		sel := workflow.NewSelector(ctx)
		sel.AddFuture(workflow.NewTimer(tctx, dispatchLinger), func(workflow.Future) {})
		sel.AddReceive(signals, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, nil); woken = true })
		sel.Select(ctx)
		cancel()
		// A signal that came with the timer still counts: the run goes on
		// rather than end with it unread.
		if !woken && !signals.ReceiveAsync(nil) {
			return out, nil
		}
	}
}

// DeliveryInput is a retried delivery's workflow input: ids only (the
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

// DeliveryWorkflow retries one delivery whose first attempt failed: it
// waits on a durable timer until the schedule's next attempt (about
// 1 min, 5 min, 30 min, 2 h, 5 h, 10 h, then every 12 h, for 3 days from the
// first), or until woken (its endpoint is back), then tries again; when it
// is delivered, the line of its subject behind it goes on. DeliveryStatus
// shows where it stands.
func DeliveryWorkflow(ctx workflow.Context, in DeliveryInput) (DeliveryResult, error) {
	sched := webhook.DefaultSchedule
	if in.Schedule != nil {
		sched = *in.Schedule
	}
	lctx := webhookStep(ctx)
	wake := workflow.GetSignalChannel(ctx, activities.SignalWake)
	shown := webhook.Retrying
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
		if err := show(res.Status); err != nil {
			return DeliveryResult{}, err
		}
		if res.Outcome == activities.OutcomeWait {
			step.Now = wait(res.Until)
			continue
		}
		if res.Recovered {
			wakeEndpoint(ctx, in.Delivery)
		}
		return DeliveryResult{Status: res.Status, Attempts: res.Attempts}, nil
	}
}
