package store_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
)

// awaitingFace creates a customer whose idscan check awaits a person's
// decision on its face match, between the tenant's thresholds.
func awaitingFace(t *testing.T, app, worker *store.Store, tenantID uuid.UUID) check.Ref {
	t.Helper()
	ctx := context.Background()
	_, checks, _, err := app.CreateCustomer(ctx, tenantID, store.Customer{Name: "Face Me", Email: "f@example.com", CountryID: 528}, []check.Type{check.IDScan})
	if err != nil {
		t.Fatal(err)
	}
	ref := checks[0].Ref()
	if _, _, err := worker.UpdateCheck(ctx, ref, store.CheckUpdate{Status: check.Running, From: []check.Status{check.Queued}}); err != nil {
		t.Fatal(err)
	}
	reason := check.ReasonFaceReview
	d := check.IDScanData{Outcome: check.OutcomeChecked, Reason: &reason, Errors: []check.IDScanError{}, Corrections: []check.MRZCorrection{}}
	d.Checks.FaceMatch = &check.SubCheck{Result: check.Consider, Reason: &reason, Face: &check.FaceMeasures{Similarity: 0.45, Clear: 0.5, Fail: 0.4}}
	b, _ := json.Marshal(d)
	if applied, _, err := worker.UpdateCheck(ctx, ref, store.CheckUpdate{Status: check.AwaitingReview, From: []check.Status{check.Running}, Data: b}); err != nil || !applied {
		t.Fatalf("awaiting review: %v %v", applied, err)
	}
	return ref
}

func faceMatch(t *testing.T, app *store.Store, ref check.Ref) (store.Check, *check.SubCheck, *string) {
	t.Helper()
	c, err := app.GetCheck(context.Background(), ref.TenantID, ref.CheckID)
	if err != nil {
		t.Fatal(err)
	}
	var d check.IDScanData
	if err := json.Unmarshal(c.Data, &d); err != nil {
		t.Fatal(err)
	}
	return c, d.Checks.FaceMatch, d.Reason
}

// A face match between the thresholds is decided as aml hits are: under
// four eyes the first decision is pending (in the data only) and the
// decider's own repeat changes nothing; another reviewer's same decision
// approves it — the check completes, validated on same_person, with one
// audit row naming both and their notes, and check.reviewed before the
// completion's event. Without four eyes different_person completes it
// validated false, face_mismatch. An aml decision on a face match is
// refused; another tenant sees no row; deleting the customer clears the
// notes and keeps the rows.
func TestRecordFaceReview(t *testing.T) {
	ctx := context.Background()
	admin, app, worker := open(t, ownerDSN), open(t, appDSN), open(t, workerDSN)
	tn := newTenant(t, admin, "face-review.example")
	other := newTenant(t, admin, "face-review-other.example")
	ref := awaitingFace(t, app, worker, tn.ID)
	at := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	decide := func(name string, d check.Decision, note string) check.ReviewUpdate {
		return submitted(t, app, viaKey(tn.ID), ref, check.ReviewRequest{Reviewer: name, Decisions: []check.ReviewDecision{
			{EntityID: check.FaceMatchEntity, Decision: d, Note: note}}})
	}

	if out, err := worker.RecordReview(ctx, ref, decide("A. Officer", check.FalsePositive, "Not this person at all."), at, true); err != nil || out.Applied || out.Rejected == "" {
		t.Fatalf("an aml decision: %+v %v", out, err)
	}
	first := decide("A. Officer", check.SamePerson, "Same ears and hairline.")
	out, err := worker.RecordReview(ctx, ref, first, at, true)
	if err != nil || !out.Applied || out.Status != check.AwaitingReview || out.Validated != nil {
		t.Fatalf("first decision: %+v %v", out, err)
	}
	if _, fm, _ := faceMatch(t, app, ref); fm.Review == nil || !fm.Review.Pending || fm.Review.Decision != check.SamePerson || fm.Review.Reviewer != "A. Officer" {
		t.Fatalf("pending: %+v", fm.Review)
	}
	if out, err := worker.RecordReview(ctx, ref, first, at.Add(time.Minute), true); err != nil || out.Applied {
		t.Fatalf("the decider's own again: %+v %v", out, err)
	}
	if rows, err := worker.FaceReviews(ctx, tn.ID, ref.SubjectID); err != nil || len(rows) != 0 {
		t.Fatalf("a pending decision has a row: %+v %v", rows, err)
	}
	out, err = worker.RecordReview(ctx, ref, decide("B. Officer", check.SamePerson, "Agreed, same person."), at.Add(time.Hour), true)
	if err != nil || !out.Applied || out.Status != check.Completed || out.Validated == nil || !*out.Validated || len(out.Approved) != 1 {
		t.Fatalf("approval: %+v %v", out, err)
	}
	c, fm, reason := faceMatch(t, app, ref)
	if c.Status != check.Completed || c.Validated == nil || !*c.Validated || reason != nil || fm.Review.Pending || *fm.Review.ApprovedBy != "B. Officer" ||
		*fm.Review.ApprovalNote != "Agreed, same person." || fm.Result != check.Consider {
		t.Fatalf("after the approval: %+v %s", c, c.Data)
	}
	rows, err := worker.FaceReviews(ctx, tn.ID, ref.SubjectID)
	if err != nil || len(rows) != 1 || rows[0].Reviewer != "A. Officer" || *rows[0].Note != "Same ears and hairline." || *rows[0].ApprovedBy != "B. Officer" ||
		!rows[0].DecidedAt.Equal(at) || !rows[0].ApprovedAt.Equal(at.Add(time.Hour)) || rows[0].By == nil || rows[0].ApprovedVia == nil {
		t.Fatalf("audit rows: %+v %v", rows, err)
	}
	if rows, _ := app.FaceReviews(ctx, other.ID, ref.SubjectID); len(rows) != 0 {
		t.Fatalf("another tenant sees the rows: %+v", rows)
	}
	evs := allEvents(t, app, tn.ID, store.EventQuery{SubjectID: &ref.SubjectID})
	if got := types(evs); !equalTail(got, []check.EventType{check.CheckReviewed, check.StatusEvent(check.Completed)}) {
		t.Fatalf("events: %v", got)
	}
	var ev struct {
		Review struct {
			Decisions []struct {
				EntityID string `json:"entity_id"`
				Decision check.Decision
			}
		}
	}
	if err := json.Unmarshal(dataOf(t, evs[len(evs)-2]), &ev); err != nil || len(ev.Review.Decisions) != 1 ||
		ev.Review.Decisions[0].EntityID != check.FaceMatchEntity || ev.Review.Decisions[0].Decision != check.SamePerson {
		t.Fatalf("check.reviewed: %s %v", dataOf(t, evs[len(evs)-2]), err)
	}

	// One reviewer decides where the tenant has no four eyes.
	ref2 := awaitingFace(t, app, worker, tn.ID)
	out, err = worker.RecordReview(ctx, ref2, submitted(t, app, viaKey(tn.ID), ref2, check.ReviewRequest{Reviewer: "C. Officer", Decisions: []check.ReviewDecision{
		{EntityID: check.FaceMatchEntity, Decision: check.DifferentPerson}}}), at, false)
	if err != nil || !out.Applied || out.Status != check.Completed || out.Validated == nil || *out.Validated {
		t.Fatalf("different person: %+v %v", out, err)
	}
	if _, _, reason := faceMatch(t, app, ref2); reason == nil || *reason != check.ReasonFaceMismatch {
		t.Fatalf("reason after different_person: %v", reason)
	}

	if err := app.DeleteCustomer(ctx, store.Principal{TenantID: tn.ID}, ref.SubjectID); err != nil {
		t.Fatal(err)
	}
	if rows, err := worker.FaceReviews(ctx, tn.ID, ref.SubjectID); err != nil || len(rows) != 1 || rows[0].Note != nil || rows[0].ApprovalNote != nil {
		t.Fatalf("rows after the delete: %+v %v", rows, err)
	}
}
