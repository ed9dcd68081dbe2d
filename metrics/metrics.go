// Package metrics is what kycflow's processes tell Prometheus: one registry
// per process, the metrics the api, the worker and the relay record, the
// Temporal SDK's own metrics bridged into the same registry, and the
// /metrics handler. Every recording method is safe on a nil *Metrics, so
// code under test records into nothing.
package metrics

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.temporal.io/sdk/client"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/webhook"
)

// Namespace prefixes kycflow's own metrics; the Temporal SDK's start with
// temporal_.
const Namespace = "kycflow"

// A completed check's outcome is its verdict.
const (
	OutcomeValidated    = "validated"
	OutcomeNotValidated = "not_validated"
	OutcomeInconclusive = "inconclusive" // completed with validated null
)

// Outcomes label kycflow_checks_finished_total: a completed check's verdict,
// or the status it ended in otherwise.
var Outcomes = []string{OutcomeValidated, OutcomeNotValidated, OutcomeInconclusive, string(check.Failed), string(check.Expired), string(check.Cancelled)}

// Metrics holds a process's registry and the metrics kycflow records.
type Metrics struct {
	reg *prometheus.Registry

	httpRequests   *prometheus.CounterVec
	httpDuration   *prometheus.HistogramVec
	checksStarted  *prometheus.CounterVec
	checksFinished *prometheus.CounterVec
	relayed        *prometheus.CounterVec
	relayFailures  *prometheus.CounterVec
	deliveries     *prometheus.CounterVec

	temporalOnce sync.Once
	temporal     client.MetricsHandler
}

// latencyBuckets (seconds) are every latency histogram's, ours and the
// Temporal SDK's: from a millisecond to a minute.
var latencyBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10, 60}

func counter(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: name, Help: help}, labels)
}

// New is a registry with the Go runtime's and the process's collectors and
// kycflow's metrics; role ("api", "worker", "dev") labels kycflow_up.
func New(role string) *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{
		reg:          reg,
		httpRequests: counter("http_requests_total", "HTTP requests answered, by route template, method and status code.", "route", "method", "code"),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Name: "http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by route template and method.",
			Buckets: latencyBuckets,
		}, []string{"route", "method"}),
		checksStarted: counter("checks_started_total", "Checks that began running (queued → running), by type.", "type"),
		checksFinished: counter("checks_finished_total",
			"Checks that reached a final status, by type and outcome (validated, not_validated, inconclusive, failed, expired, cancelled).", "type", "outcome"),
		relayed:       counter("relay_actions_total", "Outbox rows the relay carried to Temporal, by action (start, cancel, retry, deliver, verified).", "action"),
		relayFailures: counter("relay_failures_total", "Temporal calls of the relay that failed (the row is retried), by action.", "action"),
		deliveries:    counter("webhook_deliveries_total", "Webhook delivery attempts, by result (delivered, retrying, failed).", "result"),
	}
	// Every known series starts at 0, so that dashboards and alerts see a
	// rate of 0 rather than no data, and a rise from the first event.
	for _, t := range check.AllTypes() {
		m.checksStarted.WithLabelValues(string(t))
		for _, o := range Outcomes {
			m.checksFinished.WithLabelValues(string(t), o)
		}
	}
	for _, a := range store.OutboxActions {
		m.relayed.WithLabelValues(a)
		m.relayFailures.WithLabelValues(a)
	}
	for _, r := range []webhook.Status{webhook.Delivered, webhook.Retrying, webhook.Failed} {
		m.deliveries.WithLabelValues(string(r))
	}
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: Namespace, Name: "up", Help: "1 while the process runs.", ConstLabels: prometheus.Labels{"role": role},
		}, func() float64 { return 1 }),
		m.httpRequests, m.httpDuration, m.checksStarted, m.checksFinished, m.relayed, m.relayFailures, m.deliveries,
	)
	return m
}

// Handler serves the registry in Prometheus's text format.
func (m *Metrics) Handler() http.Handler {
	// A gauge that cannot be read (the database is down) is left out; the
	// rest is still served.
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg, ErrorHandling: promhttp.ContinueOnError})
}

// Registry is where other collectors register (the Temporal bridge).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Request records an answered HTTP request. route is the route's template
// (/api/v1/businesses/:id), never the path, so ids do not become series.
func (m *Metrics) Request(route, method string, code int, took time.Duration) {
	if m == nil {
		return
	}
	if route == "" {
		route = "unmatched"
	}
	m.httpRequests.WithLabelValues(route, method, strconv.Itoa(code)).Inc()
	m.httpDuration.WithLabelValues(route, method).Observe(took.Seconds())
}

// CheckMoved records a status change the store applied.
func (m *Metrics) CheckMoved(t check.Type, to check.Status, validated *bool) {
	if m == nil {
		return
	}
	if to == check.Running {
		m.checksStarted.WithLabelValues(string(t)).Inc()
		return
	}
	if !to.Final() && to != check.Failed {
		return
	}
	outcome := string(to)
	if to == check.Completed {
		switch {
		case validated == nil:
			outcome = OutcomeInconclusive
		case *validated:
			outcome = OutcomeValidated
		default:
			outcome = OutcomeNotValidated
		}
	}
	m.checksFinished.WithLabelValues(string(t), outcome).Inc()
}

// Relayed records one outbox row's trip to Temporal.
func (m *Metrics) Relayed(action string, err error) {
	if m == nil {
		return
	}
	if err != nil {
		m.relayFailures.WithLabelValues(action).Inc()
		return
	}
	m.relayed.WithLabelValues(action).Inc()
}

// Delivered records a webhook delivery attempt's result.
func (m *Metrics) Delivered(result webhook.Status) {
	if m == nil {
		return
	}
	m.deliveries.WithLabelValues(string(result)).Inc()
}

// GaugeFunc registers a gauge read when Prometheus scrapes: f answers
// within the scrape's own deadline or the gauge is left out of that scrape.
func (m *Metrics) GaugeFunc(name, help string, f func(ctx context.Context) (float64, error)) {
	m.reg.MustRegister(&scraped{desc: prometheus.NewDesc(Namespace+"_"+name, help, nil, nil), f: f})
}

// scraped is a gauge whose value is read at scrape time, with a timeout (a
// database query, for one).
type scraped struct {
	desc *prometheus.Desc
	f    func(ctx context.Context) (float64, error)
}

func (s *scraped) Describe(ch chan<- *prometheus.Desc) { ch <- s.desc }

func (s *scraped) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	v, err := s.f(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(s.desc, err)
		return
	}
	ch <- prometheus.MustNewConstMetric(s.desc, prometheus.GaugeValue, v)
}

// Lists registers kycflow_watchlist_age_seconds{list}: how long ago the
// version of each loaded list was imported (what WATCHLIST_MAX_AGE
// judges); loaded answers the versions loaded now.
func (m *Metrics) Lists(loaded func() []store.WatchlistVersion) {
	m.reg.MustRegister(&listAges{desc: prometheus.NewDesc(Namespace+"_watchlist_age_seconds",
		"Age of the loaded version of each watchlist (since its import).", []string{"list"}, nil), loaded: loaded})
}

type listAges struct {
	desc   *prometheus.Desc
	loaded func() []store.WatchlistVersion
}

func (l *listAges) Describe(ch chan<- *prometheus.Desc) { ch <- l.desc }

func (l *listAges) Collect(ch chan<- prometheus.Metric) {
	loaded := l.loaded()
	now := time.Now()
	for _, v := range loaded {
		ch <- prometheus.MustNewConstMetric(l.desc, prometheus.GaugeValue, now.Sub(v.ImportedAt).Seconds(), v.List)
	}
}

// Creates registers the api's create writers' counters (store/batch),
// read at scrape time from stats: statements written, the creates they
// carried (the two give the statements' mean size), and the statements
// that ran 100 ms or longer.
func (m *Metrics) Creates(stats func() store.CreateStats) {
	m.reg.MustRegister(&createStats{stats: stats,
		statements: prometheus.NewDesc(Namespace+"_create_statements_total",
			"Statements this process wrote creates with (concurrent creates of a tenant share one).", nil, nil),
		creates: prometheus.NewDesc(Namespace+"_create_statement_records_total",
			"Creates those statements carried; over kycflow_create_statements_total, their mean size.", nil, nil),
		slow: prometheus.NewDesc(Namespace+"_create_statements_slow_total",
			"Create statements that ran 100 ms or longer: held up by a lock, or the database strained.", nil, nil),
	})
}

type createStats struct {
	stats                     func() store.CreateStats
	statements, creates, slow *prometheus.Desc
}

func (c *createStats) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.statements
	ch <- c.creates
	ch <- c.slow
}

func (c *createStats) Collect(ch chan<- prometheus.Metric) {
	st := c.stats()
	ch <- prometheus.MustNewConstMetric(c.statements, prometheus.CounterValue, float64(st.Statements))
	ch <- prometheus.MustNewConstMetric(c.creates, prometheus.CounterValue, float64(st.Creates))
	ch <- prometheus.MustNewConstMetric(c.slow, prometheus.CounterValue, float64(st.Slow))
}
