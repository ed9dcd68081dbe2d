package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
)

var challenge = store.Challenge{Steps: []string{"turn_left", "blink"}, Nonce: "0123456789abcdef0123456789abcdef"}

// TestSelfieAttempts walks a selfie through the store: a challenge drawn
// when the document is read, frames that answer it (and none that answer
// another), a retake with the next challenge, the outcome that clears the
// draft and, for a tenant that keeps no images, erases the frames and the
// document's images.
func TestSelfieAttempts(t *testing.T) {
	ctx := context.Background()
	admin, app, worker := open(t, ownerDSN), open(t, appDSN), open(t, workerDSN)
	tn := newTenant(t, admin, "selfie.example")
	if err := admin.SetImageRetention(ctx, tn.ID, 0); err != nil {
		t.Fatal(err)
	}
	ref := idscanLink(t, app, tn)
	if _, err := app.AddSelfie(ctx, ref, challenge.Nonce, sealedImage); !errors.Is(err, store.ErrNoChallenge) {
		t.Fatalf("frames before the document is read: %v", err)
	}
	if _, err := app.AddDocument(ctx, ref, sealedImage); err != nil {
		t.Fatal(err)
	}
	if err := worker.ReadForSelfie(ctx, ref, 1, nil, "k1", []byte("draft"), challenge); err != nil {
		t.Fatal(err)
	}
	if err := worker.ReadForSelfie(ctx, ref, 1, nil, "k1", []byte("again"), challenge); err != nil { // a retried activity
		t.Fatal(err)
	}
	// A second photo of the document, read while the selfie is awaited,
	// keeps the challenge the person has.
	if _, err := app.AddDocument(ctx, ref, sealedImage); err != nil {
		t.Fatal(err)
	}
	other := store.Challenge{Steps: []string{"look_up", "blink"}, Nonce: "00000000000000000000000000000000"}
	if err := worker.ReadForSelfie(ctx, ref, 2, nil, "k1", []byte("draft"), other); err != nil {
		t.Fatal(err)
	}
	if as, _ := worker.SelfieAttempts(ctx, ref); len(as) != 1 || as[0].Status != check.SelfieAwaiting || as[0].Nonce != challenge.Nonce {
		t.Fatalf("after the reads: %+v", as)
	}
	if _, err := app.AddSelfie(ctx, ref, "ffffffffffffffffffffffffffffffff", sealedImage); !errors.Is(err, store.ErrWrongNonce) {
		t.Fatalf("another challenge's nonce: %v", err)
	}
	if _, err := app.AddSelfie(ctx, ref, challenge.Nonce, append(sealedImage, sealedImage...)); err != nil {
		t.Fatal(err)
	}
	if _, err := app.AddSelfie(ctx, ref, challenge.Nonce, sealedImage); !errors.Is(err, store.ErrNoChallenge) {
		t.Fatalf("the same challenge answered twice: %v", err)
	}
	if n, _ := worker.UnreadDocuments(ctx, ref); n != 1 {
		t.Fatalf("unread after the frames: %d", n)
	}
	sa, frames, err := worker.NextSelfie(ctx, ref)
	if err != nil || sa.N != 1 || len(frames) != 2 || frames[0].Sealed == nil {
		t.Fatalf("next selfie: %+v, %d frames, %v", sa, len(frames), err)
	}
	next := store.Challenge{Steps: []string{"look_up", "turn_right"}, Nonce: "fedcba9876543210fedcba9876543210"}
	reason := check.SelfieNoFace
	if err := worker.FinishSelfie(ctx, ref, 1, check.SelfieRetake, &reason, &next, true); err != nil {
		t.Fatal(err)
	}
	as, _ := worker.SelfieAttempts(ctx, ref)
	if len(as) != 2 || as[0].Status != check.SelfieRetake || as[0].Frames != 0 || as[1].Status != check.SelfieAwaiting || as[1].Nonce != next.Nonce {
		t.Fatalf("after the retake: %+v", as)
	}
	if _, sealed, err := worker.Draft(ctx, ref); err != nil || string(sealed) != "draft" {
		t.Fatalf("the draft after a retake: %q %v", sealed, err)
	}
	if _, err := app.AddSelfie(ctx, ref, next.Nonce, sealedImage); err != nil {
		t.Fatal(err)
	}
	if err := worker.FinishSelfie(ctx, ref, 2, check.SelfieDone, nil, nil, true); err != nil {
		t.Fatal(err)
	}
	if _, _, err := worker.Draft(ctx, ref); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the draft after the outcome: %v", err)
	}
	if _, err := worker.ReadDocument(ctx, ref); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the document's images of a tenant that keeps none: %v", err)
	}
	if as, _ := worker.SelfieAttempts(ctx, ref); as[1].Status != check.SelfieDone || as[1].Frames != 0 {
		t.Fatalf("after the outcome: %+v", as[1])
	}
}

// Selfie frames are erased with the document's images once the check's
// retention has passed, by the same housekeeping function.
func TestSelfieFramesErasedPastRetention(t *testing.T) {
	ctx := context.Background()
	admin, app, worker := open(t, ownerDSN), open(t, appDSN), open(t, workerDSN)
	tn := newTenant(t, admin, "selfie-erase.example")
	ref := idscanLink(t, app, tn)
	if _, err := app.AddDocument(ctx, ref, sealedImage); err != nil {
		t.Fatal(err)
	}
	if err := worker.ReadForSelfie(ctx, ref, 1, nil, "k1", []byte("draft"), challenge); err != nil {
		t.Fatal(err)
	}
	if _, err := app.AddSelfie(ctx, ref, challenge.Nonce, append(sealedImage, sealedImage...)); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.DB().Exec(`UPDATE checks SET status = 'completed', completed_at = now() - interval '29 days' WHERE id = $1`, ref.CheckID); err != nil {
		t.Fatal(err)
	}
	if n, err := worker.EraseDocumentImages(ctx); err != nil || n != 0 {
		t.Fatalf("erased %d within the retention: %v", n, err)
	}
	if _, err := admin.DB().Exec(`UPDATE checks SET completed_at = now() - interval '30 days 1 second' WHERE id = $1`, ref.CheckID); err != nil {
		t.Fatal(err)
	}
	if n, err := worker.EraseDocumentImages(ctx); err != nil || n != 3 {
		t.Fatalf("erased %d past the retention, want the image and two frames: %v", n, err)
	}
	var frames int
	admin.DB().Get(&frames, `SELECT count(*) FROM selfie_frames WHERE check_id = $1`, ref.CheckID)
	if as, _ := worker.SelfieAttempts(ctx, ref); frames != 0 || len(as) != 1 {
		t.Errorf("after erasure: %d frames, attempts %+v", frames, as)
	}
}
