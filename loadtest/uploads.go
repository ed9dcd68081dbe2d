package loadtest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	neturl "net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kycflow/kycflow/engines/docgen"
	"github.com/kycflow/kycflow/engines/mrz"
)

// uploadFairness measures a photo's time from upload to outcome, alone
// (twelve photos one after another, each: a new customer's idscan link,
// the photo uploaded, its status polled until read or sent back), and
// what a burst of photos costs other checks: the iban check end to end at
// concurrency 1, idle and while uploads photos are kept in flight, with
// those photos' times from upload to outcome (with more than one, reads
// queue on the documents task queue).
func (b *bencher) uploadFairness(ctx context.Context, uploads int, dur time.Duration) error {
	photos, err := benchPhotos(4)
	if err != nil {
		return err
	}
	b.poll = 5 * time.Millisecond
	// A read's own time first: one photo at a time, nothing else running.
	var alone []time.Duration
	for i := range 12 {
		took, _, err := b.uploadOnce(ctx, photos[i%len(photos)], 100*time.Millisecond)
		if err != nil {
			return err
		}
		alone = append(alone, took)
	}
	fmt.Printf("photos one at a time, nothing else running: upload to outcome %s\n", spread(alone))
	fmt.Println("idle:")
	if _, err := b.measure(ctx, 1, dur, "iban check end to end", b.endToEnd); err != nil {
		return err
	}
	loadCtx, stop := context.WithCancel(ctx)
	var mu sync.Mutex
	var outcomes []time.Duration
	states := map[string]int{}
	var failed error
	var wg sync.WaitGroup
	for g := range uploads {
		wg.Go(func() {
			for i := g; loadCtx.Err() == nil; i += uploads {
				took, state, err := b.uploadOnce(loadCtx, photos[i%len(photos)], time.Duration(uploads)*100*time.Millisecond)
				mu.Lock()
				switch {
				case loadCtx.Err() != nil:
				case err != nil:
					failed = cmp.Or(failed, err)
				default:
					outcomes = append(outcomes, took)
					states[state]++
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
		})
	}
	time.Sleep(5 * time.Second) // the uploads in flight, the readers busy
	fmt.Printf("with %d photo uploads in flight:\n", uploads)
	_, err = b.measure(ctx, 1, dur, "iban check end to end", b.endToEnd)
	stop()
	wg.Wait()
	if err != nil {
		return err
	}
	if failed != nil {
		return failed
	}
	fmt.Printf("photos: %d read or sent back (%v) in %.0fs; upload to outcome %s\n",
		len(outcomes), states, dur.Seconds()+5, spread(outcomes))
	return nil
}

// spread is the percentiles of ds (sorted in place), as the bench prints
// them.
func spread(ds []time.Duration) string {
	return fmt.Sprintf("p50 %.0fms p90 %.0fms p99 %.0fms max %.0fms", quantile(ds, 0.5), quantile(ds, 0.9), quantile(ds, 0.99), quantile(ds, 1))
}

// quantile is the q-quantile of ds in milliseconds (0 for none); it sorts ds.
func quantile(ds []time.Duration, q float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ms(ds[min(len(ds)-1, int(float64(len(ds))*q))])
}

// benchPhotos are n phone photos of generated documents (5 megapixels, a
// little blur, tilt and noise): what a reader gets from a phone.
func benchPhotos(n int) ([][]byte, error) {
	out := make([][]byte, n)
	for i := range out {
		f := mrz.TD3
		if i%2 == 1 {
			f = mrz.TD1
		}
		id := docgen.RandomIdentity(rand.New(rand.NewPCG(uint64(i), 77)), f)
		cam := docgen.Camera{Megapixels: 5, Scale: 0.8, Rotation: 4, Perspective: 0.04, Blur: 0.6, Noise: 4, Light: 0.95, Uneven: 0.15,
			Background: int64(i + 1), JPEGQuality: 85}
		var err error
		if out[i], err = docgen.Snapshot(id, 14, cam, uint64(i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// uploadOnce creates a customer with an idscan link, uploads photo to it
// and polls the link's status every poll until the photo is read or sent
// back: how long from the upload, and the state it ended in. (The
// uploaders together poll about ten times a second, as a few apps would.)
func (b *bencher) uploadOnce(ctx context.Context, photo []byte, poll time.Duration) (time.Duration, string, error) {
	body := map[string]any{"name": "Load Test", "email": "load@example.com", "country_code": "NLD", "mails": false,
		"checks": map[string]bool{"idscan": true, "idin": false, "iban": false}}
	took, st, _, err := b.uploadOnceAs(ctx, body, photo, poll)
	return took, st.State, err
}

// linkState is what GET /verify/{token}/status says of a link's photo.
type linkState struct {
	State  string `json:"state"`
	Reason string `json:"reason"`
}

// uploadOnceAs is uploadOnce for the customer body creates; it also
// answers the customer's id.
func (b *bencher) uploadOnceAs(ctx context.Context, customer map[string]any, photo []byte, poll time.Duration) (time.Duration, linkState, string, error) {
	var created struct {
		ID   string            `json:"id"`
		URLs map[string]string `json:"urls"`
	}
	if code, err := b.do(ctx, http.MethodPost, b.base+"/customers/create", customer, &created); err != nil || code != http.StatusCreated {
		return 0, linkState{}, "", fmt.Errorf("create an idscan customer: %d %v", code, err)
	}
	u, err := neturl.Parse(created.URLs["idscan"])
	if err != nil || !strings.HasPrefix(u.Path, "/verify/") {
		return 0, linkState{}, "", fmt.Errorf("no idscan link: %v", created.URLs)
	}
	root := strings.TrimSuffix(b.base, "/api/v1")
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	w, _ := mw.CreateFormFile("image", "photo.jpg")
	w.Write(photo)
	mw.Close()
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, root+u.Path+"/document", &form)
	if err != nil {
		return 0, linkState{}, "", err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := b.http.Do(req)
	if err != nil {
		return 0, linkState{}, "", err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		return 0, linkState{}, "", fmt.Errorf("upload: %d", resp.StatusCode)
	}
	for {
		select {
		case <-ctx.Done():
			return 0, linkState{}, "", ctx.Err()
		case <-time.After(poll):
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, root+u.Path+"/status", nil)
		if err != nil {
			return 0, linkState{}, "", err
		}
		resp, err := b.http.Do(req)
		if err != nil {
			return 0, linkState{}, "", err
		}
		var st linkState
		err = json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		switch {
		case err != nil:
			return 0, linkState{}, "", err
		case resp.StatusCode == http.StatusTooManyRequests:
			return 0, linkState{}, "", errors.New("status: 429 (raise VERIFY_RATE_LIMIT for this run)")
		case st.State == "done" || st.State == "retake":
			return time.Since(start), st, created.ID, nil
		}
	}
}
