package main

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

	"github.com/kycflow/kycflow/store/pgcluster"
	"github.com/kycflow/kycflow/worker/devserver"
)

// topology is what startStack brings up on this machine.
type topology struct {
	name string
	// production: the Temporal server on PostgreSQL; otherwise the
	// Temporal dev server on SQLite, as `kycflow dev` runs it.
	production    bool
	apis, workers int
}

var (
	clusterTopology = topology{name: "cluster", production: true, apis: clusterAPIs, workers: clusterWorkers}
	devTopology     = topology{name: "dev", apis: 1, workers: 1}
)

// stack is a running topology: PostgreSQL, Temporal, the sandboxes and the
// kycflow processes (children of this one, `api` and `worker`) behind the
// proxy on the API's address. `kycflow dev --cluster` shows it; `kycflow
// chaos` attacks it.
type stack struct {
	cfg   config
	dir   string
	exe   string
	procs []process
	pg    *pgcluster.Cluster
	key   string // the demo tenant's API key
	hooks string // the webhook catcher's address
	sb    *sandboxes

	prodTemporal *devserver.Cluster
	devTemporal  *testsuite.DevServer

	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	mu      sync.Mutex
	running map[string]*exec.Cmd // by process name; a killed one is gone at once
	tLog    *os.File
	// proxyErr receives the proxy's error, should it stop serving.
	proxyErr chan error
}

// startStack starts topo with its data under dir. busy are further
// addresses that must be free (checked with the stack's own).
func startStack(ctx context.Context, cfg config, topo topology, sub string, busy ...string) (_ *stack, err error) {
	st := &stack{cfg: cfg, running: map[string]*exec.Cmd{}, proxyErr: make(chan error, 1)}
	st.ctx, st.cancel = context.WithCancel(ctx)
	defer func() {
		if err != nil {
			st.stop()
		}
	}()
	var tOpts devserver.ClusterOptions
	if topo.production {
		if err := devserver.FindCluster(&tOpts); err != nil {
			return nil, fmt.Errorf("%w (make cluster installs it)", err)
		}
	}
	st.procs = clusterProcesses(cfg.ClusterPortBase, topo.apis, topo.workers)
	if topo.production {
		tOpts.PortBase = cfg.ClusterPortBase + temporalPortOffset
		for i := range 8 {
			busy = append(busy, fmt.Sprintf("127.0.0.1:%d", tOpts.PortBase+i))
		}
	}
	for _, p := range st.procs {
		busy = append(busy, p.OpsAddr)
		if p.HTTPAddr != "" {
			busy = append(busy, p.HTTPAddr)
		}
	}
	if st.dir, err = devPrepare(&st.cfg, sub, busy...); err != nil {
		return nil, err
	}
	if st.pg, err = devPostgres(ctx, st.cfg, st.dir); err != nil {
		return nil, err
	}
	if st.tLog, err = logFile(st.dir, "temporal"); err != nil {
		return nil, err
	}
	tLog := st.tLog
	if topo.production {
		fmt.Println("starting the Temporal server", devserver.ServerVersion, "on", cfg.TemporalAddress, "(PostgreSQL persistence and visibility)")
		tOpts.HostPort, tOpts.PGPort, tOpts.Dir, tOpts.Log = cfg.TemporalAddress, cfg.DevPGPort, filepath.Join(st.dir, "temporal"), tLog
		if st.prodTemporal, err = devserver.StartCluster(ctx, &tOpts); err != nil {
			return nil, err
		}
	} else {
		if st.devTemporal, err = devTemporal(ctx, cfg, st.dir, tLog, ""); err != nil {
			return nil, err
		}
	}
	if st.sb, err = startSandboxes(&st.cfg); err != nil {
		return nil, err
	}
	admin := st.pg.DSN("postgres", "kycflow")
	if st.key, err = demoTenant(ctx, admin, st.dir); err != nil {
		return nil, err
	}
	if st.hooks, err = st.sb.webhookCatcher(ctx, st.cfg, admin, st.dir); err != nil {
		return nil, err
	}
	if st.exe, err = os.Executable(); err != nil {
		return nil, err
	}
	var upstreams []string
	for _, p := range st.procs {
		if p.Role == "api" {
			upstreams = append(upstreams, p.HTTPAddr)
		}
		if err := st.start(p); err != nil {
			return nil, err
		}
	}
	b, err := newBalancer(upstreams)
	if err != nil {
		return nil, err
	}
	st.wg.Add(1)
	go func() {
		defer st.wg.Done()
		if err := serveProxy(st.ctx, st.cfg.httpAddr(true), b); err != nil {
			st.proxyErr <- fmt.Errorf("proxy: %w", err)
		}
	}()
	if err := waitReady(ctx, st.procs); err != nil {
		return nil, err
	}
	select {
	case err := <-st.proxyErr:
		return nil, err
	default:
	}
	return st, nil
}

// start launches one kycflow process. One that dies unexpectedly is
// reported, and the rest carry on: that is what several of each are for.
func (st *stack) start(p process) error {
	env := os.Environ()
	for _, m := range []map[string]string{clusterEnv(st.cfg), clusterOwnEnv(p, st.pg)} {
		for k, v := range m {
			env = append(env, k+"="+v)
		}
	}
	out, err := logFile(st.dir, p.Name)
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
			fmt.Printf("%s exited: %v (its log: %s)\n", p.Name, err, filepath.Join(st.dir, p.Name+".log"))
		}
	}()
	return nil
}

// kill sends SIGKILL to a running process and forgets it (its exit is
// expected); it reports whether there was one to kill.
func (st *stack) kill(name string) bool {
	st.mu.Lock()
	cmd := st.running[name]
	delete(st.running, name)
	st.mu.Unlock()
	return cmd != nil && cmd.Process.Kill() == nil
}

// pid is a running process's pid, 0 when it is not running.
func (st *stack) pid(name string) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	if cmd := st.running[name]; cmd != nil {
		return cmd.Process.Pid
	}
	return 0
}

// restartPostgres stops PostgreSQL (fast shutdown: connections are cut)
// and starts it again on the same data and port.
func (st *stack) restartPostgres(ctx context.Context) error {
	if err := st.pg.Stop(); err != nil {
		return err
	}
	pg, err := devPostgres(ctx, st.cfg, st.dir)
	if err != nil {
		return err
	}
	st.pg = pg
	return nil
}

// stop ends every process (SIGTERM, then SIGKILL after WaitDelay) and
// service, in the reverse order of their start.
func (st *stack) stop() {
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
	if st.pg != nil {
		st.pg.Stop()
	}
	if st.tLog != nil {
		st.tLog.Close()
	}
}
