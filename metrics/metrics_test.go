package metrics

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/webhook"
)

// scrape is the /metrics page's text.
func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("/metrics: %d", rec.Code)
	}
	b, _ := io.ReadAll(rec.Body)
	return string(b)
}

func wantLine(t *testing.T, page, line string) {
	t.Helper()
	for _, l := range strings.Split(page, "\n") {
		if l == line {
			return
		}
	}
	t.Errorf("no line %q in /metrics", line)
}

func TestRecords(t *testing.T) {
	m := New("worker")
	yes, no := true, false
	m.CheckMoved(check.IBAN, check.Running, nil)
	m.CheckMoved(check.IBAN, check.Completed, &yes)
	m.CheckMoved(check.VAT, check.Completed, &no)
	m.CheckMoved(check.VAT, check.Completed, nil)
	m.CheckMoved(check.AML, check.AwaitingReview, nil) // not an end
	m.CheckMoved(check.CoC, check.Failed, nil)
	m.Relayed("start", nil)
	m.Relayed("start", errors.New("temporal down"))
	m.Delivered(webhook.Retrying)
	m.Request("/api/v1/businesses/:id", "GET", 404, 3*time.Millisecond)
	m.Request("", "GET", 404, time.Millisecond)
	page := scrape(t, m)
	for _, l := range []string{
		`kycflow_checks_started_total{type="iban"} 1`,
		`kycflow_checks_started_total{type="idscan"} 0`,
		`kycflow_checks_finished_total{outcome="validated",type="iban"} 1`,
		`kycflow_checks_finished_total{outcome="not_validated",type="vat"} 1`,
		`kycflow_checks_finished_total{outcome="inconclusive",type="vat"} 1`,
		`kycflow_checks_finished_total{outcome="failed",type="coc"} 1`,
		`kycflow_checks_finished_total{outcome="expired",type="aml"} 0`,
		`kycflow_relay_actions_total{action="start"} 1`,
		`kycflow_relay_failures_total{action="start"} 1`,
		`kycflow_relay_failures_total{action="cancel"} 0`,
		`kycflow_webhook_deliveries_total{result="retrying"} 1`,
		`kycflow_http_requests_total{code="404",method="GET",route="/api/v1/businesses/:id"} 1`,
		`kycflow_http_requests_total{code="404",method="GET",route="unmatched"} 1`,
		`kycflow_http_request_duration_seconds_bucket{method="GET",route="/api/v1/businesses/:id",le="0.005"} 1`,
		`kycflow_up{role="worker"} 1`,
	} {
		wantLine(t, page, l)
	}
	if !strings.Contains(page, "go_goroutines ") || !strings.Contains(page, "process_resident_memory_bytes ") {
		t.Error("no Go runtime or process metrics")
	}
}

// A nil *Metrics records nothing and does not panic: code under test runs
// without a registry.
func TestNilRecordsNothing(t *testing.T) {
	var m *Metrics
	m.CheckMoved(check.IBAN, check.Running, nil)
	m.Relayed("start", nil)
	m.Delivered(webhook.Delivered)
	m.Request("/", "GET", 200, 0)
	if m.Temporal() != nil {
		t.Error("a nil registry has a Temporal handler")
	}
}

// A gauge read at scrape time that fails (the database is down) is left
// out; the page is still served with everything else.
func TestGaugeFuncFailureLeavesTheRest(t *testing.T) {
	m := New("worker")
	lag := 2.5
	var fail bool
	m.GaugeFunc("outbox_lag_seconds", "lag", func(context.Context) (float64, error) {
		if fail {
			return 0, errors.New("connection refused")
		}
		return lag, nil
	})
	m.Lists(func() []store.WatchlistVersion {
		return []store.WatchlistVersion{{List: "un_sc", ImportedAt: time.Now().Add(-time.Hour)}}
	})
	page := scrape(t, m)
	wantLine(t, page, "kycflow_outbox_lag_seconds 2.5")
	if !strings.Contains(page, `kycflow_watchlist_age_seconds{list="un_sc"} 3600`) {
		t.Errorf("no watchlist age of about an hour:\n%s", page)
	}
	fail = true
	page = scrape(t, m)
	if strings.Contains(page, "kycflow_outbox_lag_seconds ") || !strings.Contains(page, "kycflow_up{") {
		t.Errorf("failing gauge: %s", page)
	}
}

// The create writers' counters are read at scrape time, as counters.
func TestCreates(t *testing.T) {
	m := New("api")
	st := store.CreateStats{Statements: 3, Creates: 17, Slow: 1}
	m.Creates(func() store.CreateStats { return st })
	page := scrape(t, m)
	for _, l := range []string{"kycflow_create_statements_total 3", "kycflow_create_statement_records_total 17", "kycflow_create_statements_slow_total 1",
		"# TYPE kycflow_create_statements_total counter"} {
		wantLine(t, page, l)
	}
	st.Statements = 4
	wantLine(t, scrape(t, m), "kycflow_create_statements_total 4")
}

// The Temporal SDK's metrics land in the same registry, named the
// Prometheus way, and one handler serves every client of a process.
func TestTemporalBridge(t *testing.T) {
	m := New("api")
	h := m.Temporal()
	if h != m.Temporal() {
		t.Error("a second handler for one registry")
	}
	h.WithTags(map[string]string{"operation": "StartWorkflowExecution"}).Counter("temporal_request").Inc(1)
	h.Timer("temporal_request_latency").Record(20 * time.Millisecond)
	// tally reports once a second.
	deadline := time.Now().Add(10 * time.Second)
	for {
		page := scrape(t, m)
		if strings.Contains(page, `temporal_request_total{operation="StartWorkflowExecution"} 1`) &&
			strings.Contains(page, "temporal_request_latency_seconds_bucket{") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no temporal_ metrics:\n%s", page)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
