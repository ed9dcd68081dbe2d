package console_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/api/console"
	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/signin"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/store/pgcluster"
)

// The console's pages rendered server-side at the size issue 30 names:
// 100 000 customers with an aml check each, 10 000 of them awaiting
// review. A staff member's session asks for the inbox (a page of 50) and
// for a case page (a customer in review: fields, checks, events, audit);
// each request goes through the whole handler (tenant by host, session,
// queries, template). p50 and p99 are reported per page.
// Run: go test -run '^$' -bench . -benchtime 2000x ./api/console/

var (
	benchOnce sync.Once
	benchErr  error
	bench     struct {
		handler  http.Handler
		host     string
		cookie   string
		customer uuid.UUID
	}
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchCluster != nil {
		benchCluster.Stop()
	}
	os.Exit(code)
}

func seed(b *testing.B) {
	benchOnce.Do(func() { benchErr = seedOnce() })
	if benchErr != nil {
		b.Fatal(benchErr)
	}
}

var (
	clusterOnce  sync.Once
	clusterErr   error
	benchCluster *pgcluster.Cluster
)

// benchDatabase is the benchmarks' PostgreSQL, its schema migrated (one
// for them all, started by the first that needs it).
func benchDatabase() (*pgcluster.Cluster, error) {
	clusterOnce.Do(func() {
		ctx := context.Background()
		if benchCluster, clusterErr = pgcluster.StartTemp(ctx, nil); clusterErr == nil {
			clusterErr = store.Migrate(ctx, benchCluster.DSN("postgres", "kycflow"), store.RolePasswords{})
		}
	})
	return benchCluster, clusterErr
}

func seedOnce() error {
	ctx := context.Background()
	c, err := benchDatabase()
	if err != nil {
		return err
	}
	owner, appDSN := c.DSN("postgres", "kycflow"), c.DSN(store.AppRole, "kycflow")
	admin, err := store.Open(ctx, owner, 2)
	if err != nil {
		return err
	}
	defer admin.Close()
	bench.host = "console-bench.example"
	tn, _, err := admin.CreateTenant(ctx, "console bench", []string{bench.host}, false)
	if err != nil {
		return err
	}
	// Ids as UUIDv7 would be: a time prefix, so they sort by creation.
	id := func(prefix string) string {
		return `(lpad(to_hex(1700000000000 + g), 12, '0') || '7` + prefix + `' || '8000' || lpad(to_hex(g), 12, '0'))::uuid`
	}
	for _, q := range []string{
		`INSERT INTO customers (id, tenant_id, name, email, country_id, created_at, updated_at)
			SELECT ` + id("001") + `, $1, 'Customer ' || g, 'c' || g || '@example.com', 528, now(), now() FROM generate_series(1, 100000) g`,
		`INSERT INTO checks (id, tenant_id, customer_id, type, status, validated, data, created_at, updated_at)
			SELECT ` + id("002") + `, $1, ` + id("001") + `, 'aml',
			       CASE WHEN g % 10 = 0 THEN 'awaiting_review' ELSE 'completed' END,
			       CASE WHEN g % 10 = 0 THEN NULL ELSE true END,
			       jsonb_build_object('outcome', 'checked', 'screened_at', to_char(now(), 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), 'threshold', 0.88,
			           'query', jsonb_build_object('name', 'Customer ' || g), 'lists', '[]'::jsonb, 'hits',
			           CASE WHEN g % 10 = 0 THEN jsonb_build_array(jsonb_build_object('entity_id', 'NK-' || g, 'list', 'bench', 'score', 0.93,
			               'name_score', 0.93, 'matched_name', 'Customer ' || g, 'above_threshold', true, 'alerting', true, 'review', NULL,
			               'topics', '[]'::jsonb, 'programs', '[]'::jsonb, 'explanation', jsonb_build_array('name: primary 0.93')))
			           ELSE '[]'::jsonb END),
			       now(), now()
			FROM generate_series(1, 100000) g`,
	} {
		if _, err := admin.DB().ExecContext(ctx, q, tn.ID); err != nil {
			return err
		}
	}
	_, err = admin.DB().ExecContext(ctx, `ANALYZE customers, checks, events`)
	if err != nil {
		return err
	}
	if err := admin.DB().GetContext(ctx, &bench.customer, `SELECT customer_id FROM checks WHERE tenant_id = $1 AND status = 'awaiting_review' ORDER BY id LIMIT 1 OFFSET 5000`, tn.ID); err != nil {
		return err
	}
	app, err := store.Open(ctx, appDSN, 4)
	if err != nil {
		return err
	}
	raw := make([]byte, 32)
	rand.Read(raw)
	key, err := signin.NewKey(raw)
	if err != nil {
		return err
	}
	_, invitation, _ := key.NewToken()
	if _, err := admin.CreateStaff(ctx, tn.ID, "bench@example.com", check.RoleReviewer, invitation); err != nil {
		return err
	}
	cookie, hash, _ := key.NewToken()
	if _, err := app.AcceptInvitation(ctx, tn.ID, invitation, store.Enrolment{PasswordHash: "h", TOTPKeyID: key.ID(), TOTPSealed: []byte("s"),
		TOTPStep: signin.Step(time.Now()), Session: store.NewSession{TokenHash: hash, CSRF: "csrf"}}); err != nil {
		return err
	}
	bench.cookie = cookie
	h, err := console.New(console.Config{Store: app, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Key: hex.EncodeToString(raw)})
	if err != nil {
		return err
	}
	bench.handler = h
	return nil
}

func benchPage(b *testing.B, path, want string) {
	seed(b)
	var took []time.Duration
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Host = bench.host
		req.AddCookie(&http.Cookie{Name: "__Host-kycflow-console", Value: bench.cookie})
		rec := httptest.NewRecorder()
		start := time.Now()
		bench.handler.ServeHTTP(rec, req)
		took = append(took, time.Since(start))
		if rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte(want)) {
			b.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body.String())
		}
	}
	slices.Sort(took)
	ms := func(q float64) float64 { return float64(took[int(q*float64(len(took)-1))].Microseconds()) / 1000 }
	b.ReportMetric(ms(0.5), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
}

func BenchmarkInboxPage(b *testing.B) { benchPage(b, "/console/reviews", "data-check=") }

// The inbox filtered by every filter at once (unassigned, a list, a top
// score): the filters read each review's hits.
func BenchmarkInboxFiltered(b *testing.B) {
	benchPage(b, "/console/reviews?assigned=none&list=bench&score=0.9", "data-check=")
}

// The worst case: a filter no review passes, so the whole queue is read.
func BenchmarkInboxNoneMatch(b *testing.B) {
	benchPage(b, "/console/reviews?list=no-such-list", "Nothing awaits review")
}

func BenchmarkCasePage(b *testing.B) {
	seed(b)
	benchPage(b, fmt.Sprintf("/console/customers/%s", bench.customer), "awaiting_review")
}
