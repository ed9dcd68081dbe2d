package workflows

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/kycflow/kycflow/activities"
	"github.com/kycflow/kycflow/check"
)

// awaitingReview sets up an aml check whose screening alerts on entities,
// and a store that records reviews: the check completes once each of them
// is decided.
func (s *checkSuite) awaitingReview(window time.Duration, entities ...string) *[]check.HitDecision {
	s.in.Check.Type, s.in.Check.SubjectKind = check.AML, check.Customer
	s.storeAccepts()
	s.env.OnActivity(a.AMLScreen, mock.Anything, mock.Anything).Return(activities.CheckResult{
		Applied: true, Status: check.AwaitingReview, Alerting: entities, ReviewWindow: window}, nil)
	var recorded []check.HitDecision
	s.env.OnActivity(a.RecordReview, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.ReviewInput) (activities.ReviewResult, error) {
		recorded = append(recorded, in.Review.Decisions...)
		if len(recorded) < len(entities) {
			return activities.ReviewResult{Applied: true, Status: check.AwaitingReview}, nil
		}
		v := !slices.ContainsFunc(recorded, func(d check.HitDecision) bool { return d.Decision == check.TrueMatch })
		return activities.ReviewResult{Applied: true, Status: check.Completed, Validated: &v}, nil
	})
	return &recorded
}

// review sends a review update after delay; its outcome lands in *out
// (nil: completed, else the rejection or failure).
func (s *checkSuite) review(delay time.Duration, req check.ReviewUpdate, out *error) {
	s.env.RegisterDelayedCallback(func() {
		s.env.UpdateWorkflow(UpdateReview, "", &testsuite.TestUpdateCallback{
			OnAccept:   func() {},
			OnReject:   func(err error) { *out = err },
			OnComplete: func(_ any, err error) { *out = err },
		}, req)
	}, delay)
}

// id is a fixed id for a word, so a test can name keys, names and staff.
func id(word string) *uuid.UUID {
	u := uuid.NewSHA1(uuid.NameSpaceOID, []byte(word))
	return &u
}

// byKey is a review through API key key in the name name; byStaff one of
// a staff member signed in.
func byKey(key, name string) check.Reviewer { return check.Reviewer{KeyID: id(key), NameID: id(name)} }
func byStaff(who string) check.Reviewer     { return check.Reviewer{StaffID: id(who)} }

// upd is a review update: a submission of its own, by whom, its decisions.
func upd(by check.Reviewer, decisions ...check.HitDecision) check.ReviewUpdate {
	return check.ReviewUpdate{Submission: uuid.New(), By: by, Decisions: decisions}
}

func fp(entity string) check.HitDecision {
	return check.HitDecision{EntityID: entity, Decision: check.FalsePositive}
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
	var unknown, nobody, first, again, last error = errors.New("unset"), errors.New("unset"), errors.New("unset"), errors.New("unset"), errors.New("unset")
	ada := byKey("k1", "A. Officer")
	s.review(time.Hour, upd(ada, fp("ofac-9")), &unknown)
	s.review(2*time.Hour, check.ReviewUpdate{Decisions: []check.HitDecision{fp("ofac-1")}, Legacy: "A. Officer"}, &nobody)
	s.review(3*time.Hour, upd(ada, fp("ofac-1")), &first)
	s.review(4*time.Hour, upd(byKey("k2", "B. Officer"), fp("ofac-1")), &again)
	s.review(5*time.Hour, upd(ada, check.HitDecision{EntityID: "un-2", Decision: check.TrueMatch}), &last)
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)

	r := s.result()
	s.Equal(check.Completed, r.Status)
	s.Equal(false, *r.Validated)
	s.Equal([]check.Status{check.Running, check.AwaitingReview, check.Completed}, s.statuses)

	ps := problemsOf(unknown)
	s.Require().Len(ps, 1, "unknown entity: %v", unknown)
	s.False(ps.Conflict())
	s.Equal("decisions.0.entity_id", ps[0].Field)
	ps = problemsOf(nobody)
	s.Require().Len(ps, 1, "a review by name only, in a check of after reviews by id: %v", nobody)
	s.Equal("reviewer", ps[0].Field)
	s.NoError(first)
	ps = problemsOf(again)
	s.Require().Len(ps, 1, "decided twice: %v", again)
	s.True(ps.Conflict())
	s.NoError(last)
	s.Equal([]check.HitDecision{fp("ofac-1"), {EntityID: "un-2", Decision: check.TrueMatch}}, *recorded)
}

// Two reviews of the same hit at the same moment: the first is recorded,
// the second rejected (the hit is reserved while the first is recorded).
func (s *checkSuite) TestConcurrentReviewsApplyOnce() {
	recorded := s.awaitingReview(time.Hour, "ofac-1")
	one, two := errors.New("unset"), errors.New("unset")
	req := upd(byKey("k1", "A. Officer"), fp("ofac-1"))
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

// A review the store finds is not its submission (another reviewer, other
// decisions, no such submission) is rejected, nothing recorded, and the
// hit is open again for the next review.
func (s *checkSuite) TestReviewNotItsSubmission() {
	s.in.Check.Type, s.in.Check.SubjectKind = check.AML, check.Customer
	s.storeAccepts()
	s.env.OnActivity(a.AMLScreen, mock.Anything, mock.Anything).Return(activities.CheckResult{
		Applied: true, Status: check.AwaitingReview, Alerting: []string{"ofac-1"}, ReviewWindow: time.Hour}, nil)
	forged := upd(byStaff("ana"), fp("ofac-1"))
	s.env.OnActivity(a.RecordReview, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.ReviewInput) (activities.ReviewResult, error) {
		if in.Review.Submission == forged.Submission {
			return activities.ReviewResult{Status: check.AwaitingReview, Rejected: "The review is not by the reviewer its submission names."}, nil
		}
		v := true
		return activities.ReviewResult{Applied: true, Status: check.Completed, Validated: &v}, nil
	})
	bad, good := errors.New("unset"), errors.New("unset")
	s.review(time.Minute, forged, &bad)
	s.review(2*time.Minute, upd(byStaff("ben"), fp("ofac-1")), &good)
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)
	s.Equal(check.Completed, s.result().Status)
	ps := problemsOf(bad)
	s.Require().Len(ps, 1, "a forged review: %v", bad)
	s.Contains(ps[0].Message, "not by the reviewer")
	s.NoError(good)
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

// The Temporal UI may send the review as a signal: one without a
// submission is ignored, as is one the store finds is not its submission;
// a valid one is recorded.
func (s *checkSuite) TestReviewBySignal() {
	s.in.Check.Type, s.in.Check.SubjectKind = check.AML, check.Customer
	s.storeAccepts()
	s.env.OnActivity(a.AMLScreen, mock.Anything, mock.Anything).Return(activities.CheckResult{
		Applied: true, Status: check.AwaitingReview, Alerting: []string{"ofac-1"}, ReviewWindow: time.Hour}, nil)
	forged := upd(byStaff("eve"), fp("ofac-1"))
	var recorded int
	s.env.OnActivity(a.RecordReview, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.ReviewInput) (activities.ReviewResult, error) {
		if in.Review.Submission == forged.Submission {
			return activities.ReviewResult{Status: check.AwaitingReview, Rejected: "The review names no submission of this check."}, nil
		}
		recorded++
		v := true
		return activities.ReviewResult{Applied: true, Status: check.Completed, Validated: &v}, nil
	})
	for i, sig := range []check.ReviewUpdate{{Legacy: "UI Officer", Decisions: []check.HitDecision{fp("ofac-1")}}, forged, upd(byStaff("ui"), fp("ofac-1"))} {
		s.env.RegisterDelayedCallback(func() { s.env.SignalWorkflow(SignalReview, sig) }, time.Duration(i+1)*time.Minute)
	}
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)
	r := s.result()
	s.Equal(check.Completed, r.Status)
	s.Equal(1, recorded)
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

// Four eyes: the first decision waits; its decider cannot approve it by
// any path — through the same key in another name, or in the same name
// (any spelling: the name's id is the name's, NameKey read) through
// another key — and another reviewer's same decision approves it, and the
// check completes.
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
		return activities.ReviewResult{Applied: true, Status: check.Completed, Validated: &v, Approved: []string{"ofac-1"}}, nil
	})
	decide, sameKey, sameName, approve := errors.New("unset"), errors.New("unset"), errors.New("unset"), errors.New("unset")
	s.review(time.Minute, upd(byKey("k1", "A. Officer"), fp("ofac-1")), &decide)
	s.review(2*time.Minute, upd(byKey("k1", "Someone Else"), fp("ofac-1")), &sameKey)
	s.review(3*time.Minute, upd(byKey("k2", "A. Officer"), fp("ofac-1")), &sameName)
	s.review(4*time.Minute, upd(byStaff("ben"), fp("ofac-1")), &approve)
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)

	r := s.result()
	s.Equal(check.Completed, r.Status)
	s.NoError(decide)
	for name, err := range map[string]error{"through the same key": sameKey, "in the same name": sameName} {
		ps := problemsOf(err)
		s.Require().Len(ps, 1, "the decider approving %s: %v", name, err)
		s.True(ps.Conflict())
		s.Contains(ps[0].Message, "four eyes")
	}
	s.NoError(approve)
	s.Require().Len(inputs, 2)
	s.True(inputs[0].FourEyes && inputs[1].FourEyes)
	s.Equal(byStaff("ben"), inputs[1].Review.By)
}

// A check that reached its review before reviews were by id (no version
// marker: a history recorded then) still takes a review by name, and
// compares names: its decider's, respelled, does not approve.
func (s *checkSuite) TestReviewByNameBeforeIDs() {
	s.in.Check.Type, s.in.Check.SubjectKind = check.AML, check.Customer
	s.storeAccepts()
	s.env.OnGetVersion(reviewByID, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	s.env.OnActivity(a.AMLScreen, mock.Anything, mock.Anything).Return(activities.CheckResult{
		Applied: true, Status: check.AwaitingReview, Alerting: []string{"ofac-1"}, ReviewWindow: time.Hour, FourEyes: true}, nil)
	var inputs int
	s.env.OnActivity(a.RecordReview, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.ReviewInput) (activities.ReviewResult, error) {
		inputs++
		if inputs < 2 {
			return activities.ReviewResult{Applied: true, Status: check.AwaitingReview}, nil
		}
		v := true
		return activities.ReviewResult{Applied: true, Status: check.Completed, Validated: &v}, nil
	})
	decide, self, approve := errors.New("unset"), errors.New("unset"), errors.New("unset")
	byName := func(name string) check.ReviewUpdate {
		return check.ReviewUpdate{Legacy: name, Decisions: []check.HitDecision{fp("ofac-1")}}
	}
	s.review(time.Minute, byName("Ada Compliance"), &decide)
	s.review(2*time.Minute, byName(" ada\u200b  COMPLIANCE\ufeff"), &self)
	s.review(3*time.Minute, byName("Ben Second"), &approve)
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)
	s.Equal(check.Completed, s.result().Status)
	s.NoError(decide)
	s.True(problemsOf(self).Conflict(), "the decider's name respelled: %v", self)
	s.NoError(approve)
}

// An idscan check whose selfie's face match a person decides: the read
// leaves it awaiting review, and the workflow waits for the decision on
// face_match as for an aml hit's — an aml decision on it is rejected, a
// face decision completes the check.
func (s *checkSuite) TestFaceMatchReviewed() {
	s.storeAccepts()
	s.linkIssued(7 * 24 * time.Hour)
	s.env.OnActivity(a.IDScanRead, mock.Anything, mock.Anything).Return(activities.IDScanReadResult{Done: true, Attempt: 1, Outcome: check.AttemptRead,
		CheckResult: activities.CheckResult{Applied: true, Status: check.AwaitingReview, Alerting: []string{check.FaceMatchEntity}, ReviewWindow: 24 * time.Hour}}, nil).Once()
	var recorded []check.HitDecision
	s.env.OnActivity(a.RecordReview, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.ReviewInput) (activities.ReviewResult, error) {
		recorded = append(recorded, in.Review.Decisions...)
		return activities.ReviewResult{Applied: true, Status: check.Completed, Validated: &yes}, nil
	})
	s.env.RegisterDelayedCallback(func() { s.env.SignalWorkflow(SignalDocument, VerificationResult{ID: "outbox-1"}) }, time.Minute)
	aml, face := errors.New("unset"), errors.New("unset")
	ada := byKey("k1", "A. Officer")
	s.review(time.Hour, upd(ada, check.HitDecision{EntityID: check.FaceMatchEntity, Decision: check.FalsePositive}), &aml)
	s.review(2*time.Hour, upd(ada, check.HitDecision{EntityID: check.FaceMatchEntity, Decision: check.SamePerson}), &face)
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)

	r := s.result()
	s.Equal(check.Completed, r.Status)
	s.Equal(true, *r.Validated)
	s.Equal([]check.Status{check.Running, check.AwaitingInput, check.AwaitingReview, check.Completed}, s.statuses)
	s.Require().Len(problemsOf(aml), 1, "an aml decision on a face match: %v", aml)
	s.NoError(face)
	s.Equal([]check.HitDecision{{EntityID: check.FaceMatchEntity, Decision: check.SamePerson}}, recorded)
}
