package devstack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.temporal.io/sdk/testsuite"
	"golang.org/x/sync/errgroup"

	"github.com/kycflow/kycflow/app"
	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/metrics"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/store/pgcluster"
	"github.com/kycflow/kycflow/worker/devserver"
)

// RunDev starts the embedded stack: PostgreSQL and the Temporal dev server as
// child processes with their data under KYCFLOW_DATA_DIR, then the API and
// the worker in this process. Ctrl-C stops everything.
func RunDev(ctx context.Context, cfg app.Config) error {
	app.CollectAt(app.GCAPI)
	dir, err := devPrepare(&cfg, "", "127.0.0.1:"+temporalUIPort)
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
	ts, err := devTemporal(ctx, cfg, dir, tLog, temporalUIPort)
	if err != nil {
		return err
	}
	defer ts.Stop()

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
	// The API and the worker share this process but not a role: each has
	// its own pool, as when they run apart. One watchlist index (the
	// worker's) serves the worker's checks and the API's screening.
	cfg.Harness.RoleURLs = map[string]string{store.AppRole: pg.DSN(store.AppRole, "kycflow"), store.WorkerRole: pg.DSN(store.WorkerRole, "kycflow")}
	sh := app.Shared{Logger: cfg.Logger(), Metrics: metrics.New("dev")}
	w, err := app.NewWorker(ctx, cfg, sh)
	if err != nil {
		return err
	}
	defer w.Close()
	sh.Temporal, sh.Lists = w.Temporal, w.Lists
	a, err := app.NewAPI(ctx, cfg, sh)
	if err != nil {
		return err
	}
	defer a.Close()
	ln, err := net.Listen("tcp", cfg.HTTPAddrFor(true))
	if err != nil {
		return fmt.Errorf("api: %w", err)
	}

	port := cfg.HTTPAddrFor(true)[strings.LastIndex(cfg.HTTPAddrFor(true), ":")+1:]
	fmt.Printf(`
kycflow is running.
  API            http://localhost:%[1]s/api/v1   (tenant "Demo", hosts localhost and 127.0.0.1)
  API key        %[2]s
  Temporal UI    http://localhost:%[8]s/namespaces/default/workflows
  Webhooks       %[7]s
  Data           %[3]s   (delete it to start afresh)

%[4]s
Try it (KvK test company 68750110, its VAT number in the VIES sandbox):
  curl -s -X POST http://localhost:%[1]s/api/v1/businesses/create \
    -H 'Authorization: Bearer %[2]s' -H 'Content-Type: application/json' -H 'Accept: application/json' \
    -d '{"name":"Test BV Donald","country_code":"NLD","coc_number":"68750110","vat_number":"NL854750137B01","iban_number":"NL91ABNA0417164300","checks":%[5]s}'

A customer with an identity-document check (the link mail lands in the mail catcher):
  curl -s -X POST http://localhost:%[1]s/api/v1/customers/create \
    -H 'Authorization: Bearer %[2]s' -H 'Content-Type: application/json' -H 'Accept: application/json' \
    -d '{"name":"Jan de Vries","email":"jan@example.nl","country_code":"NLD","birthdate":"1990-05-17","checks":%[6]s}'

Ctrl-C stops everything.
`, port, key, dir, sandboxes.describe(),
		checksJSON(check.Types(check.Business)...), checksJSON(check.IDScan), hooks, temporalUIPort)

	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return a.Serve(gctx, ln) })
	g.Go(func() error { return w.Run(gctx) })
	go app.ServeOps(gctx, cfg.HealthAddrFor("dev"), w.Probes, w.Metrics, sh.Logger)
	err = g.Wait()
	fmt.Println("\nstopping…")
	return err
}

// devTemporal starts the Temporal dev server (SQLite in dir/temporal.db),
// with its UI on uiPort ("": none).
func devTemporal(ctx context.Context, cfg app.Config, dir string, log io.Writer, uiPort string) (*testsuite.DevServer, error) {
	if uiPort != "" {
		fmt.Println("starting Temporal dev server on", cfg.TemporalAddress, "with its UI on http://localhost:"+uiPort)
	} else {
		fmt.Println("starting Temporal dev server on", cfg.TemporalAddress)
	}
	return devserver.Start(ctx, devserver.Options{HostPort: cfg.TemporalAddress, UIPort: uiPort,
		DBFile: filepath.Join(dir, "temporal.db"), Log: log, Pragmas: cfg.DevTemporalPragmas})
}

// temporalUIPort is where the Temporal UI serves, in dev and in the cluster.
const temporalUIPort = "8233"

// devPrepare makes the data directory (sub under KYCFLOW_DATA_DIR), sets up
// the webhook key, and checks that the ports the Stack takes are free: the
// database's, Temporal's, the API's, the webhook catcher's and extra.
func devPrepare(cfg *app.Config, sub string, extra ...string) (string, error) {
	dir, err := filepath.Abs(filepath.Join(cfg.DataDir, sub))
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := devWebhooks(cfg, dir); err != nil {
		return "", err
	}
	if err := devImageKeys(cfg, dir); err != nil {
		return "", err
	}
	if err := devStaffKey(cfg, dir); err != nil {
		return "", err
	}
	_, temporalPort, _ := net.SplitHostPort(cfg.TemporalAddress)
	for _, addr := range append([]string{fmt.Sprintf("127.0.0.1:%d", cfg.DevPGPort), "127.0.0.1:" + temporalPort, cfg.HTTPAddrFor(true), cfg.DevWebhookAddr}, extra...) {
		if err := portFree(addr); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// logFile opens dir/name.log for appending.
func logFile(dir, name string) (*os.File, error) {
	return os.OpenFile(filepath.Join(dir, name+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
}

// devPostgres starts PostgreSQL with its data in dir/pg (its log in
// dir/postgres.log) and brings the schema up to date.
func devPostgres(ctx context.Context, cfg app.Config, dir string) (*pgcluster.Cluster, error) {
	pgLog, err := logFile(dir, "postgres")
	if err != nil {
		return nil, err
	}
	fmt.Println("starting PostgreSQL on 127.0.0.1:", cfg.DevPGPort, "(data in", filepath.Join(dir, "pg")+")")
	pg, err := pgcluster.Start(ctx, pgcluster.Options{Dir: filepath.Join(dir, "pg"), Port: cfg.DevPGPort, Database: "kycflow", Log: pgLog})
	if err != nil {
		pgLog.Close()
		return nil, err
	}
	if err := store.Migrate(ctx, pg.DSN("postgres", "kycflow"), store.RolePasswords{}); err != nil {
		pg.Stop()
		return nil, err
	}
	return pg, nil
}

// demoTenant creates the demo tenant once and keeps its key in the data dir,
// so every run can print it (the database holds only its hash).
func demoTenant(ctx context.Context, adminDSN, dir string) (string, error) {
	keyFile := filepath.Join(dir, "demo-api-key")
	s, err := store.Open(ctx, adminDSN, 2)
	if err != nil {
		return "", err
	}
	defer s.Close()
	if b, err := os.ReadFile(keyFile); err == nil {
		key := strings.TrimSpace(string(b))
		if id, err := s.TenantByHost(ctx, "localhost"); err == nil {
			if _, err := s.Authenticate(ctx, "localhost", store.HashKey(key)); err == nil {
				return key, nil
			}
			// The saved key was revoked: issue a new one for the same tenant.
			key, _, err := s.CreateKey(ctx, id)
			if err != nil {
				return "", err
			}
			return key, os.WriteFile(keyFile, []byte(key+"\n"), 0o600)
		}
	}
	if _, err := s.TenantByHost(ctx, "localhost"); err == nil {
		return "", errors.New("a tenant owns host localhost but its key file is missing: remove " + dir + " to start afresh")
	}
	_, key, err := s.CreateTenant(ctx, "Demo", []string{"localhost", "127.0.0.1"}, true)
	if err != nil {
		return "", err
	}
	return key, os.WriteFile(keyFile, []byte(key+"\n"), 0o600)
}

// checksJSON is a create request's `checks` for the example lines: the
// types given true, the seed API's others false.
func checksJSON(on ...check.Type) string {
	m := map[check.Type]bool{}
	for _, t := range on {
		m[t] = true
	}
	kind := check.Business
	if !on[0].AppliesTo(check.Business) {
		kind = check.Customer
	}
	for _, t := range check.Types(kind) {
		if _, set := m[t]; !set && t != check.AML {
			m[t] = false
		}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func portFree(addr string) error {
	if strings.HasPrefix(addr, ":") {
		addr = "127.0.0.1" + addr
	}
	c, err := net.DialTimeout("tcp", addr, 300*time.Millisecond)
	if err == nil {
		c.Close()
		return fmt.Errorf("%s is already in use: is another kycflow dev (or Temporal/PostgreSQL) running?", addr)
	}
	return nil
}
