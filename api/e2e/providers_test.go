package e2e

import (
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"

	"github.com/kycflow/kycflow/activities"
	"github.com/kycflow/kycflow/check"
	kvksandbox "github.com/kycflow/kycflow/providers/kvk/sandbox"
	"github.com/kycflow/kycflow/store/pgcluster"
	"github.com/kycflow/kycflow/workflows"
)

// newBusiness creates a business with only the given checks requested.
func newBusiness(t *testing.T, tn tenant, fields map[string]any, checks ...string) string {
	t.Helper()
	body := map[string]any{"country_code": "NLD", "checks": map[string]bool{"coc": false, "vat": false, "iban": false}}
	for k, v := range fields {
		body[k] = v
	}
	for _, c := range checks {
		body["checks"].(map[string]bool)[c] = true
	}
	return request(t, tn, http.MethodPost, "/api/v1/businesses/create", body).want(t, http.StatusCreated).body["id"].(string)
}

// finished waits for a business's check to finish and returns it.
func finished(t *testing.T, tn tenant, id, typ string, within time.Duration) map[string]any {
	t.Helper()
	return waitCheck(t, tn, "/api/v1/businesses/"+id, typ, within)
}

func TestCoCCheckAgainstKvKSandbox(t *testing.T) {
	cases := []struct {
		name, coc, country string
		validated          any // true, false or nil
		reason             any
	}{
		{"Test BV Donald", "68750110", "NLD", true, nil},
		{"test b.v. donald", "68750110", "NLD", true, nil},                               // case, dots and legal form don't matter
		{"Test BV Donald Nevenvestiging", "68750110", "NLD", true, nil},                  // a trade name matches
		{"Test Coöperatie De Slapende Molen U.A.", "96354429", "NLD", false, "inactive"}, // registration ended
		{"Completely Different Holding", "68750110", "NLD", false, "name_mismatch"},
		{"Nobody BV", "12345670", "NLD", false, "not_registered"},
		{"Belgian NV", "0403170701", "BEL", nil, nil}, // no register integrated
	}
	for _, c := range cases {
		t.Run(c.name+" "+c.coc, func(t *testing.T) {
			id := newBusiness(t, env.a, map[string]any{"name": c.name, "coc_number": c.coc, "country_code": c.country}, "coc")
			chk := finished(t, env.a, id, "coc", 15*time.Second)
			d := obj(chk["data"])
			if chk["status"] != "completed" || chk["validated"] != c.validated || d["reason"] != c.reason || chk["error"] != nil {
				t.Fatalf("coc check: %v", chk)
			}
			if c.country != "NLD" {
				if d["outcome"] != "unsupported_country" || d["kvk_number"] != nil {
					t.Fatalf("unsupported country data: %v", d)
				}
				return
			}
			if d["outcome"] != "checked" || (c.reason != "not_registered" && d["name_match_score"] == nil) {
				t.Fatalf("data: %v", d)
			}
		})
	}

	// The matching BV: data in full and the visiting address on the record.
	id := newBusiness(t, env.a, map[string]any{"name": "Test BV Donald", "coc_number": "68750110"}, "coc")
	chk := finished(t, env.a, id, "coc", 15*time.Second)
	d := obj(chk["data"])
	sameKeys(t, "coc data", d, strings.Fields("outcome reason message kvk_number registered_name statutory_name trade_names legal_form registration_date active end_date address name_match_score matched_name"))
	if d["kvk_number"] != "68750110" || d["registered_name"] != "Test BV Donald" || d["legal_form"] != "Besloten Vennootschap" ||
		d["registration_date"] != "2017-05-19" || d["active"] != true || d["name_match_score"] != float64(1) || d["matched_name"] != "Test BV Donald" ||
		len(d["trade_names"].([]any)) != 2 {
		t.Fatalf("coc data: %v", d)
	}
	b := request(t, env.a, http.MethodGet, "/api/v1/businesses/"+id, nil).want(t, http.StatusOK).body
	if b["street"] != "Hizzaarderlaan" || b["housenumber"] != "3" || b["addition"] != "A" || b["postalcode"] != "8823SJ" || b["city"] != "Lollum" ||
		!strings.HasPrefix(fmt.Sprint(b["address"]), "Hizzaarderlaan 3 A") {
		t.Fatalf("address not copied onto the business: %v", b)
	}

	// A shielded address is reported as such and not copied.
	id = newBusiness(t, env.a, map[string]any{"name": "Grand Contex BV", "coc_number": "90001354"}, "coc")
	chk = finished(t, env.a, id, "coc", 15*time.Second)
	if a := obj(obj(chk["data"])["address"]); chk["validated"] != true || a["shielded"] != true || a["street"] != nil {
		t.Fatalf("shielded: %v", chk)
	}
	if b := request(t, env.a, http.MethodGet, "/api/v1/businesses/"+id, nil).body; b["street"] != nil || b["city"] != nil {
		t.Fatalf("shielded address copied: %v", b)
	}

	// KvK refuses the request for good (IPD1998): failed with KvK's error,
	// once, and the API answers 200 with it, no 5xx, no internals.
	id = newBusiness(t, env.a, map[string]any{"name": "Refused BV", "coc_number": "90002903"}, "coc")
	chk = finished(t, env.a, id, "coc", 15*time.Second)
	e := obj(chk["error"])
	if chk["status"] != "failed" || e["code"] != "provider_error" || e["provider"] != "kvk" || e["provider_code"] != "IPD1998" {
		t.Fatalf("refused: %v", chk)
	}
	if n := attempts(t, chk["id"].(string), "CoCCheck"); n != 1 {
		t.Fatalf("a final KvK answer was tried %d times", n)
	}
	noInternals(t, chk)
}

func TestVATCheckAgainstVIESSandbox(t *testing.T) {
	calls := env.vies.Calls()
	id := newBusiness(t, env.a, map[string]any{"name": "Test BV Donald", "coc_number": "68750110", "vat_number": "nl 8547.50.137.b01"}, "vat")
	chk := finished(t, env.a, id, "vat", 15*time.Second)
	d := obj(chk["data"])
	sameKeys(t, "vat data", d, strings.Fields("outcome reason message country_code vat_number valid name address requestDate requestIdentifier name_match_score test_service"))
	if chk["validated"] != true || d["valid"] != true || d["name"] != "TEST BV DONALD" || d["country_code"] != "NL" || d["vat_number"] != "854750137B01" ||
		!strings.HasPrefix(fmt.Sprint(d["requestIdentifier"]), "WAPI") || d["requestDate"] == nil || d["name_match_score"] != float64(1) || d["reason"] != nil {
		t.Fatalf("valid number: %v", chk)
	}

	// The activity run again on the finished check (a retry after a worker
	// died between its write and its report) answers from the record
	// without consulting VIES again.
	stored, err := env.app.GetCheck(t.Context(), mustUUID(t, env.a.id), mustUUID(t, chk["id"].(string)))
	if err != nil {
		t.Fatal(err)
	}
	again, err := env.acts.VATCheck(t.Context(), activities.VATInput{Check: stored.Ref()})
	if err != nil || again.Applied || again.Status != "completed" || again.Validated == nil || !*again.Validated || env.vies.Calls() != calls+1 {
		t.Fatalf("repeated activity: %+v %v (VIES calls %d)", again, err, env.vies.Calls()-calls)
	}

	// Valid format, not registered: VIES says invalid.
	id = newBusiness(t, env.a, map[string]any{"name": "Fictional Trading", "coc_number": "12345678", "vat_number": "NL862042173B02"}, "vat")
	chk = finished(t, env.a, id, "vat", 15*time.Second)
	if chk["validated"] != false || obj(chk["data"])["reason"] != "not_registered" || obj(chk["data"])["outcome"] != "checked" {
		t.Fatalf("unregistered number: %v", chk)
	}
	if env.vies.Calls() != calls+2 {
		t.Fatalf("VIES calls %d, want 2", env.vies.Calls()-calls)
	}

	// A bad check digit, a bad format: settled offline, VIES not asked.
	for number, reason := range map[string]string{"NL854750138B01": "bad_checksum", "DE12345": "bad_format", "EL12345": "bad_format"} {
		id = newBusiness(t, env.a, map[string]any{"name": "Offline BV", "coc_number": "12345678", "vat_number": number}, "vat")
		chk = finished(t, env.a, id, "vat", 15*time.Second)
		d = obj(chk["data"])
		if chk["validated"] != false || d["outcome"] != "rejected_offline" || d["reason"] != reason || d["message"] == nil || d["valid"] != nil {
			t.Fatalf("%s: %v", number, chk)
		}
	}
	// No EU prefix on a business outside the EU's VAT area is not a verdict.
	id = newBusiness(t, env.a, map[string]any{"name": "Swiss AG", "coc_number": "12345678", "vat_number": "CHE-123.456.788"}, "vat")
	if chk = finished(t, env.a, id, "vat", 15*time.Second); chk["validated"] != nil || obj(chk["data"])["outcome"] != "unsupported_country" {
		t.Fatalf("non-EU number: %v", chk)
	}
	if env.vies.Calls() != calls+2 {
		t.Fatalf("VIES was asked about numbers that fail offline (%d calls)", env.vies.Calls()-calls-2)
	}

	// VIES's test-service numbers work for sandbox tenants only.
	id = newBusiness(t, env.sandboxT, map[string]any{"name": "Test Trader", "coc_number": "12345678", "vat_number": "NL100"}, "vat")
	if chk = finished(t, env.sandboxT, id, "vat", 15*time.Second); chk["validated"] != true || obj(chk["data"])["test_service"] != true {
		t.Fatalf("sandbox test number 100: %v", chk)
	}
	id = newBusiness(t, env.a, map[string]any{"name": "Test Trader", "coc_number": "12345678", "vat_number": "NL100"}, "vat")
	if chk = finished(t, env.a, id, "vat", 15*time.Second); chk["validated"] != false || obj(chk["data"])["outcome"] != "rejected_offline" {
		t.Fatalf("test number on a live tenant: %v", chk)
	}
	id = newBusiness(t, env.sandboxT, map[string]any{"name": "Test Trader", "coc_number": "12345678", "vat_number": "DE201"}, "vat")
	if chk = finished(t, env.sandboxT, id, "vat", 15*time.Second); chk["status"] != "failed" || obj(chk["error"])["provider_code"] != "INVALID_INPUT" {
		t.Fatalf("sandbox test number 201 (INVALID_INPUT, final): %v", chk)
	}
	noInternals(t, chk)
}

// VIES's member state is down for a stretch: the check stays running (not
// failed) while the worker retries, then completes once VIES is back.
func TestVATOutageStaysRunningThenCompletes(t *testing.T) {
	env.vies.Fail("MS_UNAVAILABLE", 3*time.Second)
	defer env.vies.Recover()
	calls := env.vies.Calls()
	id := newBusiness(t, env.a, map[string]any{"name": "Test BV Donald", "coc_number": "68750110", "vat_number": "NL854750137B01"}, "vat")
	path := "/api/v1/businesses/" + id
	eventually(t, 5*time.Second, "several refused consultations", func() bool { return env.vies.Calls() >= calls+3 })
	if chk := obj(request(t, env.a, http.MethodGet, path, nil).want(t, http.StatusOK).body["vat_check"]); chk["status"] != "running" || chk["error"] != nil {
		t.Fatalf("during the outage: %v", chk)
	}
	chk := finished(t, env.a, id, "vat", 15*time.Second)
	if chk["status"] != "completed" || chk["validated"] != true || chk["error"] != nil {
		t.Fatalf("after the outage: %v", chk)
	}
}

// The KvK's gateway fails for a stretch (502s, without the Retry-After of
// its 503s, which the worker would honour for 30 s): the coc check stays
// running while the worker retries, then completes once the KvK answers.
func TestCoCOutageStaysRunningThenCompletes(t *testing.T) {
	env.kvk.Fail(http.StatusBadGateway, 3*time.Second)
	defer env.kvk.Recover()
	calls := env.kvk.Calls()
	id := newBusiness(t, env.a, map[string]any{"name": "Test BV Donald", "coc_number": "68750110"}, "coc")
	eventually(t, 5*time.Second, "several refused KvK calls", func() bool { return env.kvk.Calls() >= calls+3 })
	if chk := obj(request(t, env.a, http.MethodGet, "/api/v1/businesses/"+id, nil).want(t, http.StatusOK).body["coc_check"]); chk["status"] != "running" || chk["error"] != nil {
		t.Fatalf("during the outage: %v", chk)
	}
	chk := finished(t, env.a, id, "coc", 15*time.Second)
	if chk["status"] != "completed" || chk["validated"] != true || chk["error"] != nil {
		t.Fatalf("after the outage: %v", chk)
	}
}

// An outage longer than the retry window fails the checks with VIES's
// error; each of the three ways of retrying resumes one, and it completes.
func TestRetryExhaustedResumesThreeWays(t *testing.T) {
	// Parallel: it waits out the retry window while the other parallel
	// tests run, none of which asks VIES (which it puts in an outage).
	t.Parallel()
	retryExhausted(t)
}

func retryExhausted(t *testing.T) {
	env.vies.Fail("MS_UNAVAILABLE", time.Hour)
	defer env.vies.Recover()
	ids := make([]string, 3)
	checks := make([]map[string]any, 3)
	for i := range ids {
		ids[i] = newBusiness(t, env.a, map[string]any{"name": "Test BV Donald", "coc_number": "68750110", "vat_number": "NL854750137B01"}, "vat")
	}
	for i, id := range ids {
		checks[i] = finished(t, env.a, id, "vat", retry.Window+15*time.Second)
		e := obj(checks[i]["error"])
		if checks[i]["status"] != "failed" || e["code"] != "provider_unavailable" || e["provider"] != "vies" || e["provider_code"] != "MS_UNAVAILABLE" {
			t.Fatalf("after the window: %v", checks[i])
		}
		noInternals(t, checks[i])
	}
	env.vies.Recover()
	checkID := func(i int) string { return checks[i]["id"].(string) }

	// 1. The API, tenant-scoped.
	request(t, env.b, http.MethodPost, "/api/v1/checks/"+checkID(0)+"/retry", nil).want(t, http.StatusNotFound)
	r := request(t, env.a, http.MethodPost, "/api/v1/checks/"+checkID(0)+"/retry", nil).want(t, http.StatusAccepted)
	if obj(r.body["check"])["status"] != "queued" {
		t.Fatalf("retry response: %s", r.raw)
	}
	// 2. The CLI.
	cmd := exec.Command(env.bin, "check", "retry", checkID(1))
	cmd.Env = append(os.Environ(), "DATABASE_ADMIN_URL="+env.adminDSN)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "retry of check") {
		t.Fatalf("kycflow check retry: %v: %s", err, out)
	}
	// 3. A `retry` signal without payload, as the Temporal UI sends it.
	if err := env.client.SignalWorkflow(t.Context(), workflows.WorkflowID(mustUUID(t, checkID(2))), "", workflows.SignalRetry, nil); err != nil {
		t.Fatal(err)
	}
	// The signal is handled in its own time: the check is failed until then.
	eventually(t, 15*time.Second, "the signalled check to leave failed", func() bool {
		r := request(t, env.a, http.MethodGet, "/api/v1/businesses/"+ids[2], nil).want(t, http.StatusOK)
		return obj(r.body["vat_check"])["status"] != "failed"
	})
	for i, id := range ids {
		chk := finished(t, env.a, id, "vat", 15*time.Second)
		if chk["id"] != checkID(i) || chk["status"] != "completed" || chk["validated"] != true || chk["error"] != nil {
			t.Fatalf("way %d: %v", i+1, chk)
		}
	}
	r = request(t, env.a, http.MethodPost, "/api/v1/checks/"+checkID(0)+"/retry", nil).want(t, http.StatusConflict)
	if r.body["message"] != "Only a failed check can be retried; this check is completed." {
		t.Fatalf("409 message: %s", r.raw)
	}
}

// A worker killed (SIGKILL) in the middle of a KvK call: another worker
// takes the activity over after the heartbeat timeout, and the check is
// written exactly once — one result, one address write.
func TestWorkerKilledDuringProviderCall(t *testing.T) {
	ctx := t.Context()
	if err := env.admin.CountResultWrites(ctx); err != nil {
		t.Fatal(err)
	}

	// Only the worker process about to be killed polls the task queue.
	env.worker.Stop()
	restarted := false
	defer func() {
		if !restarted {
			startWorker()
		}
	}()
	proc := exec.Command(env.bin, "worker")
	ops := "127.0.0.1:" + strconv.Itoa(pgcluster.FreePort())
	proc.Env = append(os.Environ(), "DATABASE_URL="+env.workerDSN, "TEMPORAL_ADDRESS="+env.temporalOpts.HostPort, "HEALTH_ADDR="+ops,
		"KVK_BASE_URL="+env.kvkURL, "KVK_API_KEY="+kvksandbox.TestAPIKey, "VIES_BASE_URL="+env.viesURL,
		"PROVIDER_RETRY_INITIAL=100ms", "PROVIDER_RETRY_MAX=1s", "LOG_LEVEL=error")
	if err := proc.Start(); err != nil {
		t.Fatal(err)
	}
	defer proc.Process.Kill()

	env.kvk.Slow(time.Minute, time.Minute)
	defer env.kvk.Recover()
	calls := env.kvk.Calls()
	id := newBusiness(t, env.a, map[string]any{"name": "Test BV Donald", "coc_number": "68750110"}, "coc")
	eventually(t, 20*time.Second, "the worker process to call KvK", func() bool { return env.kvk.Calls() > calls })
	// The process's operations endpoints, mid-call.
	for path, want := range map[string]string{"/readyz": `"ready"`, "/metrics": `kycflow_up{role="worker"} 1`} {
		res, err := http.Get("http://" + ops + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || !strings.Contains(string(b), want) {
			t.Errorf("worker %s: %d, want %s in %.300s", path, res.StatusCode, want, b)
		}
	}
	if err := proc.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	proc.Wait()
	env.kvk.Recover()
	if err := startWorker(); err != nil {
		t.Fatal(err)
	}
	restarted = true

	chk := finished(t, env.a, id, "coc", 45*time.Second)
	if chk["status"] != "completed" || chk["validated"] != true {
		t.Fatalf("after the kill: %v", chk)
	}
	if env.kvk.Calls() < calls+2 {
		t.Fatalf("KvK called %d times: the kill did not interrupt a call", env.kvk.Calls()-calls)
	}
	writes, err := env.admin.ResultWrites(ctx, mustUUID(t, chk["id"].(string)))
	if err != nil {
		t.Fatal(err)
	}
	if len(writes) != 1 || writes[0] != check.Completed {
		t.Fatalf("result writes: %v, want exactly one", writes)
	}
	if b := request(t, env.a, http.MethodGet, "/api/v1/businesses/"+id, nil).body; b["city"] != "Lollum" {
		t.Fatalf("address: %v", b)
	}
}

// sameKeys checks an object has exactly these keys (order aside: the
// object was decoded into a map).
func sameKeys(t *testing.T, what string, m map[string]any, want []string) {
	t.Helper()
	got := slices.Sorted(maps.Keys(m))
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("%s keys\n got %v\nwant %v", what, got, want)
	}
}

// noInternals fails when a check shows what only operators should see.
func noInternals(t *testing.T, chk map[string]any) {
	t.Helper()
	s := string(mustJSON(t, chk))
	for _, leak := range []string{"http://", "127.0.0.1", "goroutine", ".go:", "panic", "dial tcp"} {
		if strings.Contains(s, leak) {
			t.Fatalf("check shows %q: %s", leak, s)
		}
	}
}

// attempts is how many times the check's workflow ran an activity type
// (the attempt number of its last start: retries record only the last).
func attempts(t *testing.T, checkID, activityType string) int32 {
	t.Helper()
	it := env.client.GetWorkflowHistory(t.Context(), workflows.WorkflowID(mustUUID(t, checkID)), "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	scheduled := map[int64]string{}
	var n int32
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil {
			scheduled[ev.GetEventId()] = a.GetActivityType().GetName()
		}
		if a := ev.GetActivityTaskStartedEventAttributes(); a != nil && scheduled[a.GetScheduledEventId()] == activityType {
			n += a.GetAttempt()
		}
	}
	return n
}
