package store_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/store/pgcluster"
)

var (
	ownerDSN  string
	appDSN    string
	workerDSN string
)

// TestMain runs the package against a real PostgreSQL cluster in a temp dir;
// a cluster that cannot start fails the run.
func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	ctx := context.Background()
	c, err := pgcluster.StartTemp(ctx, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL: PostgreSQL did not start:", err)
		return 1
	}
	defer c.Stop()
	ownerDSN, appDSN, workerDSN = c.DSN("postgres", "kycflow"), c.DSN(store.AppRole, "kycflow"), c.DSN(store.WorkerRole, "kycflow")
	if err := store.Migrate(ctx, ownerDSN, store.RolePasswords{}); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL: migrate:", err)
		return 1
	}
	return m.Run()
}
