// Package devserver starts Temporal for kycflow on this machine: the
// Temporal CLI's dev server (installed with `go install
// github.com/temporalio/cli/cmd/temporal@v1.5.1`) with kycflow's search
// attributes, for `kycflow dev`; and the production server with PostgreSQL
// persistence and visibility (cluster.go), for the tests.
package devserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/kycflow/kycflow/workflows"
)

// Options configure the dev server.
type Options struct {
	Binary   string // path of the temporal CLI; found by Find when empty
	HostPort string // frontend, e.g. 127.0.0.1:7233
	UIPort   string // empty: no UI
	DBFile   string // empty: in memory
	// Pragmas for the server's SQLite file; nil means DefaultPragmas.
	Pragmas []string
	Log     io.Writer
}

// DefaultPragmas put the dev server's SQLite file in WAL mode without an
// fsync per write: safe against a crash of the process, may lose the last
// moments on power loss, and doubles the checks completed per second on
// this machine kind (docs/BENCHMARKS.md). Real deployments use a cluster.
var DefaultPragmas = []string{"journal_mode=wal", "synchronous=normal"}

// Find locates the temporal CLI: $TEMPORAL_BIN, then PATH, then $GOPATH/bin.
func Find() (string, error) {
	if p := os.Getenv("TEMPORAL_BIN"); p != "" {
		return p, nil
	}
	if p, err := exec.LookPath("temporal"); err == nil {
		return p, nil
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		home, _ := os.UserHomeDir()
		gopath = filepath.Join(home, "go")
	}
	p := filepath.Join(gopath, "bin", "temporal")
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	return "", errors.New("temporal CLI not found: run `make deps` (go install github.com/temporalio/cli/cmd/temporal@v1.5.1)")
}

// Start launches the server and waits until it answers.
func Start(ctx context.Context, o Options) (*testsuite.DevServer, error) {
	if o.Binary == "" {
		var err error
		if o.Binary, err = Find(); err != nil {
			return nil, err
		}
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	var sas []temporal.SearchAttributeUpdate
	for _, name := range workflows.SearchAttributeNames() {
		sas = append(sas, temporal.NewSearchAttributeKeyKeyword(name).ValueSet(""))
	}
	if o.Pragmas == nil && o.DBFile != "" {
		o.Pragmas = DefaultPragmas
	}
	var extra []string
	for _, p := range o.Pragmas {
		extra = append(extra, "--sqlite-pragma", p)
	}
	srv, err := testsuite.StartDevServer(ctx, testsuite.DevServerOptions{
		ExtraArgs:        extra,
		ExistingPath:     o.Binary,
		ClientOptions:    &client.Options{HostPort: o.HostPort, Logger: quiet{}},
		DBFilename:       o.DBFile,
		EnableUI:         o.UIPort != "",
		UIPort:           o.UIPort,
		LogLevel:         "error",
		SearchAttributes: temporal.NewSearchAttributes(sas...),
		Stdout:           o.Log,
		Stderr:           o.Log,
	})
	if err != nil {
		return nil, fmt.Errorf("start temporal dev server: %w", err)
	}
	return srv, nil
}

// quiet drops the SDK client's start-up chatter.
type quiet struct{}

func (quiet) Debug(string, ...any) {}
func (quiet) Info(string, ...any)  {}
func (quiet) Warn(string, ...any)  {}
func (quiet) Error(string, ...any) {}
