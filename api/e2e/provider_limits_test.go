package e2e

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/lib/pq"
)

// Three worker processes share VIES's per-member-state limits: a burst of
// 300 Dutch vat checks reaches the VIES sandbox no faster than the rate in
// any one-second window and never more than two at a time, although its
// answers are at first slow enough that the workers would overlap more. One
// worker is killed (SIGKILL) mid-burst; no check is lost.
func TestProviderLimitsAcrossWorkers(t *testing.T) {
	const (
		checks = 300
		rate   = 30 // VIES_MS_RATE: above the default 10, so the burst takes seconds, not half a minute
	)
	ctx := t.Context()
	// The workers' own relays start the workflows, with their retry window
	// (a burst queued behind the rate may wait longer than the suite's 25 s).
	env.worker.Stop()
	defer startWorker()
	var workers []*exec.Cmd
	for range 3 {
		proc := exec.Command(env.bin, "worker")
		proc.Env = append(append(os.Environ(), providerEnv()...), "DATABASE_URL="+env.workerDSN, "HEALTH_ADDR=off",
			"VIES_MS_RATE="+strconv.Itoa(rate), "VIES_MS_CONCURRENCY=2",
			"PROVIDER_RETRY_INITIAL=100ms", "PROVIDER_RETRY_MAX=1s", "PROVIDER_RETRY_WINDOW=5m", "RELAY_SWEEP_MS=200", "LOG_LEVEL=error")
		if err := proc.Start(); err != nil {
			t.Fatal(err)
		}
		defer proc.Process.Kill()
		workers = append(workers, proc)
	}
	// For the burst's first seconds VIES answers in 100 ms: at the rate's
	// 37 ms spacing calls would overlap three at a time were the slots not
	// shared. Then it answers at once and the rate is what holds calls back.
	env.vies.Slow(100*time.Millisecond, 5*time.Second)
	defer env.vies.Recover()

	start := time.Now()
	ids := make([]string, checks)
	for i := range ids {
		ids[i] = newBusiness(t, env.a, map[string]any{"name": "Test BV Donald", "coc_number": "68750110", "vat_number": "NL854750137B01"}, "vat")
	}
	eventually(t, 30*time.Second, "the burst under way at VIES", func() bool { return len(arrivedSince(start)) >= checks/10 })
	workers[0].Process.Kill()
	workers[0].Wait()

	db := env.admin.DB()
	eventually(t, 90*time.Second, "every vat check to finish", func() bool {
		var open int
		if err := db.GetContext(ctx, &open, `SELECT count(*) FROM checks WHERE business_id = ANY($1) AND type = 'vat'
			AND status NOT IN ('completed', 'failed', 'expired', 'cancelled')`, pq.Array(ids)); err != nil {
			t.Fatal(err)
		}
		return open == 0
	})
	var validated int
	if err := db.GetContext(ctx, &validated, `SELECT count(*) FROM checks WHERE business_id = ANY($1) AND type = 'vat'
		AND status = 'completed' AND validated`, pq.Array(ids)); err != nil {
		t.Fatal(err)
	}
	if validated != checks {
		// Say what the others became, so that a failure can be read.
		var others []struct {
			Status string `db:"status"`
			Data   string `db:"data"`
			Error  string `db:"error"`
		}
		if err := db.SelectContext(ctx, &others, `SELECT status, coalesce(data::text, '') AS data, coalesce(error::text, '') AS error FROM checks
			WHERE business_id = ANY($1) AND type = 'vat' AND NOT (status = 'completed' AND validated IS TRUE)`, pq.Array(ids)); err != nil {
			t.Fatal(err)
		}
		t.Fatalf("%d of %d vat checks completed validated; the others: %+v", validated, checks, others)
	}

	// What VIES saw: every one-second window from each arrival on.
	arrivals := arrivedSince(start)
	if len(arrivals) < checks {
		t.Fatalf("VIES saw %d consultations for %d checks", len(arrivals), checks)
	}
	busiest := 0
	for i, a := range arrivals {
		n := 0
		for _, b := range arrivals[i:] {
			if b.Sub(a) >= time.Second {
				break
			}
			n++
		}
		busiest = max(busiest, n)
	}
	if busiest > rate {
		t.Errorf("VIES saw %d Dutch consultations within one second; the limit is %d", busiest, rate)
	}
	if peak := env.vies.PeakInFlight("NL"); peak > 2 {
		t.Errorf("VIES had %d Dutch consultations in flight at once; the limit is 2", peak)
	}
	took := arrivals[len(arrivals)-1].Sub(arrivals[0])
	t.Logf("%d consultations in %v (%.1f/s), busiest second %d, peak in flight %d",
		len(arrivals), took.Round(time.Millisecond), float64(len(arrivals)-1)/took.Seconds(), busiest, env.vies.PeakInFlight("NL"))
}

// arrivedSince is the VIES sandbox's Dutch arrivals from t on.
func arrivedSince(t time.Time) []time.Time {
	all := env.vies.Arrivals("NL")
	for i, a := range all {
		if !a.Before(t) {
			return all[i:]
		}
	}
	return nil
}
