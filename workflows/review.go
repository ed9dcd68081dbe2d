package workflows

import (
	"maps"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/kycflow/kycflow/activities"
	"github.com/kycflow/kycflow/check"
)

// The review of an aml check's alerting hits: the API sends each review as
// an Update (validated before it is accepted, answered once recorded); the
// Temporal UI may send the same payload as a signal. Either names the
// review's submission in PostgreSQL and who it is by, in ids
// (check.ReviewUpdate): the notes and names never reach the history, and
// a payload whose submission is not its own is rejected when recorded.
const (
	UpdateReview = "review"
	SignalReview = "review"
	// reviewByID is the change that made reviews ids (GetVersion): a
	// check that reached its review before it also takes reviews of
	// before, by name.
	reviewByID = "review-by-id"
	// ErrTypeReviewRejected is the type of a rejected review's error; its
	// details are the check.ReviewProblems.
	ErrTypeReviewRejected = "ReviewRejected"
)

// ReviewUpdateResult is the review update's answer: the check afterwards,
// and the entities whose pending decision the review approved.
type ReviewUpdateResult struct {
	Status    check.Status
	Validated *bool
	Approved  []string `json:",omitempty"`
}

// review is an aml check waiting for decisions on its alerting hits.
type review struct {
	st       *state
	alerting []string // entity ids of the hits to decide
	decided  []string // decided, or being recorded by a review in flight
	// Four eyes: a decision is pending until another reviewer makes the
	// same one; proposed are the pending ones by entity id.
	fourEyes bool
	proposed map[string]check.Proposal
	closed   bool // expired or ended: no review is accepted
	// legacy: the check reached its review before reviews were by id, so
	// a review by name (recorded then) is taken too.
	legacy bool
	result *activities.CheckResult
}

// awaitReview waits in awaiting_review (the screening set it) until every
// alerting hit is decided (the check completes) or the review window ends
// (expired, hits kept); cancellation ends it too.
func awaitReview(ctx workflow.Context, st *state, screened activities.CheckResult) (activities.CheckResult, error) {
	legacy := workflow.GetVersion(ctx, reviewByID, workflow.DefaultVersion, 1) == workflow.DefaultVersion
	if err := st.show(ctx, check.AwaitingReview); err != nil {
		return activities.CheckResult{}, err
	}
	r := &review{st: st, alerting: screened.Alerting, fourEyes: screened.FourEyes, proposed: map[string]check.Proposal{}, legacy: legacy}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateReview,
		func(ctx workflow.Context, req check.ReviewUpdate) (ReviewUpdateResult, error) {
			return r.apply(ctx, req)
		},
		workflow.UpdateHandlerOptions{Validator: func(_ workflow.Context, req check.ReviewUpdate) error { return rejection(r.problems(req)) }},
	); err != nil {
		return activities.CheckResult{}, err
	}
	signals := workflow.GetSignalChannel(ctx, SignalReview)
	deadline := workflow.Now(ctx).Add(screened.ReviewWindow)
	for r.result == nil {
		left := deadline.Sub(workflow.Now(ctx))
		ok, err := workflow.AwaitWithTimeout(ctx, max(left, time.Millisecond), func() bool { return r.result != nil || signals.Len() > 0 })
		if err != nil {
			return activities.CheckResult{}, temporal.NewCanceledError()
		}
		if signals.Len() > 0 {
			var req check.ReviewUpdate
			signals.Receive(ctx, &req)
			if ps := r.problems(req); len(ps) > 0 {
				workflow.GetLogger(ctx).Warn("review signal rejected", "Problem", ps.Error())
				continue
			}
			if _, err := r.apply(ctx, req); isType(err, ErrTypeReviewRejected) {
				workflow.GetLogger(ctx).Warn("review signal rejected", "Problem", err.Error())
			} else if err != nil {
				return activities.CheckResult{}, err
			}
			continue
		}
		if !ok && r.result == nil {
			r.closed = true
			// A review accepted before the window ended is recorded first.
			if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
				return activities.CheckResult{}, temporal.NewCanceledError()
			}
			if r.result != nil {
				break
			}
			if _, err := st.transition(ctx, check.Expired, []check.Status{check.AwaitingReview}, nil); err != nil {
				return activities.CheckResult{}, err
			}
			return activities.CheckResult{Status: st.status}, nil
		}
	}
	r.closed = true
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
		return activities.CheckResult{}, temporal.NewCanceledError()
	}
	return *r.result, nil
}

// problems are why a review cannot be applied now.
func (r *review) problems(req check.ReviewUpdate) check.ReviewProblems {
	if ps := req.Problems(r.st.in.Check.Type, r.legacy); len(ps) > 0 {
		return ps
	}
	return req.Against(!r.closed && r.result == nil, r.alerting, r.decided, r.proposed)
}

// apply records an accepted review. The hits are marked decided at once,
// so a concurrent review of the same hit is rejected while this one is
// being recorded.
func (r *review) apply(ctx workflow.Context, req check.ReviewUpdate) (ReviewUpdateResult, error) {
	if ps := r.problems(req); len(ps) > 0 { // accepted, but overtaken by another review
		return ReviewUpdateResult{}, rejection(ps)
	}
	before, decided := maps.Clone(r.proposed), len(r.decided)
	for _, d := range req.Decisions {
		p, pending := r.proposed[d.EntityID]
		switch {
		case !r.fourEyes, pending && p.Decision == d.Decision: // in force (approved, under four eyes)
			r.decided = append(r.decided, d.EntityID)
			delete(r.proposed, d.EntityID)
		default: // pending, for another reviewer to approve
			r.proposed[d.EntityID] = check.Proposal{Decision: d.Decision, By: req.By, Legacy: req.Legacy}
		}
	}
	var res activities.ReviewResult
	err := workflow.ExecuteLocalActivity(workflow.WithLocalActivityOptions(ctx, storeOptions), a.RecordReview,
		activities.ReviewInput{Check: r.st.in.Check, Review: req, DecidedAt: workflow.Now(ctx), FourEyes: r.fourEyes}).Get(ctx, &res)
	if err == nil && res.Rejected != "" { // not the review its submission is: nothing recorded
		err = rejection(check.ReviewProblems{{Field: "reviewer", Message: res.Rejected}})
	} else if err == nil && r.fourEyes {
		err = workflow.UpsertMemo(ctx, map[string]any{"AwaitingApproval": len(r.proposed)})
	}
	if err != nil {
		r.decided, r.proposed = r.decided[:decided], before
		if isType(err, activities.ErrTypeGone) {
			r.result = &activities.CheckResult{Status: check.Cancelled}
		}
		return ReviewUpdateResult{}, err
	}
	if res.Status != check.AwaitingReview {
		r.result = &activities.CheckResult{Status: res.Status, Validated: res.Validated}
	}
	return ReviewUpdateResult{Status: res.Status, Validated: res.Validated, Approved: res.Approved}, nil
}

// rejection is the error a rejected review answers with.
func rejection(ps check.ReviewProblems) error {
	if len(ps) == 0 {
		return nil
	}
	return temporal.NewApplicationErrorWithOptions(ps.Error(), ErrTypeReviewRejected,
		temporal.ApplicationErrorOptions{NonRetryable: true, Details: []any{ps}})
}
