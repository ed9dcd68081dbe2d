package devstack

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"go.temporal.io/sdk/testsuite"

	"github.com/kycflow/kycflow/app"
	"github.com/kycflow/kycflow/proxy"
	"github.com/kycflow/kycflow/store/pgcluster"
	"github.com/kycflow/kycflow/worker/devserver"
)

// Topology is what Start brings up on this machine.
type Topology struct {
	Name string
	// Production: the Temporal server on PostgreSQL; otherwise the
	// Temporal dev server on SQLite, as `kycflow dev` runs it.
	Production    bool
	APIs, Workers int
}

var (
	ClusterTopology = Topology{Name: "cluster", Production: true, APIs: ClusterAPIs, Workers: ClusterWorkers}
	DevTopology     = Topology{Name: "dev", APIs: 1, Workers: 1}
)

// Stack is a running Topology: PostgreSQL, Temporal, the sandboxes and the
// kycflow processes (children of this one, `api` and `worker`) behind the
// proxy on the API's address. `kycflow dev --cluster` shows it; `kycflow
// chaos` attacks it.
type Stack struct {
	Cfg   app.Config // as the stack configured it (its sandboxes, its key)
	Dir   string     // its data and logs
	Procs []Process
	PG    *pgcluster.Cluster
	Key   string // the demo tenant's API key
	exe   string
	hooks string // the webhook catcher's address
	sb    *sandboxes

	prodTemporal *devserver.Cluster
	devTemporal  *testsuite.DevServer

	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	mu      sync.Mutex
	running map[string]*exec.Cmd // by Process name; a killed one is gone at once
	tLog    *os.File
	// proxyErr receives the proxy's error, should it stop serving.
	proxyErr chan error
}

// Start starts topo with its data under dir. busy are further
// addresses that must be free (checked with the Stack's own).
func Start(ctx context.Context, cfg app.Config, topo Topology, sub string, busy ...string) (_ *Stack, err error) {
	st := &Stack{Cfg: cfg, running: map[string]*exec.Cmd{}, proxyErr: make(chan error, 1)}
	st.ctx, st.cancel = context.WithCancel(ctx)
	defer func() {
		if err != nil {
			st.Stop()
		}
	}()
	var tOpts devserver.ClusterOptions
	if topo.Production {
		if err := devserver.FindCluster(&tOpts); err != nil {
			return nil, fmt.Errorf("%w (make cluster installs it)", err)
		}
	}
	st.Procs = ClusterProcesses(cfg.ClusterPortBase, topo.APIs, topo.Workers)
	if topo.Production {
		tOpts.PortBase = cfg.ClusterPortBase + temporalPortOffset
		for i := range 8 {
			busy = append(busy, fmt.Sprintf("127.0.0.1:%d", tOpts.PortBase+i))
		}
	}
	for _, p := range st.Procs {
		busy = append(busy, p.OpsAddr)
		if p.HTTPAddr != "" {
			busy = append(busy, p.HTTPAddr)
		}
	}
	if st.Dir, err = devPrepare(&st.Cfg, sub, busy...); err != nil {
		return nil, err
	}
	if st.PG, err = devPostgres(ctx, st.Cfg, st.Dir); err != nil {
		return nil, err
	}
	if st.tLog, err = logFile(st.Dir, "temporal"); err != nil {
		return nil, err
	}
	tLog := st.tLog
	if topo.Production {
		fmt.Println("starting the Temporal server", devserver.ServerVersion, "on", cfg.TemporalAddress, "(PostgreSQL persistence and visibility)")
		tOpts.HostPort, tOpts.PGPort, tOpts.Dir, tOpts.Log = cfg.TemporalAddress, cfg.DevPGPort, filepath.Join(st.Dir, "temporal"), tLog
		if st.prodTemporal, err = devserver.StartCluster(ctx, &tOpts); err != nil {
			return nil, err
		}
	} else {
		if st.devTemporal, err = devTemporal(ctx, cfg, st.Dir, tLog, ""); err != nil {
			return nil, err
		}
	}
	if st.sb, err = startSandboxes(&st.Cfg); err != nil {
		return nil, err
	}
	admin := st.PG.DSN("postgres", "kycflow")
	if st.Key, err = demoTenant(ctx, admin, st.Dir); err != nil {
		return nil, err
	}
	if st.hooks, err = st.sb.webhookCatcher(ctx, st.Cfg, admin, st.Dir); err != nil {
		return nil, err
	}
	if st.exe, err = os.Executable(); err != nil {
		return nil, err
	}
	var upstreams []string
	for _, p := range st.Procs {
		if p.Role == "api" {
			upstreams = append(upstreams, p.HTTPAddr)
		}
		if err := st.StartProcess(p); err != nil {
			return nil, err
		}
	}
	b, err := proxy.NewBalancer(upstreams)
	if err != nil {
		return nil, err
	}
	st.wg.Add(1)
	go func() {
		defer st.wg.Done()
		if err := proxy.Serve(st.ctx, st.Cfg.HTTPAddrFor(true), b); err != nil {
			st.proxyErr <- fmt.Errorf("proxy: %w", err)
		}
	}()
	if err := waitReady(ctx, st.Procs); err != nil {
		return nil, err
	}
	select {
	case err := <-st.proxyErr:
		return nil, err
	default:
	}
	return st, nil
}

// start launches one kycflow Process. One that dies unexpectedly is
// reported, and the rest carry on: that is what several of each are for.
func (st *Stack) StartProcess(p Process) error {
	env := os.Environ()
	for _, m := range []map[string]string{ClusterEnv(st.Cfg), ClusterOwnEnv(p, st.PG)} {
		for k, v := range m {
			env = append(env, k+"="+v)
		}
	}
	out, err := logFile(st.Dir, p.Name)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(st.ctx, st.exe, p.Role)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, out, out
	// Stopping: a graceful stop, as an orchestrator would send.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 20 * time.Second
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		out.Close()
		return fmt.Errorf("start %s: %w", p.Name, err)
	}
	st.mu.Lock()
	st.running[p.Name] = cmd
	st.mu.Unlock()
	st.wg.Add(1)
	go func() {
		defer st.wg.Done()
		defer out.Close()
		err := cmd.Wait()
		st.mu.Lock()
		expected := st.running[p.Name] != cmd // killed on purpose, or replaced
		if !expected {
			delete(st.running, p.Name)
		}
		st.mu.Unlock()
		if err != nil && !expected && st.ctx.Err() == nil {
			fmt.Printf("%s exited: %v (its log: %s)\n", p.Name, err, filepath.Join(st.Dir, p.Name+".log"))
		}
	}()
	return nil
}

// kill sends SIGKILL to a running Process and forgets it (its exit is
// expected); it reports whether there was one to kill.
func (st *Stack) Kill(name string) bool {
	st.mu.Lock()
	cmd := st.running[name]
	delete(st.running, name)
	st.mu.Unlock()
	return cmd != nil && cmd.Process.Kill() == nil
}

// pid is a running Process's pid, 0 when it is not running.
func (st *Stack) Pid(name string) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	if cmd := st.running[name]; cmd != nil {
		return cmd.Process.Pid
	}
	return 0
}

// restartPostgres stops PostgreSQL (fast shutdown: connections are cut)
// and starts it again on the same data and port.
func (st *Stack) RestartPostgres(ctx context.Context) error {
	if err := st.PG.Stop(); err != nil {
		return err
	}
	pg, err := devPostgres(ctx, st.Cfg, st.Dir)
	if err != nil {
		return err
	}
	st.PG = pg
	return nil
}

// stop ends every Process (SIGTERM, then SIGKILL after WaitDelay) and
// service, in the reverse order of their start.
func (st *Stack) Stop() {
	st.cancel()
	st.wg.Wait()
	if st.sb != nil {
		st.sb.close()
	}
	if st.prodTemporal != nil {
		st.prodTemporal.Stop()
	}
	if st.devTemporal != nil {
		st.devTemporal.Stop()
	}
	if st.PG != nil {
		st.PG.Stop()
	}
	if st.tLog != nil {
		st.tLog.Close()
	}
}
