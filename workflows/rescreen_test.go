package workflows

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/testsuite"

	"github.com/kycflow/kycflow/activities"
)

// Batches run until done, each from the cursor the last one returned; a
// failing batch is retried; then the version is marked rescreened.
func TestRescreenWorkflow(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterActivity(&activities.Activities{})
	tenant := uuid.New()
	var cursors []activities.RescreenCursor
	failed := false
	env.OnActivity(a.RescreenBatch, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.RescreenInput) (activities.RescreenResult, error) {
		if len(cursors) == 1 && !failed {
			failed = true
			return activities.RescreenResult{}, errors.New("database hiccup")
		}
		cursors = append(cursors, in.Cursor)
		next := activities.RescreenCursor{TenantID: tenant, After: uuid.New()}
		return activities.RescreenResult{Next: next, Done: len(cursors) == 3, Screened: 500}, nil
	})
	marked := 0
	env.OnActivity(a.MarkRescreened, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.RescreenInput) error {
		if in.VersionID != 7 {
			t.Errorf("marked version %d", in.VersionID)
		}
		marked++
		return nil
	})
	env.ExecuteWorkflow(RescreenWorkflow, activities.RescreenInput{VersionID: 7})
	if !env.IsWorkflowCompleted() || env.GetWorkflowError() != nil {
		t.Fatalf("workflow: %v", env.GetWorkflowError())
	}
	if len(cursors) != 3 || cursors[0] != (activities.RescreenCursor{}) || cursors[1].TenantID != tenant || cursors[1] == cursors[2] || marked != 1 {
		t.Fatalf("cursors %v, marked %d", cursors, marked)
	}
}
