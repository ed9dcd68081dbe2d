package workflows

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/suite"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/kycflow/kycflow/activities"
	"github.com/kycflow/kycflow/webhook"
)

type deliverySuite struct {
	suite.Suite
	testsuite.WorkflowTestSuite
	env      *testsuite.TestWorkflowEnvironment
	in       DeliveryInput
	start    time.Time
	attempts []time.Duration // test-clock offsets of Deliver calls
	retryAts []time.Duration // the RetryAt each carried (-1: none)
	statuses []webhook.Status
}

func TestDeliveryWorkflow(t *testing.T) { suite.Run(t, new(deliverySuite)) }

func (s *deliverySuite) SetupTest() {
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	s.env = s.NewTestWorkflowEnvironment()
	s.env.RegisterActivity(&activities.Activities{})
	s.in = DeliveryInput{Delivery: webhook.Ref{TenantID: uuid.New(), DeliveryID: uuid.New(), EndpointID: uuid.New(), EventID: uuid.New(), Number: 1}}
	s.start = s.env.Now()
	s.attempts, s.retryAts, s.statuses = nil, nil, nil
	s.env.OnUpsertTypedSearchAttributes(mock.Anything).Run(func(args mock.Arguments) {
		if v, ok := args.Get(0).(temporal.SearchAttributes).GetKeyword(SADeliveryStatus); ok {
			s.statuses = append(s.statuses, webhook.Status(v))
		}
	}).Return(nil)
}

// receiver answers each Deliver step with what outcome(offset) says, where
// offset is the test clock since the workflow started.
func (s *deliverySuite) receiver(outcome func(offset time.Duration, in activities.DeliverInput) activities.DeliverResult) {
	s.env.OnActivity(a.Deliver, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.DeliverInput) (activities.DeliverResult, error) {
		off := s.env.Now().Sub(s.start)
		s.attempts = append(s.attempts, off)
		ra := time.Duration(-1)
		if in.RetryAt != nil {
			ra = in.RetryAt.Sub(s.start)
		}
		s.retryAts = append(s.retryAts, ra)
		r := outcome(off, in)
		if r.Outcome == activities.OutcomeRetry && in.RetryAt == nil {
			r.Outcome = activities.OutcomeFailed // as the activity does when the window is over
		}
		return r, nil
	})
}

func (s *deliverySuite) result() DeliveryResult {
	s.True(s.env.IsWorkflowCompleted())
	s.NoError(s.env.GetWorkflowError())
	var r DeliveryResult
	s.NoError(s.env.GetWorkflowResult(&r))
	return r
}

// A receiver down for an hour of test-clock time (refused, 500, timeouts:
// to the workflow all are failed attempts) gets the schedule's attempts,
// and the first after it is back delivers.
func (s *deliverySuite) TestRetriesOnScheduleUntilBack() {
	s.receiver(func(off time.Duration, _ activities.DeliverInput) activities.DeliverResult {
		if off < time.Hour {
			return activities.DeliverResult{Outcome: activities.OutcomeRetry, StatusCode: 500}
		}
		return activities.DeliverResult{Outcome: activities.OutcomeDelivered, StatusCode: 200}
	})
	s.env.ExecuteWorkflow(DeliveryWorkflow, s.in)
	r := s.result()
	s.Equal(DeliveryResult{Status: webhook.Delivered, Attempts: 5}, r)
	m := time.Minute
	s.Equal([]time.Duration{0, m, 6 * m, 36 * m, 2*time.Hour + 36*m}, s.attempts)
	s.Equal([]time.Duration{m, 6 * m, 36 * m, 2*time.Hour + 36*m, 7*time.Hour + 36*m}, s.retryAts)
	s.Equal([]webhook.Status{webhook.Retrying, webhook.Delivered}, s.statuses)
}

// A receiver that never comes back: 11 attempts over 3 days, then failed.
func (s *deliverySuite) TestGivesUpAfterTheWindow() {
	s.receiver(func(time.Duration, activities.DeliverInput) activities.DeliverResult {
		return activities.DeliverResult{Outcome: activities.OutcomeRetry}
	})
	s.env.ExecuteWorkflow(DeliveryWorkflow, s.in)
	r := s.result()
	s.Equal(DeliveryResult{Status: webhook.Failed, Attempts: 11}, r)
	s.Equal(time.Duration(-1), s.retryAts[len(s.retryAts)-1])
	s.LessOrEqual(s.attempts[len(s.attempts)-1], webhook.DefaultSchedule.Window)
	s.Equal([]webhook.Status{webhook.Retrying, webhook.Failed}, s.statuses)
}

// A wake signal (the endpoint is back) cuts a retry's wait short.
func (s *deliverySuite) TestWakeRetriesNow() {
	s.receiver(func(off time.Duration, _ activities.DeliverInput) activities.DeliverResult {
		if off == 0 {
			return activities.DeliverResult{Outcome: activities.OutcomeRetry}
		}
		return activities.DeliverResult{Outcome: activities.OutcomeDelivered}
	})
	s.env.RegisterDelayedCallback(func() { s.env.SignalWorkflow(activities.SignalWake, nil) }, 10*time.Second)
	s.env.ExecuteWorkflow(DeliveryWorkflow, s.in)
	s.Equal(webhook.Delivered, s.result().Status)
	s.Equal([]time.Duration{0, 10 * time.Second}, s.attempts)
}

// Behind an earlier delivery of its subject, a delivery waits (sending
// nothing) until woken; when it settles it wakes the one behind it, and a
// recovered endpoint's backlog is woken too.
func (s *deliverySuite) TestWaitsInLineAndHandsOn() {
	next := webhook.Ref{TenantID: s.in.Delivery.TenantID, DeliveryID: uuid.New(), EndpointID: s.in.Delivery.EndpointID, EventID: uuid.New(), Number: 1}
	s.receiver(func(off time.Duration, _ activities.DeliverInput) activities.DeliverResult {
		if off < 20*time.Second {
			return activities.DeliverResult{Outcome: activities.OutcomeBlocked}
		}
		return activities.DeliverResult{Outcome: activities.OutcomeDelivered, Next: &next, Recovered: true}
	})
	woken := 0
	s.env.OnActivity(a.WakeEndpoint, mock.Anything, activities.WakeInput{Delivery: s.in.Delivery}).Return(func(context.Context, activities.WakeInput) (activities.WakeResult, error) {
		woken++
		return activities.WakeResult{Woken: 3}, nil
	})
	signalled := ""
	s.env.OnSignalExternalWorkflow(mock.Anything, next.WorkflowID(), "", activities.SignalWake, mock.Anything).Return(func(_, id, _, _ string, _ any) error {
		signalled = id
		return nil
	})
	s.env.RegisterDelayedCallback(func() { s.env.SignalWorkflow(activities.SignalWake, nil) }, 20*time.Second)
	s.env.ExecuteWorkflow(DeliveryWorkflow, s.in)
	r := s.result()
	s.Equal(DeliveryResult{Status: webhook.Delivered, Attempts: 1}, r)
	s.Equal([]time.Duration{0, 20 * time.Second}, s.attempts)
	s.Equal(1, woken)
	s.Equal(next.WorkflowID(), signalled)
	s.True(slices.Equal([]webhook.Status{webhook.Delivered}, s.statuses), "%v", s.statuses)
}

// Without a wake, a waiting delivery still looks again now and then.
func (s *deliverySuite) TestBlockedPollsWithoutSignal() {
	s.receiver(func(off time.Duration, _ activities.DeliverInput) activities.DeliverResult {
		if off < time.Hour {
			return activities.DeliverResult{Outcome: activities.OutcomeBlocked}
		}
		return activities.DeliverResult{Outcome: activities.OutcomeDelivered}
	})
	s.env.ExecuteWorkflow(DeliveryWorkflow, s.in)
	s.Equal(webhook.Delivered, s.result().Status)
	s.Equal([]time.Duration{0, blockedPoll, 2 * blockedPoll}, s.attempts)
}

// A 410 fails the delivery at once (the activity disabled the endpoint);
// a deleted endpoint ends it without an attempt.
func (s *deliverySuite) TestGoneAndEnded() {
	s.receiver(func(time.Duration, activities.DeliverInput) activities.DeliverResult {
		return activities.DeliverResult{Outcome: activities.OutcomeFailed, StatusCode: 410}
	})
	s.env.ExecuteWorkflow(DeliveryWorkflow, s.in)
	s.Equal(DeliveryResult{Status: webhook.Failed, Attempts: 1}, s.result())

	s.SetupTest()
	s.receiver(func(time.Duration, activities.DeliverInput) activities.DeliverResult {
		return activities.DeliverResult{Outcome: activities.OutcomeEnded}
	})
	s.env.ExecuteWorkflow(DeliveryWorkflow, s.in)
	s.Equal(DeliveryResult{Status: webhook.Cancelled, Attempts: 0}, s.result())
}
