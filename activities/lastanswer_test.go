package activities

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/kycflow/kycflow/check"
)

// probe is an activity whose attempt fails as mode says, its error settled
// by lastAnswer.
func probe(ctx context.Context, mode string) (err error) {
	switch mode {
	case "deadline", "cancelled":
		c, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
		if mode == "cancelled" {
			c, cancel = context.WithCancel(ctx)
			cancel()
		}
		defer cancel()
		ctx = c
		err = fmt.Errorf("wait for VIES turn: %w", ctx.Err())
	case "other":
		err = errors.New("rate: Wait(n=1) would exceed context deadline")
	case "provider":
		err = ProviderError("vies", "MS_UNAVAILABLE", "The member state's VAT service is unavailable to VIES.", false, 0, nil)
	}
	defer lastAnswer(ctx, "vies", &err)
	return err
}

// The error recorded when retries end names the provider's last answer,
// also when the last attempt was cut off by the end of the window.
func TestLastAnswer(t *testing.T) {
	var suite testsuite.WorkflowTestSuite
	answer := func(details any, mode string) (*temporal.ApplicationError, check.Error) {
		env := suite.NewTestActivityEnvironment()
		env.RegisterActivityWithOptions(probe, activity.RegisterOptions{Name: "probe"})
		if details != nil {
			env.SetHeartbeatDetails(details)
		}
		_, err := env.ExecuteActivity("probe", mode)
		var appErr *temporal.ApplicationError
		if !errors.As(err, &appErr) {
			t.Fatalf("%s: %v is no application error", mode, err)
		}
		var ce check.Error
		if appErr.HasDetails() {
			appErr.Details(&ce)
		}
		return appErr, ce
	}
	unavailable := check.Error{Code: check.CodeProviderUnavailable, Message: "The member state's VAT service is unavailable to VIES.", Provider: "vies", ProviderCode: "MS_UNAVAILABLE"}

	// An earlier attempt's answer wins over the deadline that cut this one.
	if e, ce := answer(unavailable, "deadline"); e.Type() != ErrTypeProvider || ce != unavailable {
		t.Errorf("deadline after an answer: %s %+v", e.Type(), ce)
	}
	// No earlier answer: the provider did not answer in time.
	if e, ce := answer(nil, "deadline"); e.Type() != ErrTypeProvider || ce.Code != check.CodeProviderUnavailable || ce.Provider != "vies" || ce.ProviderCode != "TIMEOUT" {
		t.Errorf("deadline without an answer: %s %+v", e.Type(), ce)
	}
	// Any other failure after an answer (a limiter that would wait past the
	// window, the database under load) reports that answer; before the
	// provider answered once it passes through.
	if e, ce := answer(unavailable, "other"); e.Type() != ErrTypeProvider || ce != unavailable || !strings.Contains(e.Error(), "would exceed") {
		t.Errorf("other error after an answer: %s %+v (%v)", e.Type(), ce, e)
	}
	if e, _ := answer(nil, "other"); e.Type() == ErrTypeProvider {
		t.Errorf("other error without an answer became a provider error: %v", e)
	}
	// A provider's own answer and a cancellation pass through.
	if e, ce := answer(nil, "provider"); e.Type() != ErrTypeProvider || ce != unavailable {
		t.Errorf("provider error: %s %+v", e.Type(), ce)
	}
	if e, _ := answer(unavailable, "cancelled"); e.Type() == ErrTypeProvider {
		t.Errorf("a cancellation became a provider error: %v", e)
	}
}
