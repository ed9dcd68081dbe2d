package loadtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kycflow/kycflow/webhook"
)

// benchReceiver is the bench's webhook endpoint: on loopback, verifying
// every signature, counting each event id.
type benchReceiver struct {
	secret string
	// light: verify and count only (a receiver as cheap as can be, so the
	// bench measures kycflow rather than itself).
	light  bool
	mu     sync.Mutex
	seen   map[string]int // event id → deliveries
	got    []received     // first delivery of each event, in arrival order
	bad    int            // signatures that did not verify
	notify chan struct{}
	srv    *http.Server
	addr   string
}

type received struct {
	at      time.Time
	id, typ string
	subject string
	created time.Time // the event's created_at
	status  string    // a check event's check status
	checkID string
	done    time.Time // a completed check's completed_at
}

func newBenchReceiver() *benchReceiver {
	return &benchReceiver{seen: map[string]int{}, notify: make(chan struct{}, 1)}
}

// listen serves on addr (127.0.0.1:0 picks a port; the same addr again
// after down brings it back).
func (r *benchReceiver) listen(addr string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	r.addr = l.Addr().String()
	r.srv = &http.Server{Handler: http.HandlerFunc(r.serve), ReadHeaderTimeout: 5 * time.Second}
	go r.srv.Serve(l)
	return nil
}

// down stops answering: connections are refused.
func (r *benchReceiver) down() { r.srv.Close() }

func (r *benchReceiver) serve(w http.ResponseWriter, req *http.Request) {
	at := time.Now()
	body, _ := io.ReadAll(req.Body)
	if webhook.Verify(req.Header.Get(webhook.HeaderSignature), body, r.secret, at) != nil {
		r.mu.Lock()
		r.bad++
		r.mu.Unlock()
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if r.light {
		// Counting only: the event id from its header, no JSON decoding.
		id := req.Header.Get(webhook.HeaderEventID)
		r.mu.Lock()
		r.seen[id]++
		if r.seen[id] == 1 {
			r.got = append(r.got, received{at: at, id: id})
		}
		r.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
		return
	}
	var e struct {
		ID        string
		Type      string
		CreatedAt time.Time `json:"created_at"`
		Data      struct {
			Check *struct {
				ID          string
				Status      string
				CompletedAt *time.Time `json:"completed_at"`
			}
			Subject  struct{ ID string }
			Business struct{ ID string }
		}
	}
	json.Unmarshal(body, &e)
	rec := received{at: at, id: e.ID, typ: e.Type, subject: e.Data.Subject.ID + e.Data.Business.ID, created: e.CreatedAt}
	if c := e.Data.Check; c != nil {
		rec.status, rec.checkID = c.Status, c.ID
		if c.CompletedAt != nil {
			rec.done = *c.CompletedAt
		}
	}
	r.mu.Lock()
	r.seen[e.ID]++
	if r.seen[e.ID] == 1 {
		r.got = append(r.got, rec)
	}
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
	w.WriteHeader(http.StatusNoContent)
}

func (r *benchReceiver) snapshot() (got []received, dups, bad int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range r.seen {
		dups += n - 1
	}
	return slices.Clone(r.got), dups, r.bad
}

// register makes the receiver an endpoint of the bench's tenant; the
// returned func deletes it.
func (b *bencher) register(ctx context.Context, r *benchReceiver, events ...string) (func(), error) {
	var out struct{ ID, Secret string }
	code, err := b.do(ctx, http.MethodPost, b.base+"/webhooks", map[string]any{"url": "http://" + r.addr + "/bench", "events": events, "description": "kycflow bench"}, &out)
	if err != nil || code != http.StatusCreated {
		return nil, fmt.Errorf("register the bench's endpoint: %d %v (the tenant must be a sandbox tenant and loopback allowed, as under kycflow dev)", code, err)
	}
	r.secret = out.Secret
	return func() { b.do(context.Background(), http.MethodDelete, b.base+"/webhooks/"+out.ID, nil, nil) }, nil
}

// createWithEndpoint measures creates without an endpoint and with one
// (receiving every event), alternating rounds times, back to back in the
// same run, and compares the means.
func (b *bencher) createWithEndpoint(ctx context.Context, conc int, dur time.Duration, rounds int, subscribe []string) error {
	r := newBenchReceiver()
	r.light = true
	if err := r.listen("127.0.0.1:0"); err != nil {
		return err
	}
	defer r.down()
	var without, with []float64
	plain := func() error {
		rate, err := b.rate(ctx, conc, dur, "create, no endpoint")
		without = append(without, rate)
		return err
	}
	hooked := func() error {
		unregister, err := b.register(ctx, r, subscribe...)
		if err != nil {
			return err
		}
		defer unregister()
		rate, err := b.rate(ctx, conc, dur, "create, one endpoint taking "+strings.Join(subscribe, ", "))
		with = append(with, rate)
		return err
	}
	for i := 0; i < rounds; i++ {
		// ABBA: each condition goes first as often as second, so a drift
		// of the machine over the run does not favour either.
		order := []func() error{plain, hooked}
		if i%2 == 1 {
			order[0], order[1] = hooked, plain
		}
		for _, run := range order {
			if err := run(); err != nil {
				return err
			}
			time.Sleep(5 * time.Second) // the backlog settles between runs
		}
	}
	got, dups, bad := r.snapshot()
	fmt.Printf("the endpoint received %d events (%d twice, %d bad signatures)\n", len(got), dups, bad)
	mean := func(xs []float64) float64 {
		var sum float64
		for _, x := range xs {
			sum += x
		}
		return sum / float64(len(xs))
	}
	fmt.Printf("creates/s over %d rounds: no endpoint %.0f, one endpoint %.0f (%+.1f%%)\n",
		rounds, mean(without), mean(with), 100*(mean(with)/mean(without)-1))
	return nil
}

// webhookLatency creates n businesses one at a time, idle, and measures
// from each check's completion (its completed_at, written in the
// transaction that completes it) to the receiver's arrival of the
// check.completed event.
func (b *bencher) webhookLatency(ctx context.Context, n int) error {
	r := newBenchReceiver()
	if err := r.listen("127.0.0.1:0"); err != nil {
		return err
	}
	defer r.down()
	unregister, err := b.register(ctx, r, "check.completed")
	if err != nil {
		return err
	}
	defer unregister()
	var lat []time.Duration
	start := time.Now()
	for i := 0; i < n; i++ {
		if _, err := b.create(ctx); err != nil {
			return err
		}
		deadline := time.After(10 * time.Second)
		for {
			got, _, _ := r.snapshot()
			if len(got) > i {
				lat = append(lat, got[i].at.Sub(got[i].done))
				break
			}
			select {
			case <-r.notify:
			case <-deadline:
				return fmt.Errorf("event %d did not arrive within 10s", i+1)
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		time.Sleep(200 * time.Millisecond) // idle between
	}
	report("check completed → receiver 2xx", 1, time.Since(start), lat, 0)
	return nil
}

// webhookDrain queues events to an endpoint that is down for outage,
// brings it back, and waits for every event: none missing, none twice,
// each subject's in order. Each business brings 4 events (created, and
// its check's queued, running, completed).
func (b *bencher) webhookDrain(ctx context.Context, events, conc int, outage time.Duration) error {
	r := newBenchReceiver()
	if err := r.listen("127.0.0.1:0"); err != nil {
		return err
	}
	unregister, err := b.register(ctx, r, "*")
	if err != nil {
		return err
	}
	defer unregister()
	r.down()
	downAt := time.Now()
	businesses := events / 4
	fmt.Printf("endpoint down; creating %d businesses (%d events)…\n", businesses, businesses*4)
	var (
		next int
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
	)
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next == businesses {
					mu.Unlock()
					return
				}
				next++
				mu.Unlock()
				if _, err := b.create(ctx); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		return errs[0]
	}
	fmt.Printf("created in %s; endpoint stays down until %s after it went down\n", time.Since(downAt).Round(time.Second), outage)
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Until(downAt.Add(outage))):
	}
	if err := r.listen(r.addr); err != nil {
		return err
	}
	defer r.down()
	up := time.Now()
	want := businesses * 4
	last := time.Now()
	for {
		got, _, _ := r.snapshot()
		if len(got) >= want {
			break
		}
		if time.Since(last) > 10*time.Minute {
			return fmt.Errorf("%d of %d events after 10 minutes without progress", len(got), want)
		}
		select {
		case <-r.notify:
			last = time.Now()
		case <-time.After(time.Second):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	drain := time.Since(up)
	time.Sleep(5 * time.Second) // duplicates, if any, would come now
	got, dups, bad := r.snapshot()
	// Order: each subject's events arrived in the order they were written,
	// and each check went queued → running → completed.
	bySubject := map[string][]received{}
	for _, e := range got {
		bySubject[e.subject] = append(bySubject[e.subject], e)
	}
	disorder := 0
	for _, es := range bySubject {
		statuses := map[string][]string{}
		for i, e := range es {
			if i > 0 && e.created.Before(es[i-1].created) {
				disorder++
			}
			if e.checkID != "" {
				statuses[e.checkID] = append(statuses[e.checkID], e.status)
			}
		}
		for _, st := range statuses {
			if !slices.Equal(st, []string{"queued", "running", "completed"}) {
				disorder++
			}
		}
		if es[0].typ != "business.created" {
			disorder++
		}
	}
	fmt.Printf("drain: %d events to an endpoint down for %s: all %d delivered %s after it came back (%.0f/s); %d twice, %d out of order, %d bad signatures\n",
		want, outage, len(got), drain.Round(100*time.Millisecond), float64(len(got))/drain.Seconds(), dups, disorder, bad)
	if dups > 0 || disorder > 0 || bad > 0 || len(got) != want {
		return errors.New("the drain lost, repeated or reordered events")
	}
	return nil
}
