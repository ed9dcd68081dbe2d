package e2e

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kycflow/kycflow/store/pgcluster"
)

// procEntity is listed on the list the processes' aml flow screens
// against, imported before they start.
const procEntity = `{"id":"NK-proc-zelinsky","schema":"Person","properties":{"name":["Marek Zelinsky-Obrovac"],"birthDate":["1958-09-12"],"topics":["sanction"]},"datasets":["proc"]}`

// The core flows on the production topology: the suite's own worker and
// relay stop, and 2 `kycflow api` processes behind `kycflow proxy` and 3
// `kycflow worker` processes take over, on the same Temporal server and
// PostgreSQL, reaching the same provider sandboxes. Every request goes
// through the proxy (and its answers are checked against the OpenAPI
// document as the in-process API's are); each flow is the in-process test
// of the same name, run again unchanged.
func TestCoreFlowsAcrossProcesses(t *testing.T) {
	file := filepath.Join(t.TempDir(), "proc.ftm.json")
	if err := os.WriteFile(file, []byte(procEntity+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := importList(t, "ftm", "--list", "proctest", file); !strings.Contains(out, "imported proctest version") {
		t.Fatalf("import: %s", out)
	}

	env.worker.Stop()
	defer startWorker()

	proxy := "127.0.0.1:" + strconv.Itoa(pgcluster.FreePort())
	public := "http://" + proxy
	common := []string{"TEMPORAL_ADDRESS=" + env.temporalOpts.HostPort, "PUBLIC_URL=" + public, "LOG_LEVEL=warn",
		"WEBHOOK_SECRET_KEY=" + hookKey, "WEBHOOK_ALLOW_NETS=" + receiverIP + "/32", "IMAGE_KEYS=" + imageKeys}
	var upstreams, ready []string
	start := func(name string, vars ...string) {
		logFile, err := os.Create(filepath.Join(t.TempDir(), name+".log"))
		if err != nil {
			t.Fatal(err)
		}
		role, _, _ := strings.Cut(name, "-")
		proc := exec.Command(env.bin, role)
		proc.Env = append(append(os.Environ(), common...), vars...)
		proc.Stdout, proc.Stderr = logFile, logFile
		if err := proc.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			proc.Process.Kill()
			proc.Wait()
			if t.Failed() {
				if b, err := os.ReadFile(logFile.Name()); err == nil && len(b) > 0 {
					t.Logf("%s's log:\n%s", name, tail(b, 3000))
				}
			}
		})
	}
	for i := range 2 {
		addr := "127.0.0.1:" + strconv.Itoa(pgcluster.FreePort())
		upstreams, ready = append(upstreams, addr), append(ready, addr)
		start("api-"+strconv.Itoa(i+1), "DATABASE_URL="+env.appDSN, "HTTP_ADDR="+addr, "HEALTH_ADDR=off", "API_WATCHLISTS=off")
	}
	// The retry window is shorter than the suite's (an outage of 8 s fails
	// a check), which the outage flows' 3 s outages stay well within.
	for i := range 3 {
		health := "127.0.0.1:" + strconv.Itoa(pgcluster.FreePort())
		ready = append(ready, health)
		start("worker-"+strconv.Itoa(i+1), append(providerEnv(), "DATABASE_URL="+env.workerDSN, "HEALTH_ADDR="+health,
			"PROVIDER_RETRY_INITIAL="+retry.Initial.String(), "PROVIDER_RETRY_MAX="+retry.Maximum.String(), "PROVIDER_RETRY_WINDOW=8s",
			"RELAY_SWEEP_MS=200", "WATCHLIST_REFRESH=200ms")...)
	}
	start("proxy", "HTTP_ADDR="+proxy, "PROXY_UPSTREAMS="+strings.Join(upstreams, ","))
	ready = append(ready, proxy)
	for _, addr := range ready {
		eventually(t, time.Minute, addr+" ready", func() bool {
			res, err := http.Get("http://" + addr + "/readyz")
			if err != nil {
				return false
			}
			res.Body.Close()
			return res.StatusCode == http.StatusOK
		})
	}

	inProcess := env.publicURL
	env.publicURL, env.apiURL = public, public
	apiAddrs.Store(proxy, true)
	defer func() { env.publicURL, env.apiURL = inProcess, inProcess }()
	// A first check warms the processes up (a worker's first workflow task
	// waits for its pollers; the iban flow allows a check 2 s).
	finished(t, env.a, newBusiness(t, env.a, map[string]any{"name": "Warm BV", "coc_number": "68750110", "iban_number": "NL91ABNA0417164300"}, "iban"), "iban", time.Minute)

	for _, f := range []struct {
		name string
		run  func(*testing.T)
	}{
		{"iban", TestBusinessIBANCheckEndToEnd},
		{"coc", TestCoCCheckAgainstKvKSandbox},
		{"coc outage", TestCoCOutageStaysRunningThenCompletes},
		{"idscan link", TestIDScanThroughTheLink},
		{"aml", amlAcrossProcesses},
		{"retry after exhaustion", retryExhausted},
		{"delete cancels", TestLinkExpirySupersessionAndDeletion},
	} {
		if !t.Run(f.name, f.run) {
			return
		}
	}
}

// amlAcrossProcesses: a listed customer awaits review; a clearance sent
// through the proxy reaches the workflow on whichever worker holds it and
// waits for a second reviewer (tenant a is live: four eyes); the second's
// approval completes the check validated with both recorded.
func amlAcrossProcesses(t *testing.T) {
	id := newAMLCustomer(t, env.a, "Marek Zelinsky Obrovac", "1958-09-12", true)
	chk := amlCheck(t, env.a, id)
	if chk["status"] != "awaiting_review" || obj(obj(chk["data"])["hits"].([]any)[0])["entity_id"] != "NK-proc-zelinsky" {
		t.Fatalf("listed customer: %v", chk)
	}
	request(t, env.a, http.MethodPost, reviewPath(chk["id"].(string)), clearance("NK-proc-zelinsky")).want(t, http.StatusOK)
	approval := clearance("NK-proc-zelinsky")
	approval["reviewer"] = "Ben Second"
	second, _ := anotherKey(t, env.a) // four eyes: another reviewer is another key
	request(t, second, http.MethodPost, reviewPath(chk["id"].(string)), approval).want(t, http.StatusOK)
	chk = obj(request(t, env.a, http.MethodGet, "/api/v1/customers/"+id, nil).want(t, http.StatusOK).body["aml_check"])
	review := obj(obj(obj(chk["data"])["hits"].([]any)[0])["review"])
	if chk["status"] != "completed" || chk["validated"] != true || review["decision"] != "false_positive" || review["reviewer"] != "Ada Compliance" ||
		review["approved_by"] != "Ben Second" {
		t.Fatalf("cleared check: %v", chk)
	}
}
