package e2e

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kycflow/kycflow/api"
)

// lockedBuffer is a log sink for concurrent handlers.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Clients that hang up in the middle of a create: every answer a client
// gets is its 201, the API logs the cut ones 499, never a 500 or 503, and
// each create is stored whole (the record with all its checks and links)
// or not at all.
func TestClientCutsCreates(t *testing.T) {
	var logs lockedBuffer
	serve(t, api.Config{Store: env.app, PublicURL: env.publicURL, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	run := fmt.Sprintf("Cut-%d", time.Now().UnixNano())
	// How long an uncut create takes here: the median of three, so one
	// slow (cold) create does not stretch the cuts past every answer.
	var took []time.Duration
	for k := range 3 {
		start := time.Now()
		newBusiness(t, env.a, map[string]any{"name": fmt.Sprintf("%s-whole-%d", run, k), "coc_number": "68750110", "vat_number": "NL854750137B01", "iban_number": "NL91ABNA0417164300"}, "coc", "vat", "iban")
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	span := 2 * took[1]
	statuses := regexp.MustCompile(`status=(\d+)`)
	seen := map[string]int{}
	const n = 40
	sent, cut, logged := 0, 0, 0
	// Cuts at n points spread evenly from just after the start to twice
	// an uncut create: some before the request is sent, some while the API
	// creates, some after its answer. Where they land depends on the
	// machine's load, so rounds go on (five at most) until the API has seen
	// a create cut (499), which is what this test is about.
	for round := 0; round < 5 && seen["499"] == 0; round++ {
		for i := range n {
			path, body := "/api/v1/businesses/create", fmt.Sprintf(`{"name":"%s-%d","country_code":"NLD","coc_number":"68750110","vat_number":"NL854750137B01","iban_number":"NL91ABNA0417164300","checks":{"coc":true,"vat":true,"iban":true}}`, run, sent)
			if i%2 == 1 {
				path, body = "/api/v1/customers/create", fmt.Sprintf(`{"name":"%s-%d","email":"cut@example.com","country_code":"NLD","mails":false,"checks":{"idin":false,"idscan":true,"iban":false}}`, run, sent)
			}
			sent++
			ctx, cancel := context.WithTimeout(context.Background(), span*time.Duration(i+1)/n)
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, env.server.URL+path, strings.NewReader(body))
			req.Host = env.a.host
			req.Header.Set("Authorization", "Bearer "+env.a.key)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			switch {
			case err == nil:
				resp.Body.Close()
				if resp.StatusCode != http.StatusCreated {
					t.Errorf("%s answered %d, want 201 or the cut", path, resp.StatusCode)
				}
			case ctx.Err() != nil: // the cut
				cut++
			default:
				t.Errorf("%s: %v, want its answer or the cut", path, err)
			}
			cancel()
		}
		// Let the cut requests' handlers finish (a request cut before it
		// was sent never reaches the server): until the log is quiet for
		// a second.
		quietSince := time.Now()
		eventually(t, 15*time.Second, "the cut requests' handlers to finish", func() bool {
			if l := len(statuses.FindAllString(logs.String(), -1)); l != logged {
				logged, quietSince = l, time.Now()
			}
			return time.Since(quietSince) > time.Second
		})
		clear(seen)
		for _, m := range statuses.FindAllStringSubmatch(logs.String(), -1) {
			seen[m[1]]++
		}
	}
	if cut == 0 || seen["499"] == 0 {
		t.Fatalf("%d creates in %s: %d cut by the client, statuses logged %v; want cuts the API saw (499)", sent, span, cut, seen)
	}
	for status := range seen {
		if status >= "500" {
			t.Errorf("a cut request was logged %s:\n%s", status, logs.String())
		}
	}
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("errors logged:\n%s", logs.String())
	}
	// Whole or nothing.
	db := env.admin.DB()
	var broken []string
	if err := db.Select(&broken, `
		SELECT b.name FROM businesses b WHERE b.name LIKE $1 || '-%'
		  AND (SELECT count(*) FROM checks c WHERE c.business_id = b.id) <> 3
		UNION ALL
		SELECT c.name FROM customers c WHERE c.name LIKE $1 || '-%'
		  AND ((SELECT count(*) FROM checks k WHERE k.customer_id = c.id) <> 1
		    OR (SELECT count(*) FROM links l WHERE l.customer_id = c.id) <> 1)`, run); err != nil {
		t.Fatal(err)
	}
	if len(broken) > 0 {
		t.Fatalf("records stored without all their checks or links: %v", broken)
	}
	var stored int
	db.Get(&stored, `SELECT (SELECT count(*) FROM businesses WHERE name LIKE $1 || '-%') + (SELECT count(*) FROM customers WHERE name LIKE $1 || '-%')`, run)
	t.Logf("%d creates cut within %s: %d cut by the client, %d reached the API, statuses %v, %d stored whole", sent, span, cut, logged-len(took), seen, stored-len(took))
}
