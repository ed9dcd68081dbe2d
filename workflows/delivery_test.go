package workflows

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"sync"
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
	nows     []bool          // the Now flag of each step
	statuses []webhook.Status
}

func TestDeliveryWorkflow(t *testing.T) { suite.Run(t, new(deliverySuite)) }

func (s *deliverySuite) SetupTest() {
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	s.env = s.NewTestWorkflowEnvironment()
	s.env.RegisterActivity(&activities.Activities{})
	s.in = DeliveryInput{Delivery: webhook.Ref{TenantID: uuid.New(), DeliveryID: uuid.New(), EndpointID: uuid.New(), EventID: uuid.New(), Number: 1}}
	s.start = s.env.Now()
	s.attempts, s.nows, s.statuses = nil, nil, nil
	s.env.OnUpsertTypedSearchAttributes(mock.Anything).Run(func(args mock.Arguments) {
		if v, ok := args.Get(0).(temporal.SearchAttributes).GetKeyword(SADeliveryStatus); ok {
			s.statuses = append(s.statuses, webhook.Status(v))
		}
	}).Return(nil)
}

// receiver plays the Deliver step against a receiver that answers
// up(offset): attempts are counted and scheduled as the activity does (the
// store's state is kept here), so the workflow's timers are what is tested.
func (s *deliverySuite) receiver(up func(offset time.Duration, in activities.DeliverInput) bool) {
	var first time.Time
	n := 0
	s.env.OnActivity(a.Deliver, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.DeliverInput) (activities.DeliverResult, error) {
		now := s.env.Now()
		s.attempts = append(s.attempts, now.Sub(s.start))
		s.nows = append(s.nows, in.Now)
		if n == 0 {
			first = now
		}
		n++
		if up(now.Sub(s.start), in) {
			return activities.DeliverResult{Outcome: activities.OutcomeDelivered, Status: webhook.Delivered, Attempts: n}, nil
		}
		next, ok := in.Schedule.Next(first, now, n)
		if !ok {
			return activities.DeliverResult{Outcome: activities.OutcomeFailed, Status: webhook.Failed, Attempts: n}, nil
		}
		return activities.DeliverResult{Outcome: activities.OutcomeWait, Status: webhook.Retrying, Until: next, Attempts: n}, nil
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
	s.receiver(func(off time.Duration, _ activities.DeliverInput) bool { return off >= time.Hour })
	s.env.ExecuteWorkflow(DeliveryWorkflow, s.in)
	s.Equal(DeliveryResult{Status: webhook.Delivered, Attempts: 5}, s.result())
	m := time.Minute
	s.Equal([]time.Duration{0, m, 6 * m, 36 * m, 2*time.Hour + 36*m}, s.attempts)
	s.Equal([]webhook.Status{webhook.Delivered}, s.statuses)
}

// A receiver that never comes back: 11 attempts over 3 days, then failed.
func (s *deliverySuite) TestGivesUpAfterTheWindow() {
	s.receiver(func(time.Duration, activities.DeliverInput) bool { return false })
	s.env.ExecuteWorkflow(DeliveryWorkflow, s.in)
	s.Equal(DeliveryResult{Status: webhook.Failed, Attempts: 11}, s.result())
	s.LessOrEqual(s.attempts[len(s.attempts)-1], webhook.DefaultSchedule.Window)
	s.Equal([]webhook.Status{webhook.Failed}, s.statuses)
}

// A wake signal that says the endpoint is back cuts a retry's wait short
// and asks the step to try although the retry is not due.
func (s *deliverySuite) TestWakeRetriesNow() {
	s.receiver(func(off time.Duration, in activities.DeliverInput) bool { return off > 0 })
	s.env.RegisterDelayedCallback(func() { s.env.SignalWorkflow(activities.SignalWake, activities.Wake{Now: true}) }, 10*time.Second)
	s.env.ExecuteWorkflow(DeliveryWorkflow, s.in)
	s.Equal(webhook.Delivered, s.result().Status)
	s.Equal([]time.Duration{0, 10 * time.Second}, s.attempts)
	s.Equal([]bool{false, true}, s.nows)
}

// Waiting in line (its subject's earlier delivery open), a delivery sends
// nothing until woken; a success that found the endpoint recovering wakes
// the endpoint's waiting deliveries.
func (s *deliverySuite) TestWaitsInLineAndWakesTheEndpoint() {
	s.env.OnActivity(a.Deliver, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.DeliverInput) (activities.DeliverResult, error) {
		off := s.env.Now().Sub(s.start)
		s.attempts = append(s.attempts, off)
		if off < 20*time.Second {
			return activities.DeliverResult{Outcome: activities.OutcomeWait, Status: webhook.Pending, Until: s.env.Now().Add(30 * time.Minute)}, nil
		}
		return activities.DeliverResult{Outcome: activities.OutcomeDelivered, Status: webhook.Delivered, Attempts: 1, Recovered: true}, nil
	})
	woken := 0
	s.env.OnActivity(a.WakeEndpoint, mock.Anything, activities.WakeInput{TenantID: s.in.Delivery.TenantID, EndpointID: s.in.Delivery.EndpointID}).Return(func(context.Context, activities.WakeInput) (activities.WakeResult, error) {
		woken++
		return activities.WakeResult{Woken: 3}, nil
	})
	s.env.RegisterDelayedCallback(func() { s.env.SignalWorkflow(activities.SignalWake, activities.Wake{}) }, 20*time.Second)
	s.env.ExecuteWorkflow(DeliveryWorkflow, s.in)
	s.Equal(DeliveryResult{Status: webhook.Delivered, Attempts: 1}, s.result())
	s.Equal([]time.Duration{0, 20 * time.Second}, s.attempts)
	s.Equal(1, woken)
	s.Equal([]webhook.Status{webhook.Pending, webhook.Delivered}, s.statuses)
}

// Without a wake, a waiting delivery still looks again when its wait is up.
func (s *deliverySuite) TestWaitsWithoutSignal() {
	s.env.OnActivity(a.Deliver, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.DeliverInput) (activities.DeliverResult, error) {
		off := s.env.Now().Sub(s.start)
		s.attempts = append(s.attempts, off)
		if off < time.Hour {
			return activities.DeliverResult{Outcome: activities.OutcomeWait, Status: webhook.Pending, Until: s.env.Now().Add(30 * time.Minute)}, nil
		}
		return activities.DeliverResult{Outcome: activities.OutcomeDelivered, Status: webhook.Delivered, Attempts: 1}, nil
	})
	s.env.ExecuteWorkflow(DeliveryWorkflow, s.in)
	s.Equal(webhook.Delivered, s.result().Status)
	s.Equal([]time.Duration{0, 30 * time.Minute, time.Hour}, s.attempts)
}

// A 410 fails the delivery at once (the step disabled the endpoint); a
// deleted endpoint ends it without an attempt.
func (s *deliverySuite) TestGoneAndEnded() {
	s.env.OnActivity(a.Deliver, mock.Anything, mock.Anything).Return(activities.DeliverResult{Outcome: activities.OutcomeFailed, Status: webhook.Failed, Attempts: 1}, nil)
	s.env.ExecuteWorkflow(DeliveryWorkflow, s.in)
	s.Equal(DeliveryResult{Status: webhook.Failed, Attempts: 1}, s.result())

	s.SetupTest()
	s.env.OnActivity(a.Deliver, mock.Anything, mock.Anything).Return(activities.DeliverResult{Outcome: activities.OutcomeEnded, Status: webhook.Cancelled}, nil)
	s.env.ExecuteWorkflow(DeliveryWorkflow, s.in)
	s.Equal(DeliveryResult{Status: webhook.Cancelled}, s.result())
}

// The dispatcher runs steps while they report more, then waits for the
// dispatch signal; idle for dispatchLinger, it ends. A recovered endpoint
// is woken.
func TestDispatchWorkflow(t *testing.T) {
	var ts testsuite.WorkflowTestSuite
	ts.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	env := ts.NewTestWorkflowEnvironment()
	env.RegisterActivity(&activities.Activities{})
	start := env.Now()
	var steps []time.Duration
	var mu sync.Mutex
	env.OnActivity(a.Dispatch, mock.Anything, mock.Anything).Return(func(context.Context, activities.DispatchInput) (activities.DispatchResult, error) {
		mu.Lock()
		defer mu.Unlock()
		steps = append(steps, env.Now().Sub(start))
		switch len(steps) {
		case 1:
			return activities.DispatchResult{Sent: 32, More: true}, nil
		case 2:
			return activities.DispatchResult{Sent: 5, Recovered: true}, nil
		}
		return activities.DispatchResult{Sent: 1}, nil
	})
	woken := 0
	env.OnActivity(a.WakeEndpoint, mock.Anything, mock.Anything).Return(func(context.Context, activities.WakeInput) (activities.WakeResult, error) {
		woken++
		return activities.WakeResult{}, nil
	})
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(SignalDispatch, nil) }, 30*time.Second)
	in := DispatchInput{Endpoint: webhook.Ref{TenantID: uuid.New(), EndpointID: uuid.New()}}
	env.ExecuteWorkflow(DispatchWorkflow, in)
	if !env.IsWorkflowCompleted() || env.GetWorkflowError() != nil {
		t.Fatalf("dispatcher: %v", env.GetWorkflowError())
	}
	var r DispatchResult
	env.GetWorkflowResult(&r)
	if r.Sent != 38 || woken != 1 || !slices.Equal(steps, []time.Duration{0, 0, 30 * time.Second}) {
		t.Fatalf("sent %d, woken %d, steps at %v", r.Sent, woken, steps)
	}
	if d := env.Now().Sub(start); d != 30*time.Second+dispatchLinger {
		t.Fatalf("ended %s after the start", d)
	}
}
