package store_test

import (
	"context"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/store"
)

// Keyset pages stay as fast deep in a large tenant as at the top (the target
// page 1 and a page 50 000 rows deep within 1.5× at 1 million rows).
// Run: go test -run '^$' -bench BenchmarkListPage -benchtime 2000x ./store/

const benchRows = 1_000_000

var (
	benchOnce   sync.Once
	benchTenant store.Tenant
	benchDeep   uuid.UUID // the id 50 000 rows from the newest
)

func seedPages(b *testing.B) {
	benchOnce.Do(func() {
		var admin *store.Store
		admin, benchTenant = benchSetup(b, "bench", "bench.example")
		defer admin.Close()
		// Ids as UUIDv7 would be: a time prefix, so they sort by creation.
		_, err := admin.DB().Exec(`INSERT INTO businesses (id, tenant_id, name, country_id, coc_number, city, created_at, updated_at)
			SELECT (lpad(to_hex(1700000000000 + g), 12, '0') || '7000' || '8000' || lpad(to_hex(g), 12, '0'))::uuid,
			       $1, 'Business ' || g, 528, '12345678', 'Amsterdam', now(), now()
			FROM generate_series(1, $2) g`, benchTenant.ID, benchRows)
		if err != nil {
			b.Fatal(err)
		}
		admin.DB().MustExec(`ANALYZE businesses`)
		if err := admin.DB().Get(&benchDeep, `SELECT id FROM businesses WHERE tenant_id = $1 ORDER BY id DESC OFFSET 50000 LIMIT 1`, benchTenant.ID); err != nil {
			b.Fatal(err)
		}
	})
}

func benchPage(b *testing.B, q store.PageQuery) {
	seedPages(b)
	app, err := store.Open(context.Background(), appDSN, 2)
	if err != nil {
		b.Fatal(err)
	}
	defer app.Close()
	b.ResetTimer()
	for b.Loop() {
		p, err := app.ListBusinesses(context.Background(), benchTenant.ID, q)
		if err != nil || len(p.Items) != 20 {
			b.Fatalf("%d items, %v", len(p.Items), err)
		}
	}
}

func BenchmarkListPageFirst(b *testing.B) { benchPage(b, store.PageQuery{Limit: 20}) }

func BenchmarkListPage50000Deep(b *testing.B) {
	seedPages(b)
	benchPage(b, store.PageQuery{Limit: 20, After: &benchDeep})
}

// benchSetup opens the owner's store (the caller closes it) and creates a
// live tenant for a benchmark's rows.
func benchSetup(b *testing.B, name, host string) (*store.Store, store.Tenant) {
	ctx := context.Background()
	admin, err := store.Open(ctx, ownerDSN, 2)
	if err != nil {
		b.Fatal(err)
	}
	t, _, err := admin.CreateTenant(ctx, name, []string{host}, false)
	if err != nil {
		admin.Close()
		b.Fatal(err)
	}
	return admin, t
}
