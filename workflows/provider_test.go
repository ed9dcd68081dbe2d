package workflows

import (
	"context"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/kycflow/kycflow/activities"
	"github.com/kycflow/kycflow/check"
)

// msUnavailable is VIES's member-state outage as the vat activity reports it.
func msUnavailable() error {
	return activities.ProviderError("vies", "MS_UNAVAILABLE", "The member state's VAT service is unavailable to VIES.", false, 0, nil)
}

// vatNeedsVIES lets the offline step pass the number on to VIES.
func (s *checkSuite) vatNeedsVIES() {
	s.in.Check.Type = "vat"
	s.env.OnActivity(a.VATOffline, mock.Anything, activities.VATInput{Check: s.in.Check}).Return(activities.OfflineResult{}, nil)
}

// A member state down for five hours: the check stays `running` while the
// call is retried with backoff (durable timers, skipped here), then
// completes once VIES answers. No `failed` in between.
func (s *checkSuite) TestVATOutageStaysRunningThenCompletes() {
	s.storeAccepts()
	s.vatNeedsVIES()
	start := s.env.Now()
	calls := 0
	s.env.OnActivity(a.VATCheck, mock.Anything, mock.Anything).Return(func(context.Context, activities.VATInput) (activities.CheckResult, error) {
		calls++
		if s.env.Now().Sub(start) < 5*time.Hour {
			return activities.CheckResult{}, msUnavailable()
		}
		return activities.CheckResult{Applied: true, Status: check.Completed, Validated: &yes}, nil
	})
	s.env.RegisterDelayedCallback(func() {
		v, err := s.env.QueryWorkflow(QueryStatus)
		s.NoError(err)
		var status check.Status
		s.NoError(v.Get(&status))
		s.Equal(check.Running, status, "mid-outage")
	}, 3*time.Hour)
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)
	r := s.result()
	s.Equal(check.Completed, r.Status)
	s.Equal([]check.Status{check.Running}, s.writtenStatuses()) // the activity wrote the result
	s.Equal([]check.Status{check.Running, check.Completed}, s.statuses)
	took := s.env.Now().Sub(start)
	s.GreaterOrEqual(took, 5*time.Hour)
	s.Less(took, 5*time.Hour+DefaultRetryMaximum+time.Minute) // backoff capped at ten minutes
	s.Greater(calls, 30)                                      // 1s doubling to 10 min, then every 10 min
	s.Less(calls, 50)
}

// An outage longer than the retry window: the check is `failed` with the
// provider's error; a retry signal once VIES is back completes it.
func (s *checkSuite) TestVATOutageOutlastsWindowThenRetry() {
	s.storeAccepts()
	s.vatNeedsVIES()
	s.in.Retry = ProviderRetry{Initial: time.Minute, Maximum: 30 * time.Minute, Window: 2 * time.Hour}
	healthy := false
	s.env.OnActivity(a.VATCheck, mock.Anything, mock.Anything).Return(func(context.Context, activities.VATInput) (activities.CheckResult, error) {
		if !healthy {
			return activities.CheckResult{}, msUnavailable()
		}
		return activities.CheckResult{Applied: true, Status: check.Completed, Validated: &yes}, nil
	})
	s.env.RegisterDelayedCallback(func() {
		healthy = true
		s.env.SignalWorkflow(SignalRetry, nil) // as sent from the Temporal UI
	}, 6*time.Hour)
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)
	s.Equal(check.Completed, s.result().Status)
	s.Equal([]check.Status{check.Running, check.Failed, check.Running}, s.writtenStatuses())
	e := s.writes[1].Error
	s.Equal(check.CodeProviderUnavailable, e.Code)
	s.Equal("vies", e.Provider)
	s.Equal("MS_UNAVAILABLE", e.ProviderCode)
	s.Contains(e.Message, "unavailable")
}

// A final answer (INVALID_INPUT) is not retried: the check fails at once
// with the provider's error.
func (s *checkSuite) TestVATFinalErrorNotRetried() {
	s.storeAccepts()
	s.vatNeedsVIES()
	calls := 0
	s.env.OnActivity(a.VATCheck, mock.Anything, mock.Anything).Return(func(context.Context, activities.VATInput) (activities.CheckResult, error) {
		calls++
		return activities.CheckResult{}, activities.ProviderError("vies", "INVALID_INPUT", "VIES rejected the input.", true, 0, nil)
	})
	s.env.RegisterDelayedCallback(s.env.CancelWorkflow, time.Hour)
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)
	s.Equal(check.Cancelled, s.result().Status)
	s.Equal(1, calls)
	s.Equal(check.CodeProviderError, s.writes[1].Error.Code)
	s.Equal("INVALID_INPUT", s.writes[1].Error.ProviderCode)
}

// The offline step settles a check alone (a bad check digit, a country
// without a register): the provider is never called.
func (s *checkSuite) TestOfflineStepSettlesCheck() {
	s.storeAccepts()
	s.in.Check.Type = "coc"
	s.env.OnActivity(a.CoCOffline, mock.Anything, mock.Anything).
		Return(activities.OfflineResult{Done: true, Result: activities.CheckResult{Applied: true, Status: check.Completed}}, nil)
	s.env.ExecuteWorkflow(CheckWorkflow, s.in)
	r := s.result()
	s.Equal(check.Completed, r.Status)
	s.Nil(r.Validated)
	s.env.AssertNotCalled(s.T(), "CoCCheck", mock.Anything, mock.Anything)
}
