package e2e

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/kycflow/kycflow/worker/devserver"
)

// Nothing is lost between PostgreSQL and Temporal: with the Temporal server
// down, creates still answer 201 at database speed, and the queued checks
// run once the server is back.
func TestTemporalOutage(t *testing.T) {
	if err := env.temporal.Stop(); err != nil {
		t.Logf("stopping temporal: %v", err)
	}
	restarted := false
	defer func() {
		if !restarted { // leave a running server for the other tests
			if srv, err := devserver.StartCluster(context.Background(), env.temporalOpts); err == nil {
				env.temporal = srv
			}
		}
	}()

	var ids []string
	var slowest time.Duration
	for range 5 {
		start := time.Now()
		r := createBusiness(t, env.a, "NL91ABNA0417164300", map[string]bool{"coc": false, "vat": false, "iban": true})
		slowest = max(slowest, time.Since(start))
		ids = append(ids, r.body["id"].(string))
	}
	t.Logf("slowest create with Temporal down: %s", slowest)
	if slowest > 2*time.Second {
		t.Fatalf("a create waited on Temporal: %s", slowest)
	}
	time.Sleep(time.Second)
	for _, id := range ids {
		r := request(t, env.a, http.MethodGet, "/api/v1/businesses/"+id, nil).want(t, http.StatusOK)
		if s := obj(r.body["iban_check"])["status"]; s != "queued" {
			t.Fatalf("check ran without Temporal: %v", s)
		}
	}

	srv, err := devserver.StartCluster(context.Background(), env.temporalOpts)
	if err != nil {
		t.Fatalf("restart temporal: %v", err)
	}
	env.temporal, restarted = srv, true
	back := time.Now()
	for _, id := range ids {
		chk := waitCheck(t, env.a, "/api/v1/businesses/"+id, "iban", 60*time.Second)
		if chk["status"] != "completed" || chk["validated"] != true {
			t.Fatalf("after the outage: %v", chk)
		}
	}
	t.Logf("all queued checks completed %s after Temporal came back", time.Since(back))
	var pending int
	env.admin.DB().Get(&pending, `SELECT count(*) FROM outbox`)
	if pending != 0 {
		t.Fatalf("%d outbox rows left", pending)
	}
}
