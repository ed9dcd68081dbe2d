package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/metrics"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/webhook"
	"github.com/kycflow/kycflow/workflows"
)

// Relay carries committed outbox rows to Temporal: workflow starts,
// cancellations and retry signals. It wakes on the outbox NOTIFY and sweeps
// periodically as a backstop; several relays may run at once.
type Relay struct {
	Store       *store.Store
	Client      client.Client
	Logger      *slog.Logger
	Concurrency int           // Temporal calls in flight; default 2
	Batch       int           // rows claimed per transaction; default 64
	Sweep       time.Duration // backstop poll; default 1s
	CallTimeout time.Duration // per Temporal call; default 5s
	// Retry goes into every workflow started: how provider steps retry.
	Retry workflows.ProviderRetry
	// DeliverySchedule goes into every delivery workflow; nil: the
	// default (tests shorten it).
	DeliverySchedule *webhook.Schedule
	// Metrics counts what the relay carried and what failed; nil: none.
	Metrics *metrics.Metrics
}

func (r *Relay) defaults() {
	if r.Concurrency <= 0 {
		r.Concurrency = 2
	}
	if r.Batch <= 0 {
		r.Batch = 64
	}
	if r.Sweep <= 0 {
		r.Sweep = time.Second
	}
	if r.CallTimeout <= 0 {
		r.CallTimeout = 5 * time.Second
	}
	if r.Logger == nil {
		r.Logger = slog.Default()
	}
}

// Run relays until ctx ends.
func (r *Relay) Run(ctx context.Context) error {
	r.defaults()
	var wake <-chan struct{}
	l, err := r.Store.Listen(func(err error) { r.Logger.Warn("outbox listener", "error", err) })
	if err != nil {
		r.Logger.Warn("outbox listener unavailable, sweeping only", "error", err)
	} else {
		defer l.Close()
		ch := make(chan struct{}, 1)
		go func() {
			for range l.Notify { // nil notifications (reconnects) wake us too
				select {
				case ch <- struct{}{}:
				default:
				}
			}
		}()
		wake = ch
	}
	tick := time.NewTicker(r.Sweep)
	defer tick.Stop()
	for {
		r.announce(ctx)
		r.drain(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		case <-tick.C:
		}
	}
}

// announce wakes the dispatchers of endpoints with new deliveries, one
// signal per endpoint, until none are left.
func (r *Relay) announce(ctx context.Context) {
	for ctx.Err() == nil {
		n, err := r.Store.AnnounceDeliveries(ctx, 500, func(tenantID, endpointID uuid.UUID) error {
			cctx, cancel := context.WithTimeout(ctx, r.CallTimeout)
			defer cancel()
			ep := webhook.Ref{TenantID: tenantID, EndpointID: endpointID}
			id := workflows.DispatcherID(endpointID.String())
			// Signal the running dispatcher, or start one.
			_, err := r.Client.SignalWithStartWorkflow(cctx, id, workflows.SignalDispatch, nil,
				webhookOptions(ep, id, webhook.Pending), workflows.DispatchWorkflow,
				workflows.DispatchInput{Endpoint: ep, Schedule: r.DeliverySchedule})
			return err
		})
		if err != nil {
			if ctx.Err() == nil {
				r.Logger.Warn("announce webhook deliveries", "woken", n, "error", err)
			}
			return // the rest on the next wake or sweep
		}
		if n == 0 {
			return
		}
	}
}

// drain relays full batches until the outbox has nothing due.
func (r *Relay) drain(ctx context.Context) {
	for ctx.Err() == nil {
		start := time.Now()
		n, err := r.Store.RelayBatch(ctx, r.Batch, r.deliver(ctx), backoff)
		if n > 0 {
			r.Logger.Debug("relayed", "delivered", n, "duration_ms", time.Since(start).Milliseconds())
		}
		if err != nil {
			if ctx.Err() == nil {
				r.Logger.Warn("outbox relay", "error", err)
			}
			return
		}
		if n < r.Batch {
			return
		}
	}
}

// backoff is short and capped low: a failing batch costs one Temporal call
// (see deliver), and a check must start soon after Temporal is back.
func backoff(attempts int) time.Duration {
	d := 250 * time.Millisecond << min(attempts, 5)
	return min(d, 5*time.Second)
}

// deliver sends a batch to Temporal concurrently; actions on one check keep
// their order (a start before its cancel).
func (r *Relay) deliver(ctx context.Context) func([]store.OutboxItem) []bool {
	return func(items []store.OutboxItem) []bool {
		ok := make([]bool, len(items))
		byCheck := map[string][]int{}
		var order []string
		for i, it := range items {
			k := it.Key()
			if _, seen := byCheck[k]; !seen {
				order = append(order, k)
			}
			byCheck[k] = append(byCheck[k], i)
		}
		// After the first failure the rest of the batch is not tried: when
		// Temporal is down every call would wait out its timeout while this
		// batch's rows stay locked.
		var broken atomic.Bool
		sem := make(chan struct{}, r.Concurrency)
		var wg sync.WaitGroup
		for _, k := range order {
			sem <- struct{}{}
			wg.Add(1)
			go func(idx []int) {
				defer func() { <-sem; wg.Done() }()
				for _, i := range idx {
					if broken.Load() {
						return
					}
					err := r.send(ctx, items[i])
					r.Metrics.Relayed(items[i].Action, err)
					if err != nil {
						broken.Store(true)
						r.Logger.Warn("relay to temporal", "action", items[i].Action, "key", items[i].Key(), "attempts", items[i].Attempts, "error", err)
						return // later actions of this check wait for this one
					}
					ok[i] = true
				}
			}(byCheck[k])
		}
		wg.Wait()
		return ok
	}
}

func (r *Relay) send(ctx context.Context, it store.OutboxItem) error {
	ctx, cancel := context.WithTimeout(ctx, r.CallTimeout)
	defer cancel()
	id := workflows.WorkflowID(it.Ref.CheckID)
	in := workflows.CheckInput{Check: it.Ref, Retry: r.Retry}
	switch it.Action {
	case store.ActionStart:
		opts := startOptions(it.Ref, enums.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE)
		// The relay shares its client with a worker on the same task queue, so
		// the server can hand the first workflow task straight back to it,
		// skipping task-queue matching (latency and server work).
		opts.EnableEagerStart = true
		return r.start(ctx, opts, workflows.CheckWorkflow, in)
	case store.ActionCancel:
		err := r.Client.CancelWorkflow(ctx, id, "")
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return nil // never started or already closed
		}
		return err
	case store.ActionRetry:
		// Signal the waiting run, or start a new one when the wait is over.
		req := workflows.RetryRequest{ID: fmt.Sprintf("outbox-%d", it.ID)}
		_, err := r.Client.SignalWithStartWorkflow(ctx, id, workflows.SignalRetry, req,
			startOptions(it.Ref, enums.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE), workflows.CheckWorkflow, in)
		return err
	case store.ActionDeliver:
		d := it.Delivery
		opts := webhookOptions(d, d.WorkflowID(), webhook.Retrying)
		opts.WorkflowIDReusePolicy = enums.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE
		return r.start(ctx, opts, workflows.DeliveryWorkflow, workflows.DeliveryInput{Delivery: d, Schedule: r.DeliverySchedule})
	case store.ActionVerified, store.ActionDocument:
		signal := workflows.SignalVerification
		if it.Action == store.ActionDocument {
			signal = workflows.SignalDocument
		}
		err := r.Client.SignalWorkflow(ctx, id, "", signal, workflows.VerificationResult{ID: fmt.Sprintf("outbox-%d", it.ID)})
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return nil // the check ended meanwhile (expired, cancelled)
		}
		return err
	}
	r.Logger.Error("unknown outbox action dropped", "action", it.Action)
	return nil
}

// start starts a workflow once: a repeated start (the workflow exists or
// already ran) is done.
func (r *Relay) start(ctx context.Context, opts client.StartWorkflowOptions, wf, in any) error {
	_, err := r.Client.ExecuteWorkflow(ctx, opts, wf, in)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &started) {
		return nil
	}
	return err
}

// webhookOptions are the options webhook workflows start with: their
// tenant and endpoint, and their DeliveryStatus, for the Temporal UI.
func webhookOptions(d webhook.Ref, id string, status webhook.Status) client.StartWorkflowOptions {
	return client.StartWorkflowOptions{
		ID: id, TaskQueue: workflows.TaskQueue,
		TypedSearchAttributes: temporal.NewSearchAttributes(
			workflows.SATenantID.ValueSet(d.TenantID.String()),
			workflows.SAWebhookEndpointID.ValueSet(d.EndpointID.String()),
			workflows.SADeliveryStatus.ValueSet(string(status)),
		),
	}
}

// startOptions are the options every check workflow starts with.
func startOptions(ref check.Ref, reuse enums.WorkflowIdReusePolicy) client.StartWorkflowOptions {
	return client.StartWorkflowOptions{
		ID:                    workflows.WorkflowID(ref.CheckID),
		TaskQueue:             workflows.TaskQueue,
		WorkflowIDReusePolicy: reuse,
		TypedSearchAttributes: temporal.NewSearchAttributes(
			workflows.SATenantID.ValueSet(ref.TenantID.String()),
			workflows.SASubjectKind.ValueSet(string(ref.SubjectKind)),
			workflows.SASubjectID.ValueSet(ref.SubjectID.String()),
			workflows.SACheckType.ValueSet(string(ref.Type)),
			workflows.SACheckStatus.ValueSet(string(check.Queued)),
		),
	}
}
