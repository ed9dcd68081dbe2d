package store_test

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/webhook"
)

func open(t *testing.T, dsn string) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), dsn, 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func newTenant(t *testing.T, admin *store.Store, host string) store.Tenant {
	t.Helper()
	tn, key, err := admin.CreateTenant(context.Background(), "T "+host, []string{host}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(key) != len("kyc_live_")+32 {
		t.Fatalf("key %q has the wrong shape", key)
	}
	return tn
}

func ptr[T any](v T) *T { return &v }

// unguardedTenantTables have a tenant_id but no row-level security, and
// why; TestRLSWithoutTenantSeesNothing checks that no process role may read
// them at all.
var unguardedTenantTables = map[string]string{
	"tenant_hosts": "maps a request's host to its tenant before any tenant is known; read only through authenticate()",
}

// tenantTables lists, from the catalog, every table with a tenant_id
// column: a new tenant table is checked without being named here.
func tenantTables(t *testing.T, admin *store.Store) []string {
	t.Helper()
	var tables []string
	if err := admin.DB().Select(&tables, `SELECT c.relname FROM pg_class c
		JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped
		WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') ORDER BY c.relname`); err != nil {
		t.Fatal(err)
	}
	if len(tables) < 14 { // 14 today; a broken query must not pass by finding none
		t.Fatalf("tenant tables: %v", tables)
	}
	return tables
}

// Every table with a tenant_id (read from the catalog) has row-level
// security enabled and forced under the one tenant policy, and with rows
// of a tenant in every one of them, the app and worker roles see none
// without app.tenant_id set, nor with another tenant's.
func TestRLSWithoutTenantSeesNothing(t *testing.T) {
	ctx := context.Background()
	admin, app, worker := open(t, ownerDSN), open(t, appDSN), open(t, workerDSN)
	tables := tenantTables(t, admin)

	// The policy: one per table, for every command and role, the same
	// expression in USING and WITH CHECK as on businesses (whose policy the
	// end of this test tries on rows).
	type policy struct {
		Table      string         `db:"tablename"`
		Name       string         `db:"policyname"`
		Permissive string         `db:"permissive"`
		Roles      pq.StringArray `db:"roles"`
		Cmd        string         `db:"cmd"`
		Qual       sql.NullString `db:"qual"`
		WithCheck  sql.NullString `db:"with_check"`
	}
	var ps []policy
	if err := admin.DB().Select(&ps, `SELECT tablename, policyname, permissive, roles::text[] AS roles, cmd, qual, with_check
		FROM pg_policies WHERE schemaname = 'public'`); err != nil {
		t.Fatal(err)
	}
	policies := map[string][]policy{}
	for _, p := range ps {
		policies[p.Table] = append(policies[p.Table], p)
	}
	ref := policies["businesses"]
	if len(ref) != 1 || !strings.Contains(ref[0].Qual.String, "current_setting('app.tenant_id'") {
		t.Fatalf("businesses' policy: %+v", ref)
	}
	want := ref[0].Qual.String
	for _, table := range tables {
		var enabled, forced bool
		if err := admin.DB().QueryRow(`SELECT relrowsecurity, relforcerowsecurity FROM pg_class WHERE oid = ('public.' || $1)::regclass`, table).Scan(&enabled, &forced); err != nil {
			t.Fatal(err)
		}
		if why, ok := unguardedTenantTables[table]; ok {
			if enabled || len(policies[table]) > 0 {
				t.Errorf("%s has row-level security now: take it out of unguardedTenantTables (%s)", table, why)
			}
			continue
		}
		if !enabled || !forced {
			t.Errorf("%s: row-level security enabled %v, forced %v; every tenant table has it forced", table, enabled, forced)
		}
		p := policies[table]
		if len(p) != 1 || p[0].Permissive != "PERMISSIVE" || p[0].Cmd != "ALL" || !slices.Equal(p[0].Roles, []string{"public"}) ||
			p[0].Qual.String != want || p[0].WithCheck.String != want {
			t.Errorf("%s: policies %+v, want one for ALL commands and roles, USING and WITH CHECK %s", table, p, want)
		}
	}

	// Rows of one tenant in every tenant table, written as the processes
	// write them.
	tn := newTenant(t, admin, "rls.example") // tenant_hosts, api_keys
	ep := endpoint(t, app, tn.ID, "*")       // webhook_endpoints; the creates below fan out to it
	if _, err := app.ClaimIdempotencyKey(ctx, tn.ID, "rls-key", []byte("request hash")); err != nil {
		t.Fatal(err)
	}
	b, _, err := app.CreateBusiness(ctx, tn.ID, store.Business{Name: "B", CountryID: 528, CoCNumber: "12345678", IBAN: ptr("NL91ABNA0417164300")}, []check.Type{check.IBAN})
	if err != nil {
		t.Fatal(err)
	}
	c, _, _, err := app.CreateCustomer(ctx, tn.ID, store.Customer{Name: "C", Email: "c@example.com", CountryID: 528, BusinessID: &b.ID}, []check.Type{check.AML})
	if err != nil {
		t.Fatal(err)
	}
	// A customer without mails gets links issued with the checks.
	_, idscan, links, err := app.CreateCustomer(ctx, tn.ID, store.Customer{Name: "D", Email: "d@example.com", CountryID: 528}, []check.Type{check.IDScan})
	if err != nil || len(links["idscan"]) != 43 {
		t.Fatalf("links %v %v", links, err)
	}
	if _, err := app.AddDocument(ctx, check.Ref{TenantID: tn.ID, CheckID: idscan[0].ID}, sealedImage); err != nil { // document_attempts, document_images
		t.Fatal(err)
	}
	selfieRef := check.Ref{TenantID: tn.ID, CheckID: idscan[0].ID}
	if err := worker.ReadForSelfie(ctx, selfieRef, 1, nil, "k1", []byte("sealed"), challenge); err != nil { // selfie_attempts
		t.Fatal(err)
	}
	if _, err := app.AddSelfie(ctx, selfieRef, challenge.Nonce, sealedImage); err != nil { // selfie_frames
		t.Fatal(err)
	}
	if err := app.DeleteCustomer(ctx, store.Principal{TenantID: tn.ID}, c.ID); err != nil { // audit_log
		t.Fatal(err)
	}
	review := awaitingAML(t, app, worker, tn.ID, "ofac-1")
	if _, err := worker.RecordReview(ctx, review, submitted(t, app, viaKey(tn.ID), review, check.ReviewRequest{Reviewer: "R", Decisions: []check.ReviewDecision{
		{EntityID: "ofac-1", Decision: check.FalsePositive}}}), time.Now(), false); err != nil { // aml_reviews, review_submissions, reviewer_names
		t.Fatal(err)
	}
	face := awaitingFace(t, app, worker, tn.ID)
	if _, err := worker.RecordReview(ctx, face, submitted(t, app, viaKey(tn.ID), face, check.ReviewRequest{Reviewer: "R", Decisions: []check.ReviewDecision{
		{EntityID: check.FaceMatchEntity, Decision: check.SamePerson}}}), time.Now(), false); err != nil { // face_reviews
		t.Fatal(err)
	}
	first := deliveries(t, app, tn.ID, ep.ID)[0].Ref()
	if c, err := worker.ClaimDelivery(ctx, first, time.Minute); err != nil || c.State != store.Claimed {
		t.Fatalf("claim: %+v %v", c, err)
	}
	if _, err := worker.RecordAttempt(ctx, first, store.AttemptRecord{At: time.Now(), Status: webhook.Delivered,
		Attempt: webhook.Result{OK: true, StatusCode: 204}}); err != nil { // webhook_attempts
		t.Fatal(err)
	}

	member, _ := member(t, admin, app, tn.ID, "rls@example.com", check.RoleReviewer)                                                // staff, staff_invitations, staff_sessions
	if _, err := app.SignInBegin(ctx, tn.ID, member.Email, staffKey.Guard(tn.ID.String(), member.Email, "192.0.2.9")); err != nil { // staff_signin_guard
		t.Fatal(err)
	}
	inHand := awaitingAML(t, app, worker, tn.ID, "ofac-2")
	if err := app.AssignReview(ctx, store.Principal{TenantID: tn.ID, StaffID: member.ID}, inHand.CheckID, &member.ID); err != nil { // review_assignments
		t.Fatal(err)
	}

	other := newTenant(t, admin, "rls-other.example")
	// rows counts tn's rows of table as seen through db, in a transaction
	// with tenant set (nil: app.tenant_id never set); readable is false
	// when the role may not read the table at all (TestRoleMatrix).
	rows := func(db *sql.DB, table string, tenant *uuid.UUID) (n int, readable bool) {
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		if tenant != nil {
			if _, err := tx.Exec(`SELECT set_config('app.tenant_id', $1, true)`, tenant.String()); err != nil {
				t.Fatal(err)
			}
		}
		err = tx.QueryRow(`SELECT count(*) FROM public.`+pq.QuoteIdentifier(table)+` WHERE tenant_id = $1`, tn.ID).Scan(&n)
		var pqErr *pq.Error
		if errors.As(err, &pqErr) && pqErr.Code == insufficientPrivilege {
			return 0, false
		}
		if err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		return n, true
	}
	for _, table := range tables {
		var owner int
		if err := admin.DB().Get(&owner, `SELECT count(*) FROM public.`+pq.QuoteIdentifier(table)+` WHERE tenant_id = $1`, tn.ID); err != nil {
			t.Fatal(err)
		}
		if owner == 0 {
			t.Errorf("%s: the setup left no rows of the tenant; write one above so the table is tried", table)
		}
		for role, s := range map[string]*store.Store{store.AppRole: app, store.WorkerRole: worker} {
			db := s.DB().DB
			n, readable := rows(db, table, &tn.ID)
			switch {
			case readable && unguardedTenantTables[table] != "":
				t.Errorf("%s can read %s (%d rows), which has no row-level security", role, table, n)
			case readable && n != owner: // the count below can tell
				t.Errorf("%s: %s with the tenant set sees %d of its %d rows", table, role, n, owner)
			}
			if n, _ := rows(db, table, nil); n != 0 {
				t.Errorf("%s: %s without a tenant set sees %d rows", table, role, n)
			}
			if n, _ := rows(db, table, &other.ID); n != 0 {
				t.Errorf("%s: %s with another tenant set sees %d rows", table, role, n)
			}
		}
	}

	// And a wrong tenant set explicitly sees nothing either.
	if _, err := app.GetBusiness(ctx, other.ID, b.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("other tenant read business: %v", err)
	}
	// The app role cannot write rows for a tenant it has not set.
	tx := app.DB().MustBegin()
	defer tx.Rollback()
	tx.MustExec(`SELECT set_config('app.tenant_id', $1, true)`, other.ID.String())
	_, err = tx.Exec(`INSERT INTO businesses (id, tenant_id, name, country_id, coc_number, created_at, updated_at) VALUES ($1, $2, 'x', 528, '1', now(), now())`, uuid.New(), tn.ID)
	if err == nil {
		t.Fatal("inserted a row into another tenant")
	}
}

func TestAppRoleHasNoPrivilege(t *testing.T) {
	app := open(t, appDSN)
	var super, bypass bool
	if err := app.DB().QueryRow(`SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user`).Scan(&super, &bypass); err != nil {
		t.Fatal(err)
	}
	if super || bypass {
		t.Fatalf("app role: superuser=%v bypassrls=%v", super, bypass)
	}
	var owned int
	if err := app.DB().Get(&owned, `SELECT count(*) FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner WHERE r.rolname = current_user`); err != nil {
		t.Fatal(err)
	}
	if owned != 0 {
		t.Fatalf("app role owns %d relations", owned)
	}
}

func TestCustomerBusinessMustBeSameTenant(t *testing.T) {
	ctx := context.Background()
	admin, app := open(t, ownerDSN), open(t, appDSN)
	a, b := newTenant(t, admin, "fk-a.example"), newTenant(t, admin, "fk-b.example")
	biz, _, err := app.CreateBusiness(ctx, a.ID, store.Business{Name: "A", CountryID: 528, CoCNumber: "12345678"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, err = app.CreateCustomer(ctx, b.ID, store.Customer{Name: "C", Email: "c@example.com", CountryID: 528, BusinessID: &biz.ID}, nil)
	if !errors.Is(err, store.ErrBusinessNotFound) {
		t.Fatalf("cross-tenant business link: %v", err)
	}
	c, _, _, err := app.CreateCustomer(ctx, a.ID, store.Customer{Name: "C", Email: "c@example.com", CountryID: 528, BusinessID: &biz.ID}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := app.DeleteBusiness(ctx, store.Principal{TenantID: a.ID}, biz.ID); err != nil {
		t.Fatal(err)
	}
	got, err := app.GetCustomer(ctx, a.ID, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.BusinessID != nil {
		t.Fatalf("business_id not cleared: %v", got.BusinessID)
	}
	if err := app.DeleteBusiness(ctx, store.Principal{TenantID: a.ID}, biz.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
}

func TestSupersedeAndRetry(t *testing.T) {
	ctx := context.Background()
	admin, app, worker := open(t, ownerDSN), open(t, appDSN), open(t, workerDSN)
	tn := newTenant(t, admin, "supersede.example")
	b, first, err := app.CreateBusiness(ctx, tn.ID, store.Business{Name: "B", CountryID: 528, CoCNumber: "12345678"}, []check.Type{check.CoC, check.VAT})
	if err != nil {
		t.Fatal(err)
	}
	second, _, err := app.QueueChecks(ctx, tn.ID, check.Business, b.ID, []check.Type{check.CoC})
	if err != nil {
		t.Fatal(err)
	}
	old, err := app.GetCheck(ctx, tn.ID, first[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if old.Status != check.Cancelled || old.CompletedAt == nil {
		t.Fatalf("superseded check: %+v", old)
	}
	got, err := app.GetBusiness(ctx, tn.ID, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Checks["coc"].ID != second[0].ID || got.Checks["vat"].Status != check.Queued {
		t.Fatalf("latest checks: %+v", got.Checks)
	}
	// Retry only from failed.
	if _, err := app.RequestRetry(ctx, tn.ID, second[0].ID); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("retry of queued check: %v", err)
	}
	ref := second[0].Ref()
	// Only the moves the check's rules allow are written.
	if _, _, err := worker.UpdateCheck(ctx, ref, store.CheckUpdate{Status: check.Failed, From: []check.Status{check.Queued}}); err == nil || !strings.Contains(err.Error(), "illegal status move queued → failed") {
		t.Fatalf("illegal move: %v", err)
	}
	running := store.CheckUpdate{Status: check.Running, From: []check.Status{check.Queued, check.Failed}}
	if applied, _, err := worker.UpdateCheck(ctx, ref, running); err != nil || !applied {
		t.Fatalf("run: %v %v", applied, err)
	}
	applied, status, err := worker.UpdateCheck(ctx, ref, store.CheckUpdate{Status: check.Failed, From: []check.Status{check.Running}, Error: []byte(`{"code":"x"}`)})
	if err != nil || !applied || status != check.Failed {
		t.Fatalf("fail: %v %v %v", applied, status, err)
	}
	if _, err := app.RequestRetry(ctx, tn.ID, second[0].ID); err != nil {
		t.Fatal(err)
	}
	if applied, _, err := worker.UpdateCheck(ctx, ref, running); err != nil || !applied {
		t.Fatalf("run again: %v %v", applied, err)
	}
	// Idempotent completion: the second write changes nothing, and the
	// subject's address is written with the first only.
	done := store.CheckUpdate{Status: check.Completed, From: []check.Status{check.Running}, Validated: ptr(true), Data: []byte(`{"a":1}`),
		Address: &store.Address{Address: ptr("Watermolenlaan 1 3447GT Woerden"), Street: ptr("Watermolenlaan"), HouseNumber: ptr("1"), PostalCode: ptr("3447GT"), City: ptr("Woerden")}}
	if applied, _, err := worker.UpdateCheck(ctx, ref, done); err != nil || !applied {
		t.Fatalf("complete: %v %v", applied, err)
	}
	done.Address = &store.Address{City: ptr("Elsewhere")}
	if applied, status, err := worker.UpdateCheck(ctx, ref, done); err != nil || applied || status != check.Completed {
		t.Fatalf("second complete: %v %v %v", applied, status, err)
	}
	if got, err := app.GetBusiness(ctx, tn.ID, b.ID); err != nil || got.City == nil || *got.City != "Woerden" || *got.Street != "Watermolenlaan" || got.Addition != nil {
		t.Fatalf("address after completion: %+v %v", got.Business, err)
	}
	// Another tenant cannot retry or read the check.
	other := newTenant(t, admin, "supersede-other.example")
	if _, err := app.RequestRetry(ctx, other.ID, second[0].ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("cross-tenant retry: %v", err)
	}
}

func TestKeys(t *testing.T) {
	ctx := context.Background()
	admin, app := open(t, ownerDSN), open(t, appDSN)
	tn, key, err := admin.CreateTenant(ctx, "Keys", []string{"Keys.Example:443"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if key[:9] != "kyc_test_" {
		t.Fatalf("sandbox key %q", key)
	}
	id, err := admin.TenantByHost(ctx, store.NormalizeHost("KEYS.example:8080"))
	if err != nil || id != tn.ID {
		t.Fatalf("host lookup: %v %v", id, err)
	}
	if _, err := admin.TenantByHost(ctx, "nope.example"); !errors.Is(err, store.ErrUnknownTenant) {
		t.Fatalf("unknown host: %v", err)
	}
	p, err := app.Authenticate(ctx, "keys.example", store.HashKey(key))
	if err != nil || p.KeyID == uuid.Nil || p.TenantID != tn.ID {
		t.Fatalf("authenticate: %v", err)
	}
	key2, _, err := admin.CreateKey(ctx, tn.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.RevokeKey(ctx, tn.ID, key[:13]); err != nil {
		t.Fatal(err)
	}
	if _, err := app.Authenticate(ctx, "keys.example", store.HashKey(key)); !errors.Is(err, store.ErrUnauthenticated) {
		t.Fatalf("revoked key: %v", err)
	}
	if _, err := app.Authenticate(ctx, "keys.example", store.HashKey(key2)); err != nil {
		t.Fatalf("rotated key: %v", err)
	}
	newTenant(t, admin, "keys-other.example")
	if _, err := app.Authenticate(ctx, "keys-other.example", store.HashKey(key2)); !errors.Is(err, store.ErrUnauthenticated) {
		t.Fatalf("key of another tenant: %v", err)
	}
	if _, err := app.Authenticate(ctx, "nope.example", store.HashKey(key2)); !errors.Is(err, store.ErrUnknownTenant) {
		t.Fatalf("unknown host: %v", err)
	}
}
