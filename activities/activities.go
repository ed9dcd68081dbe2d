// Package activities holds the Temporal activities of check workflows: thin
// steps that load what they need from the store, call a provider, and write
// the outcome back. Provider answers are written here, not returned, so
// personal data never enters workflow history.
package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"

	"github.com/kycflow/kycflow/store"
)

// Activities holds the dependencies of every activity.
type Activities struct {
	Store *store.Store
}

// Error types of non-retryable application errors the workflow acts on.
const (
	// ErrTypeGone: the check or its subject no longer exists (deleted).
	ErrTypeGone = "CheckGone"
)

// CheckError is the `error` object of a check record.
type CheckError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// SetStatusInput asks for a status change of a check.
type SetStatusInput struct {
	Check store.CheckRef
	// Status is the new status; From the statuses it may replace.
	Status string
	From   []string
	Error  *CheckError
}

// SetStatusResult tells whether the change took effect and the status now.
type SetStatusResult struct {
	Applied bool
	Status  string
}

// SetStatus writes a status change (idempotent: see store.CheckUpdate).
func (a *Activities) SetStatus(ctx context.Context, in SetStatusInput) (SetStatusResult, error) {
	u := store.CheckUpdate{Status: in.Status, From: in.From}
	if in.Error != nil {
		b, err := json.Marshal(in.Error)
		if err != nil {
			return SetStatusResult{}, err
		}
		u.Error = b
	}
	applied, status, err := a.Store.UpdateCheck(ctx, in.Check, u)
	if err != nil {
		return SetStatusResult{}, wrap(err, "set status")
	}
	return SetStatusResult{Applied: applied, Status: status}, nil
}

// complete records a finished check with the provider's data.
func (a *Activities) complete(ctx context.Context, ref store.CheckRef, validated *bool, data any) (CheckResult, error) {
	b, err := json.Marshal(data)
	if err != nil {
		return CheckResult{}, err
	}
	applied, status, err := a.Store.UpdateCheck(ctx, ref, store.CheckUpdate{
		Status: store.StatusCompleted, From: []string{store.StatusQueued, store.StatusRunning},
		Validated: validated, Data: b,
	})
	if err != nil {
		return CheckResult{}, wrap(err, "record result")
	}
	return CheckResult{Applied: applied, Status: status, Validated: validated}, nil
}

// CheckResult is what a provider activity tells the workflow: the verdict
// only, never the provider's data.
type CheckResult struct {
	Applied   bool
	Status    string
	Validated *bool
}

// wrap marks a vanished check as final (nothing to retry) and keeps other
// errors retryable.
func wrap(err error, step string) error {
	if errors.Is(err, store.ErrNotFound) {
		return temporal.NewNonRetryableApplicationError(step+": check or subject deleted", ErrTypeGone, nil)
	}
	return fmt.Errorf("%s: %w", step, err)
}
