package workflows

import (
	"errors"
	"slices"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/kycflow/kycflow/activities"
	"github.com/kycflow/kycflow/check"
)

// CheckInput is the workflow input: ids only, never personal data.
type CheckInput struct {
	Check check.Ref
	// Retry bounds the provider step's retries; zero fields take the
	// defaults. Set by the relay from the worker's configuration.
	Retry ProviderRetry
}

// ProviderRetry is how a provider step is retried through an outage:
// backoff from Initial doubling up to Maximum, for Window in all; then the
// check is `failed` with the provider's error and waits for support.
type ProviderRetry struct {
	Initial, Maximum, Window time.Duration
}

// Default provider retry: VIES member-state outages last hours, so retry
// for a day, at most every ten minutes.
const (
	DefaultRetryInitial = time.Second
	DefaultRetryMaximum = 10 * time.Minute
	DefaultRetryWindow  = 24 * time.Hour
)

// providerOptions are the options of a provider call (a regular activity).
// The heartbeat timeout notices a dead worker within seconds, so
// StartToClose can be generous: an attempt includes waiting for its turn
// under the worker's provider limits, which takes minutes in a burst.
func providerOptions(r ProviderRetry) workflow.ActivityOptions {
	if r.Initial <= 0 {
		r.Initial = DefaultRetryInitial
	}
	if r.Maximum <= 0 {
		r.Maximum = DefaultRetryMaximum
	}
	if r.Window <= 0 {
		r.Window = DefaultRetryWindow
	}
	return workflow.ActivityOptions{
		ScheduleToCloseTimeout: r.Window,
		StartToCloseTimeout:    15 * time.Minute,
		HeartbeatTimeout:       10 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: r.Initial, BackoffCoefficient: 2, MaximumInterval: r.Maximum,
			// The window bounds retries; the attempt cap only guards against
			// a provider's Retry-After hints turning them into a tight loop.
			MaximumAttempts:        10_000,
			NonRetryableErrorTypes: []string{activities.ErrTypeGone, activities.ErrTypeNotConfigured},
		},
	}
}

// CheckWorkflowResult is how the workflow ended.
type CheckWorkflowResult struct {
	Status    check.Status
	Validated *bool
}

// a is only used for method values: activities are registered on the worker
// and looked up by name, so the nil receiver is never called.
var a *activities.Activities

// CheckWorkflow runs one check to its end. When the provider step fails after
// its retries (or no provider exists for the type yet), the check is `failed`
// and the workflow waits up to RetryWindow for a `retry` signal, then tries
// again; waiting, it can still be cancelled, so CheckStatus follows a
// supersession or deletion.
func CheckWorkflow(ctx workflow.Context, in CheckInput) (CheckWorkflowResult, error) {
	st, err := newState(ctx, in)
	if err != nil {
		return CheckWorkflowResult{}, err
	}
	retries := &retryInbox{ch: workflow.GetSignalChannel(ctx, SignalRetry)}
	// A retry that started this run (signal-with-start) is answered by the run itself.
	retries.drain()
	ctx = workflow.WithLocalActivityOptions(ctx, storeOptions)

	for {
		applied, err := st.transition(ctx, check.Running, []check.Status{check.Queued, check.Failed}, nil)
		if err != nil {
			return st.end(ctx, err)
		}
		if !applied {
			// Already finished (a repeated start) or cancelled before it began.
			return CheckWorkflowResult{Status: st.status}, nil
		}

		out, err := runProvider(ctx, st)
		if err == nil {
			return CheckWorkflowResult{Status: out.Status, Validated: out.Validated}, st.show(ctx, out.Status)
		}
		if temporal.IsCanceledError(err) || isType(err, activities.ErrTypeGone) {
			return st.end(ctx, err)
		}

		workflow.GetLogger(ctx).Warn("check failed", "CheckType", in.Check.Type, "Error", err)
		applied, err = st.transition(ctx, check.Failed, []check.Status{check.Running}, checkError(err))
		if err != nil {
			return st.end(ctx, err)
		}
		if !applied { // cancelled meanwhile: the store has the last word
			return CheckWorkflowResult{Status: st.status}, nil
		}
		if !retries.wait(ctx) {
			if ctx.Err() != nil {
				return st.end(ctx, ctx.Err())
			}
			return CheckWorkflowResult{Status: st.status}, nil
		}
	}
}

// runProvider runs the check type's provider step: an offline local
// activity that may settle the check alone, then the provider call as a
// regular activity, retried durably through outages.
func runProvider(ctx workflow.Context, st *state) (activities.CheckResult, error) {
	in := st.in
	var out activities.CheckResult
	lctx := workflow.WithLocalActivityOptions(ctx, offlineOptions)
	switch in.Check.Type {
	case check.AML:
		err := workflow.ExecuteLocalActivity(lctx, a.AMLScreen, activities.AMLInput{Check: in.Check}).Get(ctx, &out)
		if err == nil && out.Status == check.AwaitingReview && len(out.Alerting) > 0 {
			return awaitReview(ctx, st, out)
		}
		return out, err
	case check.IDScan, check.IDIN:
		out, err := runLink(ctx, st)
		if err == nil && out.Status == check.AwaitingReview && len(out.Alerting) > 0 { // a selfie's face match for a person to decide
			return awaitReview(ctx, st, out)
		}
		return out, err
	case check.IBAN:
		err := workflow.ExecuteLocalActivity(lctx, a.IBANCheck, activities.IBANInput{Check: in.Check}).Get(ctx, &out)
		return out, err
	case check.CoC:
		return offlineThenProvider(ctx, in, a.CoCOffline, a.CoCCheck, activities.CoCInput{Check: in.Check})
	case check.VAT:
		return offlineThenProvider(ctx, in, a.VATOffline, a.VATCheck, activities.VATInput{Check: in.Check})
	default:
		return out, activities.NotConfigured("A provider", in.Check.Type)
	}
}

// offlineThenProvider runs the offline step as a local activity and, unless
// it settled the check, the provider call as a regular activity.
func offlineThenProvider[I any](ctx workflow.Context, in CheckInput, offline, provider any, input I) (activities.CheckResult, error) {
	var pre activities.OfflineResult
	err := workflow.ExecuteLocalActivity(workflow.WithLocalActivityOptions(ctx, offlineOptions), offline, input).Get(ctx, &pre)
	if err != nil || pre.Done {
		return pre.Result, err
	}
	var out activities.CheckResult
	err = workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, providerOptions(in.Retry)), provider, input).Get(ctx, &out)
	return out, err
}

// checkError is the `error` recorded when the provider step failed for good:
// the provider's own error when there is one.
func checkError(err error) *check.Error {
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) {
		switch appErr.Type() {
		case activities.ErrTypeNotConfigured:
			return &check.Error{Code: check.CodeProviderNotConfigured, Message: appErr.Message()}
		case activities.ErrTypeProvider:
			var ce check.Error
			if appErr.HasDetails() && appErr.Details(&ce) == nil && ce.Code != "" {
				if ce.Code == check.CodeProviderUnavailable {
					ce.Message += " Retries ran out; support can retry the check."
				}
				return &ce
			}
		}
	}
	var timeout *temporal.TimeoutError
	if errors.As(err, &timeout) {
		// The window ended between attempts: the last attempt's answer is in
		// its heartbeat details (activities.lastAnswer).
		var ce check.Error
		if timeout.HasLastHeartbeatDetails() && timeout.LastHeartbeatDetails(&ce) == nil && ce.Code != "" {
			ce.Message += " Retries ran out; support can retry the check."
			return &ce
		}
		return &check.Error{Code: check.CodeProviderUnavailable,
			Message: "The provider step did not finish within its retry window; support can retry the check."}
	}
	return &check.Error{Code: check.CodeRetriesExhausted, Message: "The provider step failed after its retries; support can retry the check."}
}

// retryInbox receives retry signals, ignoring requests already honoured.
type retryInbox struct {
	ch   workflow.ReceiveChannel
	seen []string // request ids; a slice, so replay order is deterministic
}

// take reports whether a received request is new, remembering it.
func (r *retryInbox) take(req RetryRequest) bool {
	if req.ID == "" {
		return true
	}
	if slices.Contains(r.seen, req.ID) {
		return false
	}
	r.seen = append(r.seen, req.ID)
	return true
}

// drain consumes every buffered signal, reporting whether any was new.
func (r *retryInbox) drain() bool {
	fresh := false
	var req RetryRequest
	for r.ch.ReceiveAsync(&req) {
		fresh = r.take(req) || fresh
		req = RetryRequest{}
	}
	return fresh
}

// wait blocks until a new retry request (true), or the retry window ends or
// the workflow is cancelled (false).
func (r *retryInbox) wait(ctx workflow.Context) bool {
	// Duplicates buffered while the last attempt ran are not new requests.
	r.drain()
	timerCtx, cancelTimer := workflow.WithCancel(ctx)
	defer cancelTimer()
	timer := workflow.NewTimer(timerCtx, RetryWindow)
	for {
		retried, expired := false, false
		sel := workflow.NewSelector(ctx)
		sel.AddReceive(r.ch, func(c workflow.ReceiveChannel, _ bool) {
			var req RetryRequest
			c.Receive(ctx, &req)
			retried = r.take(req)
		})
		sel.AddFuture(timer, func(workflow.Future) { expired = true })
		sel.Select(ctx)
		if ctx.Err() != nil {
			return false
		}
		if retried {
			return true
		}
		if expired {
			// A request that arrived with the timer still counts.
			return r.drain()
		}
	}
}

// end closes the workflow after cancellation or deletion: the store
// already says `cancelled` (or the rows are gone), so only the workflow's
// own status is brought in line.
func (s *state) end(ctx workflow.Context, err error) (CheckWorkflowResult, error) {
	if temporal.IsCanceledError(err) || ctx.Err() != nil {
		dctx, cancel := workflow.NewDisconnectedContext(ctx)
		defer cancel()
		// Whatever the store answers (the rows may be gone), cancelled it is.
		_, _ = s.write(dctx, check.Cancelled, check.Unfinished, nil)
		_ = s.show(dctx, check.Cancelled)
		return CheckWorkflowResult{Status: check.Cancelled}, nil
	}
	if isType(err, activities.ErrTypeGone) {
		return CheckWorkflowResult{Status: check.Cancelled}, s.show(ctx, check.Cancelled)
	}
	return CheckWorkflowResult{}, err
}

func isType(err error, typ string) bool {
	var appErr *temporal.ApplicationError
	return errors.As(err, &appErr) && appErr.Type() == typ
}

// Retry policies. A status write must land or the check would be stuck in
// its last status, so store writes retry through a database outage of up to
// a week. The iban step (whose only failure is the database too) retries for
// six hours, then the check is `failed` and waits for support. Both back off
// to one attempt a minute; past the SDK's local retry threshold the retries
// are durable timers in the workflow's history.
var (
	storeOptions = workflow.LocalActivityOptions{
		ScheduleToCloseTimeout: 7 * 24 * time.Hour,
		StartToCloseTimeout:    10 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: 200 * time.Millisecond, BackoffCoefficient: 2, MaximumInterval: time.Minute,
			NonRetryableErrorTypes: []string{activities.ErrTypeGone},
		},
	}
	offlineOptions = workflow.LocalActivityOptions{
		ScheduleToCloseTimeout: 6 * time.Hour,
		StartToCloseTimeout:    10 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: 200 * time.Millisecond, BackoffCoefficient: 2, MaximumInterval: time.Minute,
			NonRetryableErrorTypes: []string{activities.ErrTypeGone},
		},
	}
)
