package store_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
)

// The result-write counter sees a result written twice and a completed
// check it never saw written (the counter installed too late).
func TestResultWriteCounter(t *testing.T) {
	ctx := context.Background()
	admin, app, worker := open(t, ownerDSN), open(t, appDSN), open(t, workerDSN)
	tn := newTenant(t, admin, "result-writes.example")
	b, checks, err := app.CreateBusiness(ctx, tn.ID, store.Business{Name: "B", CountryID: 528, CoCNumber: "12345678",
		VATNumber: ptr("NL123456789B01"), IBAN: ptr("NL91ABNA0417164300")}, []check.Type{check.CoC, check.VAT, check.IBAN})
	if err != nil {
		t.Fatal(err)
	}
	byType := map[check.Type]check.Ref{}
	for _, c := range checks {
		byType[c.Type] = c.Ref()
	}
	write := func(typ check.Type, from, to check.Status, data string) {
		t.Helper()
		u := store.CheckUpdate{Status: to, From: []check.Status{from}}
		if data != "" {
			u.Validated, u.Data = ptr(true), []byte(data)
		}
		if _, _, err := worker.UpdateCheck(ctx, byType[typ], u); err != nil {
			t.Fatal(err)
		}
	}
	write(check.IBAN, check.Queued, check.Running, "") // before the counter
	write(check.IBAN, check.Running, check.Completed, `{"n":1}`)
	if err := admin.CountResultWrites(ctx); err != nil {
		t.Fatal(err)
	}
	// A diagnostic, not the schema: gone before the schema's own tests look.
	t.Cleanup(func() {
		if _, err := admin.DB().ExecContext(ctx, `DROP TRIGGER result_writes ON checks; DROP FUNCTION result_writes(); DROP TABLE result_writes;
			DROP TRIGGER attempt_writes ON document_attempts; DROP FUNCTION attempt_writes(); DROP TABLE attempt_writes`); err != nil {
			t.Error(err)
		}
	})
	write(check.CoC, check.Queued, check.Running, "")
	write(check.CoC, check.Running, check.Completed, `{"n":1}`)
	write(check.VAT, check.Queued, check.Running, `{"n":1}`)
	write(check.VAT, check.Running, check.Completed, `{"n":2}`)

	if w, err := admin.ResultWrites(ctx, byType[check.VAT].CheckID); err != nil || !slices.Equal(w, []check.Status{check.Running, check.Completed}) {
		t.Fatalf("vat writes %v %v", w, err)
	}
	a, err := admin.AuditResults(ctx, []uuid.UUID{b.ID, uuid.New()})
	if err != nil || a != (store.ResultAudit{Found: 1, Twice: 1, Unwritten: 1}) {
		t.Fatalf("audit %+v %v", a, err)
	}
	rows, err := admin.ChecksOfBusinesses(ctx, []uuid.UUID{b.ID})
	if err != nil || len(rows) != 3 {
		t.Fatalf("checks %v %v", rows, err)
	}
	for _, r := range rows {
		if r.Status != check.Completed || r.ToFinal <= 0 {
			t.Errorf("check %+v: want completed, with its time to final", r)
		}
	}
}
