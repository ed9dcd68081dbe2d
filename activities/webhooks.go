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
	// OutcomeRetry: the attempt failed; the next is due at RetryAt.
	OutcomeRetry Outcome = "retry"
	// OutcomeFailed: the attempt failed and the window is over, or the
	// receiver answered 410 (and the endpoint is disabled).
	OutcomeFailed Outcome = "failed"
	// OutcomeBlocked: an earlier delivery of the same subject to the
	// endpoint is still open; nothing was sent.
	OutcomeBlocked Outcome = "blocked"
	// OutcomeEnded: the delivery, its endpoint or its event is gone, or
	// the endpoint is disabled; nothing was sent.
	OutcomeEnded Outcome = "ended"
)

// DeliverInput is one delivery step. RetryAt is when the next attempt
// would be, should this one fail; nil when the window ends first.
type DeliverInput struct {
	Delivery webhook.Ref
	RetryAt  *time.Time
}

// DeliverResult tells the workflow what happened; no personal data, no
// receiver's answer (that is in the store).
type DeliverResult struct {
	Outcome    Outcome
	StatusCode int
	// Next is the delivery that waited behind this one, to wake.
	Next *webhook.Ref
	// Recovered: the endpoint was failing and this attempt succeeded; its
	// waiting deliveries should be woken.
	Recovered bool
}

// ErrTypeWebhooksNotConfigured: this worker has no WEBHOOK_SECRET_KEY.
const ErrTypeWebhooksNotConfigured = "WebhooksNotConfigured"

// Deliver makes one attempt at a delivery, unless it must wait behind an
// earlier one or has nothing left to do. Idempotent: a delivery already
// settled (a retried step) is reported, not sent again.
func (a *Activities) Deliver(ctx context.Context, in DeliverInput) (DeliverResult, error) {
	ref := in.Delivery
	w, err := a.Store.LoadDelivery(ctx, ref)
	if errors.Is(err, store.ErrNotFound) {
		return DeliverResult{Outcome: OutcomeEnded}, nil // endpoint deleted, or event pruned
	}
	if err != nil {
		return DeliverResult{}, wrap(err, "load delivery")
	}
	switch st := w.Delivery.Status; {
	case st.Final():
		return a.settled(ctx, ref, st)
	case w.Endpoint == nil || w.Endpoint.DisabledAt != nil:
		return a.finish(ctx, ref, webhook.Cancelled)
	case w.Blocked:
		return DeliverResult{Outcome: OutcomeBlocked}, nil
	}
	hooks := a.Webhooks
	if hooks == nil || hooks.Cipher == nil || hooks.Sender == nil {
		return DeliverResult{}, temporal.NewApplicationError("webhooks are not configured on this worker (WEBHOOK_SECRET_KEY)", ErrTypeWebhooksNotConfigured)
	}
	at := time.Now()
	var secrets [][]byte
	for _, sealed := range w.Endpoint.Secrets(at) {
		s, err := hooks.Cipher.Open(sealed, w.Endpoint.ID.String())
		if err != nil {
			return DeliverResult{}, temporal.NewApplicationError(err.Error(), ErrTypeWebhooksNotConfigured)
		}
		secrets = append(secrets, []byte(s))
	}
	var body bytes.Buffer
	if err := json.Compact(&body, w.Event.Body); err != nil {
		return DeliverResult{}, temporal.NewNonRetryableApplicationError("event "+ref.EventID.String()+" is not JSON", "BadEvent", err)
	}
	res := hooks.Sender.Send(ctx, webhook.Message{URL: w.Endpoint.URL, EventID: w.Event.ID.String(),
		EventType: string(w.Event.Type), Body: body.Bytes(), Secrets: secrets})
	if ctx.Err() != nil {
		return DeliverResult{}, ctx.Err() // the worker is stopping: the attempt did not happen as far as anyone knows
	}
	rec := store.AttemptRecord{Attempt: res, At: at}
	out := DeliverResult{StatusCode: res.StatusCode}
	switch {
	case res.OK:
		rec.Status, out.Outcome = webhook.Delivered, OutcomeDelivered
	case res.Gone || in.RetryAt == nil:
		rec.Status, out.Outcome = webhook.Failed, OutcomeFailed
	default:
		rec.Status, rec.NextAttemptAt, out.Outcome = webhook.Retrying, in.RetryAt, OutcomeRetry
	}
	s, err := a.Store.RecordAttempt(ctx, ref, rec)
	if err != nil {
		return DeliverResult{}, wrap(err, "record attempt")
	}
	if !s.Applied {
		// Settled meanwhile by a copy of this step (a retry after a lost
		// answer): report what the store holds.
		w, err := a.Store.LoadDelivery(ctx, ref)
		if err != nil {
			return DeliverResult{}, wrap(err, "reload delivery")
		}
		return a.settled(ctx, ref, w.Delivery.Status)
	}
	out.Next, out.Recovered = s.Next, s.Recovered
	return out, nil
}

// settled reports a delivery that is already final.
func (a *Activities) settled(ctx context.Context, ref webhook.Ref, st webhook.Status) (DeliverResult, error) {
	out, err := a.finish(ctx, ref, st) // changes nothing; finds the next in line
	switch st {
	case webhook.Delivered:
		out.Outcome = OutcomeDelivered
	case webhook.Failed:
		out.Outcome = OutcomeFailed
	}
	return out, err
}

// FinishDeliveryInput ends a delivery that will not be attempted again.
type FinishDeliveryInput struct {
	Delivery webhook.Ref
	Status   webhook.Status
}

// FinishDelivery ends a delivery (its window over while it waited in line).
func (a *Activities) FinishDelivery(ctx context.Context, in FinishDeliveryInput) (DeliverResult, error) {
	return a.finish(ctx, in.Delivery, in.Status)
}

func (a *Activities) finish(ctx context.Context, ref webhook.Ref, st webhook.Status) (DeliverResult, error) {
	s, err := a.Store.FinishDelivery(ctx, ref, st)
	if err != nil {
		return DeliverResult{}, wrap(err, "finish delivery")
	}
	return DeliverResult{Outcome: OutcomeEnded, Next: s.Next}, nil
}

// WakeInput names a recovered endpoint.
type WakeInput struct {
	Delivery webhook.Ref // the delivery that found it back up
}

// WakeResult counts the deliveries woken.
type WakeResult struct {
	Woken int
}

// SignalWake is the signal that makes a waiting delivery try now: its
// turn came, or its endpoint is back.
const SignalWake = "wake"

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
			if a.Webhooks.Signaler.SignalWorkflow(ctx, r.WorkflowID(), "", SignalWake, nil) == nil {
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
