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

// sealedImage stands for an image the api sealed: the store keeps bytes
// it cannot read.
var sealedImage = []store.DocumentImage{{ContentType: "image/jpeg", Bytes: 3, Width: 640, Height: 480, Orientation: 1,
	SHA256: make([]byte, 32), KeyID: "k1", Sealed: []byte("sealed bytes")}}

// idscanLink is a new customer's idscan check, its link issued (mails off).
func idscanLink(t *testing.T, app *store.Store, tenant store.Tenant) check.Ref {
	t.Helper()
	_, checks, _, err := app.CreateCustomer(context.Background(), tenant.ID, store.Customer{Name: "P", Email: "p@example.com", CountryID: 528}, []check.Type{check.IDScan})
	if err != nil {
		t.Fatal(err)
	}
	return check.Ref{TenantID: tenant.ID, CheckID: checks[0].ID}
}

// Uploads are numbered attempts, two images at most each, up to the
// tenant's maximum; the worker reads the oldest unread one, records its
// outcome once, and erases its images when the tenant keeps none.
func TestDocumentAttempts(t *testing.T) {
	ctx := context.Background()
	admin, app, worker := open(t, ownerDSN), open(t, appDSN), open(t, workerDSN)
	tn := newTenant(t, admin, "docs.example")
	if err := admin.SetIDScanMaxAttempts(ctx, tn.ID, 2); err != nil {
		t.Fatal(err)
	}
	ref := idscanLink(t, app, tn)
	two := append(slices.Clone(sealedImage), sealedImage[0])
	first, err := app.AddDocument(ctx, ref, two)
	if err != nil || first.N != 1 || first.Status != check.AttemptReading {
		t.Fatalf("first upload: %+v %v", first, err)
	}
	if _, err := app.AddDocument(ctx, ref, append(slices.Clone(two), two[0])); err == nil {
		t.Fatal("an upload of three images was taken")
	}
	second, err := app.AddDocument(ctx, ref, sealedImage)
	if err != nil || second.N != 2 {
		t.Fatalf("second upload: %+v %v", second, err)
	}
	if _, err := app.AddDocument(ctx, ref, sealedImage); !errors.Is(err, store.ErrAttemptsUsed) {
		t.Fatalf("third upload of two allowed: %v", err)
	}

	att, images, err := worker.NextDocument(ctx, ref)
	if err != nil || att.N != 1 || len(images) != 2 || images[0].N != 1 || images[1].N != 2 || string(images[0].Sealed) != "sealed bytes" {
		t.Fatalf("next: %+v %+v %v", att, images, err)
	}
	reason := check.RetakeGlare
	if _, err := worker.FinishDocument(ctx, ref, 1, check.AttemptRetake, &reason, []byte(`{"glare":0.2}`), false); err != nil {
		t.Fatal(err)
	}
	// A repeated call changes nothing.
	if _, err := worker.FinishDocument(ctx, ref, 1, check.AttemptRead, nil, nil, true); err != nil {
		t.Fatal(err)
	}
	att, images, err = worker.NextDocument(ctx, ref)
	if err != nil || att.N != 2 || len(images) != 1 || images[0].N != 3 {
		t.Fatalf("next after the first: %+v %+v %v", att, images, err)
	}
	if _, err := worker.FinishDocument(ctx, ref, 2, check.AttemptRead, nil, nil, true); err != nil {
		t.Fatal(err)
	}
	if _, _, err := worker.NextDocument(ctx, ref); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("next with none unread: %v", err)
	}
	as, err := worker.DocumentAttempts(ctx, ref)
	if err != nil || len(as) != 2 || as[0].Status != check.AttemptRetake || *as[0].Reason != check.RetakeGlare || as[0].Images != 2 ||
		as[1].Status != check.AttemptRead || as[1].Images != 0 || as[1].ReadAt == nil {
		t.Fatalf("attempts: %+v %v", as, err)
	}
}

// The tenant's staff see a check's kept images, each view audited; another
// tenant gets 404s. Past the retention after the check ends, housekeeping
// erases the images and keeps the attempts; deleting the customer erases
// them at once.
func TestDocumentImagesRetention(t *testing.T) {
	ctx := context.Background()
	admin, app, worker := open(t, ownerDSN), open(t, appDSN), open(t, workerDSN)
	tn, other := newTenant(t, admin, "keep.example"), newTenant(t, admin, "keep-other.example")
	ref := idscanLink(t, app, tn)
	if _, err := app.AddDocument(ctx, ref, sealedImage); err != nil {
		t.Fatal(err)
	}
	me := store.Principal{TenantID: tn.ID}
	images, until, err := app.CheckImages(ctx, me, ref.CheckID)
	if err != nil || len(images) != 1 || until != nil || images[0].Sealed != nil {
		t.Fatalf("images: %+v until %v %v", images, until, err)
	}
	if im, err := app.CheckImage(ctx, me, ref.CheckID, 1); err != nil || string(im.Sealed) != "sealed bytes" {
		t.Fatalf("image 1: %+v %v", im, err)
	}
	var views int
	if err := admin.DB().Get(&views, `SELECT count(*) FROM audit_log WHERE tenant_id = $1 AND action = 'image.viewed' AND record_id = $2`, tn.ID, ref.CheckID); err != nil || views != 1 {
		t.Fatalf("audited views: %d %v", views, err)
	}
	them := store.Principal{TenantID: other.ID}
	if _, _, err := app.CheckImages(ctx, them, ref.CheckID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another tenant listed the images: %v", err)
	}
	if _, err := app.CheckImage(ctx, them, ref.CheckID, 1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another tenant read an image: %v", err)
	}
	if _, err := app.CheckImage(ctx, me, ref.CheckID, 2); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("image 2 of 1: %v", err)
	}

	// The check ends; within the retention the image stays.
	if _, err := admin.DB().Exec(`UPDATE checks SET status = 'completed', completed_at = now() - interval '29 days' WHERE id = $1`, ref.CheckID); err != nil {
		t.Fatal(err)
	}
	if n, err := worker.EraseDocumentImages(ctx); err != nil || n != 0 {
		t.Fatalf("erased %d within the retention: %v", n, err)
	}
	if _, until, _ := app.CheckImages(ctx, me, ref.CheckID); until == nil || time.Until(*until) < 23*time.Hour || time.Until(*until) > 25*time.Hour {
		t.Errorf("kept until %v, want a day from now", until)
	}
	// A day later (the clock moved by moving the check's end), it is erased;
	// the attempt stays.
	if _, err := admin.DB().Exec(`UPDATE checks SET completed_at = now() - interval '30 days 1 second' WHERE id = $1`, ref.CheckID); err != nil {
		t.Fatal(err)
	}
	if n, err := worker.EraseDocumentImages(ctx); err != nil || n != 1 {
		t.Fatalf("erased %d past the retention: %v", n, err)
	}
	if _, err := app.CheckImage(ctx, me, ref.CheckID, 1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an erased image was read: %v", err)
	}
	var left, attempts int
	admin.DB().Get(&left, `SELECT count(*) FROM document_images WHERE check_id = $1`, ref.CheckID)
	admin.DB().Get(&attempts, `SELECT count(*) FROM document_attempts WHERE check_id = $1`, ref.CheckID)
	if left != 0 || attempts != 1 {
		t.Errorf("after erasure: %d images, %d attempts", left, attempts)
	}

	// A check that failed (support may retry it) never completes: its
	// retention runs from when it failed.
	failed := idscanLink(t, app, tn)
	if _, err := app.AddDocument(ctx, failed, sealedImage); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.DB().Exec(`UPDATE checks SET status = 'failed', updated_at = now() - interval '29 days' WHERE id = $1`, failed.CheckID); err != nil {
		t.Fatal(err)
	}
	if _, until, _ := app.CheckImages(ctx, me, failed.CheckID); until == nil || time.Until(*until) > 25*time.Hour {
		t.Errorf("a failed check's images kept until %v, want a day from now", until)
	}
	if n, err := worker.EraseDocumentImages(ctx); err != nil || n != 0 {
		t.Fatalf("erased %d of a check failed within the retention: %v", n, err)
	}
	if _, err := admin.DB().Exec(`UPDATE checks SET updated_at = now() - interval '30 days 1 second' WHERE id = $1`, failed.CheckID); err != nil {
		t.Fatal(err)
	}
	if n, err := worker.EraseDocumentImages(ctx); err != nil || n != 1 {
		t.Fatalf("erased %d of a check failed past the retention: %v", n, err)
	}

	// A tenant that keeps none: the check's end is enough.
	if err := admin.SetImageRetention(ctx, tn.ID, 0); err != nil {
		t.Fatal(err)
	}
	ref2 := idscanLink(t, app, tn)
	if _, err := app.AddDocument(ctx, ref2, sealedImage); err != nil {
		t.Fatal(err)
	}
	if n, _ := worker.EraseDocumentImages(ctx); n != 0 {
		t.Fatalf("erased an image of a running check")
	}
	if _, err := admin.DB().Exec(`UPDATE checks SET status = 'completed', completed_at = now() WHERE id = $1`, ref2.CheckID); err != nil {
		t.Fatal(err)
	}
	if n, _ := worker.EraseDocumentImages(ctx); n != 1 {
		t.Fatalf("erased %d of a tenant keeping none", n)
	}

	// Deleting the customer erases its images at once.
	ref3 := idscanLink(t, app, tn)
	if _, err := app.AddDocument(ctx, ref3, sealedImage); err != nil {
		t.Fatal(err)
	}
	var customer uuid.UUID
	if err := admin.DB().Get(&customer, `SELECT customer_id FROM checks WHERE id = $1`, ref3.CheckID); err != nil {
		t.Fatal(err)
	}
	if err := app.DeleteCustomer(ctx, me, customer); err != nil {
		t.Fatal(err)
	}
	admin.DB().Get(&left, `SELECT count(*) FROM document_images WHERE check_id = $1`, ref3.CheckID)
	admin.DB().Get(&attempts, `SELECT count(*) FROM document_attempts WHERE check_id = $1`, ref3.CheckID)
	if left != 0 || attempts != 0 {
		t.Errorf("after deleting the customer: %d images, %d attempts", left, attempts)
	}
}
