package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
)

// allEvents reads every event of a tenant matching q, oldest first.
func allEvents(t *testing.T, s *store.Store, tenantID uuid.UUID, q store.EventQuery) []store.Event {
	t.Helper()
	q.Limit = 2 // several pages, so the cursors are exercised too
	var out []store.Event
	for {
		p, err := s.ListEvents(context.Background(), tenantID, q)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p.Items...)
		if !p.HasNext {
			break
		}
		last := p.Items[len(p.Items)-1].ID
		q.After = &last
	}
	slices.Reverse(out)
	return out
}

// dataOf is an event's data document, checking the envelope around it.
func dataOf(t *testing.T, e store.Event) json.RawMessage {
	t.Helper()
	var doc struct {
		ID        uuid.UUID       `json:"id"`
		Type      check.EventType `json:"type"`
		CreatedAt string          `json:"created_at"`
		Data      json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(e.Body, &doc); err != nil || doc.ID != e.ID || doc.Type != e.Type || doc.CreatedAt != e.CreatedAt.UTC().Format("2006-01-02T15:04:05.000000Z") {
		t.Fatalf("event body %s (%v) does not match %+v", e.Body, err, e)
	}
	return doc.Data
}

func types(evs []store.Event) []check.EventType {
	var out []check.EventType
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

// Every status change and every create and delete writes its event in its
// own transaction, in order, visible to its tenant only.
func TestEventsFollowChanges(t *testing.T) {
	ctx := context.Background()
	admin, app, worker := open(t, ownerDSN), open(t, appDSN), open(t, workerDSN)
	tn := newTenant(t, admin, "events.example")
	other := newTenant(t, admin, "events-other.example")
	start := time.Now()
	b, first, err := app.CreateBusiness(ctx, tn.ID, store.Business{Name: "B", CountryID: 528, CoCNumber: "12345678", VATNumber: ptr("NL123456789B01")}, []check.Type{check.CoC, check.VAT})
	if err != nil {
		t.Fatal(err)
	}
	// A create that fails (an unknown business) leaves no event behind.
	missing := uuid.New()
	if _, _, _, err := app.CreateCustomer(ctx, tn.ID, store.Customer{Name: "C", Email: "c@example.com", CountryID: 528, BusinessID: &missing}, []check.Type{check.AML}); err == nil {
		t.Fatal("a customer of an unknown business was created")
	}
	coc := first[0].Ref()
	if _, _, err := worker.UpdateCheck(ctx, coc, store.CheckUpdate{Status: check.Running, From: []check.Status{check.Queued}}); err != nil {
		t.Fatal(err)
	}
	// A write that changes nothing (a retried step) adds no event.
	if applied, _, err := worker.UpdateCheck(ctx, coc, store.CheckUpdate{Status: check.Running, From: []check.Status{check.Queued}}); err != nil || applied {
		t.Fatalf("repeat: %v %v", applied, err)
	}
	if _, _, err := worker.UpdateCheck(ctx, coc, store.CheckUpdate{Status: check.Completed, From: []check.Status{check.Running},
		Validated: ptr(true), Data: []byte(`{"name":"B","z":1,"a":2}`)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := app.QueueChecks(ctx, tn.ID, check.Business, b.ID, []check.Type{check.VAT}); err != nil {
		t.Fatal(err)
	}
	mid := time.Now()
	if _, _, _, err := app.CreateCustomer(ctx, other.ID, store.Customer{Name: "C", Email: "c@example.com", CountryID: 528}, nil); err != nil {
		t.Fatal(err)
	}

	evs := allEvents(t, app, tn.ID, store.EventQuery{})
	want := []check.EventType{check.BusinessCreated, "check.queued", "check.queued", "check.running", "check.completed", "check.cancelled", "check.queued"}
	if got := types(evs); !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	for _, e := range evs {
		if e.TenantID != tn.ID || e.SubjectID == nil || *e.SubjectID != b.ID || *e.SubjectKind != check.Business {
			t.Fatalf("event %+v is not about the business", e)
		}
	}
	if string(dataOf(t, evs[0])) != `{"business" : {"id" : "`+b.ID.String()+`"}}` {
		t.Fatalf("created event data %s", evs[0].Body)
	}
	// A check event carries the check as it was then, keys in the API's order.
	var done struct {
		Check   json.RawMessage `json:"check"`
		Subject struct {
			Kind check.Kind `json:"kind"`
			ID   uuid.UUID  `json:"id"`
		} `json:"subject"`
	}
	if err := json.Unmarshal(dataOf(t, evs[4]), &done); err != nil {
		t.Fatal(err)
	}
	var keys []string
	dec := json.NewDecoder(bytes.NewReader(done.Check))
	dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	if !slices.Equal(keys, []string{"id", "type", "status", "validated", "data", "error", "created_at", "updated_at", "completed_at"}) {
		t.Fatalf("check keys %v", keys)
	}
	var c struct {
		Status      check.Status    `json:"status"`
		Validated   *bool           `json:"validated"`
		Data        json.RawMessage `json:"data"`
		CompletedAt string          `json:"completed_at"`
	}
	json.Unmarshal(done.Check, &c)
	if c.Status != check.Completed || c.Validated == nil || !*c.Validated || string(c.Data) != `{"name":"B","z":1,"a":2}` || len(c.CompletedAt) != len("2006-01-02T15:04:05.000000Z") {
		t.Fatalf("completed check %s", done.Check)
	}
	if done.Subject.Kind != check.Business || done.Subject.ID != b.ID {
		t.Fatalf("subject %+v", done.Subject)
	}

	// Filters.
	checkOnly, _, _ := check.ParseEventFilter([]string{"check.*"})
	if got := types(allEvents(t, app, tn.ID, store.EventQuery{Types: checkOnly})); len(got) != 6 || slices.Contains(got, check.BusinessCreated) {
		t.Fatalf("check.* gave %v", got)
	}
	one, _, _ := check.ParseEventFilter([]string{"check.completed", "business.created"})
	if got := types(allEvents(t, app, tn.ID, store.EventQuery{Types: one})); !slices.Equal(got, []check.EventType{check.BusinessCreated, "check.completed"}) {
		t.Fatalf("two types gave %v", got)
	}
	nobody := uuid.New()
	if got := allEvents(t, app, tn.ID, store.EventQuery{SubjectID: &nobody}); len(got) != 0 {
		t.Fatalf("another subject: %v", types(got))
	}
	if got := allEvents(t, app, tn.ID, store.EventQuery{CreatedAfter: &mid}); len(got) != 0 {
		t.Fatalf("after the last change: %v", types(got))
	}
	if got := allEvents(t, app, tn.ID, store.EventQuery{CreatedAfter: &start}); len(got) != len(want) {
		t.Fatalf("after the start: %v", types(got))
	}
	// The other tenant sees its own event only, and not this one by id.
	if got := types(allEvents(t, app, other.ID, store.EventQuery{})); !slices.Equal(got, []check.EventType{check.CustomerCreated}) {
		t.Fatalf("other tenant: %v", got)
	}
	if _, err := app.GetEvent(ctx, other.ID, evs[0].ID); err != store.ErrNotFound {
		t.Fatalf("cross-tenant event read: %v", err)
	}

	// Deleting the record: its unfinished checks' cancellations, then its
	// deletion; its events keep ids, type and status, not data.
	if err := app.DeleteBusiness(ctx, store.Principal{TenantID: tn.ID}, b.ID); err != nil {
		t.Fatal(err)
	}
	evs = allEvents(t, app, tn.ID, store.EventQuery{})
	want = append(want, "check.cancelled", check.BusinessDeleted)
	if got := types(evs); !slices.Equal(got, want) {
		t.Fatalf("after delete %v, want %v", got, want)
	}
	if err := json.Unmarshal(dataOf(t, evs[4]), &done); err != nil {
		t.Fatal(err)
	}
	c.Data = nil
	json.Unmarshal(done.Check, &c)
	if c.Status != check.Completed || string(c.Data) != "null" {
		t.Fatalf("deleted record's check event %s", done.Check)
	}
}

// Event ids sort as the events were written, also within one millisecond:
// consecutive statements' events list in the order of their seq.
func TestEventIDsFollowWriteOrder(t *testing.T) {
	ctx := context.Background()
	admin, app := open(t, ownerDSN), open(t, appDSN)
	tn := newTenant(t, admin, "event-order.example")
	b, _, err := app.CreateBusiness(ctx, tn.ID, store.Business{Name: "B", CountryID: 528, CoCNumber: "12345678"}, []check.Type{check.CoC})
	if err != nil {
		t.Fatal(err)
	}
	for range 30 { // each supersedes the last: check.cancelled, then check.queued
		if _, _, err := app.QueueChecks(ctx, tn.ID, check.Business, b.ID, []check.Type{check.CoC}); err != nil {
			t.Fatal(err)
		}
	}
	var byID, bySeq []uuid.UUID
	if err := admin.DB().Select(&byID, `SELECT id FROM events WHERE tenant_id = $1 ORDER BY id`, tn.ID); err != nil {
		t.Fatal(err)
	}
	if err := admin.DB().Select(&bySeq, `SELECT id FROM events WHERE tenant_id = $1 ORDER BY seq`, tn.ID); err != nil {
		t.Fatal(err)
	}
	if len(byID) != 62 || !slices.Equal(byID, bySeq) {
		t.Fatalf("%d events; ids sort as written: %v", len(byID), slices.Equal(byID, bySeq))
	}
}
