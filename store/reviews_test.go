package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
)

// awaitingAML creates a customer whose aml check awaits review of hits on
// the given entities (as the screening leaves it).
func awaitingAML(t *testing.T, app, worker *store.Store, tenantID uuid.UUID, entities ...string) check.Ref {
	t.Helper()
	ctx := context.Background()
	c, checks, _, err := app.CreateCustomer(ctx, tenantID, store.Customer{Name: "Review Me", Email: "r@example.com", CountryID: 528}, []check.Type{check.AML})
	if err != nil {
		t.Fatal(err)
	}
	ref := checks[0].Ref()
	if _, _, err := worker.UpdateCheck(ctx, ref, store.CheckUpdate{Status: check.Running, From: []check.Status{check.Queued}}); err != nil {
		t.Fatal(err)
	}
	d := check.AMLData{Outcome: check.OutcomeChecked, Query: check.AMLQuery{Name: c.Name}, Threshold: 0.88}
	for i, e := range entities {
		list, _, _ := strings.Cut(e, "-") // "ofac-1" is on the list ofac
		d.Hits = append(d.Hits, check.AMLHit{EntityID: e, EntityHash: "h-" + e, List: list, Score: 0.95 - float64(i)/100, AboveThreshold: true, Alerting: true})
	}
	d.Hits = append(d.Hits, check.AMLHit{EntityID: "below", EntityHash: "h-below", Score: 0.7})
	b, _ := json.Marshal(d)
	if applied, _, err := worker.UpdateCheck(ctx, ref, store.CheckUpdate{Status: check.AwaitingReview, From: []check.Status{check.Running}, Data: b}); err != nil || !applied {
		t.Fatalf("awaiting review: %v %v", applied, err)
	}
	return ref
}

// submitted keeps req as p's submission of ref's check and returns the
// update the check's workflow would be sent.
func submitted(t *testing.T, app *store.Store, p store.Principal, ref check.Ref, req check.ReviewRequest) check.ReviewUpdate {
	t.Helper()
	sub, err := app.AddReviewSubmission(context.Background(), p, ref.CheckID, req)
	if err != nil {
		t.Fatal(err)
	}
	return req.Update(sub.ID, sub.By())
}

// viaKey is an API key of tenant's acting.
func viaKey(tenant uuid.UUID) store.Principal {
	return store.Principal{TenantID: tenant, KeyID: uuid.New()}
}

// A review records each decision once (the audit row, the memory, the
// hit's review, one check.reviewed event per review), and completes the
// check when every alerting hit is decided.
func TestRecordReview(t *testing.T) {
	ctx := context.Background()
	admin, app, worker := open(t, ownerDSN), open(t, appDSN), open(t, workerDSN)
	tn := newTenant(t, admin, "review.example")
	other := newTenant(t, admin, "review-other.example")
	ref := awaitingAML(t, app, worker, tn.ID, "ofac-1", "un-2")
	at := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)

	key := viaKey(tn.ID)
	first := submitted(t, app, key, ref, check.ReviewRequest{Reviewer: "A.\u200b Officer", Decisions: []check.ReviewDecision{
		{EntityID: "ofac-1", Decision: check.FalsePositive, Note: "Born twenty years apart."}}})
	// An update that is not its submission's records nothing: another
	// reviewer, other decisions, no such submission, another check's.
	for name, forged := range map[string]func(u *check.ReviewUpdate){
		"another reviewer":   func(u *check.ReviewUpdate) { u.By.KeyID = ptr(uuid.New()) },
		"a staff member":     func(u *check.ReviewUpdate) { u.By = check.Reviewer{StaffID: ptr(uuid.New())} },
		"another decision":   func(u *check.ReviewUpdate) { u.Decisions[0].Decision = check.TrueMatch },
		"no submission":      func(u *check.ReviewUpdate) { u.Submission = uuid.New() },
		"named by name only": func(u *check.ReviewUpdate) { u.Submission, u.By, u.Legacy = uuid.Nil, check.Reviewer{}, "A. Officer" },
	} {
		u := first
		u.Decisions = slices.Clone(first.Decisions)
		forged(&u)
		if out, err := worker.RecordReview(ctx, ref, u, at, false); err != nil || out.Applied || out.Rejected == "" {
			t.Errorf("%s: %+v %v", name, out, err)
		}
	}
	other2 := awaitingAML(t, app, worker, tn.ID, "ofac-1")
	if out, err := worker.RecordReview(ctx, other2, first, at, false); err != nil || out.Applied || out.Rejected == "" {
		t.Errorf("another check's submission: %+v %v", out, err)
	}
	out, err := worker.RecordReview(ctx, ref, first, at, false)
	if err != nil || !out.Applied || out.Status != check.AwaitingReview || out.Validated != nil {
		t.Fatalf("first review: %+v %v", out, err)
	}
	// The same again (a retried activity) changes nothing.
	if out, err := worker.RecordReview(ctx, ref, first, at.Add(time.Minute), false); err != nil || out.Applied {
		t.Fatalf("repeat: %+v %v", out, err)
	}
	// Another tenant's id finds nothing.
	wrong := ref
	wrong.TenantID = other.ID
	if _, err := worker.RecordReview(ctx, wrong, first, at, false); err == nil {
		t.Fatal("another tenant's check was reviewed")
	}
	out, err = worker.RecordReview(ctx, ref, submitted(t, app, viaKey(tn.ID), ref, check.ReviewRequest{Reviewer: "B. Officer", Decisions: []check.ReviewDecision{
		{EntityID: "un-2", Decision: check.TrueMatch}}}), at.Add(time.Hour), false)
	if err != nil || !out.Applied || out.Status != check.Completed || out.Validated == nil || *out.Validated {
		t.Fatalf("last review: %+v %v", out, err)
	}

	c, err := app.GetCheck(ctx, tn.ID, ref.CheckID)
	if err != nil {
		t.Fatal(err)
	}
	var d check.AMLData
	if err := json.Unmarshal(c.Data, &d); err != nil {
		t.Fatal(err)
	}
	if c.Status != check.Completed || c.CompletedAt == nil || d.Hits[0].Review == nil || d.Hits[0].Review.Reviewer != "A. Officer" ||
		*d.Hits[0].Review.Note != "Born twenty years apart." || d.Hits[0].Review.By == nil || *d.Hits[0].Review.By.KeyID != key.KeyID ||
		d.Hits[1].Review.Decision != check.TrueMatch || d.Hits[2].Review != nil {
		t.Fatalf("check after the reviews: %+v %s", c, c.Data)
	}

	mem, err := worker.AMLMemory(ctx, tn.ID, ref.SubjectID)
	if err != nil || len(mem) != 2 || mem[0].EntityID != "ofac-1" || mem[0].EntityHash != "h-ofac-1" || mem[0].QueryHash != d.Query.Hash() || mem[0].CheckID != ref.CheckID {
		t.Fatalf("memory: %+v %v", mem, err)
	}
	if mem, _ := worker.AMLMemory(ctx, other.ID, ref.SubjectID); len(mem) != 0 {
		t.Fatalf("another tenant sees the memory: %+v", mem)
	}

	// check.reviewed once per review, before the completion's event.
	evs := allEvents(t, app, tn.ID, store.EventQuery{SubjectID: &ref.SubjectID})
	got := types(evs)
	want := []check.EventType{check.CheckReviewed, check.CheckReviewed, check.StatusEvent(check.Completed)}
	if len(got) < 3 || !equalTail(got, want) {
		t.Fatalf("events: %v", got)
	}
	var ev struct {
		Check  struct{ Status check.Status }
		Review struct {
			Reviewer  string
			Decisions []struct {
				EntityID string `json:"entity_id"`
				Decision check.Decision
			}
		}
	}
	if err := json.Unmarshal(dataOf(t, evs[len(evs)-3]), &ev); err != nil || ev.Check.Status != check.AwaitingReview || ev.Review.Reviewer != "A. Officer" ||
		len(ev.Review.Decisions) != 1 || ev.Review.Decisions[0].EntityID != "ofac-1" || ev.Review.Decisions[0].Decision != check.FalsePositive {
		t.Fatalf("check.reviewed: %s %v", dataOf(t, evs[len(evs)-3]), err)
	}

	// Deleting the customer clears the notes; the audit rows stay.
	if err := app.DeleteCustomer(ctx, store.Principal{TenantID: tn.ID}, ref.SubjectID); err != nil {
		t.Fatal(err)
	}
	mem, err = worker.AMLMemory(ctx, tn.ID, ref.SubjectID)
	if err != nil || len(mem) != 2 || mem[0].Note != nil || mem[1].Note != nil {
		t.Fatalf("memory after the delete: %+v %v", mem, err)
	}
}

func equalTail(got, want []check.EventType) bool {
	got = got[len(got)-len(want):]
	for i := range want {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

// The queue lists a tenant's checks awaiting review, oldest first, in pages.
func TestReviewQueue(t *testing.T) {
	ctx := context.Background()
	admin, app, worker := open(t, ownerDSN), open(t, appDSN), open(t, workerDSN)
	tn := newTenant(t, admin, "queue.example")
	other := newTenant(t, admin, "queue-other.example")
	var refs []check.Ref
	for range 3 {
		refs = append(refs, awaitingAML(t, app, worker, tn.ID, "ofac-1"))
	}
	awaitingAML(t, app, worker, other.ID, "ofac-1")
	if _, err := worker.RecordReview(ctx, refs[1], submitted(t, app, viaKey(tn.ID), refs[1], check.ReviewRequest{Reviewer: "A", Decisions: []check.ReviewDecision{
		{EntityID: "ofac-1", Decision: check.TrueMatch}}}), time.Now(), false); err != nil {
		t.Fatal(err)
	}
	p, err := app.ReviewQueue(ctx, tn.ID, store.PageQuery{Limit: 1})
	if err != nil || len(p.Items) != 1 || p.Items[0].ID != refs[0].CheckID || !p.HasNext || p.HasPrev {
		t.Fatalf("first page: %+v %v", p, err)
	}
	p, err = app.ReviewQueue(ctx, tn.ID, store.PageQuery{Limit: 1, After: &p.Items[0].ID})
	if err != nil || len(p.Items) != 1 || p.Items[0].ID != refs[2].CheckID || p.HasNext || !p.HasPrev {
		t.Fatalf("second page: %+v %v", p, err)
	}
	p, err = app.ReviewQueue(ctx, tn.ID, store.PageQuery{Limit: 5, Before: &p.Items[0].ID})
	if err != nil || len(p.Items) != 1 || p.Items[0].ID != refs[0].CheckID || !p.HasNext || p.HasPrev {
		t.Fatalf("back: %+v %v", p, err)
	}
}

// Four eyes: a decision is pending (in the data, not yet remembered) until
// another reviewer makes the same one; the decider's repeat changes
// nothing, by any path — the same key in another name, the same name
// (respelled) through another key; another's different decision replaces
// it; the approved one names both reviewers and who authenticated each,
// and the approver's note, in the data and in the audit row. An API
// review in a staff member's name is refused.
func TestRecordReviewFourEyes(t *testing.T) {
	ctx := context.Background()
	admin, app, worker := open(t, ownerDSN), open(t, appDSN), open(t, workerDSN)
	tn := newTenant(t, admin, "four-eyes.example")
	ref := awaitingAML(t, app, worker, tn.ID, "ofac-1")
	at := time.Now().UTC().Truncate(time.Millisecond)
	annKey, bobKey := viaKey(tn.ID), viaKey(tn.ID)
	cem, _ := member(t, admin, app, tn.ID, "cem@four-eyes.example", check.RoleReviewer)
	asCem := store.Principal{TenantID: tn.ID, StaffID: cem.ID}
	review := func(p store.Principal, who string, d check.Decision, when time.Time) store.ReviewOutcome {
		t.Helper()
		out, err := worker.RecordReview(ctx, ref, submitted(t, app, p, ref, check.ReviewRequest{Reviewer: who, Decisions: []check.ReviewDecision{
			{EntityID: "ofac-1", Decision: d, Note: "Decided by " + who + " on the evidence."}}}), when, true)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	hit := func() *check.HitReview {
		t.Helper()
		c, err := app.GetCheck(ctx, tn.ID, ref.CheckID)
		if err != nil {
			t.Fatal(err)
		}
		var d check.AMLData
		if err := json.Unmarshal(c.Data, &d); err != nil {
			t.Fatal(err)
		}
		return d.Hits[0].Review
	}
	remembered := func() []store.AMLReview {
		t.Helper()
		c, _ := app.GetCheck(ctx, tn.ID, ref.CheckID)
		m, err := worker.AMLMemory(ctx, tn.ID, *c.CustomerID)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if _, err := app.AddReviewSubmission(ctx, annKey, ref.CheckID, check.ReviewRequest{Reviewer: "CEM@four-eyes.example\u200d", Decisions: []check.ReviewDecision{
		{EntityID: "ofac-1", Decision: check.FalsePositive, Note: "In a colleague's name."}}}); !errors.Is(err, store.ErrReviewerIsStaff) {
		t.Fatalf("an API review in a staff member's name: %v", err)
	}
	if out := review(annKey, "Ann", check.FalsePositive, at); !out.Applied || out.Status != check.AwaitingReview {
		t.Fatalf("proposed: %+v", out)
	}
	if h := hit(); h == nil || !h.Pending || h.Reviewer != "Ann" || h.Final() || len(remembered()) != 0 {
		t.Fatalf("pending: %+v, remembered %v", h, remembered())
	}
	for name, p := range map[string]struct {
		by   store.Principal
		name string
	}{"the same key in another name": {annKey, "Somebody Else"}, "the same name respelled through another key": {bobKey, " ann\u200b\ufeff"}} {
		if out := review(p.by, p.name, check.FalsePositive, at.Add(time.Minute)); out.Applied {
			t.Errorf("the decider approved her own decision by %s", name)
		}
	}
	if out := review(bobKey, "Bob", check.TrueMatch, at.Add(2*time.Minute)); !out.Applied || out.Status != check.AwaitingReview || hit().Reviewer != "Bob" || !hit().Pending {
		t.Fatalf("a different decision: %+v %+v", out, hit())
	}
	out := review(asCem, "ignored: a staff member reviews as their address", check.TrueMatch, at.Add(3*time.Minute))
	if !out.Applied || out.Status != check.Completed || out.Validated == nil || *out.Validated || !slices.Equal(out.Approved, []string{"ofac-1"}) {
		t.Fatalf("approved: %+v", out)
	}
	h, m := hit(), remembered()
	if !h.Final() || h.Reviewer != "Bob" || h.ApprovedBy == nil || *h.ApprovedBy != cem.Email || h.ApprovedAt == nil ||
		h.ApprovedVia == nil || *h.ApprovedVia.StaffID != cem.ID || h.By == nil || *h.By.KeyID != bobKey.KeyID ||
		h.ApprovalNote == nil || !strings.HasPrefix(*h.ApprovalNote, "Decided by ignored") ||
		len(m) != 1 || m[0].Reviewer != "Bob" || *m[0].ApprovedBy != cem.Email || !m[0].DecidedAt.Equal(at.Add(2*time.Minute)) || !m[0].ApprovedAt.Equal(at.Add(3*time.Minute)) ||
		m[0].ApprovedVia == nil || *m[0].ApprovedVia.StaffID != cem.ID || m[0].ApprovalNote == nil {
		t.Fatalf("approved hit %+v, remembered %+v", h, m)
	}
}
