package worker

import (
	"context"

	"github.com/kycflow/kycflow/metrics"
	"github.com/kycflow/kycflow/screening"
	"github.com/kycflow/kycflow/store"
)

// Observe registers a worker's gauges that are read when Prometheus
// scrapes: the outbox's lag, and the age of each list it screens with.
func Observe(m *metrics.Metrics, s *store.Store, lists *screening.Lists) {
	m.GaugeFunc("outbox_lag_seconds", "How long the oldest unsent outbox row has waited (0: none waits).",
		func(ctx context.Context) (float64, error) {
			lag, err := s.OutboxLag(ctx)
			return lag.Seconds(), err
		})
	m.Lists(lists.Versions)
}
