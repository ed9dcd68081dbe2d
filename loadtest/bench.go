// Package loadtest is `kycflow bench`: load against a running API over
// HTTP, as any client sends it, for the figures in docs/BENCHMARKS.md.
package loadtest

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
)

// Run is the load command behind docs/BENCHMARKS.md (`kycflow bench`). It talks to a
// running API over HTTP like any client:
//
//	create: POST /businesses/create with a --check check, for --duration at --concurrency;
//	e2e:    create, then poll GET until the check is completed: end-to-end latency;
//	list:   GET /businesses pages, first and --deep (following next_cursor);
//	create-webhook: create without, then with, an endpoint taking every event;
//	webhook-latency: --n creates, idle: check completed → the receiver's 2xx;
//	webhook-drain: --events to an endpoint down for --outage, then up;
//	screen: --n requests of --batch queries against a generated list;
//	screen-compare: the real lists' evaluation queries, one a request,
//	  beside moov-io/watchman (--watchman);
//	screen-fairness: another tenant's (--other-key) creates, idle and while
//	  this tenant sends the costliest screenings its budget allows;
//	upload-fairness: twelve document photos one at a time, alone; then
//	  the iban check end to end, idle and while --uploads photos are in
//	  flight; each photo's upload to outcome;
//	upload-set: each photo of --dir (sets kycflow idscan generate wrote)
//	  through a new customer's idscan link, its check compared with the
//	  photo's label.
func Run(ctx context.Context, o Options) error {
	base, key, host, mode, otherKey, otherHost, dsn, conc, dur, deep, n, checkName, events, outage, rounds, subscribe, batch, entities, seed :=
		&o.URL, &o.Key, &o.Host, &o.Mode, &o.OtherKey, &o.OtherHost, &o.DSN, &o.Concurrency, &o.Duration, &o.Deep, &o.N, &o.Check,
		&o.Events, &o.Outage, &o.Rounds, &o.Subscribe, &o.Batch, &o.Entities, &o.Seed
	if *mode == "floor" {
		return insertFloor(ctx, *dsn, *conc, *dur)
	}
	if *key == "" {
		return errors.New("bench needs --key or KYCFLOW_API_KEY")
	}
	typ, ok := check.Parse(*checkName)
	if !ok || !typ.AppliesTo(check.Business) {
		return fmt.Errorf("--check %q: want iban, coc or vat", *checkName)
	}
	b := &bencher{base: *base + "/api/v1", key: *key, host: *host, check: typ,
		http: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: *conc * 2}}}
	b.businessBody, _ = json.Marshal(b.business())
	switch *mode {
	case "create":
		return b.loop(ctx, *conc, *dur, "create", b.create)
	case "e2e":
		// The pollers together ask about 200 times a second, whatever the
		// concurrency: harder polling would starve the stack it measures.
		b.poll = time.Duration(*conc) * 5 * time.Millisecond
		return b.loop(ctx, *conc, *dur, string(typ)+" check end to end", b.endToEnd)
	case "list":
		return b.list(ctx, *deep, *n)
	case "create-webhook":
		return b.createWithEndpoint(ctx, *conc, *dur, *rounds, strings.Split(*subscribe, ","))
	case "webhook-latency":
		return b.webhookLatency(ctx, *n)
	case "webhook-drain":
		return b.webhookDrain(ctx, *events, *conc, *outage)
	case "screen":
		return b.screen(ctx, *batch, *n, *entities, *seed)
	case "upload-fairness":
		return b.uploadFairness(ctx, o.Uploads, *dur)
	case "selfie-fairness":
		if o.Dirs == "" {
			return errors.New("selfie-fairness needs --dir, a labelled faces folder")
		}
		return b.selfieFairness(ctx, o.Dirs, o.FaceModels, o.Uploads, *dur)
	case "upload-set":
		if o.Dirs == "" {
			return errors.New("upload-set needs --dir")
		}
		return b.uploadSet(ctx, strings.Split(o.Dirs, ","))
	case "screen-compare":
		return b.screenCompare(ctx, o)
	case "screen-fairness":
		if *otherKey == "" {
			return errors.New("screen-fairness needs --other-key")
		}
		other := *b
		other.key, other.host = *otherKey, *otherHost
		return b.screenFairness(ctx, &other, *conc, *batch, *entities, *seed, *dur)
	}
	return fmt.Errorf("--mode %q: unknown", *mode)
}

// Options are a run's settings (Flags declares them as flags).
type Options struct {
	URL, Key, Host, Mode, OtherKey, OtherHost, DSN, Check, Subscribe string
	Concurrency, Deep, N, Events, Rounds, Batch, Entities, Uploads   int
	Duration, Outage                                                 time.Duration
	Seed                                                             int64
	// screen-compare: the real lists' files, and a watchman server.
	OFAC, UN, Watchman string
	WatchmanMin        float64
	// upload-set: photo sets' directories, comma-separated; selfie-fairness:
	// a labelled faces folder, and the face models.
	Dirs, FaceModels string
}

// Flags declares o's fields on fs, with their defaults.
func (o *Options) Flags(fs *flag.FlagSet) {
	fs.StringVar(&o.URL, "url", "http://127.0.0.1:8080", "API base URL")
	fs.StringVar(&o.Key, "key", os.Getenv("KYCFLOW_API_KEY"), "API key (default: KYCFLOW_API_KEY)")
	fs.StringVar(&o.Host, "host", "", "Host header: the tenant's hostname, when not the URL's")
	fs.StringVar(&o.Mode, "mode", "create", "create, floor, e2e, list, create-webhook, webhook-latency, webhook-drain, screen, screen-compare, screen-fairness, upload-fairness, selfie-fairness or upload-set")
	fs.StringVar(&o.OtherKey, "other-key", "", "screen-fairness: the API key of the tenant whose creates are measured")
	fs.StringVar(&o.OtherHost, "other-host", "", "screen-fairness: that tenant's Host header, when not the URL's")
	fs.StringVar(&o.DSN, "dsn", os.Getenv("DATABASE_URL"), "floor: PostgreSQL URL of a role that may create a table (default: DATABASE_URL)")
	fs.IntVar(&o.Concurrency, "concurrency", 16, "requests in flight")
	fs.DurationVar(&o.Duration, "duration", 10*time.Second, "how long to run (create, e2e, screen-fairness, upload-fairness, selfie-fairness)")
	fs.IntVar(&o.Deep, "deep", 0, "list: pages to walk before measuring (0: first page)")
	fs.IntVar(&o.N, "n", 500, "list, webhook-latency, screen: requests to measure")
	fs.StringVar(&o.Check, "check", string(check.IBAN), "create, e2e: the check each business gets: iban, coc or vat")
	fs.IntVar(&o.Events, "events", 10000, "webhook-drain: events to queue (4 per business)")
	fs.DurationVar(&o.Outage, "outage", 10*time.Minute, "webhook-drain: how long the endpoint is down")
	fs.IntVar(&o.Rounds, "rounds", 3, "create-webhook: alternating rounds without and with the endpoint")
	fs.StringVar(&o.Subscribe, "subscribe", "*", "create-webhook: the events the endpoint takes, comma-separated")
	fs.IntVar(&o.Batch, "batch", 100, "screen: queries per request")
	fs.IntVar(&o.Entities, "entities", 50000, "screen: entities of the generated list imported (kycflow watchlist generate)")
	fs.Int64Var(&o.Seed, "seed", 1, "screen: the seed that list was generated with")
	fs.StringVar(&o.OFAC, "ofac", "", "screen-compare: an OFAC SDN snapshot's directory (sdn.csv, alt.csv, add.csv), imported as --format ofac-sdn")
	fs.StringVar(&o.UN, "un", "", "screen-compare: the UN consolidated list's XML file, imported as --format un-xml")
	fs.StringVar(&o.Watchman, "watchman", "", "screen-compare: a moov-io/watchman server holding the same OFAC snapshot, e.g. http://127.0.0.1:8084")
	fs.Float64Var(&o.WatchmanMin, "watchman-min", 0.65, "screen-compare: watchman's minimum match")
	fs.IntVar(&o.Uploads, "uploads", 20, "upload-fairness, selfie-fairness: document photos or selfies kept in flight")
	fs.StringVar(&o.Dirs, "dir", "", "upload-set: directories kycflow idscan generate wrote, comma-separated; selfie-fairness: a folder of labelled faces (labels.tsv)")
	fs.StringVar(&o.FaceModels, "models", os.Getenv("FACE_MODELS"), "selfie-fairness: the face models' directory (default: FACE_MODELS, else make face-models' place)")
}

type bencher struct {
	base, key string
	host      string     // Host header; "": the URL's
	check     check.Type // a business check
	http      *http.Client
	poll      time.Duration
	// businessBody is business() encoded once: the load generator's CPU
	// is taken from the machine it measures.
	businessBody json.RawMessage
}

// send sends a request as the bencher's tenant; body, when not nil, is JSON.
func (b *bencher) send(ctx context.Context, method, url string, body io.Reader) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return nil, err
	}
	if b.host != "" {
		req.Host = b.host
	}
	req.Header.Set("Authorization", "Bearer "+b.key)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return b.http.Do(req)
}

func (b *bencher) do(ctx context.Context, method, url string, body any, out any) (int, error) {
	var r io.Reader
	if raw, ok := body.(json.RawMessage); ok {
		r = bytes.NewReader(raw)
	} else if body != nil {
		raw, _ := json.Marshal(body)
		r = bytes.NewReader(raw)
	}
	resp, err := b.send(ctx, method, url, r)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode >= 300 {
		return resp.StatusCode, fmt.Errorf("%s %s: %d %s", method, url, resp.StatusCode, raw)
	}
	if out != nil {
		return resp.StatusCode, json.Unmarshal(raw, out)
	}
	return resp.StatusCode, nil
}

// business is the sandboxes' test company (KvK 68750110, its VAT
// number in the VIES sandbox), with only the check under test requested.
func (b *bencher) business() map[string]any {
	return map[string]any{
		"name": "Test BV Donald", "country_code": "NLD", "coc_number": "68750110",
		"iban_number": "NL91ABNA0417164300", "vat_number": "NL854750137B01",
		"checks": b.checks(),
	}
}

// checks asks for the check under test only.
func (b *bencher) checks() map[check.Type]bool {
	m := map[check.Type]bool{}
	for _, t := range check.Types(check.Business) {
		m[t] = t == b.check
	}
	return m
}

func (b *bencher) create(ctx context.Context) (string, error) {
	var out struct{ ID string }
	_, err := b.do(ctx, http.MethodPost, b.base+"/businesses/create", b.businessBody, &out)
	return out.ID, err
}

// endToEnd creates a business and polls until its check completes.
func (b *bencher) endToEnd(ctx context.Context) (string, error) {
	id, err := b.create(ctx)
	if err != nil {
		return "", err
	}
	for {
		var out map[string]json.RawMessage
		if _, err := b.do(ctx, http.MethodGet, b.base+"/businesses/"+id, nil, &out); err != nil {
			return "", err
		}
		var chk *struct{ Status string }
		if err := json.Unmarshal(out[string(b.check)+"_check"], &chk); err != nil {
			return "", err
		}
		if chk != nil && chk.Status == "completed" {
			return id, nil
		}
		if chk != nil && chk.Status == "failed" {
			return "", errors.New("check failed")
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(b.poll):
		}
	}
}

// insertFloor measures what a create is compared against: single-row
// INSERTs, each its own transaction, into a scratch table of kycflow's
// database, from conc connections (the table is dropped after).
func insertFloor(ctx context.Context, dsn string, conc int, dur time.Duration) error {
	if dsn == "" {
		return errors.New("bench --mode floor needs --dsn or DATABASE_URL")
	}
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(conc)
	db.SetMaxIdleConns(conc)
	if _, err := db.ExecContext(ctx, `CREATE TABLE bench_floor (id uuid PRIMARY KEY, at timestamptz NOT NULL, note text NOT NULL)`); err != nil {
		return fmt.Errorf("scratch table: %w", err)
	}
	defer db.Exec(`DROP TABLE bench_floor`) //nolint:errcheck
	var b bencher
	_, err = b.measure(ctx, conc, dur, "single-row INSERT", func(ctx context.Context) (string, error) {
		_, err := db.ExecContext(ctx, `INSERT INTO bench_floor (id, at, note) VALUES ($1, $2, $3)`, store.NewID(), time.Now(), "floor")
		return "", err
	})
	return err
}

// loop runs op from conc goroutines for dur and prints throughput and latency.
func (b *bencher) loop(ctx context.Context, conc int, dur time.Duration, what string, op func(context.Context) (string, error)) error {
	_, err := b.measure(ctx, conc, dur, what, op)
	return err
}

// rate is loop over creates, returning the rate.
func (b *bencher) rate(ctx context.Context, conc int, dur time.Duration, what string) (float64, error) {
	return b.measure(ctx, conc, dur, what, b.create)
}

// measure runs op from conc goroutines for dur, prints throughput and
// latency, and returns the rate of successes.
func (b *bencher) measure(ctx context.Context, conc int, dur time.Duration, what string, op func(context.Context) (string, error)) (float64, error) {
	ctx, cancel := context.WithTimeout(ctx, dur)
	defer cancel()
	var (
		mu        sync.Mutex
		latencies []time.Duration
		errs      atomic.Int64
		firstErr  atomic.Value
	)
	start := time.Now()
	var wg sync.WaitGroup
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var local []time.Duration
			for ctx.Err() == nil {
				t := time.Now()
				_, err := op(ctx)
				if ctx.Err() != nil {
					break
				}
				if err != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				local = append(local, time.Since(t))
			}
			mu.Lock()
			latencies = append(latencies, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	report(what, conc, elapsed, latencies, errs.Load())
	if e := firstErr.Load(); e != nil {
		fmt.Println("first error:", e)
	}
	return float64(len(latencies)) / elapsed.Seconds(), nil
}

func report(what string, conc int, elapsed time.Duration, lat []time.Duration, errs int64) {
	slices.Sort(lat)
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(float64(len(lat))*p))]
	}
	fmt.Printf("%s: %d ok, %d errors in %.1fs at concurrency %d → %.0f/s; latency p50 %.1fms p90 %.1fms p99 %.1fms max %.1fms\n",
		what, len(lat), errs, elapsed.Seconds(), conc, float64(len(lat))/elapsed.Seconds(),
		ms(pct(0.50)), ms(pct(0.90)), ms(pct(0.99)), ms(pct(1)))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// list measures the first page and, with deep > 0, a page reached by walking
// deep pages of 100 first.
func (b *bencher) list(ctx context.Context, deep, n int) error {
	url := b.base + "/businesses?per_page=20"
	if deep > 0 {
		next := b.base + "/businesses?per_page=100"
		for i := 0; i < deep; i++ {
			var p struct {
				NextPageURL *string `json:"next_page_url"`
			}
			if _, err := b.do(ctx, http.MethodGet, next, nil, &p); err != nil {
				return err
			}
			if p.NextPageURL == nil {
				return fmt.Errorf("only %d pages of 100 exist", i+1)
			}
			next = *p.NextPageURL
		}
		u, err := neturl.Parse(next)
		if err != nil {
			return err
		}
		q := u.Query()
		q.Set("per_page", "20")
		u.RawQuery = q.Encode()
		url = u.String()
	}
	var lat []time.Duration
	start := time.Now()
	for range n {
		t := time.Now()
		if _, err := b.do(ctx, http.MethodGet, url, nil, nil); err != nil {
			return err
		}
		lat = append(lat, time.Since(t))
	}
	report(fmt.Sprintf("list page (after %d pages of 100)", deep), 1, time.Since(start), lat, 0)
	return nil
}
