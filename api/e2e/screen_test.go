package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/api"
	"github.com/kycflow/kycflow/engines/sanctions"
	"github.com/kycflow/kycflow/engines/screeneval"
	"github.com/kycflow/kycflow/ops"
	"github.com/kycflow/kycflow/store"
)

func screenQueries(n int) []map[string]any {
	qs := make([]map[string]any, n)
	for i := range qs {
		qs[i] = map[string]any{"name": "Person Number " + string(rune('A'+i%26))}
	}
	return qs
}

// Synchronous screening: bad batches are refused with the field named,
// a good one answers every query with explained hits and leaves nothing
// but an audit row with counts; the tenant's choice of lists applies.
func TestScreen(t *testing.T) {
	// Its own list name: the watchlist tests import the file as opensanctions.
	importList(t, "ftm", "--list", "screentest", fixture("entities.ftm.json")) // imported or unchanged
	eventually(t, 15*time.Second, "the worker to load the list", func() bool {
		return slices.ContainsFunc(env.lists.Versions(), func(v store.WatchlistVersion) bool { return v.List == "screentest" })
	})
	tn := hookTenant(t, false)

	for _, tc := range []struct {
		body  any
		field string
	}{
		{map[string]any{}, "queries"},
		{map[string]any{"queries": []any{}}, "queries"},
		{map[string]any{"queries": screenQueries(101)}, "queries"},
		{map[string]any{"queries": []any{map[string]any{"birth_date": "1970"}}}, "queries.0.name"},
		{map[string]any{"queries": append(screenQueries(3), map[string]any{"name": "X", "birth_date": "1970-13-01"})}, "queries.3.birth_date"},
		{map[string]any{"queries": append(screenQueries(3), map[string]any{"name": "X", "birth_date": "2999-01-01"})}, "queries.3.birth_date"},
		{map[string]any{"queries": append(screenQueries(1), map[string]any{"name": "X", "nationality": "Narnia"})}, "queries.1.nationality"},
		{map[string]any{"queries": append(screenQueries(1), map[string]any{"name": "X", "nationality": "528"})}, "queries.1.nationality"},
		{map[string]any{"queries": []any{map[string]any{"name": "X", "type": "ship"}}}, "queries.0.type"},
		{map[string]any{"queries": []any{"Pavel Volkov"}}, "queries.0"},
		// Where names end: 200 characters, 12 words.
		{map[string]any{"queries": append(screenQueries(2), map[string]any{"name": strings.Repeat("محمد", 50) + "x"})}, "queries.2.name"},
		{map[string]any{"queries": append(screenQueries(1), map[string]any{"name": strings.Repeat("Ali ", 13)})}, "queries.1.name"},
		{map[string]any{"queries": []any{map[string]any{"name": strings.Repeat("محمد عبد الله علي حسن ", 14)}}}, "queries.0.name"},
	} {
		r := request(t, tn, http.MethodPost, "/api/v1/screen", tc.body)
		if r.status != http.StatusUnprocessableEntity || obj(r.body["errors"])[tc.field] == nil {
			t.Fatalf("screen %v: %d %s, want 422 on %s", tc.body, r.status, r.raw, tc.field)
		}
	}

	queries := append([]map[string]any{
		{"name": "Павел Волков", "birth_date": "1970-05-17", "nationality": "RUS"},
		{"name": "Maria Jansen-Koopmans", "nationality": "nl"},
	}, screenQueries(98)...)
	r := request(t, tn, http.MethodPost, "/api/v1/screen", map[string]any{"queries": queries}).want(t, http.StatusOK)
	results := r.body["results"].([]any)
	if len(results) != 100 || len(r.body["lists"].([]any)) == 0 || r.body["threshold"] != 0.88 {
		t.Fatalf("screen: %d results, %s", len(results), r.raw[:min(len(r.raw), 400)])
	}
	first := obj(results[0])
	hit := obj(first["hits"].([]any)[0])
	if first["alerting"] != true || hit["entity_id"] != "NK-fict-volkov" || hit["alerting"] != true || len(hit["explanation"].([]any)) == 0 ||
		obj(first["query"])["nationality"] != "ru" || obj(first["query"])["type"] != "person" {
		t.Fatalf("listed name: %v", first)
	}
	if second := obj(results[1]); second["alerting"] != false {
		t.Fatalf("unlisted name: %v", second)
	}
	var detail []json.RawMessage
	if err := env.admin.DB().Select(&detail, `SELECT detail FROM audit_log WHERE tenant_id = $1 AND action = 'screen'`, tn.id); err != nil {
		t.Fatal(err)
	}
	var counts store.ScreeningCounts
	if len(detail) != 1 || json.Unmarshal(detail[0], &counts) != nil || counts.Queries != 100 || counts.Alerting < 1 {
		t.Fatalf("audit rows: %s", detail)
	}

	// The list catalogue: the same for every tenant; which apply is theirs.
	wl := request(t, tn, http.MethodGet, "/api/v1/watchlists", nil).want(t, http.StatusOK)
	found := false
	for _, it := range wl.body["data"].([]any) {
		if l := obj(it); l["list"] == "screentest" {
			found = l["applies"] == true && l["loaded_at"] != nil && l["entities"].(float64) > 0
		}
	}
	if !found {
		t.Fatalf("watchlists: %s", wl.raw)
	}
	// A tenant screening against a list not loaded: none of the others apply.
	if err := env.admin.SetAMLLists(context.Background(), uuid.MustParse(tn.id), []string{"no-such-list"}); err != nil {
		t.Fatal(err)
	}
	r = request(t, tn, http.MethodPost, "/api/v1/screen", map[string]any{"queries": queries[:1]})
	if r.status != http.StatusServiceUnavailable {
		t.Fatalf("screen with no list of the tenant's loaded: %d %s", r.status, r.raw)
	}
	for _, it := range request(t, tn, http.MethodGet, "/api/v1/watchlists", nil).body["data"].([]any) {
		if obj(it)["applies"] != false {
			t.Fatalf("a list the tenant did not choose applies: %v", it)
		}
	}

	// A list older than the allowed age: the API is degraded, not down.
	if h := request(t, tn, http.MethodGet, "/healthz", nil).want(t, http.StatusOK); h.body["status"] != "ok" {
		t.Fatalf("healthz: %s", h.raw)
	}
	serve(t, api.Config{Store: env.app, Screener: env.lists, Probes: ops.Probes{Lists: env.lists.Versions, MaxListAge: time.Nanosecond}})
	if h := request(t, tn, http.MethodGet, "/healthz", nil).want(t, http.StatusOK); h.body["status"] != "degraded" || len(h.body["stale_watchlists"].([]any)) == 0 {
		t.Fatalf("healthz with a stale list: %s", h.raw)
	}
}

// indexScreener screens against an index of its own (a generated list),
// for a server the test starts.
type indexScreener struct {
	ix *sanctions.Index
	v  []store.WatchlistVersion
}

func (s indexScreener) Screen(q sanctions.Query, limit int, _ []string) ([]sanctions.Hit, []store.WatchlistVersion) {
	return s.ix.Search(q, limit), s.v
}
func (s indexScreener) Versions() []store.WatchlistVersion { return s.v }

// The screening budget is CPU time, per tenant: a tenant sending the
// costliest batches it can is refused (429, Retry-After) once its
// CPU-seconds are spent, while another tenant screens on.
func TestScreenBudget(t *testing.T) {
	list := screeneval.GenerateList(5000, 11).Entities
	screener := indexScreener{sanctions.Build(list, sanctions.Options{}), []store.WatchlistVersion{{ID: 1, List: "generated", Format: "generated", ContentHash: []byte{1}, ImportedAt: time.Now()}}}
	serve(t, api.Config{Store: env.app, Screener: screener, Limits: api.Limits{ScreenCPU: 0.01}}) // 10 ms a second, a bucket of 1 s
	greedy, other := hookTenant(t, false), hookTenant(t, false)
	worst := make([]map[string]any, 100)
	for i := range worst {
		worst[i] = map[string]any{"name": "Muhammad Ali Hassan Ahmad Abdullah Ibrahim Mohammed Abdul Omar Mahmoud Mustafa " + string(rune('A'+i%26))}
	}
	var refused response
	for range 200 {
		if r := request(t, greedy, http.MethodPost, "/api/v1/screen", map[string]any{"queries": worst}); r.status == http.StatusTooManyRequests {
			refused = r
			break
		}
	}
	if refused.status != http.StatusTooManyRequests || refused.header.Get("Retry-After") == "" || !strings.Contains(refused.body["message"].(string), "CPU-seconds") {
		t.Fatalf("the costliest batches were never refused: %d %s", refused.status, refused.raw)
	}
	r := request(t, other, http.MethodPost, "/api/v1/screen", map[string]any{"queries": screenQueries(3)}).want(t, http.StatusOK)
	if len(r.body["results"].([]any)) != 3 {
		t.Fatalf("another tenant: %s", r.raw)
	}
}
