package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kycflow/kycflow/engines/sanctions"
	"github.com/kycflow/kycflow/engines/screeneval"
)

// screen measures POST /screen with batches of queries drawn like the
// matcher's evaluation (listed names exact, reordered, misspelled,
// transliterated, and people not listed) from the list `kycflow watchlist
// generate --entities N --seed S` makes: import that list first.
func (b *bencher) screen(ctx context.Context, batch, n, entities int, seed int64) error {
	cases := screeneval.GenerateList(entities, seed).Queries(batch*n, seed+1)
	type query struct {
		Name string `json:"name"`
	}
	var lat []time.Duration
	alerting := 0
	start := time.Now()
	for i := range n {
		qs := make([]query, batch)
		for j := range qs {
			qs[j] = query{Name: cases[(i*batch+j)%len(cases)].Name}
		}
		var out struct {
			Results []struct {
				Alerting bool `json:"alerting"`
			} `json:"results"`
		}
		t := time.Now()
		if _, err := b.do(ctx, http.MethodPost, b.base+"/screen", map[string]any{"queries": qs}, &out); err != nil {
			return err
		}
		lat = append(lat, time.Since(t))
		for _, r := range out.Results {
			if r.Alerting {
				alerting++
			}
		}
	}
	report(fmt.Sprintf("screen, %d queries a request, %d-entity list (%d of %d queries alerting)", batch, entities, alerting, batch*n), 1, time.Since(start), lat, 0)
	return nil
}

// screenFairness measures what one tenant's costliest screening does to
// another's creates: the other tenant's create latency idle, then while
// the first sends batches of the costliest queries within the caps
// (sanctions.WorstQueries, drawn from the list `kycflow watchlist
// generate` makes) as fast as its budget lets it — at once again after
// an answer, after Retry-After on a 429.
func (b *bencher) screenFairness(ctx context.Context, other *bencher, conc, batch, entities int, seed int64, dur time.Duration) error {
	worst := sanctions.WorstQueries(screeneval.GenerateList(entities, seed).Entities, 3*batch)
	bodies := make([]json.RawMessage, 3)
	for i := range bodies {
		qs := make([]map[string]string, batch)
		for j := range qs {
			qs[j] = map[string]string{"name": worst[(i*batch+j)%len(worst)].Name}
		}
		bodies[i], _ = json.Marshal(map[string]any{"queries": qs})
	}
	idle, err := other.createLatencies(ctx, conc, dur)
	if err != nil {
		return err
	}
	loadCtx, stop := context.WithCancel(ctx)
	var ok, refused atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Go(func() {
			for i := g; loadCtx.Err() == nil; i++ {
				wait, err := b.screenOnce(loadCtx, bodies[i%len(bodies)])
				switch {
				case err != nil:
					if loadCtx.Err() == nil {
						failed.CompareAndSwap(nil, err)
					}
					return
				case wait > 0:
					refused.Add(1)
					select {
					case <-loadCtx.Done():
					case <-time.After(wait):
					}
				default:
					ok.Add(1)
				}
			}
		})
	}
	time.Sleep(2 * time.Second) // past the budget's burst
	loaded, err := other.createLatencies(ctx, conc, dur)
	stop()
	wg.Wait()
	if err != nil {
		return err
	}
	if e, _ := failed.Load().(error); e != nil {
		return e
	}
	p50 := func(l []time.Duration) time.Duration { slices.Sort(l); return l[len(l)/2] }
	fmt.Printf("screen-fairness: another tenant's creates at concurrency %d: p50 %.1fms idle, %.1fms (%.2fx) while %d batches of %d costliest queries were answered (%d refused 429) in %.0fs\n",
		conc, ms(p50(idle)), ms(p50(loaded)), float64(p50(loaded))/float64(p50(idle)), ok.Load(), batch, refused.Load(), dur.Seconds()+2)
	return nil
}

// screenOnce sends one batch: the wait a 429 asks for, else 0.
func (b *bencher) screenOnce(ctx context.Context, body json.RawMessage) (time.Duration, error) {
	resp, err := b.send(ctx, http.MethodPost, b.base+"/screen", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	switch resp.StatusCode {
	case http.StatusOK:
		return 0, nil
	case http.StatusTooManyRequests:
		s, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		return time.Duration(max(1, s)) * time.Second, nil
	}
	return 0, fmt.Errorf("POST /screen: %d", resp.StatusCode)
}

// createLatencies creates businesses from conc clients for dur.
func (b *bencher) createLatencies(ctx context.Context, conc int, dur time.Duration) ([]time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, dur)
	defer cancel()
	var mu sync.Mutex
	var lat []time.Duration
	var first error
	var wg sync.WaitGroup
	for range conc {
		wg.Go(func() {
			for ctx.Err() == nil {
				t := time.Now()
				_, err := b.create(ctx)
				if ctx.Err() != nil {
					return
				}
				mu.Lock()
				if err != nil && first == nil {
					first = err
				}
				lat = append(lat, time.Since(t))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(lat) == 0 {
		return nil, fmt.Errorf("no create completed: %v", first)
	}
	return lat, first
}
