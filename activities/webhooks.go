package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
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

// SignalWake is the signal that makes a waiting delivery look again: the
// delivery before it in its subject's line settled (Wake.Now false), or
// its endpoint is back (Now true: retry without waiting for the schedule).
const SignalWake = "wake"

// Wake is the wake signal's payload.
type Wake struct {
	Now bool
}

// ErrTypeWebhooksNotConfigured: this worker has no WEBHOOK_SECRET_KEY.
const ErrTypeWebhooksNotConfigured = "WebhooksNotConfigured"

// Bounds of one step.
const (
	// drainMax and stepBudget bound the deliveries one step sends after a
	// success, and how long it goes on: the rest is the next step's.
	drainMax   = 20
	stepBudget = 5 * time.Second
	// dueBatch is how many pending deliveries a dispatch step claims at
	// once, and sendConcurrency how many of them it sends at a time.
	dueBatch        = 32
	sendConcurrency = 8
)

// blockedPoll is how often a delivery waiting in line looks again should
// its wake signal be lost; the signal is the usual way on.
const blockedPoll = 30 * time.Minute

// DispatchInput names an endpoint whose pending deliveries are to go.
type DispatchInput struct {
	TenantID   uuid.UUID
	EndpointID uuid.UUID
	Schedule   webhook.Schedule
}

// DispatchResult says what a dispatch step did.
type DispatchResult struct {
	Sent int
	// More: the step stopped at its budget with deliveries still due.
	More bool
	// Recovered: the endpoint was failing and answered again; its waiting
	// deliveries should be woken.
	Recovered bool
}

// Dispatch sends an endpoint's pending deliveries: the heads of their
// subjects' lines, several at a time, each followed by the line behind it
// while the receiver answers. A delivery whose first attempt fails is
// handed to a workflow of its own (DeliveryWorkflow), which retries it on
// the schedule. So a receiver that answers costs no workflow per event.
func (a *Activities) Dispatch(ctx context.Context, in DispatchInput) (DispatchResult, error) {
	var out DispatchResult
	deadline := time.Now().Add(stepBudget)
	for time.Now().Before(deadline) {
		claims, err := a.Store.ClaimDue(ctx, in.TenantID, in.EndpointID, dueBatch, a.lease())
		if err != nil {
			return out, wrap(err, "claim due deliveries")
		}
		if len(claims) == 0 {
			return out, nil
		}
		var (
			mu    sync.Mutex
			wg    sync.WaitGroup
			sem   = make(chan struct{}, sendConcurrency)
			first error
		)
		for _, c := range claims {
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				line, err := a.sendLine(ctx, c, in.Schedule, true, deadline)
				mu.Lock()
				defer mu.Unlock()
				out.Sent += line.sent
				out.Recovered = out.Recovered || line.recovered
				if err != nil && first == nil {
					first = err
				}
			}()
		}
		wg.Wait()
		if first != nil {
			return out, first
		}
	}
	out.More = true
	return out, nil
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

// DeliverInput is one step of a delivery's workflow. Now: try even if the
// next attempt is not due (the endpoint is back).
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
	// Recovered: the endpoint was failing and this attempt succeeded; its
	// waiting deliveries should be woken.
	Recovered bool
}

// Deliver is the step of a delivery's workflow (a delivery whose first
// attempt failed): an attempt when it is due and its turn, then, on
// success, the line behind it. Idempotent: a settled delivery is
// reported, never sent again; an attempt holds its delivery (a claim in
// the store) so no two run at once.
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
	out := DeliverResult{Attempts: c.Delivery.Attempts, Status: c.Delivery.Status}
	switch c.State {
	case store.Final, store.Orphaned:
		// Settled (by this step before a crash, or by a dispatcher's line),
		// or its endpoint disabled: end it, and hand the line on again (a
		// crash may have come between the two).
		st := c.Delivery.Status
		if c.State == store.Orphaned {
			st = webhook.Cancelled
		}
		s, err := a.Store.FinishDelivery(ctx, ref, st)
		if err != nil {
			return DeliverResult{}, wrap(err, "finish delivery")
		}
		out.Outcome, out.Status = OutcomeEnded, st
		switch st {
		case webhook.Delivered:
			out.Outcome = OutcomeDelivered
		case webhook.Failed:
			out.Outcome = OutcomeFailed
		}
		return out, a.handOn(ctx, s)
	case store.Blocked:
		out.Outcome, out.Status, out.Until = OutcomeWait, webhook.Pending, now.Add(blockedPoll)
		return out, nil
	case store.Busy:
		out.Outcome, out.Until = OutcomeWait, c.Until
		return out, nil
	}
	if at := c.Delivery.NextAttemptAt; c.Delivery.Status == webhook.Retrying && at != nil && at.After(now) && !in.Now {
		if err := a.Store.Release(ctx, ref); err != nil {
			return DeliverResult{}, wrap(err, "release delivery")
		}
		out.Outcome, out.Until = OutcomeWait, *at
		return out, nil
	}
	line, err := a.sendLine(ctx, c, in.Schedule, false, now.Add(stepBudget))
	if err != nil {
		return DeliverResult{}, err
	}
	out.Attempts, out.Status, out.Recovered = c.Delivery.Attempts+1, line.status, line.recovered
	switch line.status {
	case webhook.Retrying:
		out.Outcome, out.Until = OutcomeWait, *line.next
	case webhook.Failed:
		out.Outcome = OutcomeFailed
	default:
		out.Outcome = OutcomeDelivered
	}
	return out, nil
}

// lineResult is what sendLine did.
type lineResult struct {
	status    webhook.Status // of the first delivery
	next      *time.Time     // its next attempt, when retrying
	sent      int            // deliveries delivered
	recovered bool
}

// sendLine attempts a claimed delivery and, while the receiver answers 2xx
// and the budget lasts, the pending deliveries behind it in its subject's
// line, in order; then hands the line on (handOn). adopt: the first
// delivery belongs to the dispatcher (a failure hands it to a workflow).
func (a *Activities) sendLine(ctx context.Context, c store.Claim, sched webhook.Schedule, adopt bool, deadline time.Time) (lineResult, error) {
	res, s, err := a.attempt(ctx, c, sched, adopt)
	if err != nil {
		return lineResult{}, err
	}
	out := lineResult{status: res.status, next: res.next, recovered: s.Recovered}
	for res.status == webhook.Delivered {
		out.sent++
		if s.Claimed == nil {
			break // nothing pending behind it, or another step holds it
		}
		if out.sent > drainMax || !time.Now().Before(deadline) {
			// The rest is the dispatcher's (handOn).
			if err := a.Store.Release(ctx, s.Claimed.Delivery.Ref()); err != nil {
				return out, wrap(err, "release delivery")
			}
			break
		}
		if res, s, err = a.attempt(ctx, *s.Claimed, sched, true); err != nil {
			return out, err
		}
	}
	return out, a.handOn(ctx, s)
}

// handOn passes the line to the delivery now at its head: a pending one to
// the dispatcher, a retrying one to its workflow (at once: the receiver
// just answered, or the one before it is settled for good).
func (a *Activities) handOn(ctx context.Context, s store.Settled) error {
	switch {
	case s.Next == nil:
		return nil
	case s.NextStatus == webhook.Pending:
		return wrap(a.Store.Announce(ctx, *s.Next), "hand the line to the dispatcher")
	case a.Webhooks != nil && a.Webhooks.Signaler != nil:
		// A workflow that ended meanwhile is not found: nothing to wake.
		_ = a.Webhooks.Signaler.SignalWorkflow(ctx, s.Next.WorkflowID(), "", SignalWake, Wake{Now: true})
	}
	return nil
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
// retrying at the schedule's next time (or sooner, to probe a failing
// endpoint), or failed when past the window (or on 410).
func (a *Activities) attempt(ctx context.Context, c store.Claim, sched webhook.Schedule, adopt bool) (attemptResult, store.Settled, error) {
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
		EventType: string(c.Event.Type), Body: body.Bytes(), Secrets: secrets, Sandbox: c.Endpoint.Sandbox})
	if ctx.Err() != nil {
		// The worker is stopping: let go at once (the step is retried, by
		// this worker or another) rather than when the hold runs out.
		if err := a.Store.Release(context.WithoutCancel(ctx), ref); err != nil {
			return attemptResult{}, store.Settled{}, errors.Join(ctx.Err(), err)
		}
		return attemptResult{}, store.Settled{}, ctx.Err()
	}
	rec := store.AttemptRecord{Attempt: res, At: at, Adopt: adopt, ClaimNext: a.lease()}
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
	a.Metrics.Delivered(out.status)
	out.next = s.NextAttemptAt
	return out, s, nil
}

// WakeInput names a recovered endpoint.
type WakeInput struct {
	TenantID   uuid.UUID
	EndpointID uuid.UUID
}

// WakeResult counts the deliveries woken.
type WakeResult struct {
	Woken int
}

// WakeEndpoint wakes every delivery of a recovered endpoint that waits to
// retry, so a backlog drains when the receiver is back rather than on each
// delivery's own schedule.
func (a *Activities) WakeEndpoint(ctx context.Context, in WakeInput) (WakeResult, error) {
	if a.Webhooks == nil || a.Webhooks.Signaler == nil {
		return WakeResult{}, nil
	}
	refs, err := a.Store.RetryingDeliveries(ctx, in.TenantID, in.EndpointID)
	if err != nil {
		return WakeResult{}, wrap(err, "waiting deliveries")
	}
	var (
		mu    sync.Mutex
		woken int
		wg    sync.WaitGroup
		sem   = make(chan struct{}, sendConcurrency)
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
