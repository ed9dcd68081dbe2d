package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/kycflow/kycflow/providers/sanctions"
)

// screen measures POST /screen with batches of queries drawn like the
// matcher's evaluation (listed names exact, reordered, misspelled,
// transliterated, and people not listed) from the list `kycflow watchlist
// generate --entities N --seed S` makes: import that list first.
func (b *bencher) screen(ctx context.Context, batch, n, entities int, seed int64) error {
	list := sanctions.GenerateList(entities, seed)
	cases := sanctions.GenerateEval(list, batch*n, seed+1)
	type query struct {
		Name string `json:"name"`
	}
	var lat []time.Duration
	alerting := 0
	start := time.Now()
	for i := range n {
		qs := make([]query, batch)
		for j := range qs {
			qs[j] = query{Name: cases[(i*batch+j)%len(cases)].Query.Name}
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
