package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kycflow/kycflow/devstack"
	"github.com/kycflow/kycflow/store/pgcluster"
)

// TestMain lets the test binary stand in for kycflow: `dev --cluster`
// starts its api and worker processes as os.Executable() with the command
// as the first argument.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && (os.Args[1] == "api" || os.Args[1] == "worker") {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// `kycflow dev --cluster` as `make cluster` runs it (on ports of the test's
// own): the production Temporal server on PostgreSQL, 2 api and 3 worker
// processes behind the proxy. The README's first request works through the
// proxy, its coc, vat and iban checks complete, both apis answered, every
// process is ready and serves metrics, and Ctrl-C stops it all.
func TestClusterWalkthrough(t *testing.T) {
	if os.Getenv("TEMPORAL_SERVER_DIR") == "" {
		t.Fatal("TEMPORAL_SERVER_DIR is not set: run the tests with make test (it installs the Temporal server)")
	}
	// Not t.TempDir: PostgreSQL runs as its own user, which must reach it.
	data, err := os.MkdirTemp("", "kycflow-cluster-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(data, 0o755)
	t.Cleanup(func() {
		if !t.Failed() {
			os.RemoveAll(data)
			return
		}
		// A failure shows the processes' own words: the end of each log.
		logs, _ := filepath.Glob(filepath.Join(data, "cluster", "*.log"))
		for _, l := range logs {
			if b, err := os.ReadFile(l); err == nil {
				lines := strings.Split(strings.TrimSpace(string(b)), "\n")
				t.Logf("%s (last lines):\n%s", filepath.Base(l), strings.Join(lines[max(0, len(lines)-15):], "\n"))
			}
		}
		t.Logf("data and logs kept in %s", data)
	})
	api := "127.0.0.1:" + strconv.Itoa(pgcluster.FreePort())
	// The cluster's own block, base…base+157, lies below the ports
	// FreePort draws (20000–32000), here and in the packages tested beside
	// this one: one drawn inside it (TEMPORAL_ADDRESS once) was bound by a
	// Temporal service before the frontend could bind it.
	base := 10000 + 200*rand.IntN(40)
	for k, v := range map[string]string{
		"KYCFLOW_DATA_DIR": data, "DEV_PG_PORT": strconv.Itoa(pgcluster.FreePort()),
		"TEMPORAL_ADDRESS": "127.0.0.1:" + strconv.Itoa(pgcluster.FreePort()), "HTTP_ADDR": api,
		"CLUSTER_PORT_BASE": strconv.Itoa(base), "SANDBOX_KVK_ADDR": "127.0.0.1:0", "SANDBOX_VIES_ADDR": "127.0.0.1:0",
		"SANDBOX_IDIN_ADDR": "127.0.0.1:0", "DEV_SMTP_ADDR": "127.0.0.1:0", "DEV_MAIL_UI_ADDR": "127.0.0.1:0",
		"DEV_WEBHOOK_ADDR": "127.0.0.1:0", "TEMPORAL_UI_DIR": "", "LOG_LEVEL": "warn",
	} {
		t.Setenv(k, v)
	}
	cfg, err := loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- devstack.RunCluster(ctx, cfg) }()

	dir := filepath.Join(data, "cluster")
	var key string
	deadline := time.Now().Add(3 * time.Minute)
	for key == "" {
		if b, err := os.ReadFile(filepath.Join(dir, "demo-api-key")); err == nil {
			if res, err := http.Get("http://" + api + "/readyz"); err == nil {
				res.Body.Close()
				if res.StatusCode == http.StatusOK {
					key = strings.TrimSpace(string(b))
				}
			}
		}
		select {
		case err := <-done:
			t.Fatalf("the cluster stopped: %v", err)
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the cluster did not come up within 3 minutes; logs in " + dir)
		}
	}
	call := func(method, path, body string) map[string]any {
		t.Helper()
		req, _ := http.NewRequest(method, "http://"+api+path, strings.NewReader(body))
		req.Host = "localhost"
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		var out map[string]any
		if res.StatusCode >= 300 || json.Unmarshal(raw, &out) != nil {
			t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, raw)
		}
		return out
	}
	created := call(http.MethodPost, "/api/v1/businesses/create", `{"name":"Test BV Donald","country_code":"NLD","coc_number":"68750110",
		"vat_number":"NL854750137B01","iban_number":"NL91ABNA0417164300","checks":{"coc":true,"vat":true,"iban":true}}`)
	id, _ := created["id"].(string)
	var b map[string]any
	for end := time.Now().Add(time.Minute); ; {
		b = call(http.MethodGet, "/api/v1/businesses/"+id, "")
		finished := 0
		for _, typ := range []string{"coc", "vat", "iban"} {
			if c, _ := b[typ+"_check"].(map[string]any); c["status"] == "completed" && c["validated"] == true {
				finished++
			}
		}
		if finished == 3 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the checks did not all complete validated within a minute: %v", b)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// Every process is ready and counts its work; the proxy used both apis.
	for _, p := range devstack.ClusterProcesses(base, devstack.ClusterAPIs, devstack.ClusterWorkers) {
		for _, path := range []string{"/readyz", "/metrics"} {
			res, err := http.Get("http://" + p.OpsAddr + path)
			if err != nil {
				t.Fatalf("%s %s: %v", p.Name, path, err)
			}
			raw, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				t.Fatalf("%s %s: %d %s", p.Name, path, res.StatusCode, raw)
			}
			if p.Role == "api" && path == "/metrics" && !strings.Contains(string(raw), `kycflow_http_requests_total{code="200",method="GET",route="/api/v1/businesses/:id"}`) {
				t.Errorf("%s served no GET of a business: the proxy did not spread the requests", p.Name)
			}
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("stopping: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the cluster did not stop within a minute of Ctrl-C")
	}
	fmt.Println("cluster walkthrough: coc, vat and iban completed through the proxy")
}
