package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/webhook"
)

// Webhooks is what delivering webhooks needs. A worker without it (no
// WEBHOOK_SECRET_KEY) cannot sign, and its delivery attempts fail until
// it has.
type Webhooks struct {
	Sender *webhook.Sender
	Cipher *webhook.Cipher
	// Signaler wakes delivery workflows (a Temporal client).
	Signaler Signaler
}

// Signaler sends a signal to a workflow.
type Signaler interface {
	SignalWorkflow(ctx context.Context, workflowID, runID, signalName string, arg any) error
}

// Outcome is what became of a delivery step.
type Outcome string

// The outcomes.
const (
	// OutcomeDelivered: the receiver answered 2xx (now or before).
	OutcomeDelivered Outcome = "delivered"
	// OutcomeFailed: given up: the window is over, or the receiver
	// answered 410 (and the endpoint is disabled).
	OutcomeFailed Outcome = "failed"
	// OutcomeEnded: the delivery, its endpoint or its event is gone, or
	// the endpoint is disabled; nothing was sent.
	OutcomeEnded Outcome = "ended"
	// OutcomeWait: not now; try again at Until, or when woken. Status
	// says why: retrying (an attempt failed, the next is due at Until) or
	// pending (waiting in line behind an earlier delivery of the subject).
	OutcomeWait Outcome = "wait"
)

// DeliverInput is one delivery step. Now: try even if the next attempt is
// not due (the endpoint is back).
type DeliverInput struct {
	Delivery webhook.Ref
	Schedule webhook.Schedule
	Now      bool
}

// DeliverResult tells the workflow what happened; no personal data, no
// receiver's answer (that is in the store).
type DeliverResult struct {
	Outcome Outcome
	Status  webhook.Status
	Until   time.Time
	// Attempts is how many attempts the delivery has had.
	Attempts int
	// Drained are later deliveries of the subject sent in the same step,
	// after this one succeeded (their workflows only need to wake and
	// see); Next is the open delivery now at the head of the line.
	Drained []webhook.Ref
	Next    *webhook.Ref
	// Recovered: the endpoint was failing and this attempt succeeded; its
	// waiting deliveries should be woken.
	Recovered bool
}

// ErrTypeWebhooksNotConfigured: this worker has no WEBHOOK_SECRET_KEY.
const ErrTypeWebhooksNotConfigured = "WebhooksNotConfigured"

// Bounds of one step's drain of a subject's line.
const (
	drainMax    = 20
	drainBudget = 5 * time.Second
)

// blockedPoll is how often a delivery waiting in line looks again should
// its wake signal be lost; the signal is the usual way on.
const blockedPoll = 30 * time.Minute

// Deliver makes an attempt at a delivery when it is its turn, and on
// success goes on with the deliveries waiting behind it in its subject's
// line (one connection, in order). Idempotent: a settled delivery is
// reported, never sent again; an attempt holds its delivery (store claim)
// so no two run at once.
func (a *Activities) Deliver(ctx context.Context, in DeliverInput) (DeliverResult, error) {
	ref := in.Delivery
	c, err := a.Store.ClaimDelivery(ctx, ref, a.lease())
	if errors.Is(err, store.ErrNotFound) {
		return DeliverResult{Outcome: OutcomeEnded, Status: webhook.Cancelled}, nil // endpoint deleted, or event pruned
	}
	if err != nil {
		return DeliverResult{}, wrap(err, "claim delivery")
	}
	now := time.Now()
	out := DeliverResult{Attempts: c.Delivery.Attempts}
	switch c.State {
	case store.Final:
		return a.settled(ctx, ref, c.Delivery)
	case store.Orphaned:
		return a.finish(ctx, ref, webhook.Cancelled)
	case store.Blocked:
		out.Outcome, out.Status, out.Until = OutcomeWait, webhook.Pending, now.Add(blockedPoll)
		return out, nil
	case store.Busy:
		out.Outcome, out.Status, out.Until = OutcomeWait, c.Delivery.Status, c.Until
		return out, nil
	}
	if at := c.Delivery.NextAttemptAt; c.Delivery.Status == webhook.Retrying && at != nil && at.After(now) && !in.Now {
		if err := a.Store.Release(ctx, ref); err != nil {
			return DeliverResult{}, wrap(err, "release delivery")
		}
		out.Outcome, out.Status, out.Until = OutcomeWait, webhook.Retrying, *at
		return out, nil
	}
	res, s, err := a.attempt(ctx, c, in.Schedule)
	if err != nil {
		return DeliverResult{}, err
	}
	out.Attempts, out.Status, out.Recovered, out.Next = c.Delivery.Attempts+1, res.status, s.Recovered, s.Next
	switch res.status {
	case webhook.Retrying:
		out.Outcome, out.Until = OutcomeWait, *res.next
		return out, nil
	case webhook.Failed:
		out.Outcome = OutcomeFailed
		return out, nil
	}
	out.Outcome = OutcomeDelivered
	// The receiver is up: the line behind goes now, in order.
	deadline := time.Now().Add(drainBudget)
	prev := ref
	for len(out.Drained) < drainMax && time.Now().Before(deadline) {
		nc, ok, err := a.Store.ClaimNext(ctx, prev, a.lease())
		if err != nil || !ok || nc.State != store.Claimed {
			break // its own workflow (woken through Next) takes it from here
		}
		next := nc.Delivery.Ref()
		res, s, err := a.attempt(ctx, nc, in.Schedule)
		if err != nil || res.status != webhook.Delivered {
			out.Next = &next
			break
		}
		out.Drained, out.Next, prev = append(out.Drained, next), s.Next, next
	}
	return out, nil
}

// lease is how long an attempt holds its delivery: the receiver's timeout
// and time for the writes around it.
func (a *Activities) lease() time.Duration {
	t := webhook.Timeout
	if a.Webhooks != nil && a.Webhooks.Sender != nil && a.Webhooks.Sender.Timeout > 0 {
		t = a.Webhooks.Sender.Timeout
	}
	return t + 5*time.Second
}

// attemptResult is what attempt did.
type attemptResult struct {
	status webhook.Status
	next   *time.Time // retrying: when
}

// attempt sends a claimed delivery and records the attempt: delivered, or
// retrying at the schedule's next time, or failed when past the window
// (or on 410).
func (a *Activities) attempt(ctx context.Context, c store.Claim, sched webhook.Schedule) (attemptResult, store.Settled, error) {
	hooks := a.Webhooks
	ref := c.Delivery.Ref()
	if hooks == nil || hooks.Cipher == nil || hooks.Sender == nil {
		return attemptResult{}, store.Settled{}, temporal.NewApplicationError("webhooks are not configured on this worker (WEBHOOK_SECRET_KEY)", ErrTypeWebhooksNotConfigured)
	}
	at := time.Now()
	var secrets [][]byte
	for _, sealed := range c.Endpoint.Secrets(at) {
		sec, err := hooks.Cipher.Open(sealed, c.Endpoint.ID.String())
		if err != nil {
			return attemptResult{}, store.Settled{}, temporal.NewApplicationError(err.Error(), ErrTypeWebhooksNotConfigured)
		}
		secrets = append(secrets, []byte(sec))
	}
	var body bytes.Buffer
	if err := json.Compact(&body, c.Event.Body); err != nil {
		return attemptResult{}, store.Settled{}, temporal.NewNonRetryableApplicationError("event "+ref.EventID.String()+" is not JSON", "BadEvent", err)
	}
	res := hooks.Sender.Send(ctx, webhook.Message{URL: c.Endpoint.URL, EventID: c.Event.ID.String(),
		EventType: string(c.Event.Type), Body: body.Bytes(), Secrets: secrets})
	if ctx.Err() != nil {
		// The worker is stopping: let go at once (the step is retried, by
		// this worker or another) rather than when the hold runs out.
		if err := a.Store.Release(context.WithoutCancel(ctx), ref); err != nil {
			return attemptResult{}, store.Settled{}, errors.Join(ctx.Err(), err)
		}
		return attemptResult{}, store.Settled{}, ctx.Err()
	}
	rec := store.AttemptRecord{Attempt: res, At: at}
	first := at
	if c.Delivery.FirstAttemptAt != nil {
		first = *c.Delivery.FirstAttemptAt
	}
	var out attemptResult
	switch next, ok := sched.Next(first, at, c.Delivery.Attempts+1); {
	case res.OK:
		out.status = webhook.Delivered
	case res.Gone || !ok:
		out.status = webhook.Failed
	default:
		out.status, out.next = webhook.Retrying, &next
	}
	rec.Status, rec.NextAttemptAt = out.status, out.next
	if out.status == webhook.Retrying && sched.Probe > 0 {
		probe := at.Add(sched.Probe)
		rec.ProbeAt = &probe
	}
	s, err := a.Store.RecordAttempt(ctx, ref, rec)
	if err != nil {
		return attemptResult{}, store.Settled{}, wrap(err, "record attempt")
	}
	out.next = s.NextAttemptAt
	return out, s, nil
}

// settled reports a delivery that is already final.
func (a *Activities) settled(ctx context.Context, ref webhook.Ref, d store.Delivery) (DeliverResult, error) {
	out, err := a.finish(ctx, ref, d.Status) // changes nothing; finds the next in line
	out.Attempts, out.Status = d.Attempts, d.Status
	switch d.Status {
	case webhook.Delivered:
		out.Outcome = OutcomeDelivered
	case webhook.Failed:
		out.Outcome = OutcomeFailed
	}
	return out, err
}

func (a *Activities) finish(ctx context.Context, ref webhook.Ref, st webhook.Status) (DeliverResult, error) {
	s, err := a.Store.FinishDelivery(ctx, ref, st)
	if err != nil {
		return DeliverResult{}, wrap(err, "finish delivery")
	}
	return DeliverResult{Outcome: OutcomeEnded, Status: st, Next: s.Next}, nil
}

// WakeInput names a recovered endpoint.
type WakeInput struct {
	Delivery webhook.Ref // the delivery that found it back up
}

// WakeResult counts the deliveries woken.
type WakeResult struct {
	Woken int
}

// SignalWake is the signal that makes a waiting delivery look again: its
// turn came (Wake.Now false), or its endpoint is back (Now true: retry
// without waiting for the schedule).
const SignalWake = "wake"

// Wake is the wake signal's payload.
type Wake struct {
	Now bool
}

// WakeEndpoint wakes every delivery of a recovered endpoint that waits to
// retry, so a backlog drains when the receiver is back rather than on each
// delivery's own schedule.
func (a *Activities) WakeEndpoint(ctx context.Context, in WakeInput) (WakeResult, error) {
	if a.Webhooks == nil || a.Webhooks.Signaler == nil {
		return WakeResult{}, nil
	}
	refs, err := a.Store.RetryingDeliveries(ctx, in.Delivery.TenantID, in.Delivery.EndpointID)
	if err != nil {
		return WakeResult{}, wrap(err, "waiting deliveries")
	}
	var (
		mu    sync.Mutex
		woken int
		wg    sync.WaitGroup
		sem   = make(chan struct{}, 8)
	)
	for _, r := range refs {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			// A delivery that ended meanwhile is not found: nothing to wake.
			if a.Webhooks.Signaler.SignalWorkflow(ctx, r.WorkflowID(), "", SignalWake, Wake{Now: true}) == nil {
				mu.Lock()
				woken++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return WakeResult{}, fmt.Errorf("wake endpoint: %w", err)
	}
	return WakeResult{Woken: woken}, nil
}
