package devserver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	_ "github.com/lib/pq" // the server's databases are created over database/sql
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/types/known/durationpb"
)

// ServerVersion is the Temporal server kycflow is tested against:
// `go install go.temporal.io/server/cmd/server@v1.29.1` and its schema
// tool go.temporal.io/server/cmd/tools/sql.
const ServerVersion = "v1.29.1"

// ClusterOptions configure a Temporal server with PostgreSQL persistence
// and visibility: the production server, all its services in one process.
type ClusterOptions struct {
	// Binary is the server, SQLTool its schema tool (temporal-sql-tool),
	// SchemaDir the module's schema/postgresql/v12 directory.
	Binary, SQLTool, SchemaDir string
	// PostgreSQL: where the two databases (Database, Database+"_visibility")
	// live, as a superuser without password (a loopback test cluster).
	PGPort   int
	PGUser   string
	Database string
	// HostPort is the frontend's address; the other services take
	// PortBase…PortBase+7 when it is set, else free ports drawn on first
	// start from 28000–32767 (kept for restarts). The ranges keep a test
	// suite's server and a `dev --cluster` started beside it apart: a port
	// one drew free could be the other's, taken back on a restart.
	HostPort string
	PortBase int
	// Dir holds the generated configuration.
	Dir string
	Log io.Writer

	ports []int
}

// Cluster is a running server.
type Cluster struct {
	cmd *exec.Cmd
	// done closes when the server has exited, with its exit error in
	// exited: closed, not sent, so that start-up and Stop may both wait on
	// it (a server that died starting was waited on forever by Stop).
	done   chan struct{}
	exited error
}

// FindCluster locates the server, its schema tool and schema from
// $TEMPORAL_SERVER_DIR (where `make` installs them) and $TEMPORAL_SCHEMA_DIR.
func FindCluster(o *ClusterOptions) error {
	dir := os.Getenv("TEMPORAL_SERVER_DIR")
	if dir == "" {
		return errors.New("TEMPORAL_SERVER_DIR is not set: run the tests with make test (it installs the Temporal server " + ServerVersion + ")")
	}
	o.Binary, o.SQLTool = filepath.Join(dir, "server"), filepath.Join(dir, "sql")
	if o.SchemaDir = os.Getenv("TEMPORAL_SCHEMA_DIR"); o.SchemaDir == "" {
		return errors.New("TEMPORAL_SCHEMA_DIR is not set: run the tests with make test")
	}
	return nil
}

// StartCluster creates (or upgrades) the server's schemas, writes its
// configuration, starts it and waits until its frontend answers, with the
// namespace "default" registered. Starting again with the same options
// restarts the same cluster on its data.
func StartCluster(ctx context.Context, o *ClusterOptions) (*Cluster, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.PGUser == "" {
		o.PGUser = "postgres"
	}
	if o.Database == "" {
		o.Database = "temporal"
	}
	for _, db := range []struct{ name, schema string }{{o.Database, "temporal"}, {o.Database + "_visibility", "visibility"}} {
		if err := o.schema(ctx, db.name, db.schema); err != nil {
			return nil, err
		}
	}
	for attempt := 1; ; attempt++ {
		if err := o.writeConfig(); err != nil {
			return nil, err
		}
		c := &Cluster{}
		c.cmd = exec.Command(o.Binary, "--root", o.Dir, "--config", "config", "--env", "kycflow", "--allow-no-auth", "start")
		c.cmd.Dir = o.Dir
		c.cmd.Stdout, c.cmd.Stderr = o.Log, o.Log
		// Killed with its owner: a test run leaves no server behind.
		c.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
		if err := c.start(); err != nil {
			return nil, fmt.Errorf("start temporal server: %w", err)
		}
		err := c.ready(ctx, o.HostPort)
		if err == nil {
			return c, nil
		}
		c.Stop()
		// A port picked free may be taken before the server binds it
		// (another suite's server picks its own at the same time): new
		// ones, twice more.
		if !errors.Is(err, errExited) || o.PortBase > 0 || attempt == 3 {
			return nil, err
		}
		o.ports = nil
	}
}

// errExited: the server exited while starting.
var errExited = errors.New("temporal server exited during start-up (see its log)")

// start starts the server's process and waits for its exit in the
// background (see done).
func (c *Cluster) start() error {
	c.done = make(chan struct{})
	if err := c.cmd.Start(); err != nil {
		return err
	}
	go func() { c.exited = c.cmd.Wait(); close(c.done) }()
	return nil
}

// schema creates database db with the module's schema, or brings an
// existing one up to date.
func (o *ClusterOptions) schema(ctx context.Context, db, schema string) error {
	admin, err := sql.Open("postgres", fmt.Sprintf("postgres://%s@127.0.0.1:%d/postgres?sslmode=disable", o.PGUser, o.PGPort))
	if err != nil {
		return err
	}
	defer admin.Close()
	var exists bool
	if err := admin.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, db).Scan(&exists); err != nil {
		return fmt.Errorf("temporal schema: %w", err)
	}
	tool := func(args ...string) error {
		all := append([]string{"--plugin", "postgres12", "--ep", "127.0.0.1", "-p", strconv.Itoa(o.PGPort), "-u", o.PGUser, "--db", db}, args...)
		cmd := exec.CommandContext(ctx, o.SQLTool, all...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("temporal-sql-tool %s: %w: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	if !exists {
		if err := tool("create-database"); err != nil {
			return err
		}
		if err := tool("setup-schema", "-v", "0.0"); err != nil {
			return err
		}
	}
	return tool("update-schema", "-d", filepath.Join(o.SchemaDir, schema, "versioned"))
}

// writeConfig writes the server's configuration: the development
// configuration for PostgreSQL the module ships, on this cluster's ports.
func (o *ClusterOptions) writeConfig() error {
	for i := len(o.ports); i < 8; i++ {
		if o.PortBase > 0 {
			o.ports = append(o.ports, o.PortBase+i)
		} else {
			o.ports = append(o.ports, lowPort())
		}
	}
	_, front, err := net.SplitHostPort(o.HostPort)
	if err != nil {
		return fmt.Errorf("temporal frontend %q: %w", o.HostPort, err)
	}
	p := o.ports
	cfg := fmt.Sprintf(clusterConfig, o.Database, o.PGPort, o.PGUser, o.Database+"_visibility",
		front, p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], o.HostPort, filepath.Join(o.Dir, "config", "dynamic.yaml"))
	if err := os.MkdirAll(filepath.Join(o.Dir, "config"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.Dir, "config", "kycflow.yaml"), []byte(cfg), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(o.Dir, "config", "dynamic.yaml"), []byte(clusterDynamic), 0o644)
}

// ready waits for the frontend and registers the namespace.
func (c *Cluster) ready(ctx context.Context, hostPort string) error {
	deadline := time.Now().Add(90 * time.Second)
	var last error
	for time.Now().Before(deadline) && ctx.Err() == nil {
		select {
		case <-c.done:
			return fmt.Errorf("%w: %v", errExited, c.exited)
		default:
		}
		if last = register(ctx, hostPort); last == nil {
			return nil
		}
		time.Sleep(250 * time.Millisecond)
	}
	return fmt.Errorf("temporal server not ready on %s: %v", hostPort, last)
}

func register(ctx context.Context, hostPort string) error {
	// A lazy client: every call below is bounded by rctx, even the dial.
	c, err := client.NewLazyClient(client.Options{HostPort: hostPort, Logger: quiet{}})
	if err != nil {
		return err
	}
	defer c.Close()
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err = c.WorkflowService().RegisterNamespace(rctx, &workflowservice.RegisterNamespaceRequest{
		Namespace: "default", WorkflowExecutionRetentionPeriod: durationpb.New(24 * time.Hour)})
	var exists *serviceerror.NamespaceAlreadyExists
	if err != nil && !errors.As(err, &exists) {
		return err
	}
	_, err = c.WorkflowService().DescribeNamespace(rctx, &workflowservice.DescribeNamespaceRequest{Namespace: "default"})
	return err
}

// Stop ends the server (its process group).
func (c *Cluster) Stop() error {
	if c.cmd.Process == nil {
		return nil
	}
	_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(15 * time.Second):
		_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
		<-c.done
	}
	return nil
}

// lowPort is a free port below 32768: the server keeps its services'
// membership ports in a smallint column.
func lowPort() int {
	for {
		p := 28000 + rand.IntN(32768-28000)
		if l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p)); err == nil {
			l.Close()
			return p
		}
	}
}

// clusterConfig is the module's config/development-postgres12.yaml with
// this cluster's database, ports and dynamic configuration file.
const clusterConfig = `log:
  stdout: true
  level: warn
persistence:
  defaultStore: default
  visibilityStore: visibility
  numHistoryShards: 4
  datastores:
    default:
      sql:
        pluginName: postgres12
        databaseName: %s
        connectAddr: 127.0.0.1:%[2]d
        connectProtocol: tcp
        user: %[3]s
        maxConns: 20
        maxIdleConns: 20
        maxConnLifetime: 1h
    visibility:
      sql:
        pluginName: postgres12
        databaseName: %[4]s
        connectAddr: 127.0.0.1:%[2]d
        connectProtocol: tcp
        user: %[3]s
        maxConns: 5
        maxIdleConns: 5
        maxConnLifetime: 1h
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1
services:
  frontend:
    rpc: {grpcPort: %[5]s, membershipPort: %[6]d, bindOnLocalHost: true, httpPort: %[7]d}
  matching:
    rpc: {grpcPort: %[8]d, membershipPort: %[9]d, bindOnLocalHost: true}
  history:
    rpc: {grpcPort: %[10]d, membershipPort: %[11]d, bindOnLocalHost: true}
  worker:
    rpc: {grpcPort: %[12]d, membershipPort: %[13]d, bindOnLocalHost: true}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: %[14]s
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: %[15]s
  pollInterval: 10s
`

// clusterDynamic: search attributes usable as soon as they are
// registered, as on the dev server.
const clusterDynamic = `system.forceSearchAttributesCacheRefreshOnRead:
  - value: true
`

// UIVersion is the Temporal UI server `make cluster` installs (the one the
// CLI embeds): go.temporal.io's github.com/temporalio/ui-server/v2/cmd/server.
const UIVersion = "v2.42.1"

// FindUI locates the Temporal UI server in $TEMPORAL_UI_DIR (where `make
// cluster` installs it).
func FindUI() (string, bool) {
	dir := os.Getenv("TEMPORAL_UI_DIR")
	if dir == "" {
		return "", false
	}
	bin := filepath.Join(dir, "server")
	_, err := os.Stat(bin)
	return bin, err == nil
}

// StartUI starts the UI server on port for the frontend at hostPort, with
// its configuration written under dir; stop ends it.
func StartUI(bin, dir, hostPort, port string, log io.Writer) (stop func(), err error) {
	if err := os.MkdirAll(filepath.Join(dir, "config"), 0o755); err != nil {
		return nil, err
	}
	conf := fmt.Sprintf("temporalGrpcAddress: %s\nport: %s\nenableUi: true\ndefaultNamespace: default\ncors:\n  cookieInsecure: true\n", hostPort, port)
	if err := os.WriteFile(filepath.Join(dir, "config", "kycflow.yaml"), []byte(conf), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--root", dir, "--config", "config", "--env", "kycflow", "start")
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start temporal ui: %w", err)
	}
	return func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}, nil
}
