package e2e

import (
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// scrapeMetrics is the suite's /metrics page: the metric names it has.
func scrapeMetrics(t *testing.T) (string, map[string]bool) {
	t.Helper()
	res, err := http.Get(env.ops.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("/metrics: %d %s", res.StatusCode, b)
	}
	names := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		if l == "" || l[0] == '#' {
			continue
		}
		names[l[:strings.IndexAny(l, "{ ")]] = true
	}
	return string(b), names
}

// A check's life shows on /metrics, and every metric the Grafana dashboard
// in deploy/ queries is one this process exports.
func TestMetricsAndDashboard(t *testing.T) {
	// A list loaded (its age is a gauge), and a check with a provider
	// activity (coc) beside one of local activities only (iban).
	importList(t, "ftm", "--list", "screentest", fixture("entities.ftm.json")) // imported or unchanged
	id := newBusiness(t, env.a, map[string]any{"name": "Test BV Donald", "coc_number": "68750110", "iban_number": "NL91ABNA0417164300"}, "coc", "iban")
	for _, typ := range []string{"coc", "iban"} {
		if chk := finished(t, env.a, id, typ, 30*time.Second); chk["validated"] != true {
			t.Fatalf("%s: %v", typ, chk)
		}
	}
	request(t, env.a, http.MethodGet, "/api/v1/businesses/"+id, nil).want(t, http.StatusOK)

	var page string
	var names map[string]bool
	// The Temporal SDK reports its metrics once a second.
	eventually(t, 10*time.Second, "the SDK's workflow metrics", func() bool {
		page, names = scrapeMetrics(t)
		return names["temporal_workflow_completed_total"] && names["temporal_activity_execution_latency_seconds_bucket"] && names["kycflow_watchlist_age_seconds"]
	})
	for _, want := range []string{
		`kycflow_http_requests_total{code="200",method="GET",route="/api/v1/businesses/:id"}`,
		`kycflow_http_requests_total{code="201",method="POST",route="/api/v1/businesses/create"}`,
		`kycflow_relay_actions_total{action="start"}`,
		`kycflow_outbox_lag_seconds `,
		`kycflow_create_statements_slow_total `,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if !regexp.MustCompile(`(?m)^kycflow_checks_finished_total\{outcome="validated",type="iban"\} [1-9]`).MatchString(page) {
		t.Error("no validated iban check counted")
	}
	if !regexp.MustCompile(`(?m)^kycflow_create_statement_records_total [1-9]`).MatchString(page) {
		t.Error("no create counted in a statement")
	}
	if strings.Contains(page, id) {
		t.Error("a record id became a label")
	}

	raw, err := os.ReadFile("../../deploy/grafana/kycflow.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatal(err)
	}
	metric := regexp.MustCompile(`\b(kycflow|temporal|go|process)_[a-z0-9_]+\b`)
	queried := 0
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			for _, name := range metric.FindAllString(tg.Expr, -1) {
				queried++
				if !names[name] {
					t.Errorf("panel %q queries %s, which no kycflow process exports", p.Title, name)
				}
			}
		}
	}
	if t.Failed() {
		t.Logf("exported: %v", slices.Sorted(maps.Keys(names)))
	}
	if queried < 15 {
		t.Errorf("the dashboard queries %d metrics", queried)
	}
}

// /healthz is alive, /readyz ready: both dependencies answer.
func TestProbes(t *testing.T) {
	for _, path := range []string{"/healthz", "/readyz"} {
		for _, base := range []string{env.ops.URL, env.server.URL} {
			res, err := http.Get(base + path)
			if err != nil {
				t.Fatal(err)
			}
			var body map[string]any
			err = json.NewDecoder(res.Body).Decode(&body)
			res.Body.Close()
			if err != nil || res.StatusCode != http.StatusOK || (body["status"] != "ok" && body["status"] != "ready") {
				t.Errorf("%s%s: %d %v", base, path, res.StatusCode, body)
			}
		}
	}
}

// The API serves its own contract, without a key, byte for byte the
// document in the repository.
func TestServesOpenAPI(t *testing.T) {
	want, err := os.ReadFile("../../docs/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.Get(env.server.URL + "/api/v1/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	got, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/yaml" || string(got) != string(want) {
		t.Fatalf("GET /api/v1/openapi.yaml: %d %s, %d bytes (want %d)", res.StatusCode, res.Header.Get("Content-Type"), len(got), len(want))
	}
}
