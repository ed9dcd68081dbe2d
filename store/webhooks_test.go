package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/webhook"
)

func endpoint(t *testing.T, app *store.Store, tenantID uuid.UUID, events ...string) store.Endpoint {
	t.Helper()
	e, err := app.CreateEndpoint(context.Background(), store.Endpoint{ID: store.NewID(), TenantID: tenantID,
		URL: "https://hooks.example.com/" + uuid.NewString(), Events: pq.StringArray(events), Secret: []byte("sealed")})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// deliveries reads every delivery of an endpoint, oldest first.
func deliveries(t *testing.T, s *store.Store, tenantID, endpointID uuid.UUID) []store.Delivery {
	t.Helper()
	p, err := s.ListDeliveries(context.Background(), tenantID, endpointID, store.PageQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	out := p.Items
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// An event fans out, in its own transaction, to the tenant's live
// endpoints that subscribed to it; each subject's deliveries wait in line.
func TestWebhookFanOutAndLine(t *testing.T) {
	ctx := context.Background()
	admin, app, worker := open(t, ownerDSN), open(t, appDSN), open(t, workerDSN)
	tn := newTenant(t, admin, "hooks.example")
	other := newTenant(t, admin, "hooks-other.example")
	all := endpoint(t, app, tn.ID, "*")
	checks := endpoint(t, app, tn.ID, "check.*")
	completed := endpoint(t, app, tn.ID, "check.completed", "business.deleted")
	theirs := endpoint(t, app, other.ID, "*")

	b, cs, err := app.CreateBusiness(ctx, tn.ID, store.Business{Name: "B", CountryID: 528, CoCNumber: "12345678"}, []check.Type{check.CoC})
	if err != nil {
		t.Fatal(err)
	}
	ds := deliveries(t, app, tn.ID, all.ID)
	if len(ds) != 2 || ds[0].EventType != check.BusinessCreated || ds[1].EventType != "check.queued" || ds[0].Status != webhook.Pending {
		t.Fatalf("deliveries to *: %+v", ds)
	}
	if ds := deliveries(t, app, tn.ID, checks.ID); len(ds) != 1 || ds[0].EventType != "check.queued" {
		t.Fatalf("deliveries to check.*: %+v", ds)
	}
	if ds := deliveries(t, app, tn.ID, completed.ID); len(ds) != 0 {
		t.Fatalf("deliveries to check.completed: %+v", ds)
	}
	if ds := deliveries(t, app, other.ID, theirs.ID); len(ds) != 0 {
		t.Fatalf("another tenant's endpoint got %+v", ds)
	}
	if _, err := app.ListDeliveries(ctx, other.ID, all.ID, store.PageQuery{Limit: 10}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("cross-tenant deliveries: %v", err)
	}

	// The second delivery of the subject waits for the first; the first
	// is held by one attempt at a time.
	first, second := ds[0].Ref(), ds[1].Ref()
	if c, err := worker.ClaimDelivery(ctx, second, time.Minute); err != nil || c.State != store.Blocked {
		t.Fatalf("second in line: %+v %v", c, err)
	}
	c, err := worker.ClaimDelivery(ctx, first, time.Minute)
	if err != nil || c.State != store.Claimed || c.Endpoint.ID != all.ID || c.Event.ID != first.EventID || len(c.Event.Body) == 0 {
		t.Fatalf("head of line: %+v %v", c, err)
	}
	if c, err := worker.ClaimDelivery(ctx, first, time.Minute); err != nil || c.State != store.Busy || c.Until.Before(time.Now().Add(30*time.Second)) {
		t.Fatalf("held twice: %+v %v", c, err)
	}
	// A failed attempt keeps the line; the endpoint is failing.
	next := time.Now().Add(time.Minute)
	s, err := worker.RecordAttempt(ctx, first, store.AttemptRecord{At: time.Now(), Status: webhook.Retrying, NextAttemptAt: &next,
		Attempt: webhook.Result{StatusCode: 500, Error: "the receiver answered 500", Response: []byte("oops")}})
	if err != nil || !s.Applied || s.Next != nil || s.Recovered {
		t.Fatalf("failed attempt: %+v %v", s, err)
	}
	if refs, err := worker.RetryingDeliveries(ctx, tn.ID, all.ID); err != nil || len(refs) != 1 || refs[0] != first {
		t.Fatalf("retrying: %v %v", refs, err)
	}
	// Delivered: the next in line is named, and held for the caller to go
	// on with; the endpoint has recovered.
	s, err = worker.RecordAttempt(ctx, first, store.AttemptRecord{At: time.Now(), Status: webhook.Delivered, ClaimNext: time.Minute,
		Attempt: webhook.Result{OK: true, StatusCode: 204}})
	if err != nil || !s.Applied || s.Next == nil || *s.Next != second || s.NextStatus != webhook.Pending || !s.Recovered ||
		s.Claimed == nil || s.Claimed.Delivery.ID != second.DeliveryID || s.Claimed.Event.ID != second.EventID {
		t.Fatalf("delivered: %+v %v", s, err)
	}
	// A repeated step changes nothing.
	if s, err := worker.RecordAttempt(ctx, first, store.AttemptRecord{At: time.Now(), Status: webhook.Delivered, Attempt: webhook.Result{OK: true}}); err != nil || s.Applied {
		t.Fatalf("repeat: %+v %v", s, err)
	}
	ds = deliveries(t, app, tn.ID, all.ID)
	if d := ds[0]; d.Status != webhook.Delivered || d.Attempts != 2 || len(d.Tries) != 2 || *d.Tries[0].StatusCode != 500 ||
		string(d.Tries[0].Response) != "oops" || *d.Tries[1].StatusCode != 204 || d.FinishedAt == nil {
		t.Fatalf("delivered delivery: %+v", d)
	}

	// A 410 disables the endpoint: no more fan-out to it.
	if _, err := worker.RecordAttempt(ctx, second, store.AttemptRecord{At: time.Now(), Status: webhook.Failed, Attempt: webhook.Result{Gone: true, StatusCode: 410}}); err != nil {
		t.Fatal(err)
	}
	if e, err := app.GetEndpoint(ctx, tn.ID, all.ID); err != nil || e.DisabledAt == nil || e.DisabledReason == nil {
		t.Fatalf("after 410: %+v %v", e, err)
	}
	if _, _, err := worker.UpdateCheck(ctx, cs[0].Ref(), store.CheckUpdate{Status: check.Running, From: []check.Status{check.Queued}}); err != nil {
		t.Fatal(err)
	}
	if ds := deliveries(t, app, tn.ID, all.ID); len(ds) != 2 {
		t.Fatalf("a disabled endpoint got %d deliveries", len(ds))
	}
	if ds := deliveries(t, app, tn.ID, checks.ID); len(ds) != 2 || ds[1].EventType != "check.running" {
		t.Fatalf("check.* after running: %+v", ds)
	}

	// Redelivery: a new delivery of the same event, numbered.
	red, err := app.Redeliver(ctx, tn.ID, first.EventID, &checks.ID)
	if err != nil || len(red) != 1 || red[0].Number != 1 {
		// check.* never had business.created: number 1 to this endpoint.
		t.Fatalf("redeliver to check.*: %+v %v", red, err)
	}
	red, err = app.Redeliver(ctx, tn.ID, second.EventID, nil)
	if err != nil || len(red) != 1 || red[0].EndpointID != checks.ID || red[0].Number != 2 {
		t.Fatalf("redeliver to subscribers: %+v %v", red, err)
	}
	if red[0].Ref().WorkflowID() != "webhook-"+checks.ID.String()+"-"+second.EventID.String()+"-2" {
		t.Fatalf("workflow id %s", red[0].Ref().WorkflowID())
	}
	if _, err := app.Redeliver(ctx, tn.ID, second.EventID, &all.ID); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("redeliver to a disabled endpoint: %v", err)
	}
	if _, err := app.Redeliver(ctx, other.ID, second.EventID, nil); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("redeliver another tenant's event: %v", err)
	}

	// Deleting an endpoint takes its deliveries; their steps find nothing.
	if err := app.DeleteEndpoint(ctx, tn.ID, checks.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := worker.ClaimDelivery(ctx, red[0].Ref(), time.Minute); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("delivery of a deleted endpoint: %v", err)
	}
	if err := app.DeleteEndpoint(ctx, other.ID, completed.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("cross-tenant delete: %v", err)
	}
	_ = b
}

func TestEndpointLimitAndRotation(t *testing.T) {
	ctx := context.Background()
	admin, app := open(t, ownerDSN), open(t, appDSN)
	tn := newTenant(t, admin, "limits-hooks.example")
	var first store.Endpoint
	for i := 0; i < webhook.MaxEndpoints; i++ {
		e := endpoint(t, app, tn.ID, "*")
		if i == 0 {
			first = e
		}
	}
	if _, err := app.CreateEndpoint(ctx, store.Endpoint{ID: store.NewID(), TenantID: tn.ID, URL: "https://x.example/", Events: []string{"*"}, Secret: []byte("s")}); !errors.Is(err, store.ErrLimit) {
		t.Fatalf("endpoint %d: %v", webhook.MaxEndpoints+1, err)
	}
	e, err := app.RotateSecret(ctx, tn.ID, first.ID, []byte("new"))
	if err != nil || string(e.Secret) != "new" || string(e.PreviousSecret) != "sealed" || e.PreviousExpiresAt == nil {
		t.Fatalf("rotate: %+v %v", e, err)
	}
	now := time.Now()
	if got := e.Secrets(now); len(got) != 2 || string(got[0]) != "new" {
		t.Fatalf("secrets during the overlap: %q", got)
	}
	if got := e.Secrets(now.Add(webhook.SecretOverlap + time.Minute)); len(got) != 1 {
		t.Fatalf("secrets after the overlap: %q", got)
	}
}

// A failing endpoint is probed: the first failed delivery's retry comes
// forward to the probe time when nothing else of the endpoint is due by
// then; the next failure keeps its schedule.
func TestWebhookProbe(t *testing.T) {
	ctx := context.Background()
	admin, app, worker := open(t, ownerDSN), open(t, appDSN), open(t, workerDSN)
	tn := newTenant(t, admin, "probe-hooks.example")
	ep := endpoint(t, app, tn.ID, "business.created")
	for _, name := range []string{"A", "B"} {
		if _, _, err := app.CreateBusiness(ctx, tn.ID, store.Business{Name: name, CountryID: 528, CoCNumber: "12345678"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	ds := deliveries(t, app, tn.ID, ep.ID)
	now := time.Now()
	later, probe := now.Add(time.Hour), now.Add(5*time.Minute)
	fail := store.AttemptRecord{At: now, Status: webhook.Retrying, NextAttemptAt: &later, ProbeAt: &probe, Attempt: webhook.Result{StatusCode: 503}}
	s, err := worker.RecordAttempt(ctx, ds[0].Ref(), fail)
	if err != nil || s.NextAttemptAt == nil || !s.NextAttemptAt.Equal(probe) {
		t.Fatalf("first failure: %+v %v", s, err)
	}
	s, err = worker.RecordAttempt(ctx, ds[1].Ref(), fail)
	if err != nil || s.NextAttemptAt == nil || !s.NextAttemptAt.Equal(later) {
		t.Fatalf("second failure: %+v %v", s, err)
	}
}

// Every write that may add outbox rows — through events, their fan-out
// included — wakes the relays after commit: a status change by the worker,
// a create without checks.
func TestWritesWakeTheRelay(t *testing.T) {
	ctx := context.Background()
	admin, app, worker := open(t, ownerDSN), open(t, appDSN), open(t, workerDSN)
	tn := newTenant(t, admin, "wake-hooks.example")
	l, err := worker.Listen(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	woken := func(what string) {
		t.Helper()
		select {
		case <-l.Notify:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s did not wake the relay", what)
		}
		for len(l.Notify) > 0 { // folded pokes
			<-l.Notify
		}
	}
	_, cs, err := app.CreateBusiness(ctx, tn.ID, store.Business{Name: "B", CountryID: 528, CoCNumber: "12345678"}, []check.Type{check.CoC})
	if err != nil {
		t.Fatal(err)
	}
	woken("a create with a check")
	time.Sleep(50 * time.Millisecond)
	for len(l.Notify) > 0 {
		<-l.Notify
	}
	if _, _, err := app.CreateBusiness(ctx, tn.ID, store.Business{Name: "C", CountryID: 528, CoCNumber: "12345678"}, nil); err != nil {
		t.Fatal(err)
	}
	woken("a create without checks")
	if _, _, err := worker.UpdateCheck(ctx, cs[0].Ref(), store.CheckUpdate{Status: check.Running, From: []check.Status{check.Queued}}); err != nil {
		t.Fatal(err)
	}
	woken("a status change by the worker")
}

// The dispatcher claims the heads of the lines only, each once; a failed
// first attempt hands the delivery to a workflow of its own (an outbox row).
func TestClaimDueAndAdopt(t *testing.T) {
	ctx := context.Background()
	admin, app, worker := open(t, ownerDSN), open(t, appDSN), open(t, workerDSN)
	tn := newTenant(t, admin, "due-hooks.example")
	ep := endpoint(t, app, tn.ID, "*")
	for _, name := range []string{"A", "B"} { // 2 events each: created, queued
		if _, _, err := app.CreateBusiness(ctx, tn.ID, store.Business{Name: name, CountryID: 528, CoCNumber: "12345678"}, []check.Type{check.CoC}); err != nil {
			t.Fatal(err)
		}
	}
	heads, err := worker.ClaimDue(ctx, tn.ID, ep.ID, 10, time.Minute)
	if err != nil || len(heads) != 2 || heads[0].Event.Type != check.BusinessCreated || heads[1].Event.Type != check.BusinessCreated || heads[0].Endpoint.ID != ep.ID {
		t.Fatalf("heads: %+v %v", heads, err)
	}
	if again, err := worker.ClaimDue(ctx, tn.ID, ep.ID, 10, time.Minute); err != nil || len(again) != 0 {
		t.Fatalf("claimed twice: %+v %v", again, err)
	}
	// One head delivered: its follower is due; the other fails and is adopted.
	if _, err := worker.RecordAttempt(ctx, heads[0].Delivery.Ref(), store.AttemptRecord{At: time.Now(), Status: webhook.Delivered, Adopt: true, Attempt: webhook.Result{OK: true}}); err != nil {
		t.Fatal(err)
	}
	next := time.Now().Add(time.Minute)
	s, err := worker.RecordAttempt(ctx, heads[1].Delivery.Ref(), store.AttemptRecord{At: time.Now(), Status: webhook.Retrying, NextAttemptAt: &next, Adopt: true, Attempt: webhook.Result{StatusCode: 500}})
	if err != nil || !s.Adopted {
		t.Fatalf("adopt: %+v %v", s, err)
	}
	var rows int
	admin.DB().Get(&rows, `SELECT count(*) FROM outbox WHERE tenant_id = $1 AND action = 'deliver' AND payload->>'delivery_id' = $2`, tn.ID, heads[1].Delivery.ID.String())
	if rows != 1 {
		t.Fatalf("%d outbox rows start the adopted delivery's workflow", rows)
	}
	due, err := worker.ClaimDue(ctx, tn.ID, ep.ID, 10, time.Minute)
	if err != nil || len(due) != 1 || due[0].Event.Type != "check.queued" {
		t.Fatalf("after one head: %+v %v", due, err)
	}
	// A disabled endpoint has nothing due.
	if _, err := worker.RecordAttempt(ctx, due[0].Delivery.Ref(), store.AttemptRecord{At: time.Now(), Status: webhook.Failed, Attempt: webhook.Result{Gone: true, StatusCode: 410}}); err != nil {
		t.Fatal(err)
	}
	if due, err := worker.ClaimDue(ctx, tn.ID, ep.ID, 10, time.Minute); err != nil || len(due) != 0 {
		t.Fatalf("disabled: %+v %v", due, err)
	}
	// And what it had open is cancelled.
	for _, d := range deliveries(t, app, tn.ID, ep.ID) {
		if !d.Status.Final() {
			t.Fatalf("open after 410: %+v", d)
		}
	}
}

// New deliveries are announced once, one wake per endpoint; a wake that
// fails leaves them to announce again.
func TestAnnounceDeliveries(t *testing.T) {
	ctx := context.Background()
	admin, app, worker := open(t, ownerDSN), open(t, appDSN), open(t, workerDSN)
	tn := newTenant(t, admin, "announce-hooks.example")
	a, b := endpoint(t, app, tn.ID, "*"), endpoint(t, app, tn.ID, "business.created")
	// Other tests' deliveries may be waiting too: announce them first.
	if _, err := worker.AnnounceDeliveries(ctx, 10000, func(uuid.UUID, uuid.UUID) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if _, _, err := app.CreateBusiness(ctx, tn.ID, store.Business{Name: "A", CountryID: 528, CoCNumber: "12345678"}, []check.Type{check.CoC}); err != nil {
		t.Fatal(err)
	}
	// 3 deliveries (2 to a, 1 to b); a failed wake leaves its endpoint's
	// to announce again, and only those.
	if _, err := worker.AnnounceDeliveries(ctx, 100, func(uuid.UUID, uuid.UUID) error { return errors.New("temporal down") }); err == nil {
		t.Fatal("a failed wake was not reported")
	}
	if n, err := worker.AnnounceDeliveries(ctx, 100, func(_, ep uuid.UUID) error {
		if ep == b.ID {
			return errors.New("b's wake timed out")
		}
		return nil
	}); err == nil || n != 1 {
		t.Fatalf("one failed wake: %d %v", n, err)
	}
	woken := map[uuid.UUID]int{}
	n, err := worker.AnnounceDeliveries(ctx, 100, func(tenant, ep uuid.UUID) error {
		if tenant != tn.ID {
			t.Errorf("woken for tenant %s", tenant)
		}
		woken[ep]++
		return nil
	})
	if err != nil || n != 1 || woken[b.ID] != 1 {
		t.Fatalf("announced %d: %v %v", n, woken, err)
	}
	if n, err := worker.AnnounceDeliveries(ctx, 100, func(uuid.UUID, uuid.UUID) error { return nil }); err != nil || n != 0 {
		t.Fatalf("announced again: %d %v", n, err)
	}
	// Handing a delivery back announces it again.
	ds := deliveries(t, app, tn.ID, b.ID)
	if err := worker.Announce(ctx, ds[0].Ref()); err != nil {
		t.Fatal(err)
	}
	if n, err := worker.AnnounceDeliveries(ctx, 100, func(uuid.UUID, uuid.UUID) error { return nil }); err != nil || n != 1 {
		t.Fatalf("after a hand-back: %d %v", n, err)
	}
	// Deleting an endpoint takes its deliveries.
	if err := app.DeleteEndpoint(ctx, tn.ID, a.ID); err != nil {
		t.Fatal(err)
	}
	var left int
	admin.DB().Get(&left, `SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = $1`, a.ID)
	if left != 0 {
		t.Fatalf("%d deliveries outlived their endpoint", left)
	}
}
