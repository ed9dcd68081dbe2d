package workflows

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/kycflow/kycflow/activities"
	"github.com/kycflow/kycflow/check"
)

// awaitingReview sets up an aml check whose screening alerts on entities,
// and a store that records reviews: the check completes once each of them
// is decided.
func (s *checkSuite) awaitingReview(window time.Duration, entities ...string) *[]check.ReviewDecision {
	s.in.Check.Type, s.in.Check.SubjectKind = check.AML, check.Customer
	s.storeAccepts()
	s.env.OnActivity(a.AMLScreen, mock.Anything, mock.Anything).Return(activities.CheckResult{
		Applied: true, Status: check.AwaitingReview, Alerting: entities, ReviewWindow: window}, nil)
	var recorded []check.ReviewDecision
	s.env.OnActivity(a.RecordReview, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.ReviewInput) (activities.ReviewResult, error) {
		recorded = append(recorded, in.Review.Decisions...)
		if len(recorded) < len(entities) {
			return activities.ReviewResult{Applied: true, Status: check.AwaitingReview}, nil
		}
		v := !slices.ContainsFunc(recorded, func(d check.ReviewDecision) bool { return d.Decision == check.TrueMatch })
		return activities.ReviewResult{Applied: true, Status: check.Completed, Validated: &v}, nil
	})
	return &recorded
}

// review sends a review update after delay; its outcome lands in *out
// (nil: completed, else the rejection or failure).
func (s *checkSuite) review(delay time.Duration, req check.ReviewRequest, out *error) {
	s.env.RegisterDelayedCallback(func() {
		s.env.UpdateWorkflow(UpdateReview, "", &testsuite.TestUpdateCallback{
			OnAccept:   func() {},
			OnReject:   func(err error) { *out = err },
			OnComplete: func(_ any, err error) { *out = err },
		}, req)
	}, delay)
}

func fp(entity string) check.ReviewDecision {
	return check.ReviewDecision{EntityID: entity, Decision: check.FalsePositive, Note: "Different birth date and nationality."}
}

// problemsOf reads the review problems a rejection carries.
func problemsOf(err error) check.ReviewProblems {
	var appErr *temporal.ApplicationError
	var ps check.ReviewProblems
	if errors.As(err, &appErr) && appErr.Type() == ErrTypeReviewRejected && appErr.HasDetails() {
		_ = appErr.Details(&ps)
	}
	return ps
}

func (s *checkSuite) TestReviewDecidesEachHitThenCompletes() {
	recorded := s.awaitingReview(30*24*time.Hour, "ofac-1", "un-2")
	var unknown, incomplete, first, again, last error = errors.New("unset"), errors.New("unset"), errors.New("unset"), errors.New("unset"), errors.New("unset")
	s.review(time.Hour, check.ReviewRequest{Reviewer: "A. Officer", Decisions: []check.ReviewDecision{fp("ofac-9")}}, &unknown)
	s.review(2*time.Hour, check.ReviewRequest{Reviewer: "A. Officer", Decisions: []check.ReviewDecision{{EntityID: "ofac-1", Decision: check.FalsePositive}}}, &incomplete)
	s.review(3*time.Hour, check.ReviewRequest{Reviewer: "A. Officer", Decisions: []check.ReviewDecision{fp("ofac-1")}}, &first)
	s.review(4*time.Hour, check.ReviewRequest{Reviewer: "B. Officer", Decisions: []check.ReviewDecision{fp("ofac-1")}}, &again)
	s.review(5*time.Hour, check.ReviewRequest{Reviewer: "A. Officer", Decisions: []check.ReviewDecision{{EntityID: "un-2", Decision: check.TrueMatch}}}, &last)
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)

	r := s.result()
	s.Equal(check.Completed, r.Status)
	s.Equal(false, *r.Validated)
	s.Equal([]check.Status{check.Running, check.AwaitingReview, check.Completed}, s.statuses)

	ps := problemsOf(unknown)
	s.Require().Len(ps, 1, "unknown entity: %v", unknown)
	s.False(ps.Conflict())
	s.Equal("decisions.0.entity_id", ps[0].Field)
	ps = problemsOf(incomplete)
	s.Require().Len(ps, 1, "false positive without a note: %v", incomplete)
	s.Equal("decisions.0.note", ps[0].Field)
	s.NoError(first)
	ps = problemsOf(again)
	s.Require().Len(ps, 1, "decided twice: %v", again)
	s.True(ps.Conflict())
	s.NoError(last)
	s.Equal([]check.ReviewDecision{fp("ofac-1"), {EntityID: "un-2", Decision: check.TrueMatch}}, *recorded)
}

// Two reviews of the same hit at the same moment: the first is recorded,
// the second rejected (the hit is reserved while the first is recorded).
func (s *checkSuite) TestConcurrentReviewsApplyOnce() {
	recorded := s.awaitingReview(time.Hour, "ofac-1")
	one, two := errors.New("unset"), errors.New("unset")
	req := check.ReviewRequest{Reviewer: "A. Officer", Decisions: []check.ReviewDecision{fp("ofac-1")}}
	s.env.RegisterDelayedCallback(func() {
		for _, out := range []*error{&one, &two} {
			s.env.UpdateWorkflow(UpdateReview, "", &testsuite.TestUpdateCallback{
				OnAccept: func() {}, OnReject: func(err error) { *out = err }, OnComplete: func(_ any, err error) { *out = err },
			}, req)
		}
	}, time.Minute)
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)
	r := s.result()
	s.Equal(check.Completed, r.Status)
	s.Equal(true, *r.Validated)
	s.Len(*recorded, 1)
	s.True((one == nil) != (two == nil), "exactly one review applies: %v, %v", one, two)
	s.True(problemsOf(errors.Join(one, two)).Conflict())
}

// Unreviewed, the check expires at the end of the tenant's window, its
// hits kept (the expiry writes only the status).
func (s *checkSuite) TestReviewWindowExpires() {
	s.awaitingReview(48*time.Hour, "ofac-1")
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)
	r := s.result()
	s.Equal(check.Expired, r.Status)
	s.Equal([]check.Status{check.Running, check.Expired}, s.writtenStatuses())
	s.Equal([]check.Status{check.Running, check.AwaitingReview, check.Expired}, s.statuses)
	s.Equal([]check.Status{check.AwaitingReview}, s.writes[1].From)
}

// The Temporal UI sends the review as a signal: an invalid one is ignored,
// a valid one recorded.
func (s *checkSuite) TestReviewBySignal() {
	recorded := s.awaitingReview(time.Hour, "ofac-1")
	s.env.RegisterDelayedCallback(func() {
		s.env.SignalWorkflow(SignalReview, check.ReviewRequest{Reviewer: "", Decisions: []check.ReviewDecision{fp("ofac-1")}})
	}, time.Minute)
	s.env.RegisterDelayedCallback(func() {
		s.env.SignalWorkflow(SignalReview, check.ReviewRequest{Reviewer: "UI Officer", Decisions: []check.ReviewDecision{fp("ofac-1")}})
	}, 2*time.Minute)
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)
	r := s.result()
	s.Equal(check.Completed, r.Status)
	s.Len(*recorded, 1)
}

// Superseded or deleted while awaiting review: cancelled.
func (s *checkSuite) TestReviewCancelled() {
	s.awaitingReview(time.Hour, "ofac-1")
	s.env.RegisterDelayedCallback(s.env.CancelWorkflow, time.Minute)
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)
	r := s.result()
	s.Equal(check.Cancelled, r.Status)
	s.Equal([]check.Status{check.Running, check.AwaitingReview, check.Cancelled}, s.statuses)
}

// Four eyes: the first decision waits; its decider cannot approve it (the
// workflow rejects the update, whatever sent it); another reviewer's same
// decision approves it and the check completes.
func (s *checkSuite) TestFourEyes() {
	s.in.Check.Type, s.in.Check.SubjectKind = check.AML, check.Customer
	s.storeAccepts()
	s.env.OnActivity(a.AMLScreen, mock.Anything, mock.Anything).Return(activities.CheckResult{
		Applied: true, Status: check.AwaitingReview, Alerting: []string{"ofac-1"}, ReviewWindow: time.Hour, FourEyes: true}, nil)
	var inputs []activities.ReviewInput
	s.env.OnActivity(a.RecordReview, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.ReviewInput) (activities.ReviewResult, error) {
		inputs = append(inputs, in)
		if len(inputs) < 2 {
			return activities.ReviewResult{Applied: true, Status: check.AwaitingReview}, nil
		}
		v := true
		return activities.ReviewResult{Applied: true, Status: check.Completed, Validated: &v}, nil
	})
	decide, self, approve := errors.New("unset"), errors.New("unset"), errors.New("unset")
	s.review(time.Minute, check.ReviewRequest{Reviewer: "A. Officer", Decisions: []check.ReviewDecision{fp("ofac-1")}}, &decide)
	s.review(2*time.Minute, check.ReviewRequest{Reviewer: "a. officer ", Decisions: []check.ReviewDecision{fp("ofac-1")}}, &self)
	s.review(3*time.Minute, check.ReviewRequest{Reviewer: "B. Officer", Decisions: []check.ReviewDecision{fp("ofac-1")}}, &approve)
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)

	r := s.result()
	s.Equal(check.Completed, r.Status)
	s.NoError(decide)
	ps := problemsOf(self)
	s.Require().Len(ps, 1, "the decider approving: %v", self)
	s.True(ps.Conflict())
	s.Contains(ps[0].Message, "four eyes")
	s.NoError(approve)
	s.Require().Len(inputs, 2)
	s.True(inputs[0].FourEyes && inputs[1].FourEyes)
	s.Equal("B. Officer", inputs[1].Review.Reviewer)
}
