package store_test

import (
	"context"
	"sync"
	"testing"

	"github.com/kycflow/kycflow/store"
)

// The review inbox's query at the size issue 30 names: 100 000 customers,
// each with an aml check, 10 000 of them awaiting review; a page of 50,
// oldest first, as the console's inbox and GET /api/v1/reviews ask it.
// Run: go test -run '^$' -bench BenchmarkReviewQueue -benchtime 2000x ./store/

var (
	queueOnce   sync.Once
	queueTenant store.Tenant
)

func seedQueue(b *testing.B) {
	queueOnce.Do(func() {
		var admin *store.Store
		admin, queueTenant = benchSetup(b, "queue bench", "queue-bench.example")
		defer admin.Close()
		// Ids as UUIDv7 would be: a time prefix, so they sort by creation.
		id := func(prefix string) string {
			return `(lpad(to_hex(1700000000000 + g), 12, '0') || '7` + prefix + `' || '8000' || lpad(to_hex(g), 12, '0'))::uuid`
		}
		admin.DB().MustExec(`INSERT INTO customers (id, tenant_id, name, email, country_id, created_at, updated_at)
			SELECT `+id("001")+`, $1, 'Customer ' || g, 'c' || g || '@example.com', 528, now(), now()
			FROM generate_series(1, 100000) g`, queueTenant.ID)
		admin.DB().MustExec(`INSERT INTO checks (id, tenant_id, customer_id, type, status, validated, data, created_at, updated_at)
			SELECT `+id("002")+`, $1, `+id("001")+`, 'aml',
			       CASE WHEN g % 10 = 0 THEN 'awaiting_review' ELSE 'completed' END,
			       CASE WHEN g % 10 = 0 THEN NULL ELSE true END,
			       jsonb_build_object('outcome', 'checked', 'screened_at', to_char(now(), 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), 'hits',
			           CASE WHEN g % 10 = 0 THEN jsonb_build_array(jsonb_build_object('entity_id', 'NK-' || g, 'score', 0.93, 'alerting', true, 'review', NULL))
			           ELSE '[]'::jsonb END),
			       now(), now()
			FROM generate_series(1, 100000) g`, queueTenant.ID)
		admin.DB().MustExec(`ANALYZE customers, checks`)
	})
}

func BenchmarkReviewQueue(b *testing.B) {
	seedQueue(b)
	app, err := store.Open(context.Background(), appDSN, 2)
	if err != nil {
		b.Fatal(err)
	}
	defer app.Close()
	b.ResetTimer()
	for b.Loop() {
		p, err := app.ReviewQueue(context.Background(), queueTenant.ID, store.PageQuery{Limit: 50})
		if err != nil || len(p.Items) != 50 || !p.HasNext {
			b.Fatalf("page: %d items, %v", len(p.Items), err)
		}
	}
}
