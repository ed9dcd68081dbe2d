package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/store"
)

func TestKeysetPages(t *testing.T) {
	ctx := context.Background()
	admin, app := open(t, ownerDSN), open(t, appDSN)
	tn := newTenant(t, admin, "pages.example")
	other := newTenant(t, admin, "pages-other.example")
	var ids []uuid.UUID // oldest first
	for i := range 7 {
		b, _, err := app.CreateBusiness(ctx, tn.ID, store.Business{Name: fmt.Sprint("B", i), CountryID: 528, CoCNumber: "12345678"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, b.ID)
		if _, _, err := app.CreateBusiness(ctx, other.ID, store.Business{Name: "other", CountryID: 528, CoCNumber: "12345678"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	want := func(p store.Page[store.Business], hasPrev, hasNext bool, idx ...int) {
		t.Helper()
		if p.HasPrev != hasPrev || p.HasNext != hasNext {
			t.Fatalf("prev=%v next=%v, want %v %v", p.HasPrev, p.HasNext, hasPrev, hasNext)
		}
		if len(p.Items) != len(idx) {
			t.Fatalf("%d items, want %d", len(p.Items), len(idx))
		}
		for i, j := range idx {
			if p.Items[i].ID != ids[j] {
				t.Fatalf("item %d is not business %d", i, j)
			}
		}
	}
	p1, err := app.ListBusinesses(ctx, tn.ID, store.PageQuery{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	want(p1, false, true, 6, 5, 4)
	p2, _ := app.ListBusinesses(ctx, tn.ID, store.PageQuery{Limit: 3, After: &p1.Items[2].ID})
	want(p2, true, true, 3, 2, 1)
	p3, _ := app.ListBusinesses(ctx, tn.ID, store.PageQuery{Limit: 3, After: &p2.Items[2].ID})
	want(p3, true, false, 0)
	back, _ := app.ListBusinesses(ctx, tn.ID, store.PageQuery{Limit: 3, Before: &p3.Items[0].ID})
	want(back, true, true, 3, 2, 1)
	first, _ := app.ListBusinesses(ctx, tn.ID, store.PageQuery{Limit: 3, Before: &back.Items[0].ID})
	want(first, false, true, 6, 5, 4)
}
