package main

// These tests keep docker-compose.yml, the Dockerfile and docs/openapi.yaml
// honest without Docker: they check the files against the binary's real
// subcommands, environment variables and routes, so a rename breaks a test
// instead of silently breaking `docker compose up`.

import (
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/kycflow/kycflow/app"
	"github.com/kycflow/kycflow/devstack"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/store/pgcluster"
	"github.com/kycflow/kycflow/worker/devserver"
)

const repoRoot = "../.."

// composeFile is the part of docker-compose.yml the tests look at.
type composeFile struct {
	Services map[string]composeService `yaml:"services"`
}

type composeService struct {
	Image       string         `yaml:"image"`
	Build       any            `yaml:"build"`
	Command     []string       `yaml:"command"`
	Environment composeEnv     `yaml:"environment"`
	Ports       []string       `yaml:"ports"`
	DependsOn   map[string]any `yaml:"depends_on"`
	Deploy      struct {
		Replicas int `yaml:"replicas"`
	} `yaml:"deploy"`
	Healthcheck map[string]any `yaml:"healthcheck"`
}

// composeEnv accepts both forms compose allows: a map or a list of NAME=value.
type composeEnv map[string]string

func (e *composeEnv) UnmarshalYAML(n *yaml.Node) error {
	*e = composeEnv{}
	if n.Kind == yaml.SequenceNode {
		var list []string
		if err := n.Decode(&list); err != nil {
			return err
		}
		for _, kv := range list {
			k, v, _ := strings.Cut(kv, "=")
			(*e)[k] = v
		}
		return nil
	}
	var m map[string]string
	if err := n.Decode(&m); err != nil {
		return err
	}
	for k, v := range m {
		(*e)[k] = v
	}
	return nil
}

func loadCompose(t *testing.T) composeFile {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var f composeFile
	if err := yaml.Unmarshal(raw, &f); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	return f
}

func service(t *testing.T, f composeFile, name string) composeService {
	t.Helper()
	s, ok := f.Services[name]
	if !ok {
		t.Fatalf("docker-compose.yml has no service %q", name)
	}
	return s
}

// envNamesRead are the environment variables the binary reads: its
// settings table, which the code reads only through lookup.
func envNamesRead(t *testing.T) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	for _, s := range settings {
		names[s.name] = true
	}
	return names
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestComposeServices(t *testing.T) {
	f := loadCompose(t)
	for _, name := range []string{"postgres", "temporal", "temporal-ui", "migrate", "api", "proxy", "worker", "mail", "sandboxes"} {
		service(t, f, name)
	}
	for _, name := range []string{"migrate", "api", "proxy", "worker", "sandboxes"} {
		s := service(t, f, name)
		if s.Build == nil || s.Image != "kycflow:local" {
			t.Errorf("%s: want build: . and image kycflow:local, got build %v image %q", name, s.Build, s.Image)
		}
	}
	// api and worker start only after the schema exists.
	for _, name := range []string{"api", "worker"} {
		dep, _ := service(t, f, name).DependsOn["migrate"].(map[string]any)
		if dep["condition"] != "service_completed_successfully" {
			t.Errorf("%s must depend on migrate completing successfully, got %v", name, dep)
		}
	}
	if _, ok := service(t, f, "worker").DependsOn["temporal"]; !ok {
		t.Error("worker must depend on temporal")
	}
}

func TestComposeTemporalUsesPostgres(t *testing.T) {
	f := loadCompose(t)
	env := service(t, f, "temporal").Environment
	if env["DB"] != "postgres12" {
		t.Errorf("temporal DB = %q, want postgres12", env["DB"])
	}
	if env["POSTGRES_SEEDS"] != "postgres" {
		t.Errorf("temporal POSTGRES_SEEDS = %q, want the postgres service", env["POSTGRES_SEEDS"])
	}
	if _, ok := service(t, f, "temporal").DependsOn["postgres"]; !ok {
		t.Error("temporal must depend on postgres")
	}
	if got := service(t, f, "temporal-ui").Environment["TEMPORAL_ADDRESS"]; got != "temporal:7233" {
		t.Errorf("temporal-ui TEMPORAL_ADDRESS = %q, want temporal:7233", got)
	}
}

func TestComposeCommandsExist(t *testing.T) {
	f := loadCompose(t)
	for name, want := range map[string]string{"api": "api", "proxy": "proxy", "worker": "worker", "migrate": "migrate", "sandboxes": "sandbox"} {
		cmd := service(t, f, name).Command
		if len(cmd) == 0 || cmd[0] != want {
			t.Errorf("%s: command %v, want [%s]", name, cmd, want)
			continue
		}
		if c, _ := lookupCommand(cmd[:1]); c == nil {
			t.Errorf("%s: %q is not a subcommand in the usage text", name, cmd[0])
		}
	}
}

func TestComposeEnvironmentIsRead(t *testing.T) {
	f := loadCompose(t)
	read := envNamesRead(t)
	for _, name := range []string{"migrate", "api", "proxy", "worker", "sandboxes"} {
		for k := range service(t, f, name).Environment {
			if !read[k] {
				t.Errorf("%s sets %s, which kycflow never reads (it reads %v)", name, k, keys(read))
			}
		}
	}
	// What each process cannot start without.
	needs := map[string][]string{
		"migrate": {"DATABASE_ADMIN_URL", "KYCFLOW_APP_DB_PASSWORD", "KYCFLOW_WORKER_DB_PASSWORD"},
		"api":     {"DATABASE_URL", "HTTP_ADDR", "WEBHOOK_SECRET_KEY"},
		"worker":  {"DATABASE_URL", "TEMPORAL_ADDRESS", "WEBHOOK_SECRET_KEY"},
	}
	for name, vars := range needs {
		env := service(t, f, name).Environment
		for _, v := range vars {
			if env[v] == "" {
				t.Errorf("%s does not set %s", name, v)
			}
		}
	}
	// api and worker log in each as its own role, with the password migrate gives it.
	for name, role := range map[string]struct{ role, password string }{
		"api": {store.AppRole, "KYCFLOW_APP_DB_PASSWORD"}, "worker": {store.WorkerRole, "KYCFLOW_WORKER_DB_PASSWORD"},
	} {
		pw := service(t, f, "migrate").Environment[role.password]
		url := service(t, f, name).Environment["DATABASE_URL"]
		if pw == "" || !strings.HasPrefix(url, "postgres://"+role.role+":"+pw+"@postgres:") {
			t.Errorf("%s DATABASE_URL %q: want %s with the password migrate sets (%s) on the postgres service", name, url, role.role, pw)
		}
	}
	// The worker opens the secrets the api sealed.
	if a, w := service(t, f, "api").Environment["WEBHOOK_SECRET_KEY"], service(t, f, "worker").Environment["WEBHOOK_SECRET_KEY"]; a != w {
		t.Errorf("api and worker WEBHOOK_SECRET_KEY differ: %q, %q", a, w)
	}
	if got := service(t, f, "worker").Environment["TEMPORAL_ADDRESS"]; got != "temporal:7233" {
		t.Errorf("worker TEMPORAL_ADDRESS = %q, want temporal:7233", got)
	}
}

func TestComposePorts(t *testing.T) {
	f := loadCompose(t)
	publishes := func(svc, hostPort string) bool {
		for _, p := range service(t, f, svc).Ports {
			if strings.HasPrefix(p, hostPort+":") || strings.Contains(p, ":"+hostPort+":") {
				return true
			}
		}
		return false
	}
	if !publishes("proxy", "8080") {
		t.Error("proxy does not publish 8080")
	}
	if len(service(t, f, "api").Ports) > 0 {
		t.Error("api publishes a port: with replicas, only the proxy may")
	}
	if !publishes("temporal-ui", "8233") {
		t.Error("temporal-ui does not publish 8233")
	}
	if service(t, f, "api").Environment["HTTP_ADDR"] != ":8080" {
		t.Error("api HTTP_ADDR must be :8080, the port it publishes")
	}
}

// `make cluster` (kycflow dev --cluster) and docker-compose.yml describe one
// topology: as many api and worker processes, the proxy on the API port in
// front of the apis, the Temporal UI on 8233, and every setting the cluster
// gives a process also set in that process's compose service.
func TestClusterMatchesCompose(t *testing.T) {
	f := loadCompose(t)
	count := map[string]int{}
	for _, p := range devstack.ClusterProcesses(18080, devstack.ClusterAPIs, devstack.ClusterWorkers) {
		count[p.Role]++
	}
	for role, n := range count {
		if got := service(t, f, role).Deploy.Replicas; got != n {
			t.Errorf("compose runs %d %s replicas, the cluster %d", got, role, n)
		}
	}
	if up := service(t, f, "proxy").Environment["PROXY_UPSTREAMS"]; up != "api:8080" {
		t.Errorf("compose proxy upstreams %q, want the api service's port", up)
	}
	if !strings.HasSuffix(app.Config{}.HTTPAddrFor(true), ":8080") {
		t.Error("the cluster's proxy is not on 8080, the port compose publishes")
	}
	cfg := app.Config{WebhookAllow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}
	for _, p := range devstack.ClusterProcesses(18080, devstack.ClusterAPIs, devstack.ClusterWorkers) {
		env := devstack.ClusterOwnEnv(p, &pgcluster.Cluster{})
		for k := range devstack.ClusterEnv(cfg) {
			env[k] = ""
		}
		svc := service(t, f, p.Role)
		for k := range env {
			if !readBy(k, p.Role) {
				continue
			}
			if _, ok := svc.Environment[k]; !ok {
				t.Errorf("the cluster gives %s %s; compose's %s service does not set it", p.Name, k, p.Role)
			}
		}
	}
	// The versions `make cluster` installs are the ones the code names.
	raw, err := os.ReadFile(filepath.Join(repoRoot, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for v, want := range map[string]string{"TEMPORAL_SERVER_VERSION": devserver.ServerVersion, "TEMPORAL_UI_VERSION": devserver.UIVersion} {
		if !regexp.MustCompile(`(?m)^` + v + ` := ` + regexp.QuoteMeta(want) + `$`).Match(raw) {
			t.Errorf("Makefile %s is not %s", v, want)
		}
	}
}

// readBy says whether the command reads the setting.
func readBy(name, command string) bool {
	for _, s := range settings {
		if s.name == name {
			return slices.Contains(s.commands, command)
		}
	}
	return false
}

func TestComposeDockerfile(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	df := string(raw)
	for _, want := range []string{"./cmd/kycflow", "CGO_ENABLED=0", `ENTRYPOINT ["/kycflow"]`} {
		if !strings.Contains(df, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	// The build image must carry the Go release go.mod asks for (the golang
	// images set GOTOOLCHAIN=local, so an older one fails to build).
	mod, err := os.ReadFile(filepath.Join(repoRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("no go directive in go.mod")
	}
	if !strings.Contains(df, "FROM golang:"+string(m[1])) {
		t.Errorf("Dockerfile should build FROM golang:%s (go.mod's release)", m[1])
	}
}

// TestComposeOpenAPIParses checks that docs/openapi.yaml is valid YAML and
// documents every route the API serves.
func TestComposeOpenAPIParses(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot, "docs", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		OpenAPI string                    `yaml:"openapi"`
		Paths   map[string]map[string]any `yaml:"paths"`
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("docs/openapi.yaml: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Errorf("openapi = %q, want 3.1.x", doc.OpenAPI)
	}
	want := map[string][]string{
		"/api/v1/businesses/create":           {"post"},
		"/api/v1/businesses/{id}/check":       {"post"},
		"/api/v1/businesses":                  {"get"},
		"/api/v1/businesses/{id}":             {"get"},
		"/api/v1/businesses/{id}/delete":      {"get", "post", "delete"},
		"/api/v1/customers/create":            {"post"},
		"/api/v1/customers/{id}/check":        {"post"},
		"/api/v1/customers":                   {"get"},
		"/api/v1/customers/{id}":              {"get"},
		"/api/v1/customers/{id}/delete":       {"get", "post", "delete"},
		"/api/v1/checks/{id}/retry":           {"post"},
		"/api/v1/checks/{id}/review":          {"post"},
		"/api/v1/reviews":                     {"get"},
		"/api/v1/screen":                      {"post"},
		"/api/v1/watchlists":                  {"get"},
		"/api/v1/events":                      {"get"},
		"/api/v1/events/{id}":                 {"get"},
		"/api/v1/events/{id}/redeliver":       {"post"},
		"/api/v1/webhooks":                    {"get", "post"},
		"/api/v1/webhooks/{id}":               {"get", "delete"},
		"/api/v1/webhooks/{id}/rotate-secret": {"post"},
		"/api/v1/webhooks/{id}/deliveries":    {"get"},
		"/verify/{token}":                     {"get", "post"},
		"/verify/{token}/idin":                {"post"},
		"/verify/{token}/return":              {"get"},
		"/verify/{token}/mrz":                 {"post"},
		"/verify/{token}/document":            {"post"},
		"/verify/{token}/selfie":              {"post"},
		"/verify/{token}/selfie/look":         {"post"},
		"/verify/{token}/status":              {"get"},
		"/verify/assets/capture.js":           {"get"},
		"/verify/assets/selfie.js":            {"get"},
		"/api/v1/checks/{id}/images":          {"get"},
		"/api/v1/checks/{id}/images/{n}":      {"get"},
		"/api/v1/openapi.yaml":                {"get"},
	}
	for path, methods := range want {
		ops, ok := doc.Paths[path]
		if !ok {
			t.Errorf("openapi.yaml lacks path %s", path)
			continue
		}
		for _, m := range methods {
			if _, ok := ops[m]; !ok {
				t.Errorf("openapi.yaml lacks %s %s", strings.ToUpper(m), path)
			}
		}
	}
	for _, probe := range []string{"/healthz", "/readyz"} {
		if _, ok := doc.Paths[probe]; !ok {
			t.Errorf("openapi.yaml lacks %s", probe)
		}
	}
	if n := len(doc.Paths) - 2; n != len(want) {
		t.Errorf("openapi.yaml has %d API paths, want %d", n, len(want))
	}
}
