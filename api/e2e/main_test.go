// Package e2e drives the real API over HTTP against a real PostgreSQL and a
// real Temporal dev server, with the worker and outbox relay running, as a
// tenant's client would. Services that cannot start fail the run.
package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/kycflow/kycflow/activities"
	"github.com/kycflow/kycflow/api"
	"github.com/kycflow/kycflow/app"
	"github.com/kycflow/kycflow/metrics"
	"github.com/kycflow/kycflow/ops"
	"github.com/kycflow/kycflow/providers/idin"
	idinsandbox "github.com/kycflow/kycflow/providers/idin/sandbox"
	kvksandbox "github.com/kycflow/kycflow/providers/kvk/sandbox"
	"github.com/kycflow/kycflow/providers/mail"
	"github.com/kycflow/kycflow/providers/mail/sink"
	viessandbox "github.com/kycflow/kycflow/providers/vies/sandbox"
	"github.com/kycflow/kycflow/screening"
	"github.com/kycflow/kycflow/signin"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/store/pgcluster"
	"github.com/kycflow/kycflow/webhook"
	"github.com/kycflow/kycflow/worker/devserver"
	"github.com/kycflow/kycflow/workflows"
)

// env is the running stack shared by the package's tests.
var env struct {
	admin, app   *store.Store
	workerStore  *store.Store // the worker's role, as `kycflow worker` connects
	temporal     *devserver.Cluster
	temporalOpts *devserver.ClusterOptions
	client       client.Client
	server       *httptest.Server
	a, b         tenant // two tenants, to prove isolation
	sandboxT     tenant // a sandbox tenant (kyc_test_ key)

	adminDSN, appDSN, workerDSN string
	pg                          *pgcluster.Cluster // kycflow's database and the Temporal server's
	logPath                     string             // the services' log (the in-process API's among them)
	bin                         string             // the kycflow binary, for tests that run or kill it
	// worker is the in-process worker (polling, relay, watchlists):
	// tests stop it and start it again as an outage would.
	worker *app.Worker
	acts   *activities.Activities

	// The provider sandboxes the real clients talk to over loopback HTTP.
	kvk             *kvksandbox.Server
	vies            *viessandbox.Server
	kvkURL, viesURL string
	mail            *sink.Sink // the SMTP server link mails go to
	idin            *idinsandbox.Server
	broker          idin.Broker
	lists           *screening.Lists // the worker's loaded watchlists, which the API screens with too
	// publicURL is the API's base URL, as links carry it; apiURL is where
	// the suite's requests go. Both are the in-process API's, but while
	// processes_test.go runs, the proxy in front of its api processes
	// (and apiURL alone, another server a test starts: see serve).
	publicURL, apiURL string

	// Webhooks: the names the harness's resolver knows, the sealing key,
	// and receivers' certificates the sender trusts.
	dns        *fakeDNS
	hookCipher *webhook.Cipher
	hookTLS    *tls.Config

	// metrics is the suite's registry (api, worker and relay in one, as in
	// kycflow dev); ops serves its /healthz, /readyz and /metrics.
	metrics *metrics.Metrics
	ops     *httptest.Server
}

// receiverNet is where the suite's webhook receivers listen: a loopback
// address the operator allow-list opens (WEBHOOK_ALLOW_NETS), so that the
// rest of loopback (127.0.0.1, ::1) stays refused as in production.
const receiverIP = "127.0.0.200"

// senderTimeout is how long the harness's receivers have to answer: short,
// so the outage test's "no answer" costs seconds, yet long enough for a
// receiver on a loaded machine.
const senderTimeout = 3 * time.Second

// deliverySchedule is the harness's webhook retry schedule: seconds, not
// hours, with the same shape.
var deliverySchedule = webhook.Schedule{
	Waits:  []time.Duration{300 * time.Millisecond, 600 * time.Millisecond, time.Second, 2 * time.Second},
	Every:  2 * time.Second,
	Window: 30 * time.Second,
	Probe:  time.Second,
}

// retry is the harness's provider retry policy: an outage longer than 25
// seconds fails a check, so tests can see both sides in seconds. (The window
// must outlast the 10 s heartbeat timeout that notices a killed worker.)
var retry = workflows.ProviderRetry{Initial: 100 * time.Millisecond, Maximum: time.Second, Window: 25 * time.Second}

// harnessLimits are the request budgets of the suite's API servers.
var harnessLimits = api.Limits{Tenant: 1e5, IP: 1e5, AuthFailures: 1e7, Verify: 1e7, VerifyFailures: 1e7}

// minConforming is the fewest API responses the whole suite may check
// against docs/openapi.yaml: it checks about 1 700 (README.md), so far fewer
// means requests stopped going through the conformance transport (a client
// with a transport of its own), not that the API conforms.
const minConforming = 1200

// requester is the VAT number the harness consults VIES as.
const requester = "NL862042173B01"

// hookKey seals the webhook signing secrets (WEBHOOK_SECRET_KEY), for the
// in-process API and worker and the processes tests start alike.
var hookKey = strings.Repeat("5e", 32)

// imageKeys seal the suite's photos and typed MRZs (IMAGE_KEYS).
var imageKeys = "e2e:" + strings.Repeat("cd", 32)

// staffRaw is the suite's STAFF_KEY, and staffKey its keyed hashes (as the
// CLI makes invitations with it).
var (
	staffRaw = bytes.Repeat([]byte{0x5a}, 32)
	staffKey = func() *signin.Key {
		k, err := signin.NewKey(staffRaw)
		if err != nil {
			panic(err)
		}
		return k
	}()
)

// providerEnv is what a `kycflow worker` process the suite starts needs to
// reach the harness's Temporal server and provider sandboxes.
func providerEnv() []string {
	return []string{"TEMPORAL_ADDRESS=" + env.temporalOpts.HostPort, "KVK_BASE_URL=" + env.kvkURL, "KVK_API_KEY=" + kvksandbox.TestAPIKey,
		"VIES_BASE_URL=" + env.viesURL, "VIES_REQUESTER=" + requester}
}

// startWorker (re)starts the in-process worker.
func startWorker() error { return env.worker.Start(context.Background()) }

type tenant struct {
	id   string
	host string
	key  string
}

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	fail := func(what string, err error) int {
		fmt.Fprintf(os.Stderr, "FAIL: %s: %v\n", what, err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir, err := os.MkdirTemp("", "kycflow-e2e-")
	if err != nil {
		return fail("temp dir", err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	logs, _ := os.Create(filepath.Join(dir, "services.log"))
	defer logs.Close()

	pg, err := pgcluster.StartTemp(ctx, logs)
	if err != nil {
		return fail("PostgreSQL did not start", err)
	}
	defer pg.Stop()
	if err := store.Migrate(ctx, pg.DSN("postgres", "kycflow"), store.RolePasswords{}); err != nil {
		return fail("migrate", err)
	}
	if env.admin, err = store.Open(ctx, pg.DSN("postgres", "kycflow"), 4); err != nil {
		return fail("admin store", err)
	}
	env.pg, env.logPath = pg, filepath.Join(dir, "services.log")
	env.adminDSN, env.appDSN, env.workerDSN = pg.DSN("postgres", "kycflow"), pg.DSN(store.AppRole, "kycflow"), pg.DSN(store.WorkerRole, "kycflow")
	env.bin = filepath.Join(dir, "kycflow")
	if out, err := exec.Command("go", "build", "-o", env.bin, "github.com/kycflow/kycflow/cmd/kycflow").CombinedOutput(); err != nil {
		return fail("build kycflow", fmt.Errorf("%v: %s", err, out))
	}

	env.kvk, env.vies = kvksandbox.New(), viessandbox.New(viessandbox.DemoTraders)
	kvkSrv, viesSrv := httptest.NewServer(env.kvk.Handler()), httptest.NewServer(env.vies.Handler())
	defer kvkSrv.Close()
	defer viesSrv.Close()
	env.kvkURL, env.viesURL = kvkSrv.URL, viesSrv.URL
	// The mail catcher offers STARTTLS, and the worker's mailer insists on
	// it (SMTP_TLS=starttls, the default), trusting the catcher's certificate.
	cert, mailCAs, err := sink.SelfSigned()
	if err != nil {
		return fail("mail sink certificate", err)
	}
	if env.mail, err = sink.Start("127.0.0.1:0", sink.WithSTARTTLS(&tls.Config{Certificates: []tls.Certificate{cert}})); err != nil {
		return fail("mail sink", err)
	}
	defer env.mail.Close()
	smtpHost, smtpPort, _ := net.SplitHostPort(env.mail.Addr())
	port, _ := strconv.Atoi(smtpPort)
	// The API's address is known before it serves, so links (made by the
	// API and by the worker's mails) point at it, as PUBLIC_URL would.
	apiListener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fail("listen", err)
	}
	env.publicURL = "http://" + apiListener.Addr().String()
	env.idin = idinsandbox.New()
	idinSrv := httptest.NewServer(env.idin.Handler())
	defer idinSrv.Close()
	env.idin.SetPublicURL(idinSrv.URL)
	// Webhooks: every lookup is the harness's, and every dial must be to
	// loopback (anything else is recorded and fails the run).
	env.dns = newFakeDNS()
	if env.hookCipher, err = webhook.NewCipher(hookKey); err != nil {
		return fail("webhook cipher", err)
	}
	rt, err := receiverCert()
	if err != nil {
		return fail("receiver certificate", err)
	}
	env.hookTLS = &tls.Config{RootCAs: rt.pool}
	// The production Temporal server on the suite's PostgreSQL (the outage
	// tests stop and restart it on its data).
	env.temporalOpts = &devserver.ClusterOptions{HostPort: "127.0.0.1:" + strconv.Itoa(pgcluster.FreePort()),
		PGPort: pg.Port(), Dir: filepath.Join(dir, "temporal"), Log: logs}
	if err := devserver.FindCluster(env.temporalOpts); err != nil {
		return fail("Temporal server", err)
	}
	if env.temporal, err = devserver.StartCluster(ctx, env.temporalOpts); err != nil {
		return fail("Temporal server did not start", err)
	}
	defer func() { env.temporal.Stop() }()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	env.metrics = metrics.New("dev")
	if env.client, err = client.NewLazyClient(client.Options{HostPort: env.temporalOpts.HostPort, Logger: sdklog.NewStructuredLogger(quiet),
		MetricsHandler: env.metrics.Temporal()}); err != nil {
		return fail("temporal client", err)
	}
	defer env.client.Close()
	// The api and the worker as kycflow builds them (app), on the suite's
	// services: the harness only puts its resolver, dialer, certificates
	// and shorter schedules in place of the outside world's.
	cfg := app.Config{TemporalAddress: env.temporalOpts.HostPort, TemporalNS: "default", DBMaxConns: 20,
		PublicURL: env.publicURL, Limits: harnessLimits, Retry: retry, RelaySweep: 200 * time.Millisecond,
		KvKBaseURL: kvkSrv.URL, KvKAPIKey: kvksandbox.TestAPIKey, KvKRate: 100,
		VIESBaseURL: viesSrv.URL, VIESRequester: requester, VIESTimeout: 30 * time.Second, VIESRate: 10, VIESConcurrency: 2,
		SMTPHost: smtpHost, SMTPPort: port, SMTPFrom: "kycflow <no-reply@kycflow.test>", SMTPTLS: mail.TLSStartTLS,
		IDINBaseURL: idinSrv.URL + idinsandbox.BasePath, IDINMerchantToken: idinsandbox.TestMerchantToken,
		WatchlistRefresh: 200 * time.Millisecond, WatchlistMaxAge: 48 * time.Hour,
		WebhookKey: hookKey, WebhookAllow: []netip.Prefix{netip.MustParsePrefix(receiverIP + "/32")},
		ImageKeys: imageKeys, DocumentReaders: 1,
		StaffKey: hex.EncodeToString(staffRaw),
		Harness: app.Harness{RoleURLs: map[string]string{store.AppRole: env.appDSN, store.WorkerRole: env.workerDSN},
			WebhookResolve: env.dns.lookup, WebhookDial: loopbackOnly, WebhookTLS: env.hookTLS, WebhookTimeout: senderTimeout,
			DeliverySchedule: &deliverySchedule, MailRootCAs: mailCAs, RelayCallTimeout: 2 * time.Second}}
	// The worker logs where the api does: the log nowhereAtRest searches.
	if env.worker, err = app.NewWorker(ctx, cfg, app.Shared{Logger: slog.New(slog.NewTextHandler(logs, nil)), Metrics: env.metrics, Temporal: env.client}); err != nil {
		return fail("worker", err)
	}
	defer env.worker.Close()
	if err := env.worker.Register(ctx); err != nil {
		return fail("search attributes and housekeeping", err)
	}
	env.workerStore, env.acts, env.lists = env.worker.Store, env.worker.Activities, env.worker.Lists
	env.ops = httptest.NewServer(ops.Handler(env.worker.Probes, env.metrics))
	defer env.ops.Close()
	if err := startWorker(); err != nil {
		return fail("worker", err)
	}
	defer func() { env.worker.Stop() }()
	proc, err := app.NewAPI(ctx, cfg, app.Shared{Logger: slog.New(slog.NewTextHandler(logs, nil)), Metrics: env.metrics, Temporal: env.client, Lists: env.lists})
	if err != nil {
		return fail("api", err)
	}
	defer proc.Close()
	env.app = proc.Store
	env.server = httptest.NewUnstartedServer(proc.Handler)
	env.server.Listener.Close()
	env.server.Listener = apiListener
	apiAddrs.Store(apiListener.Addr().String(), true)
	env.server.Start()
	env.apiURL = env.server.URL
	defer env.server.Close()

	if env.a, err = newTenant(ctx, "Tenant A", "a.test"); err != nil {
		return fail("tenant", err)
	}
	if env.b, err = newTenant(ctx, "Tenant B", "b.test"); err != nil {
		return fail("tenant", err)
	}
	st, key, err := env.admin.CreateTenant(ctx, "Sandbox", []string{"sandbox.test"}, true)
	if err != nil {
		return fail("tenant", err)
	}
	env.sandboxT = tenant{id: st.ID.String(), host: "sandbox.test", key: key}
	contract, err := newConformance(http.DefaultTransport)
	if err != nil {
		return fail("OpenAPI document", err)
	}
	http.DefaultTransport = contract
	code := m.Run()
	checked, v, unexercised := contract.report()
	if len(v) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: %d responses do not conform to docs/openapi.yaml (%d did):\n  %s\n", len(v), checked, strings.Join(v, "\n  "))
		code = 1
	} else {
		fmt.Fprintf(os.Stderr, "%d API responses conform to docs/openapi.yaml\n", checked)
	}
	// The floor and the coverage only mean something for the whole suite.
	if flag.Lookup("test.run").Value.String() == "" && flag.Lookup("test.skip").Value.String() == "" {
		if checked < minConforming {
			fmt.Fprintf(os.Stderr, "FAIL: only %d API responses were checked against docs/openapi.yaml, want at least %d: are requests bypassing http.DefaultTransport?\n", checked, minConforming)
			code = 1
		}
		if len(unexercised) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: operations of docs/openapi.yaml no test got a conforming answer from:\n  %s\n", strings.Join(unexercised, "\n  "))
			code = 1
		}
	}
	if d := dialViolations(); len(d) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: webhook deliveries dialled outside loopback: %v\n", d)
		code = 1
	}
	if dir := os.Getenv("KYCFLOW_RECORD_HISTORIES"); dir != "" && code == 0 {
		if err := recordHistories(ctx, dir); err != nil {
			return fail("record histories", err)
		}
	}
	if code != 0 {
		if b, err := os.ReadFile(filepath.Join(dir, "services.log")); err == nil && len(b) > 0 {
			fmt.Fprintf(os.Stderr, "--- last service log lines ---\n%s\n", tail(b, 4000))
		}
	}
	return code
}

func newTenant(ctx context.Context, name, host string) (tenant, error) {
	t, key, err := env.admin.CreateTenant(ctx, name, []string{host}, false)
	return tenant{id: t.ID.String(), host: host, key: key}, err
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// response is an API answer: status, raw body, decoded body.
type response struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
}

// request sends a request as tenant t (Host header and bearer key). body may
// be a string (sent as is) or a value (sent as JSON).
func request(t *testing.T, tn tenant, method, path string, body any) response {
	t.Helper()
	return requestWith(t, method, path, tn.host, "Bearer "+tn.key, "application/json", body)
}

// requestWith sends a request with the Host, Authorization and Content-Type
// given; header holds further headers as name, value pairs.
func requestWith(t *testing.T, method, path, host, auth, contentType string, body any, header ...string) response {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = bytes.NewBufferString(b)
	case []byte:
		r = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, env.apiURL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	req.Header.Set("Accept", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if body != nil && contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := response{status: resp.StatusCode, header: resp.Header}
	out.raw, _ = io.ReadAll(resp.Body)
	if len(out.raw) > 0 {
		if err := json.Unmarshal(out.raw, &out.body); err != nil {
			t.Fatalf("%s %s: body is not a JSON object: %s", method, path, out.raw)
		}
	}
	// Every API answer is marked personal (not to be cached or sniffed) and
	// tells the client its request budget.
	if strings.HasPrefix(path, "/api/") {
		for _, h := range []struct{ name, want string }{{"Cache-Control", "no-store"}, {"X-Content-Type-Options", "nosniff"}} {
			if got := resp.Header.Get(h.name); got != h.want {
				t.Fatalf("%s %s: %s %q, want %q", method, path, h.name, got, h.want)
			}
		}
		for _, h := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} {
			if _, err := strconv.Atoi(resp.Header.Get(h)); err != nil {
				t.Fatalf("%s %s: %d without %s: %v", method, path, out.status, h, resp.Header)
			}
		}
	}
	// A 5xx is a test failure, but for the 503 that a database outage earns.
	if out.status >= 500 && out.status != http.StatusServiceUnavailable {
		t.Fatalf("%s %s: server error %d: %s", method, path, out.status, out.raw)
	}
	return out
}

func (r response) want(t *testing.T, status int) response {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.raw)
	}
	return r
}

// keys returns an object's keys in the order they were written.
func keys(t *testing.T, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", raw)
	}
	var out []string
	for dec.More() {
		tok, _ := dec.Token()
		out = append(out, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// eventually polls fn until it returns true or the deadline passes: at
// once, then ever less often, up to ten times a second. (A poll is a
// request, its OpenAPI validation and a query, all under the race
// detector: at a steady 50 a second, a test waiting out a retry window
// kept a core busy.)
func eventually(t *testing.T, within time.Duration, what string, fn func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for wait := 10 * time.Millisecond; !fn(); wait = min(wait*3/2, 100*time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", within, what)
		}
		time.Sleep(wait)
	}
}

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }
