package chaos

import (
	"net"
	"net/http"
	"os"
	"testing"
	"time"
)

// The plan holds every fault asked for, spread over the first four fifths
// of the load in order, the kills round the workers, and a seed replays it.
func TestChaosPlan(t *testing.T) {
	plan := chaosPlan(100*time.Second, 5, 2, 1, 1, 3*time.Second, 7*time.Second, 3, 42)
	counts := map[string]int{}
	var last time.Duration
	for _, f := range plan {
		counts[f.kind]++
		if f.at <= last || f.at >= 80*time.Second {
			t.Errorf("%v: not after %v and within the first 80 s", f, last)
		}
		last = f.at
		switch {
		case f.kind == "kill" && f.target != "worker-1" && f.target != "worker-2" && f.target != "worker-3":
			t.Errorf("kill of %q", f.target)
		case f.kind == "pause" && f.length != 3*time.Second, f.kind == "outage" && f.length != 7*time.Second:
			t.Errorf("%v: wrong length", f)
		}
	}
	if counts["kill"] != 5 || counts["pause"] != 2 || counts["pg-restart"] != 1 || counts["outage"] != 1 {
		t.Errorf("faults %v", counts)
	}
	again := chaosPlan(100*time.Second, 5, 2, 1, 1, 3*time.Second, 7*time.Second, 3, 42)
	for i := range plan {
		if plan[i] != again[i] {
			t.Fatalf("seed 42 gave %v, then %v", plan, again)
		}
	}
}

// The verdict fails on any loss, duplicate, unfinished check or 500; 503s
// (the honest answer while PostgreSQL restarts) are allowed.
func TestChaosVerdict(t *testing.T) {
	good := chaosResult{statuses: map[int]int{http.StatusCreated: 10, http.StatusServiceUnavailable: 2}, created: 10, checks: 30, final: 30}
	if !good.ok() {
		t.Fatal("a clean campaign failed")
	}
	withUploads := good
	withUploads.uploads = &uploadResult{customers: 2, accepted: 4, unanswered: 1, attempts: 5, checks: 2, final: 1, waiting: 1}
	if !withUploads.ok() {
		t.Fatal("a clean campaign with uploads failed")
	}
	for name, mutate := range map[string]func(*chaosResult){
		"a missing business":     func(r *chaosResult) { r.missing = 1 },
		"a missing check":        func(r *chaosResult) { r.checks, r.final = 29, 29 },
		"an unfinished check":    func(r *chaosResult) { r.final = 29 },
		"a result written twice": func(r *chaosResult) { r.duplicates = 1 },
		"a result never written": func(r *chaosResult) { r.unwritten = 1 },
		"a 500": func(r *chaosResult) {
			r.statuses = map[int]int{http.StatusCreated: 10, http.StatusInternalServerError: 1}
		},
		"a 201 without an id": func(r *chaosResult) { r.statuses = map[int]int{http.StatusCreated: 10, -1: 1} },
		"an accepted upload lost": func(r *chaosResult) {
			r.uploads = &uploadResult{customers: 2, accepted: 4, attempts: 3, checks: 2, final: 2}
		},
		"an upload left reading": func(r *chaosResult) {
			r.uploads = &uploadResult{customers: 2, accepted: 4, attempts: 4, reading: 1, checks: 2, final: 1, waiting: 1}
		},
		"an upload read twice": func(r *chaosResult) {
			r.uploads = &uploadResult{customers: 2, accepted: 4, attempts: 4, twice: 1, checks: 2, final: 2}
		},
		"an idscan result written twice": func(r *chaosResult) {
			r.uploads = &uploadResult{customers: 2, accepted: 4, attempts: 4, results: 1, checks: 2, final: 2}
		},
		"more uploads than were sent": func(r *chaosResult) {
			r.uploads = &uploadResult{customers: 2, accepted: 4, attempts: 5, checks: 2, final: 2}
		},
		"an idscan check stuck": func(r *chaosResult) {
			r.uploads = &uploadResult{customers: 2, accepted: 4, attempts: 4, checks: 2, final: 1}
		},
	} {
		r := good
		mutate(&r)
		if r.ok() {
			t.Errorf("%s passed", name)
		}
	}
}

// The Temporal server is found by the port it listens on.
func TestListenerPid(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if pid, err := listenerPid(l.Addr().String()); err != nil || pid != os.Getpid() {
		t.Fatalf("listenerPid = %d, %v; want %d", pid, err, os.Getpid())
	}
	addr := l.Addr().String()
	l.Close()
	if _, err := listenerPid(addr); err == nil {
		t.Fatal("a closed port has a listener")
	}
}
