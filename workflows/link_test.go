package workflows

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"

	"github.com/kycflow/kycflow/activities"
	"github.com/kycflow/kycflow/check"
)

// linkIssued makes PrepareLink answer a link expiring in ttl.
func (s *checkSuite) linkIssued(ttl time.Duration) {
	s.in.Check.Type = "idscan"
	expires := s.env.Now().Add(ttl)
	s.env.OnActivity(a.PrepareLink, mock.Anything, mock.Anything).Return(activities.LinkResult{ExpiresAt: expires}, nil).Once()
}

// The person submits after two days: the check waits in awaiting_input,
// then the submission is verified.
func (s *checkSuite) TestLinkSubmittedThenVerified() {
	s.storeAccepts()
	s.linkIssued(7 * 24 * time.Hour)
	s.env.OnActivity(a.IDScanVerify, mock.Anything, mock.Anything).
		Return(activities.CheckResult{Applied: true, Status: check.Completed, Validated: &yes}, nil).Once()
	s.env.RegisterDelayedCallback(func() {
		v, err := s.env.QueryWorkflow(QueryStatus)
		s.NoError(err)
		var status check.Status
		s.NoError(v.Get(&status))
		s.Equal(check.AwaitingInput, status)
		s.env.SignalWorkflow(SignalVerification, VerificationResult{ID: "outbox-9"})
	}, 48*time.Hour)
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)
	r := s.result()
	s.Equal(check.Completed, r.Status)
	s.Equal([]check.Status{check.Running, check.AwaitingInput}, s.writtenStatuses())
	s.Equal([]check.Status{check.Running, check.AwaitingInput, check.Completed}, s.statuses)
}

// Photos: the first upload is sent back for a retake and the check keeps
// waiting; the second is read on the documents task queue and completes
// the check. The read's input carries the check's ids only.
func (s *checkSuite) TestLinkPhotoRetakeThenRead() {
	s.storeAccepts()
	s.linkIssued(7 * 24 * time.Hour)
	var queues []string
	reads := 0
	s.env.OnActivity(a.IDScanRead, mock.Anything, activities.IDScanReadInput{Check: s.in.Check}).Return(
		func(ctx context.Context, _ activities.IDScanReadInput) (activities.IDScanReadResult, error) {
			queues = append(queues, activity.GetInfo(ctx).TaskQueue)
			reads++
			if reads == 1 {
				return activities.IDScanReadResult{Attempt: 1, Outcome: check.AttemptRetake, Reason: check.RetakeGlare}, nil
			}
			return activities.IDScanReadResult{CheckResult: activities.CheckResult{Applied: true, Status: check.Completed, Validated: &yes},
				Done: true, Attempt: 2, Outcome: check.AttemptRead}, nil
		}).Times(2)
	s.env.RegisterDelayedCallback(func() { s.env.SignalWorkflow(SignalDocument, VerificationResult{ID: "outbox-1"}) }, time.Hour)
	s.env.RegisterDelayedCallback(func() {
		v, err := s.env.QueryWorkflow(QueryStatus)
		s.NoError(err)
		var status check.Status
		s.NoError(v.Get(&status))
		s.Equal(check.AwaitingInput, status) // after the retake, still waiting
		s.env.SignalWorkflow(SignalDocument, VerificationResult{ID: "outbox-2"})
	}, 2*time.Hour)
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)
	s.Equal(check.Completed, s.result().Status)
	s.Equal([]string{DocumentsTaskQueue, DocumentsTaskQueue}, queues)
	s.env.AssertNotCalled(s.T(), "IDScanVerify", mock.Anything, mock.Anything)
}

// Two photos uploaded before the workflow started, their signals dropped
// (no workflow to tell): the check reads both from the store, the first a
// retake that says another waits, the second read — no signal needed.
func (s *checkSuite) TestLinkPhotosUploadedBeforeTheWorkflow() {
	s.storeAccepts()
	s.in.Check.Type = "idscan"
	s.env.OnActivity(a.PrepareLink, mock.Anything, mock.Anything).
		Return(activities.LinkResult{ExpiresAt: s.env.Now().Add(7 * 24 * time.Hour), Unread: 2}, nil).Once()
	reads := 0
	s.env.OnActivity(a.IDScanRead, mock.Anything, activities.IDScanReadInput{Check: s.in.Check}).Return(
		func(context.Context, activities.IDScanReadInput) (activities.IDScanReadResult, error) {
			reads++
			if reads == 1 {
				return activities.IDScanReadResult{Attempt: 1, Outcome: check.AttemptRetake, Reason: check.RetakeGlare, More: true}, nil
			}
			return activities.IDScanReadResult{CheckResult: activities.CheckResult{Applied: true, Status: check.Completed, Validated: &yes},
				Done: true, Attempt: 2, Outcome: check.AttemptRead}, nil
		}).Times(2)
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)
	s.Equal(check.Completed, s.result().Status)
	s.Equal(2, reads)
}

// Nobody uses the link: at its expiry the check is `expired`, by a durable
// timer (seven days skipped here).
func (s *checkSuite) TestLinkExpires() {
	s.storeAccepts()
	s.linkIssued(7 * 24 * time.Hour)
	start := s.env.Now()
	s.env.OnActivity(a.ExpireLink, mock.Anything, mock.Anything).
		Return(activities.ExpireResult{Applied: true, Status: check.Expired}, nil).Once()
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)
	r := s.result()
	s.Equal(check.Expired, r.Status)
	s.GreaterOrEqual(s.env.Now().Sub(start), 7*24*time.Hour)
	s.Equal([]check.Status{check.Running, check.AwaitingInput, check.Expired}, s.statuses)
	s.env.AssertNotCalled(s.T(), "IDScanVerify", mock.Anything, mock.Anything)
}

// A submission just before the expiry whose signal is still on its way: the
// expiry does not apply and the submission is verified.
func (s *checkSuite) TestLinkSubmittedAtTheLastMoment() {
	s.storeAccepts()
	s.linkIssued(time.Hour)
	s.env.OnActivity(a.ExpireLink, mock.Anything, mock.Anything).Return(func(context.Context, activities.LinkInput) (activities.ExpireResult, error) {
		s.env.RegisterDelayedCallback(func() { s.env.SignalWorkflow(SignalVerification, VerificationResult{ID: "outbox-3"}) }, time.Second)
		return activities.ExpireResult{Applied: false, Status: check.AwaitingInput}, nil
	}).Once()
	s.env.OnActivity(a.IDScanVerify, mock.Anything, mock.Anything).
		Return(activities.CheckResult{Applied: true, Status: check.Completed, Validated: &yes}, nil).Once()
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)
	s.Equal(check.Completed, s.result().Status)
}

// Superseded or deleted while waiting: cancelled.
func (s *checkSuite) TestLinkCancelledWhileWaiting() {
	s.storeAccepts()
	s.linkIssued(7 * 24 * time.Hour)
	s.env.RegisterDelayedCallback(s.env.CancelWorkflow, time.Hour)
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)
	s.Equal(check.Cancelled, s.result().Status)
	s.Equal(check.Cancelled, s.statuses[len(s.statuses)-1])
}

// A read waits its turn on the documents queue: a provider window shorter
// than readWindow (the suites' seconds) does not bound it, a longer one
// (the default day) does; each try has two minutes.
func TestReadOptions(t *testing.T) {
	for _, tc := range []struct{ window, want time.Duration }{
		{25 * time.Second, readWindow},
		{DefaultRetryWindow, DefaultRetryWindow},
	} {
		o := readOptions(ProviderRetry{Window: tc.window})
		if o.ScheduleToCloseTimeout != tc.want || o.StartToCloseTimeout != 2*time.Minute || o.TaskQueue != DocumentsTaskQueue || o.HeartbeatTimeout == 0 {
			t.Errorf("window %s: %+v", tc.window, o)
		}
	}
}
