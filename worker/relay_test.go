package worker

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/mocks"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/workflows"
)

func item(id int64, action string, checkID uuid.UUID) store.OutboxItem {
	return store.OutboxItem{ID: id, Action: action, CheckID: checkID,
		Ref: check.Ref{TenantID: uuid.New(), CheckID: checkID, SubjectKind: check.Business, SubjectID: uuid.New(), Type: check.IBAN}}
}

// calls records the relay's Temporal calls in order, per workflow id.
type calls struct {
	mu  sync.Mutex
	seq map[string][]string
}

func (c *calls) add(id, what string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq[id] = append(c.seq[id], what)
}

// A batch's actions on one check go out in order, each check's on its own;
// a repeated start and a cancel of a workflow that is gone count as done.
func TestRelayDeliverKeepsOrderPerCheck(t *testing.T) {
	a, b := uuid.New(), uuid.New()
	rec := &calls{seq: map[string][]string{}}
	c := &mocks.Client{}
	c.On("ExecuteWorkflow", mock.Anything, mock.Anything, mock.Anything, mock.Anything).Return(
		func(_ context.Context, o client.StartWorkflowOptions, _ any, _ ...any) (client.WorkflowRun, error) {
			rec.add(o.ID, "start")
			time.Sleep(5 * time.Millisecond) // give a reordering the chance
			if o.ID == workflows.WorkflowID(b) {
				return nil, serviceerror.NewWorkflowExecutionAlreadyStarted("started", "", "")
			}
			return nil, nil
		})
	c.On("CancelWorkflow", mock.Anything, mock.Anything, "").Return(func(_ context.Context, id, _ string) error {
		rec.add(id, "cancel")
		return serviceerror.NewNotFound("gone")
	})
	c.On("SignalWorkflow", mock.Anything, mock.Anything, "", workflows.SignalVerification, mock.Anything).Return(
		func(_ context.Context, id, _, _ string, _ any) error {
			rec.add(id, "verified")
			return nil
		})
	r := &Relay{Client: c, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	r.defaults()
	items := []store.OutboxItem{item(1, store.ActionStart, a), item(2, store.ActionStart, b), item(3, store.ActionVerified, a),
		item(4, store.ActionCancel, a), item(5, "unknown", b)}
	ok := r.deliver(context.Background())(items)
	for i, o := range ok {
		if !o {
			t.Errorf("item %d not delivered", items[i].ID)
		}
	}
	if got := rec.seq[workflows.WorkflowID(a)]; len(got) != 3 || got[0] != "start" || got[1] != "verified" || got[2] != "cancel" {
		t.Errorf("check a's calls: %v", got)
	}
	if got := rec.seq[workflows.WorkflowID(b)]; len(got) != 1 {
		t.Errorf("check b's calls: %v", got)
	}
}

// After a failure nothing more of the batch is tried (Temporal is likely
// down), and a check's later actions wait for its failed one.
func TestRelayDeliverStopsAtFailure(t *testing.T) {
	a := uuid.New()
	c := &mocks.Client{}
	c.On("ExecuteWorkflow", mock.Anything, mock.Anything, mock.Anything, mock.Anything).Return(nil, errors.New("unavailable"))
	r := &Relay{Client: c, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Concurrency: 1}
	r.defaults()
	items := []store.OutboxItem{item(1, store.ActionStart, a), item(2, store.ActionCancel, a), item(3, store.ActionStart, uuid.New())}
	ok := r.deliver(context.Background())(items)
	if ok[0] || ok[1] || ok[2] {
		t.Fatalf("delivered %v after a failure", ok)
	}
	c.AssertNumberOfCalls(t, "ExecuteWorkflow", 1)
	c.AssertNotCalled(t, "CancelWorkflow", mock.Anything, mock.Anything, mock.Anything)
}

// The relay's backoff doubles from 250 ms and stops at 5 s.
func TestRelayBackoff(t *testing.T) {
	want := []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	for attempts, w := range want {
		if got := backoff(attempts); got != w {
			t.Errorf("backoff(%d) = %s, want %s", attempts, got, w)
		}
	}
	if backoff(1000) != 5*time.Second {
		t.Error("backoff overflows")
	}
}
