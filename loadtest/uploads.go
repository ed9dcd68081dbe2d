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
	return b.fairness(ctx, "photos", uploads, dur, func(ctx context.Context, i int, poll time.Duration) (outcome, error) {
		took, state, err := b.uploadOnce(ctx, photos[i%len(photos)], poll)
		return outcome{took, state}, err
	})
}

// outcome is an upload's time to its outcome, and the state it ended in.
type outcome struct {
	took  time.Duration
	state string
}

// fairness measures op (the i-th upload of what, polling every poll)
// twelve times one after another, nothing else running; then the iban
// check end to end at concurrency 1, idle and while n ops are kept in
// flight, with those ops' times.
func (b *bencher) fairness(ctx context.Context, what string, n int, dur time.Duration, op func(ctx context.Context, i int, poll time.Duration) (outcome, error)) error {
	b.poll = 5 * time.Millisecond
	var alone []time.Duration
	states := map[string]int{}
	for i := range 12 {
		o, err := op(ctx, i, 100*time.Millisecond)
		if err != nil {
			return err
		}
		alone, states[o.state] = append(alone, o.took), states[o.state]+1
	}
	fmt.Printf("%s one at a time, nothing else running: upload to outcome %s (%v)\n", what, spread(alone), states)
	fmt.Println("idle:")
	if _, err := b.measure(ctx, 1, dur, "iban check end to end", b.endToEnd); err != nil {
		return err
	}
	loadCtx, stop := context.WithCancel(ctx)
	var mu sync.Mutex
	var outcomes []time.Duration
	states = map[string]int{}
	var failed error
	var wg sync.WaitGroup
	for g := range n {
		wg.Go(func() {
			for i := g; loadCtx.Err() == nil; i += n {
				o, err := op(loadCtx, 100+i, time.Duration(n)*100*time.Millisecond)
				mu.Lock()
				switch {
				case loadCtx.Err() != nil:
				case err != nil:
					failed = cmp.Or(failed, err)
				default:
					outcomes, states[o.state] = append(outcomes, o.took), states[o.state]+1
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
		})
	}
	time.Sleep(5 * time.Second) // the uploads in flight, the readers busy
	fmt.Printf("with %d %s in flight:\n", n, what)
	_, err := b.measure(ctx, 1, dur, "iban check end to end", b.endToEnd)
	stop()
	wg.Wait()
	if err != nil {
		return err
	}
	if failed != nil {
		return failed
	}
	fmt.Printf("%s: %d decided (%v) in %.0fs; upload to outcome %s\n", what, len(outcomes), states, dur.Seconds()+5, spread(outcomes))
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

// linkState is what GET /verify/{token}/status says of a link's photo
// (and, the photo read, of its selfie).
type linkState struct {
	State  string `json:"state"`
	Reason string `json:"reason"`
	Selfie *struct {
		State    string   `json:"state"`
		Steps    []string `json:"steps"`
		Nonce    string   `json:"nonce"`
		Attempts int      `json:"attempts"`
		Reason   *string  `json:"reason"`
	} `json:"selfie"`
	path string // the link's: /verify/{token}
}

// uploadOnceAs is uploadOnce for the customer body creates; it also
// answers the customer's id. A read photo whose tenant asks for a selfie
// ends in state "selfie".
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
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	w, _ := mw.CreateFormFile("image", "photo.jpg")
	w.Write(photo)
	mw.Close()
	start := time.Now()
	if err := b.post(ctx, u.Path+"/document", form.Bytes(), mw.FormDataContentType()); err != nil {
		return 0, linkState{}, "", err
	}
	st, err := b.awaitLink(ctx, u.Path, poll, func(st linkState) (bool, error) {
		return st.State == "done" || st.State == "retake" || st.State == "selfie", nil
	})
	st.path = u.Path
	return time.Since(start), st, created.ID, err
}

// post sends a multipart body to a link's path (/verify/{token}/…), as an
// app does; any answer but 202 is an error.
func (b *bencher) post(ctx context.Context, path string, body []byte, contentType string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(b.base, "/api/v1")+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := b.http.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("POST %s: %d", path[strings.LastIndex(path, "/"):], resp.StatusCode)
	}
	return nil
}

// awaitLink polls a link's status (path /verify/{token}) every poll until
// done says so, and answers the last; a 429 is an error.
func (b *bencher) awaitLink(ctx context.Context, path string, poll time.Duration, done func(linkState) (bool, error)) (linkState, error) {
	for {
		select {
		case <-ctx.Done():
			return linkState{}, ctx.Err()
		case <-time.After(poll):
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(b.base, "/api/v1")+path+"/status", nil)
		if err != nil {
			return linkState{}, err
		}
		resp, err := b.http.Do(req)
		if err != nil {
			return linkState{}, err
		}
		var st linkState
		err = json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusTooManyRequests:
			return linkState{}, errors.New("status: 429 (raise VERIFY_RATE_LIMIT for this run)")
		case err != nil:
			return linkState{}, err
		}
		if ok, err := done(st); ok || err != nil {
			return st, err
		}
	}
}
