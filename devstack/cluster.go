package devstack

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kycflow/kycflow/app"
	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/store/pgcluster"
	"github.com/kycflow/kycflow/worker/devserver"
)

// Process is one kycflow Process of the production Topology.
type Process struct {
	Role     string // the kycflow command: api or worker
	Name     string // api-1, worker-2, …
	HTTPAddr string // api only
	OpsAddr  string // HEALTH_ADDR
}

// ClusterAPIs and ClusterWorkers are how many of each `kycflow dev
// --cluster` runs; docker-compose.yml's replicas say the same (a test
// keeps them together).
const ClusterAPIs, ClusterWorkers = 2, 3

// temporalPortOffset: see ClusterProcesses.
const temporalPortOffset = 150

// ClusterProcesses lays the processes out on loopback ports from base
// (CLUSTER_PORT_BASE, 18080): apis on base+1…, their operations endpoints
// on base+101…, the workers' on base+111…; the Temporal server's services
// other than its frontend take base+150…157 (temporalPortOffset).
func ClusterProcesses(base, apis, workers int) []Process {
	var ps []Process
	for i := 1; i <= apis; i++ {
		ps = append(ps, Process{Role: "api", Name: fmt.Sprintf("api-%d", i),
			HTTPAddr: fmt.Sprintf("127.0.0.1:%d", base+i), OpsAddr: fmt.Sprintf("127.0.0.1:%d", base+100+i)})
	}
	for i := 1; i <= workers; i++ {
		ps = append(ps, Process{Role: "worker", Name: fmt.Sprintf("worker-%d", i), OpsAddr: fmt.Sprintf("127.0.0.1:%d", base+110+i)})
	}
	return ps
}

// ClusterEnv is what every Process of the cluster is told, besides its own
// database role and addresses (ClusterOwnEnv): the shared services, as
// `kycflow dev` configured them (sandboxes, mail catcher, webhook key).
func ClusterEnv(cfg app.Config) map[string]string {
	env := map[string]string{
		"TEMPORAL_ADDRESS": cfg.TemporalAddress, "TEMPORAL_NAMESPACE": cfg.TemporalNS, "PUBLIC_URL": cfg.PublicURL,
		"KVK_BASE_URL": cfg.KvKBaseURL, "KVK_API_KEY": cfg.KvKAPIKey, "VIES_BASE_URL": cfg.VIESBaseURL,
		"VIES_REQUESTER": cfg.VIESRequester, "IDIN_BASE_URL": cfg.IDINBaseURL, "IDIN_MERCHANT_TOKEN": cfg.IDINMerchantToken,
		"SMTP_HOST": cfg.SMTPHost, "SMTP_PORT": strconv.Itoa(cfg.SMTPPort), "SMTP_TLS": cfg.SMTPTLS,
		"WEBHOOK_SECRET_KEY": cfg.WebhookKey, "TRUSTED_PROXIES": "127.0.0.1", "IMAGE_KEYS": cfg.ImageKeys, "STAFF_KEY": cfg.StaffKey,
	}
	var nets []string
	for _, p := range cfg.WebhookAllow {
		nets = append(nets, p.String())
	}
	env["WEBHOOK_ALLOW_NETS"] = strings.Join(nets, ",")
	return env
}

// ClusterOwnEnv is a Process's own part: its role's database, its addresses.
func ClusterOwnEnv(p Process, pg *pgcluster.Cluster) map[string]string {
	env := map[string]string{"HEALTH_ADDR": p.OpsAddr, "DATABASE_URL": pg.DSN(store.WorkerRole, "kycflow")}
	if p.Role == "api" {
		env["HTTP_ADDR"], env["DATABASE_URL"] = p.HTTPAddr, pg.DSN(store.AppRole, "kycflow")
	}
	return env
}

// RunCluster starts the production Topology on this machine, without
// Docker: PostgreSQL, the Temporal server (v1.29.1) with PostgreSQL
// persistence and visibility, the provider sandboxes, then 2 `kycflow api`
// and 3 `kycflow worker` processes (this binary) behind a round-robin proxy
// on the API's port, and the Temporal UI server when it is installed. Its
// data is under KYCFLOW_DATA_DIR/cluster. Ctrl-C stops everything.
func RunCluster(ctx context.Context, cfg app.Config) error {
	uiBin, withUI := devserver.FindUI()
	var busy []string
	if withUI {
		busy = append(busy, "127.0.0.1:"+temporalUIPort)
	}
	st, err := Start(ctx, cfg, ClusterTopology, "cluster", busy...)
	if err != nil {
		return err
	}
	defer st.Stop()
	cfg, dir, procs := st.Cfg, st.Dir, st.Procs
	ui := "not installed: `make cluster` installs it; meanwhile `temporal workflow list --address " + cfg.TemporalAddress + "`"
	if withUI {
		uiLog, err := logFile(dir, "temporal-ui")
		if err != nil {
			return err
		}
		defer uiLog.Close()
		stop, err := devserver.StartUI(uiBin, filepath.Join(dir, "ui"), cfg.TemporalAddress, temporalUIPort, uiLog)
		if err != nil {
			return err
		}
		defer stop()
		ui = "http://localhost:" + temporalUIPort + "/namespaces/default/workflows"
	}

	port := cfg.HTTPAddrFor(true)[strings.LastIndex(cfg.HTTPAddrFor(true), ":")+1:]
	var table []string
	for _, p := range procs {
		line := fmt.Sprintf("  %-9s pid %-7d /metrics http://%s/metrics", p.Name, st.Pid(p.Name), p.OpsAddr)
		if p.HTTPAddr != "" {
			line += "   API http://" + p.HTTPAddr
		}
		table = append(table, line)
	}
	fmt.Printf(`
kycflow is running as a cluster.
  API            http://localhost:%[1]s/api/v1   (a proxy over %[2]d api processes; tenant "Demo", hosts localhost and 127.0.0.1)
  API key        %[3]s
  Temporal       %[4]s   (server %[5]s on PostgreSQL; its log: %[6]s)
  Temporal UI    %[7]s
  Webhooks       %[8]s
  Data and logs  %[6]s   (delete it to start afresh)
%[9]s
%[10]s
Try it (KvK test company 68750110, its VAT number in the VIES sandbox):
  curl -s -X POST http://localhost:%[1]s/api/v1/businesses/create \
    -H 'Authorization: Bearer %[3]s' -H 'Content-Type: application/json' -H 'Accept: application/json' \
    -d '{"name":"Test BV Donald","country_code":"NLD","coc_number":"68750110","vat_number":"NL854750137B01","iban_number":"NL91ABNA0417164300","checks":%[11]s}'
Checks by status, from the CLI:
  temporal workflow list --address %[4]s --query 'CheckStatus="completed"'

Kill a worker (kill -9 on its pid) and the others take its checks over. Ctrl-C stops everything.
`, port, ClusterAPIs, st.Key, cfg.TemporalAddress, devserver.ServerVersion, dir, ui, st.hooks,
		strings.Join(table, "\n"), st.sb.describe(), checksJSON(check.Types(check.Business)...))
	select {
	case <-ctx.Done():
	case err = <-st.proxyErr: // the public port is gone: stop, saying why
	}
	fmt.Println("\nstopping…")
	return err
}

// waitReady waits until every Process's /readyz answers 200.
func waitReady(ctx context.Context, procs []Process) error {
	deadline := time.Now().Add(90 * time.Second)
	for _, p := range procs {
		// An api is ready once its own port answers too: its operations
		// port may be up before the API listens.
		urls := []string{"http://" + p.OpsAddr + "/readyz"}
		if p.HTTPAddr != "" {
			urls = append(urls, "http://"+p.HTTPAddr+"/readyz")
		}
		for _, u := range urls {
			for !answersOK(u) {
				if time.Now().After(deadline) {
					return fmt.Errorf("%s is not ready after 90 s: see its log", p.Name)
				}
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(200 * time.Millisecond):
				}
			}
		}
	}
	return nil
}

func answersOK(url string) bool {
	res, err := http.Get(url)
	if err != nil {
		return false
	}
	res.Body.Close()
	return res.StatusCode == http.StatusOK
}
