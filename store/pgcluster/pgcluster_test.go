package pgcluster

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A postmaster that cannot bind its port (another process took it) fails
// Start at once with errExited, and Start's clean-up does not wait forever
// for an exit it has already seen.
func TestStartOnATakenPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	dir, err := os.MkdirTemp("", "kycflow-pg-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	res := make(chan error, 1)
	go func() {
		c, err := Start(context.Background(), Options{Dir: filepath.Join(dir, "pg"), Port: l.Addr().(*net.TCPAddr).Port})
		if err == nil {
			c.Stop()
		}
		res <- err
	}()
	select {
	case err := <-res:
		if !errors.Is(err, errExited) {
			t.Fatalf("start on a taken port: %v, want errExited", err)
		}
	case <-time.After(2 * time.Minute): // initdb takes seconds; a hang is the failure
		t.Fatal("Start did not return")
	}
}
