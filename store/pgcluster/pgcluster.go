// Package pgcluster runs a private PostgreSQL cluster from Debian's packages
// on 127.0.0.1, for `kycflow dev` and the tests. PostgreSQL refuses to run as
// root, so as root the cluster runs as the `postgres` system user.
package pgcluster

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
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"

	_ "github.com/lib/pq" // driver
)

// Options configure a cluster.
type Options struct {
	Dir      string   // data directory; created and initialised when empty
	Port     int      // TCP port on 127.0.0.1
	Database string   // created when missing
	Settings []string // extra `-c name=value` settings
	Log      io.Writer
}

// Cluster is a running postmaster.
type Cluster struct {
	opts Options
	cmd  *exec.Cmd
	// exited is closed when the postmaster has exited, with exitErr set:
	// a closed channel tells every waiter, where a sent value told one and
	// left Stop waiting forever after a failed start.
	exited  chan struct{}
	exitErr error
	stop    sync.Once
	temp    string // removed on Stop, for StartTemp clusters
}

// BinDir finds PostgreSQL's server programs (Debian keeps them off PATH).
func BinDir() (string, error) {
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Slice(matches, func(i, j int) bool { return version(matches[i]) > version(matches[j]) })
	if len(matches) > 0 {
		return filepath.Dir(matches[0]), nil
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("PostgreSQL server not found: install Debian's postgresql package (make deps does)")
}

func version(initdb string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return v
}

// Start initialises (when needed) and starts the cluster, waits until it
// accepts connections and creates the database.
func Start(ctx context.Context, o Options) (*Cluster, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Dir, err = filepath.Abs(o.Dir); err != nil {
		return nil, err
	}
	cred, err := credential()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return nil, err
	}
	if cred != nil {
		if err := reachable(o.Dir); err != nil {
			return nil, err
		}
		if err := os.Chown(o.Dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, err
		}
	}
	if _, err := os.Stat(filepath.Join(o.Dir, "PG_VERSION")); errors.Is(err, os.ErrNotExist) {
		init := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), "-D", o.Dir, "-U", "postgres",
			"--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8")
		init.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		if out, err := init.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("initdb: %w: %s", err, out)
		}
	}
	args := []string{"-D", o.Dir, "-p", strconv.Itoa(o.Port), "-c", "listen_addresses=127.0.0.1",
		"-c", "unix_socket_directories=", "-c", "max_connections=300"}
	for _, s := range o.Settings {
		args = append(args, "-c", s)
	}
	c := &Cluster{opts: o, exited: make(chan struct{})}
	c.cmd = exec.Command(filepath.Join(bin, "postgres"), args...)
	c.cmd.Stdout, c.cmd.Stderr = o.Log, o.Log
	// SIGQUIT if we die: the cluster must not outlive its owner.
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT, Setpgid: true}
	if err := c.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	go func() {
		c.exitErr = c.cmd.Wait()
		close(c.exited)
	}()
	if err := c.waitReady(ctx); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

func (c *Cluster) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(60 * time.Second)
	// Each attempt is short (connect_timeout; lib/pq's start-up exchange
	// does not heed the context): whatever else holds the port may accept
	// the connection and never answer.
	db, err := sql.Open("postgres", c.DSN("postgres", "postgres")+"&connect_timeout=2")
	if err != nil {
		return err
	}
	defer db.Close()
	for {
		select {
		case <-c.exited:
			return fmt.Errorf("%w (see its log): %v", errExited, c.exitErr)
		default:
		}
		err = db.PingContext(ctx)
		if err == nil {
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("postgres not ready on port %d: %w", c.opts.Port, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if c.opts.Database == "" {
		return nil
	}
	var exists bool
	if err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, c.opts.Database).Scan(&exists); err != nil {
		return err
	}
	if !exists {
		if _, err := db.ExecContext(ctx, `CREATE DATABASE "`+c.opts.Database+`"`); err != nil {
			return fmt.Errorf("create database: %w", err)
		}
	}
	return nil
}

// errExited: the postmaster exited before it accepted connections, as it
// does when another process took its port first.
var errExited = errors.New("postgres exited during start-up")

// Port is the cluster's TCP port on 127.0.0.1.
func (c *Cluster) Port() int { return c.opts.Port }

// DSN is a connection string for a role and database of this cluster.
func (c *Cluster) DSN(role, database string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", role, c.opts.Port, database)
}

// Stop shuts the cluster down (fast mode) and waits for it. It may be
// called more than once.
func (c *Cluster) Stop() error {
	c.stop.Do(func() {
		if c.cmd.Process != nil {
			_ = c.cmd.Process.Signal(syscall.SIGINT)
			select {
			case <-c.exited:
			case <-time.After(30 * time.Second):
				_ = c.cmd.Process.Kill()
				<-c.exited
			}
		}
		if c.temp != "" {
			os.RemoveAll(c.temp)
		}
	})
	return nil
}

// StartTemp starts a throwaway cluster for tests: a fresh directory under
// the system temp dir (searchable by the postgres user, unlike t.TempDir's),
// a free port, database "kycflow", durability off for speed. Stop removes it.
func StartTemp(ctx context.Context, log io.Writer) (*Cluster, error) {
	dir, err := os.MkdirTemp("", "kycflow-pg-")
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// A port free when chosen may be taken before the postmaster binds it
	// (tests start servers in parallel): then it exits, and another port is
	// tried.
	var c *Cluster
	for range 3 {
		c, err = Start(ctx, Options{Dir: filepath.Join(dir, "pg"), Port: FreePort(), Database: "kycflow", Log: log,
			Settings: []string{"fsync=off", "synchronous_commit=off", "full_page_writes=off"}})
		if !errors.Is(err, errExited) {
			break
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	c.temp = dir
	return c, nil
}

// credential returns the postgres user's ids when running as root, else nil.
func credential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root needs the postgres system user (Debian's postgresql package makes it): %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// reachable checks that the postgres user can walk down to dir.
func reachable(dir string) error {
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		if fi.Mode().Perm()&0o001 == 0 {
			return fmt.Errorf("the postgres user cannot reach %s (%s is not world-searchable); set KYCFLOW_DATA_DIR to a directory under a reachable path, e.g. /var/lib/kycflow", dir, p)
		}
		if p == "/" {
			return nil
		}
	}
}

// FreePort returns a TCP port free on 127.0.0.1 right now, for tests and
// throwaway servers that another process binds later. It is drawn at
// random below the kernel's ephemeral range (Linux hands out 32768 and up
// to outgoing connections and to ":0"), so no connection opened meanwhile
// can take it — a port the kernel picked for ":0" could be, and a child
// process once failed to bind one (TestCoreFlowsAcrossProcesses) — and
// never twice in one process.
func FreePort() int {
	for {
		p := freePortLow + rand.IntN(freePortHigh-freePortLow)
		if _, taken := handedOut.LoadOrStore(p, true); taken {
			continue
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			continue // in use
		}
		l.Close()
		return p
	}
}

// The ports FreePort draws from, and those it gave.
const freePortLow, freePortHigh = 20000, 32000

var handedOut sync.Map
