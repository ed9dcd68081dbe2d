package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/store/pgcluster"
	"github.com/kycflow/kycflow/worker/devserver"
)

// process is one kycflow process of the production topology.
type process struct {
	Role     string // the kycflow command: api or worker
	Name     string // api-1, worker-2, …
	HTTPAddr string // api only
	OpsAddr  string // HEALTH_ADDR
}

// clusterAPIs and clusterWorkers are how many of each `kycflow dev
// --cluster` runs; docker-compose.yml's replicas say the same (a test
// keeps them together).
const clusterAPIs, clusterWorkers = 2, 3

// clusterProcesses lays the processes out on loopback ports from base
// (CLUSTER_PORT_BASE, 18080): apis on base+1…, their operations endpoints
// on base+101…, the workers' on base+111….
func clusterProcesses(base int) []process {
	var ps []process
	for i := 1; i <= clusterAPIs; i++ {
		ps = append(ps, process{Role: "api", Name: fmt.Sprintf("api-%d", i),
			HTTPAddr: fmt.Sprintf("127.0.0.1:%d", base+i), OpsAddr: fmt.Sprintf("127.0.0.1:%d", base+100+i)})
	}
	for i := 1; i <= clusterWorkers; i++ {
		ps = append(ps, process{Role: "worker", Name: fmt.Sprintf("worker-%d", i), OpsAddr: fmt.Sprintf("127.0.0.1:%d", base+110+i)})
	}
	return ps
}

// clusterEnv is what every process of the cluster is told, besides its own
// database role and addresses (clusterOwnEnv): the shared services, as
// `kycflow dev` configured them (sandboxes, mail catcher, webhook key).
func clusterEnv(cfg config) map[string]string {
	env := map[string]string{
		"TEMPORAL_ADDRESS": cfg.TemporalAddress, "TEMPORAL_NAMESPACE": cfg.TemporalNS, "PUBLIC_URL": cfg.PublicURL,
		"KVK_BASE_URL": cfg.KvKBaseURL, "KVK_API_KEY": cfg.KvKAPIKey, "VIES_BASE_URL": cfg.VIESBaseURL,
		"VIES_REQUESTER": cfg.VIESRequester, "IDIN_BASE_URL": cfg.IDINBaseURL, "IDIN_MERCHANT_TOKEN": cfg.IDINMerchantToken,
		"SMTP_HOST": cfg.SMTPHost, "SMTP_PORT": strconv.Itoa(cfg.SMTPPort), "SMTP_TLS": cfg.SMTPTLS,
		"WEBHOOK_SECRET_KEY": cfg.WebhookKey, "TRUSTED_PROXIES": "127.0.0.1",
	}
	var nets []string
	for _, p := range cfg.WebhookAllow {
		nets = append(nets, p.String())
	}
	env["WEBHOOK_ALLOW_NETS"] = strings.Join(nets, ",")
	return env
}

// clusterOwnEnv is a process's own part: its role's database, its addresses.
func clusterOwnEnv(p process, pg *pgcluster.Cluster) map[string]string {
	env := map[string]string{"HEALTH_ADDR": p.OpsAddr, "DATABASE_URL": pg.DSN(store.WorkerRole, "kycflow")}
	if p.Role == "api" {
		env["HTTP_ADDR"], env["DATABASE_URL"] = p.HTTPAddr, pg.DSN(store.AppRole, "kycflow")
	}
	return env
}

// runCluster starts the production topology on this machine, without
// Docker: PostgreSQL, the Temporal server (v1.29.1) with PostgreSQL
// persistence and visibility, the provider sandboxes, then 2 `kycflow api`
// and 3 `kycflow worker` processes (this binary) behind a round-robin proxy
// on the API's port, and the Temporal UI server when it is installed. Its
// data is under KYCFLOW_DATA_DIR/cluster. Ctrl-C stops everything.
func runCluster(ctx context.Context, cfg config) error {
	var tOpts devserver.ClusterOptions
	if err := devserver.FindCluster(&tOpts); err != nil {
		return fmt.Errorf("%w (make cluster installs it)", err)
	}
	procs := clusterProcesses(cfg.ClusterPortBase)
	uiBin, withUI := devserver.FindUI()
	var busy []string
	if withUI {
		busy = append(busy, "127.0.0.1:"+temporalUIPort)
	}
	for _, p := range procs {
		busy = append(busy, p.OpsAddr)
		if p.HTTPAddr != "" {
			busy = append(busy, p.HTTPAddr)
		}
	}
	dir, err := devPrepare(&cfg, "cluster", busy...)
	if err != nil {
		return err
	}
	pg, err := devPostgres(ctx, cfg, dir)
	if err != nil {
		return err
	}
	defer pg.Stop()
	admin := pg.DSN("postgres", "kycflow")

	tLog, err := logFile(dir, "temporal")
	if err != nil {
		return err
	}
	defer tLog.Close()
	fmt.Println("starting the Temporal server", devserver.ServerVersion, "on", cfg.TemporalAddress, "(PostgreSQL persistence and visibility)")
	tOpts.HostPort, tOpts.PGPort, tOpts.Dir, tOpts.Log = cfg.TemporalAddress, cfg.DevPGPort, filepath.Join(dir, "temporal"), tLog
	ts, err := devserver.StartCluster(ctx, &tOpts)
	if err != nil {
		return err
	}
	defer ts.Stop()
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

	sandboxes, err := startSandboxes(&cfg)
	if err != nil {
		return err
	}
	defer sandboxes.close()
	key, err := demoTenant(ctx, admin, dir)
	if err != nil {
		return err
	}
	hooks, err := sandboxes.webhookCatcher(ctx, cfg, admin, dir)
	if err != nil {
		return err
	}

	exe, err := os.Executable()
	if err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	var upstreams []string
	pids := map[string]int{}
	for _, p := range procs {
		if p.Role == "api" {
			upstreams = append(upstreams, p.HTTPAddr)
		}
		penv := os.Environ()
		for _, m := range []map[string]string{clusterEnv(cfg), clusterOwnEnv(p, pg)} {
			for k, v := range m {
				penv = append(penv, k+"="+v)
			}
		}
		out, err := logFile(dir, p.Name)
		if err != nil {
			return err
		}
		defer out.Close()
		cmd := exec.CommandContext(gctx, exe, p.Role)
		cmd.Env, cmd.Stdout, cmd.Stderr = penv, out, out
		// Ctrl-C: a graceful stop, as an orchestrator would send.
		cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
		cmd.WaitDelay = 20 * time.Second
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("start %s: %w", p.Name, err)
		}
		name := p.Name
		pids[name] = cmd.Process.Pid
		// A process that dies is reported, and the rest carry on: that is
		// what several of each are for.
		g.Go(func() error {
			if err := cmd.Wait(); err != nil && gctx.Err() == nil {
				fmt.Printf("%s exited: %v (its log: %s)\n", name, err, filepath.Join(dir, name+".log"))
			}
			return nil
		})
	}
	b, err := newBalancer(upstreams)
	if err != nil {
		return err
	}
	g.Go(func() error { return serveProxy(gctx, cfg.httpAddr(true), b) })
	if err := waitReady(ctx, procs); err != nil {
		return err
	}

	port := cfg.httpAddr(true)[strings.LastIndex(cfg.httpAddr(true), ":")+1:]
	var table []string
	for _, p := range procs {
		line := fmt.Sprintf("  %-9s pid %-7d /metrics http://%s/metrics", p.Name, pids[p.Name], p.OpsAddr)
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
`, port, clusterAPIs, key, cfg.TemporalAddress, devserver.ServerVersion, dir, ui, hooks,
		strings.Join(table, "\n"), sandboxes.describe(), checksJSON(check.Types(check.Business)...))
	err = g.Wait()
	fmt.Println("\nstopping…")
	return err
}

// waitReady waits until every process's /readyz answers 200.
func waitReady(ctx context.Context, procs []process) error {
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
