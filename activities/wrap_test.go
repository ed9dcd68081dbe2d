package activities

import (
	"errors"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"

	"github.com/kycflow/kycflow/store"
)

func isGone(err error) bool {
	var app *temporal.ApplicationError
	return errors.As(err, &app) && app.Type() == ErrTypeGone && app.NonRetryable()
}

// A step that succeeded stays a success (its callers return wrap of a
// store call as it is); a vanished check is final; any other failure
// names its step and is retried.
func TestWrap(t *testing.T) {
	if err := wrap(nil, "record the selfie's outcome"); err != nil {
		t.Fatalf("a success wrapped: %v", err)
	}
	if err := wrap(store.ErrNotFound, "load check"); !isGone(err) {
		t.Fatalf("a vanished check: %v", err)
	}
	boom := errors.New("connection reset")
	if err := wrap(boom, "load check"); !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "load check: ") || isGone(err) {
		t.Fatalf("a failure: %v", err)
	}
}
