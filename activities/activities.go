// Package activities holds the Temporal activities of check workflows: thin
// steps that load what they need from the store, call a provider, and write
// the outcome back. Provider answers are written here, not returned, so
// personal data never enters workflow history.
package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/metrics"
	"github.com/kycflow/kycflow/providers/idin"
	"github.com/kycflow/kycflow/providers/kvk"
	"github.com/kycflow/kycflow/providers/vies"
	"github.com/kycflow/kycflow/screening"
	"github.com/kycflow/kycflow/store"
)

// Activities holds the dependencies of every activity. A nil provider client
// means the provider is not configured: its checks fail with
// provider_not_configured and wait for support.
type Activities struct {
	Store *store.Store
	KvK   *kvk.Client
	VIES  *vies.Client
	// VIESRequester, when set, is sent with every consultation so VIES
	// returns a consultation number (requestIdentifier).
	VIESRequester *vies.Requester
	// Limits spaces provider calls; nil means no limits.
	Limits *Limits
	// Mailer sends verification links; nil: link checks of customers who
	// get mails fail with provider_not_configured.
	Mailer LinkMailer
	// PublicURL is where people open links: {PublicURL}/verify/{token}.
	PublicURL string
	// IDIN is the iDIN broker; nil: idin checks fail provider_not_configured.
	IDIN idin.Broker
	// Screener screens against the loaded watchlists; nil or no list
	// loaded: aml checks fail provider_not_configured.
	Screener screening.Screener
	// Webhooks signs and sends webhook deliveries; nil: they wait.
	Webhooks *Webhooks
	// Metrics counts status changes and deliveries; nil: none.
	Metrics *metrics.Metrics
	// Documents reads idscan photos; nil: uploads wait, failing the check
	// provider_not_configured.
	Documents *DocumentReader
}

// Error types of application errors the workflow acts on.
const (
	// ErrTypeGone: the check or its subject no longer exists (deleted).
	ErrTypeGone = "CheckGone"
	// ErrTypeProvider: a provider call failed; the error's details hold the
	// check.Error to record when the check fails.
	ErrTypeProvider = "ProviderError"
	// ErrTypeNotConfigured: the check type's provider is not configured.
	ErrTypeNotConfigured = check.CodeProviderNotConfigured
)

// ProviderError is a failed provider call as the workflow sees it: retried
// (after retryAfter when the provider said so) unless final. The message is
// written for tenants; the raw cause stays in the workflow history and logs.
func ProviderError(provider, code, message string, final bool, retryAfter time.Duration, cause error) error {
	ce := check.Error{Code: check.CodeProviderUnavailable, Message: message, Provider: provider, ProviderCode: code}
	if final {
		ce.Code = check.CodeProviderError
	}
	return temporal.NewApplicationErrorWithOptions(provider+" "+code+": "+message, ErrTypeProvider,
		temporal.ApplicationErrorOptions{NonRetryable: final, Cause: cause, Details: []any{ce}, NextRetryDelay: retryAfter})
}

// NotConfigured is the final error of a check whose provider (what) this
// worker has no configuration for: the check is failed, and support retries
// it once the provider is configured.
func NotConfigured(what string, checkType check.Type) error {
	return temporal.NewNonRetryableApplicationError(
		what+" is not configured on this worker, so "+string(checkType)+" checks cannot run; support can retry the check once it is.",
		ErrTypeNotConfigured, nil)
}

// heartbeat reports liveness every two seconds until stop is called, so a
// worker that dies during a provider call is noticed within the heartbeat
// timeout (and a cancelled check's call is abandoned) instead of after
// StartToClose. Each beat carries the provider's last answer from earlier
// attempts (see lastAnswer), so it survives into the next attempt.
func heartbeat(ctx context.Context) (stop func()) {
	if !activity.IsActivity(ctx) {
		return func() {}
	}
	prev, known := previousAnswer(ctx)
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(2 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				if known {
					activity.RecordHeartbeat(ctx, prev)
				} else {
					activity.RecordHeartbeat(ctx)
				}
			}
		}
	}()
	return func() { close(done) }
}

// previousAnswer is the provider's answer to an earlier attempt of this
// activity, kept in its heartbeat details.
func previousAnswer(ctx context.Context) (check.Error, bool) {
	var ce check.Error
	if !activity.IsActivity(ctx) || !activity.HasHeartbeatDetails(ctx) {
		return ce, false
	}
	if err := activity.GetHeartbeatDetails(ctx, &ce); err != nil || ce.Code == "" {
		return ce, false
	}
	return ce, true
}

// lastAnswer settles the error a provider activity returns, so that the
// check's recorded error names the provider's last answer whatever ended
// the retries (deferred with the activity's named error):
//   - a provider error is remembered in the heartbeat details, where the
//     next attempt and, after a timeout, the workflow find it;
//   - an attempt that failed otherwise — cut off by the end of the retry
//     window (its context's deadline, while waiting for its turn under the
//     limits or for the provider), a rate limiter that would wait past
//     that deadline, the database under load — reports the last answer of
//     an earlier attempt, or, at the deadline without one, that the
//     provider did not answer in time. The retry that may follow is the
//     same; only the error recorded if none follows names the provider.
//
// Cancellations and errors the workflow acts on (gone, not configured)
// pass through as they are, and so does any other error before the
// provider has answered once.
func lastAnswer(ctx context.Context, provider string, errp *error) {
	err := *errp
	if err == nil || !activity.IsActivity(ctx) {
		return
	}
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) {
		var ce check.Error
		if appErr.Type() == ErrTypeProvider && appErr.HasDetails() && appErr.Details(&ce) == nil {
			activity.RecordHeartbeat(ctx, ce)
		}
		return
	}
	if errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled) {
		return
	}
	ce, ok := previousAnswer(ctx)
	if !ok {
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return
		}
		ce = check.Error{Code: check.CodeProviderUnavailable, Message: "The provider did not answer in time.", Provider: provider, ProviderCode: "TIMEOUT"}
	}
	*errp = temporal.NewApplicationErrorWithOptions(ce.Provider+" "+ce.ProviderCode+": "+ce.Message, ErrTypeProvider,
		temporal.ApplicationErrorOptions{Cause: err, Details: []any{ce}})
}

// loadOpen loads a check that still needs its provider answer. done is true
// when the check has already finished or been cancelled: a retried attempt
// (say, after a worker died between the write and its report) then returns
// the recorded outcome without calling the provider again.
func (a *Activities) loadOpen(ctx context.Context, ref check.Ref) (cs store.CheckWithSubject, done bool, err error) {
	cs, err = a.Store.LoadCheck(ctx, ref)
	if err != nil {
		return cs, false, wrap(err, "load check")
	}
	switch cs.Check.Status {
	case check.Queued, check.Running, check.AwaitingInput:
		return cs, false, nil
	}
	return cs, true, nil
}

// recorded is the outcome of a check that was already finished.
func recorded(cs store.CheckWithSubject) CheckResult {
	return CheckResult{Status: cs.Check.Status, Validated: cs.Check.Validated}
}

// inReview is recorded for a step that may put its check in review:
// retried after it did, the result has the review's terms as the first
// try answered them, so that the workflow waits for the decisions.
func (a *Activities) inReview(ctx context.Context, cs store.CheckWithSubject) (CheckResult, error) {
	res := recorded(cs)
	if cs.Check.Status != check.AwaitingReview {
		return res, nil
	}
	alerting := []string{check.FaceMatchEntity}
	if cs.Check.Type == check.AML {
		var d check.AMLData
		if err := json.Unmarshal(cs.Check.Data, &d); err != nil {
			return CheckResult{}, fmt.Errorf("read aml data: %w", err)
		}
		alerting = d.Alerting()
	}
	return a.reviewTerms(ctx, cs.Check.TenantID, res, alerting)
}

// reviewTerms adds to res, a check now awaiting review, what is to be
// decided and how: the tenant's review window and four eyes.
func (a *Activities) reviewTerms(ctx context.Context, tenantID uuid.UUID, res CheckResult, alerting []string) (CheckResult, error) {
	set, err := a.Store.AMLSettings(ctx, tenantID)
	if err != nil {
		return CheckResult{}, wrap(err, "load review settings")
	}
	res.Alerting, res.ReviewWindow, res.FourEyes = alerting, set.ReviewWindow, set.FourEyes
	return res, nil
}

// SetStatusInput asks for a status change of a check.
type SetStatusInput struct {
	Check check.Ref
	// Status is the new status; From the statuses it may replace.
	Status check.Status
	From   []check.Status
	Error  *check.Error
}

// SetStatusResult tells whether the change took effect and the status now.
type SetStatusResult struct {
	Applied bool
	Status  check.Status
}

// SetStatus writes a status change (idempotent: see store.CheckUpdate).
func (a *Activities) SetStatus(ctx context.Context, in SetStatusInput) (SetStatusResult, error) {
	u := store.CheckUpdate{Status: in.Status, From: in.From}
	if in.Error != nil {
		b, err := json.Marshal(in.Error)
		if err != nil {
			return SetStatusResult{}, err
		}
		u.Error = b
	}
	applied, status, err := a.update(ctx, in.Check, u)
	if err != nil {
		return SetStatusResult{}, wrap(err, "set status")
	}
	return SetStatusResult{Applied: applied, Status: status}, nil
}

// update is every status change activities write: the store's, counted
// when the store applied it.
func (a *Activities) update(ctx context.Context, ref check.Ref, u store.CheckUpdate) (applied bool, status check.Status, err error) {
	applied, status, err = a.Store.UpdateCheck(ctx, ref, u)
	if err == nil && applied {
		a.Metrics.CheckMoved(ref.Type, u.Status, u.Validated)
	}
	return applied, status, err
}

// complete records a finished check with the provider's data.
func (a *Activities) complete(ctx context.Context, ref check.Ref, validated *bool, data any) (CheckResult, error) {
	return a.completeWith(ctx, ref, validated, data, nil, nil)
}

// completeWith records a finished check and, in the same transaction, what
// the provider told about the subject: an address, a verified identity.
func (a *Activities) completeWith(ctx context.Context, ref check.Ref, validated *bool, data any, addr *store.Address, id *store.Identity) (CheckResult, error) {
	return a.completeUpdate(ctx, ref, validated, data, store.CheckUpdate{Address: addr, Identity: id})
}

// completeUpdate is completeWith with any of the update's options (u's
// status, validity and data are set here).
func (a *Activities) completeUpdate(ctx context.Context, ref check.Ref, validated *bool, data any, u store.CheckUpdate) (CheckResult, error) {
	b, err := json.Marshal(data)
	if err != nil {
		return CheckResult{}, err
	}
	u.Status, u.From, u.Validated, u.Data = check.Completed, []check.Status{check.Running, check.AwaitingInput}, validated, b
	applied, status, err := a.update(ctx, ref, u)
	if err != nil {
		return CheckResult{}, wrap(err, "record result")
	}
	return CheckResult{Applied: applied, Status: status, Validated: validated}, nil
}

// CheckResult is what a provider activity tells the workflow: the verdict
// only, never the provider's data.
type CheckResult struct {
	Applied   bool
	Status    check.Status
	Validated *bool
	// Alerting, when an aml check awaits review, are the entity ids of the
	// hits to decide (list ids, nothing personal), and ReviewWindow how
	// long the check waits for the decisions.
	Alerting     []string      `json:",omitempty"`
	ReviewWindow time.Duration `json:",omitempty"`
	// FourEyes: each decision needs a second reviewer's approval (the
	// tenant's setting when the check was screened).
	FourEyes bool `json:",omitempty"`
}

// wrap names the step that failed (nil stays nil), marks a vanished check
// as final (nothing to retry) and keeps other errors retryable.
func wrap(err error, step string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, store.ErrNotFound) {
		return temporal.NewNonRetryableApplicationError(step+": check or subject deleted", ErrTypeGone, nil)
	}
	return fmt.Errorf("%s: %w", step, err)
}
