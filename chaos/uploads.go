package chaos

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	neturl "net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/engines/docgen"
	"github.com/kycflow/kycflow/engines/mrz"
)

// person is a generated document holder: the customer to create, and two
// photos of the document — one with a lamp's reflection over the code (a
// retake), one a reader reads.
type person struct {
	customer     map[string]any
	glare, clear []byte
}

// people generates n document holders (a few seconds each on one core).
func people(n int) ([]person, error) {
	out := make([]person, n)
	for i := range out {
		f := mrz.TD3
		if i%2 == 1 {
			f = mrz.TD1
		}
		id := docgen.RandomIdentity(rand.New(rand.NewPCG(uint64(i), 91)), f)
		cam := docgen.Camera{Megapixels: 3, Scale: 0.8, Rotation: 3, Blur: 0.5, Noise: 3, Light: 1, JPEGQuality: 88}
		clear, err := docgen.Snapshot(id, 12, cam, uint64(i))
		if err != nil {
			return nil, err
		}
		cam.Glare, cam.GlareOnMRZ, cam.GlareSize = 1, true, 0.35
		glare, err := docgen.Snapshot(id, 12, cam, uint64(i))
		if err != nil {
			return nil, err
		}
		given, surname := strings.ToLower(id.Fields.GivenNames), strings.ToLower(id.Fields.Surname)
		out[i] = person{glare: glare, clear: clear, customer: map[string]any{
			"name": given + " " + surname, "firstname": given, "lastname": surname, "country_code": "NLD",
			"birthdate": id.Birth.Format(time.DateOnly), "email": "chaos@example.com", "mails": false,
			"checks": map[string]bool{"idscan": true, "idin": false, "iban": false},
		}}
	}
	return out, nil
}

// uploadLoad creates customers with an idscan link at a steady rate; each
// sends the glare photo, then the clear one, as a person would after the
// page asked for a retake. Every answer is remembered: an upload answered
// 202 must end read or retake, exactly once.
type uploadLoad struct {
	base, root, key string
	http            *http.Client
	people          []person

	mu         sync.Mutex
	customers  []uuid.UUID
	statuses   map[int]int // every answer, creating and uploading; 0: none
	accepted   int         // uploads answered 202
	unanswered int         // uploads sent without an answer (they may have landed)
}

func (l *uploadLoad) run(ctx context.Context, rate float64) {
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	defer tick.Stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		p := l.people[i%len(l.people)]
		wg.Go(func() { l.person(context.WithoutCancel(ctx), p) })
	}
}

// person creates one customer and sends its two photos, each until it is
// accepted, refused for good, or two minutes have passed (the faults
// answer 503 for a while; the link's address limit 429, whose Retry-After
// it waits out, as an app would: every upload comes from one address).
func (l *uploadLoad) person(ctx context.Context, p person) {
	var created struct {
		ID   uuid.UUID         `json:"id"`
		URLs map[string]string `json:"urls"`
	}
	body, _ := json.Marshal(p.customer)
	status, raw := l.send(ctx, http.MethodPost, l.base+"/customers/create", "application/json", body)
	if status != http.StatusCreated || json.Unmarshal(raw, &created) != nil {
		return
	}
	l.mu.Lock()
	l.customers = append(l.customers, created.ID)
	l.mu.Unlock()
	u, err := neturl.Parse(created.URLs["idscan"])
	if err != nil || !strings.HasPrefix(u.Path, "/verify/") {
		return
	}
	for i, photo := range [][]byte{p.glare, p.clear} {
		if i > 0 {
			time.Sleep(2 * time.Second) // the person reads the retake advice
		}
		var form bytes.Buffer
		mw := multipart.NewWriter(&form)
		w, _ := mw.CreateFormFile("image", "photo.jpg")
		w.Write(photo)
		mw.Close()
		deadline := time.Now().Add(2 * time.Minute)
		for {
			status, wait := l.upload(ctx, l.root+u.Path+"/document", mw.FormDataContentType(), form.Bytes())
			if status == http.StatusAccepted || status == http.StatusGone || status == http.StatusConflict || time.Now().After(deadline) {
				break
			}
			time.Sleep(wait)
		}
	}
}

// upload sends one photo (the link is its credential) and counts its
// answer; wait is how long to wait before sending it again (a 429's
// Retry-After, else a second).
func (l *uploadLoad) upload(ctx context.Context, url, contentType string, body []byte) (status int, wait time.Duration) {
	status, _, header := l.do(ctx, http.MethodPost, url, contentType, body, true)
	wait = time.Second
	if secs, err := strconv.Atoi(header.Get("Retry-After")); err == nil && status == http.StatusTooManyRequests {
		wait = time.Duration(secs) * time.Second
	}
	return status, wait
}

// send makes one API request with the tenant's key and counts its answer.
func (l *uploadLoad) send(ctx context.Context, method, url, contentType string, body []byte) (int, []byte) {
	status, raw, _ := l.do(ctx, method, url, contentType, body, false)
	return status, raw
}

// do makes one request — an upload, or an API request with the tenant's
// key — and counts its answer (status 0: none).
func (l *uploadLoad) do(ctx context.Context, method, url, contentType string, body []byte, upload bool) (int, []byte, http.Header) {
	req, _ := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	if !upload {
		req.Header.Set("Authorization", "Bearer "+l.key)
	}
	status := 0
	var raw []byte
	var header http.Header // nil, none: its Get answers ""
	if res, err := l.http.Do(req); err == nil {
		status, header = res.StatusCode, res.Header
		raw, _ = io.ReadAll(res.Body)
		res.Body.Close()
	}
	l.count(status, upload)
	return status, raw, header
}

// count counts an answer (0: none).
func (l *uploadLoad) count(status int, upload bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.statuses[status]++
	switch {
	case upload && status == http.StatusAccepted:
		l.accepted++
	case upload && status == 0:
		l.unanswered++
	}
}

// uploadResult is what the campaign found of the uploads.
type uploadResult struct {
	customers, accepted, unanswered int
	checks, final, waiting          int
	attempts, reading               int
	twice, results, unwritten       int
	statuses                        map[int]int
}

// ok: every accepted upload recorded (and no more than were sent), none
// left reading, none read twice, no idscan result written twice, and
// every check final or waiting on a retake.
func (r uploadResult) ok() bool {
	return r.attempts >= r.accepted && r.attempts <= r.accepted+r.unanswered && r.reading == 0 && r.twice == 0 &&
		r.results == 0 && r.unwritten == 0 && r.checks == r.customers && r.final+r.waiting == r.checks &&
		r.statuses[http.StatusInternalServerError] == 0
}

func (r uploadResult) report() string {
	var answers []string
	for _, c := range slices.Sorted(maps.Keys(r.statuses)) {
		answers = append(answers, fmt.Sprintf("%d × %d", c, r.statuses[c]))
	}
	return fmt.Sprintf("  uploads     %d customers, %d uploads accepted (+%d unanswered), %d recorded, %d left reading, %d read twice, %d results written twice, %d outcomes unseen\n"+
		"              %d of %d idscan checks final, %d waiting on a retake; answers %s\n",
		r.customers, r.accepted, r.unanswered, r.attempts, r.reading, r.twice, r.results, r.unwritten,
		r.final, r.checks, r.waiting, strings.Join(answers, ", "))
}
