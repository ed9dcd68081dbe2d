package devserver

import (
	"context"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A server that exits while starting is reported as such, and stopping it
// then returns: start-up had taken its exit, and Stop waited for it again,
// forever (an e2e run hung thirteen minutes on it).
func TestStopAfterAServerDiedStarting(t *testing.T) {
	c := &Cluster{cmd: exec.Command("sh", "-c", "exit 3")}
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.start(); err != nil {
		t.Fatal(err)
	}
	if err := c.ready(context.Background(), "127.0.0.1:1"); err == nil || !strings.Contains(err.Error(), "exited during start-up") {
		t.Fatalf("ready: %v", err)
	}
	stopped := make(chan struct{})
	go func() { c.Stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(time.Minute):
		t.Fatal("Stop waits for a server that exited during start-up")
	}
}
