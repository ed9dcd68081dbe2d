package workflows

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/suite"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/kycflow/kycflow/activities"
	"github.com/kycflow/kycflow/check"
)

type checkSuite struct {
	suite.Suite
	testsuite.WorkflowTestSuite
	env      *testsuite.TestWorkflowEnvironment
	in       CheckInput
	statuses []check.Status // CheckStatus search attribute values, in order
	writes   []activities.SetStatusInput
}

func TestCheckWorkflow(t *testing.T) { suite.Run(t, new(checkSuite)) }

func (s *checkSuite) SetupTest() {
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	s.env = s.NewTestWorkflowEnvironment()
	s.env.RegisterActivity(&activities.Activities{})
	s.in = CheckInput{Check: check.Ref{TenantID: uuid.New(), CheckID: uuid.New(), SubjectKind: check.Business, SubjectID: uuid.New(), Type: "iban"}}
	s.statuses, s.writes = nil, nil
	s.env.OnUpsertTypedSearchAttributes(mock.Anything).Run(func(args mock.Arguments) {
		if v, ok := args.Get(0).(temporal.SearchAttributes).GetKeyword(SACheckStatus); ok {
			s.statuses = append(s.statuses, check.Status(v))
		}
	}).Return(nil)
	s.Require().NoError(s.env.SetTypedSearchAttributesOnStart(temporal.NewSearchAttributes(SACheckStatus.ValueSet(string(check.Queued)))))
}

// storeAccepts records status writes and applies them.
func (s *checkSuite) storeAccepts() {
	s.env.OnActivity(a.SetStatus, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.SetStatusInput) (activities.SetStatusResult, error) {
		s.writes = append(s.writes, in)
		return activities.SetStatusResult{Applied: true, Status: in.Status}, nil
	})
}

func (s *checkSuite) result() CheckWorkflowResult {
	s.True(s.env.IsWorkflowCompleted())
	s.NoError(s.env.GetWorkflowError())
	var r CheckWorkflowResult
	s.NoError(s.env.GetWorkflowResult(&r))
	return r
}

func (s *checkSuite) writtenStatuses() []check.Status {
	var out []check.Status
	for _, w := range s.writes {
		out = append(out, w.Status)
	}
	return out
}

var yes = true

func (s *checkSuite) TestIBANCompletes() {
	s.storeAccepts()
	s.env.OnActivity(a.IBANCheck, mock.Anything, activities.IBANInput{Check: s.in.Check}).
		Return(activities.CheckResult{Applied: true, Status: check.Completed, Validated: &yes}, nil).Once()
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)
	r := s.result()
	s.Equal(check.Completed, r.Status)
	s.Equal(&yes, r.Validated)
	s.Equal([]check.Status{check.Running}, s.writtenStatuses())
	s.Equal([]check.Status{check.Running, check.Completed}, s.statuses)
}

// A check whose provider is not configured (aml before any list is
// imported) fails at once and waits like any failed check, so a
// supersession (cancellation) still reaches it.
func (s *checkSuite) TestUnconfiguredProviderFailsThenCancelled() {
	s.in.Check.Type = "aml"
	s.storeAccepts()
	s.env.OnActivity(a.AMLScreen, mock.Anything, mock.Anything).Return(activities.CheckResult{},
		temporal.NewNonRetryableApplicationError("no watchlist imported", activities.ErrTypeNotConfigured, nil))
	s.env.RegisterDelayedCallback(s.env.CancelWorkflow, time.Minute)
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)
	r := s.result()
	s.Equal(check.Cancelled, r.Status)
	s.Equal([]check.Status{check.Running, check.Failed, check.Cancelled}, s.writtenStatuses())
	s.Equal(check.CodeProviderNotConfigured, s.writes[1].Error.Code)
	s.Equal([]check.Status{check.Running, check.Failed, check.Cancelled}, s.statuses)
}

// A retry signal delivered twice (the relay redelivering) retries once: the
// second failure waits for support again.
func (s *checkSuite) TestDuplicateRetrySignalRetriesOnce() {
	s.storeAccepts()
	s.env.OnActivity(a.IBANCheck, mock.Anything, mock.Anything).Return(activities.CheckResult{}, errors.New("boom"))
	round := offlineOptions.ScheduleToCloseTimeout + time.Hour
	s.env.RegisterDelayedCallback(func() {
		s.env.SignalWorkflow(SignalRetry, RetryRequest{ID: "outbox-7"})
		s.env.SignalWorkflow(SignalRetry, RetryRequest{ID: "outbox-7"})
	}, round)
	s.env.RegisterDelayedCallback(func() {
		v, err := s.env.QueryWorkflow(QueryStatus)
		s.NoError(err)
		var status check.Status
		s.NoError(v.Get(&status))
		s.Equal(check.Failed, status)
		s.env.CancelWorkflow()
	}, 3*round)
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)
	s.Equal(check.Cancelled, s.result().Status)
	running := 0
	for _, st := range s.writtenStatuses() {
		if st == check.Running {
			running++
		}
	}
	s.Equal(2, running) // the first try and one retry
}

// The provider step fails through its whole retry policy (six hours of
// durable retries), the check is failed, support sends `retry` an hour
// later, and the second try succeeds.
func (s *checkSuite) TestRetriesExhaustedThenSignalThenSuccess() {
	s.storeAccepts()
	calls, healthy := 0, false
	s.env.OnActivity(a.IBANCheck, mock.Anything, mock.Anything).Return(func(_ context.Context, _ activities.IBANInput) (activities.CheckResult, error) {
		calls++
		if !healthy {
			return activities.CheckResult{}, errors.New("database unavailable")
		}
		return activities.CheckResult{Applied: true, Status: check.Completed, Validated: &yes}, nil
	})
	s.env.RegisterDelayedCallback(func() {
		var status check.Status
		v, err := s.env.QueryWorkflow(QueryStatus)
		s.NoError(err)
		s.NoError(v.Get(&status))
		s.Equal(check.Failed, status)
		healthy = true
		s.env.SignalWorkflow(SignalRetry, RetryRequest{ID: "outbox-1"})
	}, offlineOptions.ScheduleToCloseTimeout+time.Hour)
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)
	r := s.result()
	s.Equal(check.Completed, r.Status)
	s.Greater(calls, 100) // retried through the hours, once a minute at most
	s.Equal([]check.Status{check.Running, check.Failed, check.Running}, s.writtenStatuses())
	s.Equal(check.CodeRetriesExhausted, s.writes[1].Error.Code)
	s.Equal([]check.Status{check.Running, check.Failed, check.Running, check.Completed}, s.statuses)
}

func (s *checkSuite) TestFailedWithoutRetryEndsAfterWindow() {
	s.storeAccepts()
	s.env.OnActivity(a.IBANCheck, mock.Anything, mock.Anything).Return(activities.CheckResult{}, errors.New("boom"))
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)
	r := s.result()
	s.Equal(check.Failed, r.Status)
	s.GreaterOrEqual(s.env.Now().Sub(time.Time{}), RetryWindow) // the timer ran out
}

func (s *checkSuite) TestCancelledWhileWaitingForRetry() {
	s.storeAccepts()
	s.env.OnActivity(a.IBANCheck, mock.Anything, mock.Anything).Return(activities.CheckResult{}, errors.New("boom"))
	s.env.RegisterDelayedCallback(s.env.CancelWorkflow, time.Hour)
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)
	r := s.result()
	s.Equal(check.Cancelled, r.Status)
	s.Equal(check.Cancelled, s.writtenStatuses()[len(s.writes)-1])
	s.Equal(check.Cancelled, s.statuses[len(s.statuses)-1])
}

// A start repeated after the check finished (the relay redelivering) does nothing.
func (s *checkSuite) TestRepeatedStartOfFinishedCheck() {
	s.env.OnActivity(a.SetStatus, mock.Anything, mock.Anything).Return(activities.SetStatusResult{Applied: false, Status: check.Completed}, nil)
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)
	r := s.result()
	s.Equal(check.Completed, r.Status)
	s.env.AssertNotCalled(s.T(), "IBANCheck", mock.Anything, mock.Anything)
}

// A check deleted mid-flight ends quietly.
func (s *checkSuite) TestDeletedSubjectEndsQuietly() {
	s.storeAccepts()
	s.env.OnActivity(a.IBANCheck, mock.Anything, mock.Anything).Return(activities.CheckResult{},
		temporal.NewNonRetryableApplicationError("gone", activities.ErrTypeGone, nil))
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)
	r := s.result()
	s.Equal(check.Cancelled, r.Status)
}

// A status move the check's rules do not allow is a bug: the workflow
// task fails (and would be retried after a fix) instead of writing it.
func TestIllegalTransitionPanics(t *testing.T) {
	var ts testsuite.WorkflowTestSuite
	env := ts.NewTestWorkflowEnvironment()
	env.RegisterActivity(&activities.Activities{})
	in := CheckInput{Check: check.Ref{TenantID: uuid.New(), CheckID: uuid.New(), SubjectKind: check.Customer, SubjectID: uuid.New(), Type: check.IDScan}}
	env.ExecuteWorkflow(func(ctx workflow.Context) error {
		st, err := newState(ctx, in)
		if err != nil {
			return err
		}
		_, err = st.transition(workflow.WithLocalActivityOptions(ctx, storeOptions), check.Completed, []check.Status{check.Queued}, nil)
		return err
	})
	var panicErr *temporal.PanicError
	if err := env.GetWorkflowError(); !errors.As(err, &panicErr) || !strings.Contains(panicErr.Error(), "illegal status move queued → completed") {
		t.Fatalf("workflow error %v, want the illegal move's panic", err)
	}
}
