package e2e

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"regexp"
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

// Clients that hang up in the middle of a create: the API logs 499, never a
// 500 or 503, and each create is stored whole (the record with all its
// checks and links) or not at all.
func TestClientCutsCreates(t *testing.T) {
	var logs lockedBuffer
	serve(t, api.Config{Store: env.app, PublicURL: env.publicURL, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	run := fmt.Sprintf("Cut-%d", time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	// Cut anywhere from before the request is sent to after its answer: up
	// to twice the time an uncut create takes here.
	start := time.Now()
	newBusiness(t, env.a, map[string]any{"name": run + "-whole", "coc_number": "68750110", "vat_number": "NL854750137B01", "iban_number": "NL91ABNA0417164300"}, "coc", "vat", "iban")
	span := 2 * time.Since(start)
	const n = 40
	for i := range n {
		path, body := "/api/v1/businesses/create", fmt.Sprintf(`{"name":"%s-%d","country_code":"NLD","coc_number":"68750110","vat_number":"NL854750137B01","iban_number":"NL91ABNA0417164300","checks":{"coc":true,"vat":true,"iban":true}}`, run, i)
		if i%2 == 1 {
			path, body = "/api/v1/customers/create", fmt.Sprintf(`{"name":"%s-%d","email":"cut@example.com","country_code":"NLD","mails":false,"checks":{"idin":false,"idscan":true,"iban":false}}`, run, i)
		}
		cut := time.Duration(rng.Int64N(int64(span))) + 100*time.Microsecond
		ctx, cancel := context.WithTimeout(context.Background(), cut)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, env.server.URL+path, strings.NewReader(body))
		req.Host = env.a.host
		req.Header.Set("Authorization", "Bearer "+env.a.key)
		req.Header.Set("Content-Type", "application/json")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
		cancel()
	}
	// Let the cut requests' handlers finish (a request cut before it was
	// sent never reaches the server): until the log is quiet for a second.
	statuses := regexp.MustCompile(`status=(\d+)`)
	logged, quietSince := -1, time.Now()
	eventually(t, 15*time.Second, "the cut requests' handlers to finish", func() bool {
		if l := len(statuses.FindAllString(logs.String(), -1)); l != logged {
			logged, quietSince = l, time.Now()
		}
		return time.Since(quietSince) > time.Second
	})
	seen := map[string]int{}
	for _, m := range statuses.FindAllStringSubmatch(logs.String(), -1) {
		seen[m[1]]++
		if m[1] >= "500" {
			t.Errorf("a cut request was logged %s:\n%s", m[1], logs.String())
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
	t.Logf("%d creates cut within %s: %d reached the API, statuses %v, %d stored whole", n, span, logged-1, seen, stored-1)
}
