package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/store/batch"
)

// Creates that queued together share a statement, and each is still whole:
// its record, its checks with their outbox starts and links, and its events
// with the record's created event before its checks'.
func TestCreatesWrittenTogether(t *testing.T) {
	ctx := context.Background()
	admin, app := open(t, ownerDSN), open(t, appDSN)
	tn := newTenant(t, admin, "together.example")
	cs := []store.Customer{
		{Name: "A", Email: "a@example.com", CountryID: 528},
		{Name: "B", Email: "b@example.com", CountryID: 528, Mails: true},
		{Name: "C", Email: "c@example.com", CountryID: 528},
	}
	links, errs := app.CreateCustomersTogether(ctx, tn.ID, cs, []check.Type{check.AML, check.IDScan})
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if len(links[0]) != 1 || links[1] != nil || len(links[2]) != 1 || links[0][check.IDScan] == links[2][check.IDScan] {
		t.Fatalf("links %v: want one idscan link each for A and C", links)
	}
	var txs int
	if err := admin.DB().Get(&txs, `SELECT count(DISTINCT xmin::text) FROM customers WHERE tenant_id = $1`, tn.ID); err != nil {
		t.Fatal(err)
	}
	if txs != 1 {
		t.Fatalf("the three creates took %d transactions, want one", txs)
	}
	for _, c := range cs {
		assertWholeCreate(t, admin, tn.ID, c.ID, 2)
	}
}

// One bad create in a statement fails only itself: the others are
// written, each alone, and the bad one gets its own answer.
func TestBadCreateFailsAlone(t *testing.T) {
	ctx := context.Background()
	admin, app := open(t, ownerDSN), open(t, appDSN)
	tn, other := newTenant(t, admin, "bad-one.example"), newTenant(t, admin, "bad-one-other.example")
	theirs, _, err := app.CreateBusiness(ctx, other.ID, store.Business{Name: "Theirs", CountryID: 528, CoCNumber: "12345678"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs := []store.Customer{
		{Name: "A", Email: "a@example.com", CountryID: 528},
		{Name: "B", Email: "b@example.com", CountryID: 528, BusinessID: &theirs.ID},
		{Name: "C", Email: "c@example.com", CountryID: 528},
	}
	_, errs := app.CreateCustomersTogether(ctx, tn.ID, cs, []check.Type{check.AML})
	if errs[0] != nil || !errors.Is(errs[1], store.ErrBusinessNotFound) || errs[2] != nil {
		t.Fatalf("errors %v: want only B's, ErrBusinessNotFound", errs)
	}
	var n int
	if err := admin.DB().Get(&n, `SELECT count(*) FROM events WHERE tenant_id = $1 AND subject_id = $2`, tn.ID, cs[1].ID); err != nil || n != 0 {
		t.Fatalf("the failed create left %d events (%v)", n, err)
	}
	assertWholeCreate(t, admin, tn.ID, cs[0].ID, 1)
	assertWholeCreate(t, admin, tn.ID, cs[2].ID, 1)

	// A create whose request is gone before its statement is not written.
	gone, cancel := context.WithCancel(ctx)
	cancel()
	_, errs = app.CreateCustomersTogether(gone, tn.ID, []store.Customer{{Name: "D", Email: "d@example.com", CountryID: 528}}, nil)
	if !errors.Is(errs[0], context.Canceled) {
		t.Fatalf("cancelled create: %v", errs[0])
	}
}

// Many concurrent creates of several tenants and both kinds each land in
// their own tenant, whole.
func TestConcurrentCreatesStayInTheirTenant(t *testing.T) {
	ctx := context.Background()
	admin, app := open(t, ownerDSN), open(t, appDSN)
	tenants := []store.Tenant{newTenant(t, admin, "busy-a.example"), newTenant(t, admin, "busy-b.example")}
	type made struct {
		tenant uuid.UUID
		id     uuid.UUID
		kind   check.Kind
	}
	var mu sync.Mutex
	var all []made
	var wg sync.WaitGroup
	errs := make(chan error, 80)
	for i := range 80 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tn := tenants[i%2].ID
			m := made{tenant: tn}
			if i%4 < 2 {
				b, _, err := app.CreateBusiness(ctx, tn, store.Business{Name: fmt.Sprint("B", i), CountryID: 528, CoCNumber: "12345678"}, []check.Type{check.CoC})
				if err != nil {
					errs <- err
					return
				}
				m.id, m.kind = b.ID, check.Business
			} else {
				c, _, _, err := app.CreateCustomer(ctx, tn, store.Customer{Name: fmt.Sprint("C", i), Email: "c@example.com", CountryID: 528}, []check.Type{check.AML})
				if err != nil {
					errs <- err
					return
				}
				m.id, m.kind = c.ID, check.Customer
			}
			mu.Lock()
			all = append(all, m)
			mu.Unlock()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, m := range all {
		var owner uuid.UUID
		q := `SELECT tenant_id FROM businesses WHERE id = $1`
		if m.kind == check.Customer {
			q = `SELECT tenant_id FROM customers WHERE id = $1`
		}
		if err := admin.DB().Get(&owner, q, m.id); err != nil || owner != m.tenant {
			t.Fatalf("%s %s: tenant %s, want %s (%v)", m.kind, m.id, owner, m.tenant, err)
		}
		assertWholeCreate(t, admin, m.tenant, m.id, 1)
	}
}

// assertWholeCreate checks that a created record has its checks, each with
// an outbox start, and its events in order: created first, then one
// check.queued per check.
func assertWholeCreate(t *testing.T, admin *store.Store, tenant, id uuid.UUID, checks int) {
	t.Helper()
	var got struct {
		Checks int `db:"checks"`
		Starts int `db:"starts"`
		Events int `db:"events"`
	}
	err := admin.DB().Get(&got, `SELECT
		(SELECT count(*) FROM checks WHERE tenant_id = $1 AND coalesce(business_id, customer_id) = $2) AS checks,
		(SELECT count(*) FROM outbox o JOIN checks c ON c.id = o.check_id WHERE o.tenant_id = $1
			AND coalesce(c.business_id, c.customer_id) = $2 AND o.action = 'start') AS starts,
		(SELECT count(*) FROM events WHERE tenant_id = $1 AND subject_id = $2) AS events`, tenant, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Checks != checks || got.Starts != checks || got.Events != checks+1 {
		t.Fatalf("record %s: %d checks, %d starts, %d events; want %d, %d, %d", id, got.Checks, got.Starts, got.Events, checks, checks, checks+1)
	}
	var types []string
	if err := admin.DB().Select(&types, `SELECT type FROM events WHERE tenant_id = $1 AND subject_id = $2 ORDER BY seq`, tenant, id); err != nil {
		t.Fatal(err)
	}
	for i, typ := range types {
		if (i == 0) != (typ == "business.created" || typ == "customer.created") || (i > 0 && typ != "check.queued") {
			t.Fatalf("record %s: events %v, want created then check.queued", id, types)
		}
	}
}

// Every field of a new record reaches its column through the statement's
// JSON recordset and comes back as it was sent, set or null, alone in a
// statement or sharing one.
func TestEveryFieldStored(t *testing.T) {
	ctx := context.Background()
	admin, app := open(t, ownerDSN), open(t, appDSN)
	tn := newTenant(t, admin, "every-field.example")
	s := func(v string) *string { return &v }
	n := func(v int) *int { return &v }
	at := func(v string) *time.Time {
		ts, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			t.Fatal(err)
		}
		return &ts
	}
	b, _, err := app.CreateBusiness(ctx, tn.ID, store.Business{
		Name: `Q "B" \ BV`, Address: s("Damrak 1A"), Street: s("Damrak"), HouseNumber: s("1"), Addition: s("A"),
		PostalCode: s("1012 LG"), City: s("Amsterdam"), CountryID: 528, IBAN: s("NL91ABNA0417164300"),
		CoCNumber: "68750110", VATNumber: s("NL854750137B01"), IsActive: false, InactiveAt: at("2026-01-02T03:04:05.123456Z"),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs := []store.Customer{{
		BusinessID: &b.ID, Notes: store.JSON(`{"a": 1, "b": [true, null, "é\n"]}`), Initials: s("J.A."), FirstName: s("Jan"),
		LastName: s("de Vries"), Name: "Jan de Vries 日本", Email: "jan@example.com", Gender: s("m"),
		Birthdate: at("1990-05-17T00:00:00Z"), NationalityID: n(528), DocumentNumber: s("SPECI2014"),
		DocumentExpiration: at("2031-03-09T00:00:00Z"), DocumentType: n(1), Phone: s("+31 20 123 4567"),
		Address: s("Laan 12-bis"), Street: s("Laan"), HouseNumber: s("12"), Addition: s("bis"), PostalCode: s("1234 AB"),
		City: s("Utrecht"), CountryID: 528, IBAN: s("NL91ABNA0417164300"), Mails: true, IsActive: true,
	}, {Name: "Bare", Email: "bare@example.com", CountryID: 56}}
	if _, errs := app.CreateCustomersTogether(ctx, tn.ID, cs, nil); errors.Join(errs...) != nil {
		t.Fatal(errors.Join(errs...))
	}
	// Compared as JSON, times in UTC: the database answers in its session's
	// time zone.
	asJSON := func(v any) string {
		raw, _ := json.Marshal(v)
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		for k, v := range m {
			if s, ok := v.(string); ok {
				if ts, err := time.Parse(time.RFC3339Nano, s); err == nil {
					m[k] = ts.UTC().Format(time.RFC3339Nano)
				}
			}
		}
		raw, _ = json.Marshal(m)
		return string(raw)
	}
	same := func(what string, want, got any) {
		t.Helper()
		if w, g := asJSON(want), asJSON(got); w != g {
			t.Errorf("%s stored as\n%s\nwant\n%s", what, g, w)
		}
	}
	gotB, err := app.GetBusiness(ctx, tn.ID, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	same("business", b, gotB.Business)
	for _, c := range cs {
		got, err := app.GetCustomer(ctx, tn.ID, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		same("customer "+c.Name, c, got.Customer)
	}
}

// A statement held up (here by a lock on the business its customers name)
// holds up only the creates of its own tenant and kind: once it has run
// slowStatement, their crowd waits for it rather than drag the second
// writer in, and every other tenant's creates, alone or in a crowd, get
// the second writer.
func TestSlowStatementDoesNotHoldOthers(t *testing.T) {
	ctx := context.Background()
	admin, app := open(t, ownerDSN), open(t, appDSN)
	slow := newTenant(t, admin, "slow-one.example")
	others := []store.Tenant{newTenant(t, admin, "slow-a.example"), newTenant(t, admin, "slow-b.example"), newTenant(t, admin, "slow-c.example")}
	b, _, err := app.CreateBusiness(ctx, slow.ID, store.Business{Name: "Locked", CountryID: 528, CoCNumber: "12345678"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	lock := lockRow(t, admin, "businesses", b.ID)
	// Customers naming the locked business wait on the lock.
	heldOnes := func(n int) <-chan error {
		errs := make(chan error, n)
		for i := range n {
			go func() {
				_, _, _, err := app.CreateCustomer(ctx, slow.ID, store.Customer{Name: fmt.Sprint("Held", i), Email: "h@example.com", CountryID: 528, BusinessID: &b.ID}, nil)
				errs <- err
			}()
		}
		return errs
	}
	first := heldOnes(1)
	waitOnLock(t, admin, 1)
	time.Sleep(2 * batch.HeldUp) // the statement is now held up
	crowd := heldOnes(2 * batch.Crowd)
	othersWrite(t, app, others)
	select {
	case err := <-first:
		t.Fatalf("the held create returned while its lock was held: %v", err)
	case err := <-crowd:
		t.Fatalf("a create of the held group returned while the lock was held: %v", err)
	default:
	}
	if err := lock.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	for range 2 * batch.Crowd {
		if err := <-crowd; err != nil {
			t.Fatal(err)
		}
	}
}

// Two statements of one tenant held up at once (here its two kinds, by a
// lock on the tenant's own row, as while it is being deleted) take both
// writers; they then no longer count among them, so other tenants' creates
// get writers of their own.
func TestHeldStatementsDoNotHoldOthers(t *testing.T) {
	ctx := context.Background()
	admin, app := open(t, ownerDSN), open(t, appDSN)
	slow := newTenant(t, admin, "held-two.example")
	others := []store.Tenant{newTenant(t, admin, "held-a.example"), newTenant(t, admin, "held-b.example"), newTenant(t, admin, "held-c.example")}
	lock := lockRow(t, admin, "tenants", slow.ID)
	held := make(chan error, 1+batch.Crowd)
	create := func(kind check.Kind, i int) {
		var err error
		if kind == check.Business {
			_, _, err = app.CreateBusiness(ctx, slow.ID, store.Business{Name: fmt.Sprint("Held", i), CountryID: 528, CoCNumber: "12345678"}, nil)
		} else {
			_, _, _, err = app.CreateCustomer(ctx, slow.ID, store.Customer{Name: fmt.Sprint("Held", i), Email: "h@example.com", CountryID: 528}, nil)
		}
		held <- err
	}
	go create(check.Business, 0)
	waitOnLock(t, admin, 1)
	// A crowd of its customers takes the second writer, and waits too.
	for i := range batch.Crowd {
		go create(check.Customer, i)
	}
	waitOnLock(t, admin, 2)
	time.Sleep(2 * batch.HeldUp) // both are now held up
	othersWrite(t, app, others)
	select {
	case err := <-held:
		t.Fatalf("a create of the locked tenant returned while the lock was held: %v", err)
	default:
	}
	if err := lock.Rollback(); err != nil {
		t.Fatal(err)
	}
	for range 1 + batch.Crowd {
		if err := <-held; err != nil {
			t.Fatal(err)
		}
	}
	// What /metrics reports of it: every create in a statement, and the
	// two held-up statements as slow.
	st := app.CreateStats()
	if want := uint64(1 + batch.Crowd + 3 + 2*batch.Crowd); st.Creates != want || st.Statements == 0 || st.Statements > st.Creates || st.Slow < 2 {
		t.Errorf("create stats %+v, want %d creates and at least 2 slow", st, want)
	}
}

// lockRow locks a row of table for update until the test rolls the
// returned transaction back, or ends.
func lockRow(t *testing.T, admin *store.Store, table string, id uuid.UUID) *sql.Tx {
	t.Helper()
	tx, err := admin.DB().BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback() })
	if _, err := tx.Exec(`SELECT 1 FROM `+table+` WHERE id = $1 FOR UPDATE`, id); err != nil {
		t.Fatal(err)
	}
	return tx
}

// waitOnLock waits until n statements of creates wait on a lock.
func waitOnLock(t *testing.T, admin *store.Store, n int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; {
		var waiting int
		if err := admin.DB().GetContext(context.Background(), &waiting, `SELECT count(*) FROM pg_stat_activity
			WHERE wait_event_type = 'Lock' AND query LIKE '%jsonb_populate_recordset%'`); err != nil {
			t.Fatal(err)
		}
		if waiting >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d create statements waited on the lock, want %d", waiting, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// othersWrite creates businesses for others, one each and a crowd of the
// first, and fails unless all are written within 20 s: while a lock holds
// another tenant's statements (which give up after 30 s).
func othersWrite(t *testing.T, app *store.Store, others []store.Tenant) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, 3+2*batch.Crowd)
	for i := range 3 + 2*batch.Crowd {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tn := others[min(i, 2)]
			_, _, err := app.CreateBusiness(context.Background(), tn.ID, store.Business{Name: fmt.Sprint("B", i), CountryID: 528, CoCNumber: "12345678"}, []check.Type{check.CoC})
			errs <- err
		}()
	}
	written := make(chan struct{})
	go func() { wg.Wait(); close(written) }()
	select {
	case <-written:
	case <-time.After(20 * time.Second):
		t.Fatal("other tenants' creates waited behind the held statements")
	}
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}
