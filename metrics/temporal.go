package metrics

import (
	"time"

	"github.com/uber-go/tally/v4"
	tallyprom "github.com/uber-go/tally/v4/prometheus"
	"go.temporal.io/sdk/client"
	sdktally "go.temporal.io/sdk/contrib/tally"
)

// Temporal is the Temporal SDK's metrics handler for a client, reporting
// into this registry through the SDK's tally bridge (temporal_request,
// temporal_workflow_task_schedule_to_start_latency, temporal_activity_…).
// Timers become histograms, so that they aggregate across processes.
// One handler per registry: every client of the process shares it.
func (m *Metrics) Temporal() client.MetricsHandler {
	if m == nil {
		return nil
	}
	m.temporalOnce.Do(func() { m.temporal = m.newTemporal() })
	return m.temporal
}

func (m *Metrics) newTemporal() client.MetricsHandler {
	reporter := tallyprom.NewReporter(tallyprom.Options{
		Registerer:              m.reg,
		DefaultTimerType:        tallyprom.HistogramTimerType,
		DefaultHistogramBuckets: latencyBuckets,
		// A metric the SDK emits with another label set than before is
		// dropped rather than crashing the process.
		OnRegisterError: func(error) {},
	})
	scope, _ := tally.NewRootScope(tally.ScopeOptions{
		CachedReporter:  reporter,
		Separator:       tallyprom.DefaultSeparator,
		SanitizeOptions: &sdktally.PrometheusSanitizeOptions,
	}, time.Second)
	return sdktally.NewMetricsHandler(sdktally.NewPrometheusNamingScope(scope))
}
