package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
)

// The inbox's filters: assigned to me, to no one; a list; a top score;
// an age. Assigning is audited (a review.assigned event) and goes only to
// an active member whose role decides.
func TestReviewInboxFilters(t *testing.T) {
	ctx := context.Background()
	admin, app, worker := open(t, ownerDSN), open(t, appDSN), open(t, workerDSN)
	tn := newTenant(t, admin, "inbox-filters.example")
	member := func(email string, role check.Role) uuid.UUID {
		st, _ := member(t, admin, app, tn.ID, email, role)
		return st.ID
	}
	ada, viewer := member("ada@example.com", check.RoleReviewer), member("viewer@example.com", check.RoleViewer)
	ofac := awaitingAML(t, app, worker, tn.ID, "ofac-1")     // score 0.95
	un := awaitingAML(t, app, worker, tn.ID, "un-7", "un-8") // 0.95, 0.94
	me := store.Principal{TenantID: tn.ID, StaffID: ada}
	if err := app.AssignReview(ctx, me, ofac.CheckID, &ada); err != nil {
		t.Fatal(err)
	}
	if err := app.AssignReview(ctx, me, un.CheckID, &viewer); !errors.Is(err, store.ErrNotAssignable) {
		t.Fatalf("assigned to a viewer: %v", err)
	}
	ids := func(q store.InboxQuery) []uuid.UUID {
		t.Helper()
		q.Limit, q.Me = 10, ada
		p, err := app.ReviewInbox(ctx, tn.ID, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []uuid.UUID
		for _, c := range p.Items {
			out = append(out, c.ID)
			if q.Assigned == store.AssignedMe && (c.Assignee == nil || *c.Assignee != "ada@example.com" || *c.AssigneeID != ada) {
				t.Errorf("assignee of %s: %v", c.ID, c.Assignee)
			}
		}
		return out
	}
	both := []uuid.UUID{ofac.CheckID, un.CheckID}
	for name, c := range map[string]struct {
		q    store.InboxQuery
		want []uuid.UUID
	}{
		"all":           {store.InboxQuery{}, both},
		"mine":          {store.InboxQuery{Assigned: store.AssignedMe}, both[:1]},
		"unassigned":    {store.InboxQuery{Assigned: store.AssignedNone}, both[1:]},
		"list un":       {store.InboxQuery{List: "un"}, both[1:]},
		"score 0.95":    {store.InboxQuery{MinScore: 0.95}, both},
		"score 0.96":    {store.InboxQuery{MinScore: 0.96}, nil},
		"waited a day":  {store.InboxQuery{OlderThan: 24 * time.Hour}, nil},
		"after the one": {store.InboxQuery{After: &both[0]}, both[1:]},
	} {
		if got := ids(c.q); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", name, got, c.want)
		}
	}
	if err := app.AssignReview(ctx, me, ofac.CheckID, nil); err != nil {
		t.Fatal(err)
	}
	if got := ids(store.InboxQuery{Assigned: store.AssignedNone}); !slices.Equal(got, both) {
		t.Fatalf("released: %v", got)
	}
	var events int
	if err := admin.DB().Get(&events, `SELECT count(*) FROM events WHERE tenant_id = $1 AND type = 'review.assigned' AND subject_kind = 'customer'`, tn.ID); err != nil || events != 2 {
		t.Fatalf("review.assigned events: %d %v", events, err)
	}
	trail, err := app.AuditTrail(ctx, tn.ID, []uuid.UUID{ofac.CheckID}, 10)
	if err != nil || len(trail) != 2 || trail[0].Action != "review.assigned" || trail[0].StaffEmail == nil || *trail[0].StaffEmail != "ada@example.com" {
		t.Fatalf("audit trail: %+v %v", trail, err)
	}
}
