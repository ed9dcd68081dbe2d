// Package chaos is `kycflow chaos`: a fault campaign against a stack of
// its own (devstack), verified afterwards (docs/RELIABILITY.md).
package chaos

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/app"
	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/devstack"
	"github.com/kycflow/kycflow/store"
)

// Options are a campaign's settings (Flags declares them as flags).
type Options struct {
	Topology                           string
	Duration, Pause, Outage, Settle    time.Duration
	Rate, Uploads                      float64
	Kills, Pauses, PGRestarts, Outages int
	Seed                               uint64
}

// Flags declares o's fields on fs, with their defaults.
func (o *Options) Flags(fs *flag.FlagSet) {
	fs.StringVar(&o.Topology, "topology", "cluster", "cluster (Temporal server on PostgreSQL, 2 api, 3 workers) or dev (Temporal dev server on SQLite, 1 api, 1 worker)")
	fs.DurationVar(&o.Duration, "duration", 60*time.Second, "how long the load and the faults run")
	fs.Float64Var(&o.Rate, "rate", 8, "businesses created per second (each with coc, vat and iban checks)")
	fs.Float64Var(&o.Uploads, "uploads", 0.5, "customers per second with an idscan link, each sending a photo with glare, then a clear one (0: none)")
	fs.IntVar(&o.Kills, "kills", 4, "workers killed with SIGKILL")
	fs.IntVar(&o.Pauses, "pauses", 2, "pauses of the Temporal server (SIGSTOP, then SIGCONT)")
	fs.DurationVar(&o.Pause, "pause", 5*time.Second, "how long each pause lasts")
	fs.IntVar(&o.PGRestarts, "pg-restarts", 1, "PostgreSQL restarts")
	fs.IntVar(&o.Outages, "outages", 1, "provider outages (KvK and VIES at once)")
	fs.DurationVar(&o.Outage, "outage", 10*time.Second, "how long each outage lasts")
	fs.DurationVar(&o.Settle, "settle", 5*time.Minute, "how long to wait, after the faults, for every check to be final")
	fs.Uint64Var(&o.Seed, "seed", uint64(time.Now().UnixNano()), "the fault schedule's random seed (default: the time)")
}

// Run is `kycflow chaos`: a fault campaign. It starts a topology of
// its own (fresh data under KYCFLOW_DATA_DIR/chaos-<topology>), creates
// businesses with coc, vat and iban checks at a steady rate through the
// proxy while it SIGKILLs workers (restarting each after a second, as a
// supervisor would), pauses the Temporal server (SIGSTOP), restarts
// PostgreSQL and puts the KvK and VIES sandboxes in outage; then, once the
// faults are over, it waits for every check to finish and verifies: every
// business answered 201 exists with its three checks, every check is
// final, no check's result was written twice (a trigger counts result
// writes), and no request was answered 500. Beside the businesses,
// customers with an idscan link send photos (--uploads): every upload
// answered 202 must be recorded and end read or retake, none read twice.
func Run(ctx context.Context, cfg app.Config, o Options) error {
	topoName, dur, rate, kills, pauses, pause, restarts, outages, outage, settle, seed :=
		&o.Topology, &o.Duration, &o.Rate, &o.Kills, &o.Pauses, &o.Pause, &o.PGRestarts, &o.Outages, &o.Outage, &o.Settle, &o.Seed
	topo := devstack.ClusterTopology
	switch *topoName {
	case "cluster":
	case "dev":
		topo = devstack.DevTopology
	default:
		return fmt.Errorf("--topology %q: want cluster or dev", *topoName)
	}
	sub := "chaos-" + topo.Name
	if err := os.RemoveAll(filepath.Join(cfg.DataDir, sub)); err != nil {
		return err
	}
	st, err := devstack.Start(ctx, cfg, topo, sub)
	if err != nil {
		return err
	}
	defer st.Stop()
	admin, err := store.Open(ctx, st.PG.DSN("postgres", "kycflow"), 2)
	if err != nil {
		return err
	}
	defer admin.Close()
	if err := admin.CountResultWrites(ctx); err != nil {
		return err
	}
	var ups *uploadLoad
	if o.Uploads > 0 {
		crowd, err := people(4)
		if err != nil {
			return err
		}
		root := "http://" + st.Cfg.HTTPAddrFor(true)
		ups = &uploadLoad{base: root + "/api/v1", root: root, key: st.Key, people: crowd,
			http: &http.Client{Timeout: 30 * time.Second}, statuses: map[int]int{}}
	}
	plan := chaosPlan(*dur, *kills, *pauses, *restarts, *outages, *pause, *outage, topo.Workers, *seed)
	fmt.Printf("\nchaos on the %s topology: %s of load at %.0f businesses/s, %d faults (seed %d)\n", topo.Name, *dur, *rate, len(plan), *seed)

	load := &chaosLoad{base: "http://" + st.Cfg.HTTPAddrFor(true) + "/api/v1", key: st.Key,
		http: &http.Client{Timeout: 15 * time.Second}, statuses: map[int]int{}}
	lctx, stopLoad := context.WithTimeout(ctx, *dur)
	defer stopLoad()
	loadDone := make(chan struct{})
	go func() {
		var wg sync.WaitGroup
		if ups != nil {
			wg.Go(func() { ups.run(lctx, o.Uploads) })
		}
		load.run(lctx, *rate)
		wg.Wait()
		close(loadDone)
	}()
	start := time.Now()
	var tally faultTally
	for _, f := range plan {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Until(start.Add(f.at))):
		}
		if err := inject(ctx, st, f, &tally); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	<-loadDone
	fmt.Printf("load over: %d businesses created; waiting up to %s for every check to be final\n", len(load.created), *settle)
	res, err := verifyChaos(ctx, admin, load, *settle)
	if err != nil {
		return err
	}
	res.tally, res.topology, res.duration = tally, topo.Name, *dur
	if ups != nil {
		u, err := verifyUploads(ctx, admin, ups, *settle)
		if err != nil {
			return err
		}
		res.uploads = &u
	}
	fmt.Print(res.report())
	if !res.ok() {
		return errors.New("the fault campaign found losses, duplicates or server errors")
	}
	return nil
}

// fault is one planned fault, at an offset from the start of the load.
type fault struct {
	at     time.Duration
	kind   string // kill, pause, pg-restart, outage
	target string // the worker killed
	length time.Duration
}

func (f fault) String() string {
	switch f.kind {
	case "kill":
		return fmt.Sprintf("%5.1fs  SIGKILL %s", f.at.Seconds(), f.target)
	case "pause":
		return fmt.Sprintf("%5.1fs  Temporal server paused for %s", f.at.Seconds(), f.length)
	case "outage":
		return fmt.Sprintf("%5.1fs  KvK and VIES in outage for %s", f.at.Seconds(), f.length)
	}
	return fmt.Sprintf("%5.1fs  PostgreSQL restarted", f.at.Seconds())
}

// chaosPlan spreads the faults over the first four fifths of the load, in
// a random order (seeded: a schedule that found something can be rerun).
func chaosPlan(dur time.Duration, kills, pauses, restarts, outages int, pause, outage time.Duration, workers int, seed uint64) []fault {
	var plan []fault
	for i := range kills {
		plan = append(plan, fault{kind: "kill", target: fmt.Sprintf("worker-%d", i%workers+1)})
	}
	for range pauses {
		plan = append(plan, fault{kind: "pause", length: pause})
	}
	for range restarts {
		plan = append(plan, fault{kind: "pg-restart"})
	}
	for range outages {
		plan = append(plan, fault{kind: "outage", length: outage})
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	r.Shuffle(len(plan), func(i, j int) { plan[i], plan[j] = plan[j], plan[i] })
	span := dur * 4 / 5
	for i := range plan {
		plan[i].at = span * time.Duration(i+1) / time.Duration(len(plan)+1)
	}
	return plan
}

// faultTally counts what was done.
type faultTally struct {
	kills, pauses, pgRestarts, outages int
	pausedFor, pgDownFor               time.Duration
}

// inject carries out one fault and returns once it is over (a killed
// worker restarted, the server resumed, PostgreSQL back; an outage runs on
// its own clock in the sandbox).
func inject(ctx context.Context, st *devstack.Stack, f fault, t *faultTally) error {
	fmt.Println(f)
	switch f.kind {
	case "kill":
		if !st.Kill(f.target) {
			return errors.New("not running")
		}
		t.kills++
		time.Sleep(time.Second)
		for _, p := range st.Procs {
			if p.Name == f.target {
				return st.StartProcess(p)
			}
		}
	case "pause":
		pid, err := listenerPid(st.Cfg.TemporalAddress)
		if err != nil {
			return err
		}
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			return err
		}
		time.Sleep(f.length)
		if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
			return err
		}
		t.pauses++
		t.pausedFor += f.length
	case "pg-restart":
		began := time.Now()
		if err := st.RestartPostgres(ctx); err != nil {
			return err
		}
		t.pgRestarts++
		t.pgDownFor += time.Since(began)
	case "outage":
		secs := strconv.Itoa(int(f.length.Seconds()))
		for url, body := range map[string]string{
			st.Cfg.KvKBaseURL + "/sandbox/outage":  `{"status":503,"seconds":` + secs + `}`,
			st.Cfg.VIESBaseURL + "/sandbox/outage": `{"error":"MS_UNAVAILABLE","seconds":` + secs + `}`,
		} {
			res, err := http.Post(url, "application/json", strings.NewReader(body))
			if err != nil {
				return err
			}
			res.Body.Close()
			if res.StatusCode >= 300 {
				return fmt.Errorf("%s: %d", url, res.StatusCode)
			}
		}
		t.outages++
	}
	return nil
}

// chaosLoad creates businesses at a steady rate and remembers every answer.
type chaosLoad struct {
	base, key string
	http      *http.Client

	mu       sync.Mutex
	created  []uuid.UUID
	statuses map[int]int // by HTTP status; 0: no answer (a transport error)
	slowest  time.Duration
}

func (l *chaosLoad) run(ctx context.Context, rate float64) {
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	defer tick.Stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.create(context.WithoutCancel(ctx))
		}()
	}
}

func (l *chaosLoad) create(ctx context.Context) {
	body, _ := json.Marshal(map[string]any{
		"name": "Test BV Donald", "country_code": "NLD", "coc_number": "68750110",
		"vat_number": "NL854750137B01", "iban_number": "NL91ABNA0417164300",
		"checks": map[check.Type]bool{check.CoC: true, check.VAT: true, check.IBAN: true},
	})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, l.base+"/businesses/create", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+l.key)
	req.Header.Set("Content-Type", "application/json")
	began := time.Now()
	res, err := l.http.Do(req)
	status := 0
	var out struct{ ID uuid.UUID }
	if err == nil {
		status = res.StatusCode
		raw, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if status == http.StatusCreated && json.Unmarshal(raw, &out) != nil {
			status = -1 // a 201 without an id: counted as a failure
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.statuses[status]++
	l.slowest = max(l.slowest, time.Since(began))
	if status == http.StatusCreated {
		l.created = append(l.created, out.ID)
	}
}

// chaosResult is what the campaign found.
type chaosResult struct {
	topology string
	duration time.Duration
	tally    faultTally
	statuses map[int]int
	slowest  time.Duration

	created, missing    int
	checks, final       int
	byStatus            map[string]int
	duplicates          int // checks whose result was written more than once
	unwritten           int // completed checks whose result write was never seen
	maxToFinal, settled time.Duration
	uploads             *uploadResult // nil: no uploads in the load
}

func (r chaosResult) ok() bool {
	return (r.uploads == nil || r.uploads.ok()) && r.missing == 0 && r.final == r.checks && r.checks == 3*r.created && r.duplicates == 0 && r.unwritten == 0 &&
		r.statuses[http.StatusInternalServerError] == 0 && r.statuses[-1] == 0
}

// verifyChaos waits until every check of the created businesses is final
// (or settle passes) and compares the database with what the API answered.
func verifyChaos(ctx context.Context, s *store.Store, l *chaosLoad, settle time.Duration) (chaosResult, error) {
	l.mu.Lock()
	r := chaosResult{statuses: l.statuses, slowest: l.slowest, created: len(l.created)}
	ids := slices.Clone(l.created)
	l.mu.Unlock()
	began := time.Now()
	for {
		rows, err := s.ChecksOfBusinesses(ctx, ids)
		if err != nil {
			return r, err
		}
		r.checks, r.final, r.byStatus, r.maxToFinal = len(rows), 0, map[string]int{}, 0
		for _, row := range rows {
			r.byStatus[string(row.Status)]++
			if row.Status.Final() {
				r.final++
			}
			r.maxToFinal = max(r.maxToFinal, row.ToFinal)
		}
		if (r.final == r.checks && r.checks == 3*r.created) || time.Since(began) > settle {
			break
		}
		select {
		case <-ctx.Done():
			return r, ctx.Err()
		case <-time.After(time.Second):
		}
	}
	r.settled = time.Since(began)
	a, err := s.AuditResults(ctx, ids)
	if err != nil {
		return r, err
	}
	r.missing, r.duplicates, r.unwritten = r.created-a.Found, a.Twice, a.Unwritten
	return r, nil
}

// verifyUploads waits until no upload is left reading and every idscan
// check is final or waiting on a retake (or settle passes), then audits
// the uploads.
func verifyUploads(ctx context.Context, s *store.Store, l *uploadLoad, settle time.Duration) (uploadResult, error) {
	l.mu.Lock()
	r := uploadResult{customers: len(l.customers), accepted: l.accepted, unanswered: l.unanswered, statuses: l.statuses}
	ids := slices.Clone(l.customers)
	l.mu.Unlock()
	began := time.Now()
	for {
		a, err := s.AuditUploads(ctx, ids)
		if err != nil {
			return r, err
		}
		r.checks, r.final, r.waiting, r.attempts, r.reading = a.Checks, a.Final, a.Waiting, a.Attempts, a.Reading
		r.twice, r.results, r.unwritten = a.Twice, a.Results, a.Unwritten
		if (a.Reading == 0 && a.Final+a.Waiting == a.Checks) || time.Since(began) > settle {
			return r, nil
		}
		select {
		case <-ctx.Done():
			return r, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

func (r chaosResult) report() string {
	var b strings.Builder
	var answers []string
	for _, c := range slices.Sorted(maps.Keys(r.statuses)) {
		name := strconv.Itoa(c)
		switch c {
		case 0:
			name = "no answer"
		case -1:
			name = "201 without an id"
		}
		answers = append(answers, fmt.Sprintf("%s × %d", name, r.statuses[c]))
	}
	var statuses []string
	for _, s := range slices.Sorted(maps.Keys(r.byStatus)) {
		statuses = append(statuses, fmt.Sprintf("%s %d", s, r.byStatus[s]))
	}
	verdict := "PASS"
	if !r.ok() {
		verdict = "FAIL"
	}
	fmt.Fprintf(&b, "\n%s: the %s topology, %s of load\n", verdict, r.topology, r.duration)
	fmt.Fprintf(&b, "  faults      %d workers killed, %d Temporal pauses (%s), %d PostgreSQL restarts (%s down), %d provider outages\n",
		r.tally.kills, r.tally.pauses, r.tally.pausedFor, r.tally.pgRestarts, r.tally.pgDownFor.Round(time.Millisecond), r.tally.outages)
	fmt.Fprintf(&b, "  answers     %s (slowest %s)\n", strings.Join(answers, ", "), r.slowest.Round(time.Millisecond))
	fmt.Fprintf(&b, "  businesses  %d created (201), %d of them missing\n", r.created, r.missing)
	fmt.Fprintf(&b, "  checks      %d of %d expected, %d final (%s), settled %s after the load\n",
		r.checks, 3*r.created, r.final, strings.Join(statuses, ", "), r.settled.Round(time.Second))
	fmt.Fprintf(&b, "  duplicates  %d checks with their result written more than once; %d completed without a result write\n", r.duplicates, r.unwritten)
	fmt.Fprintf(&b, "  slowest     %s from a check's creation to its final status\n", r.maxToFinal.Round(100*time.Millisecond))
	if r.uploads != nil {
		b.WriteString(r.uploads.report())
	}
	fmt.Fprintf(&b, "\n| %s | %s | %d | %d (%s) | %d (%s) | %d | %d | %d | %d | %d | %d | %s |\n", r.topology, r.duration,
		r.tally.kills, r.tally.pauses, r.tally.pausedFor, r.tally.pgRestarts, r.tally.pgDownFor.Round(100*time.Millisecond), r.tally.outages,
		r.created, r.missing, r.checks, r.duplicates, r.statuses[http.StatusInternalServerError], r.maxToFinal.Round(100*time.Millisecond))
	return b.String()
}
