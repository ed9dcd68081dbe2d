package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/kycflow/kycflow/check"
)

// FaceReview is one recorded decision on an idscan check's face match:
// the audit trail of face_reviews.
type FaceReview struct {
	TenantID   uuid.UUID `db:"tenant_id"`
	CustomerID uuid.UUID `db:"customer_id"`
	CheckID    uuid.UUID `db:"check_id"`
	Decided
}

const faceReviewCols = `tenant_id, customer_id, check_id, decision, reviewer, note, decided_at, approved_by, approved_at, approval_note,
	reviewer_by, approved_via`

// recordFaceReview is RecordReview for an idscan check whose face match a
// person decides (check.FaceMatchEntity): the decision in
// data.checks.face_match.review, and once in force (under four eyes,
// approved) a face_reviews row — its trigger writes check.reviewed — and
// the check completed: validated on same_person (the match between the
// thresholds was all that stood in the way), else validated false with
// face_mismatch.
func recordFaceReview(ctx context.Context, tx *sqlx.Tx, c Check, sub ReviewSubmission, u check.ReviewUpdate, notes map[string]*string,
	at time.Time, fourEyes bool, out *ReviewOutcome) error {
	var d check.IDScanData
	if err := json.Unmarshal(c.Data, &d); err != nil {
		return fmt.Errorf("read idscan data: %w", err)
	}
	fm := d.Checks.FaceMatch
	if fm == nil {
		out.Rejected = "The check has no face match to review."
		return nil
	}
	by := sub.By()
	stamp := at.UTC().Format(time.RFC3339Nano)
	for _, dec := range u.Decisions {
		if dec.EntityID != check.FaceMatchEntity || fm.Review.Final() {
			continue
		}
		if dec.Decision != check.SamePerson && dec.Decision != check.DifferentPerson {
			out.Rejected = "A face match is decided same_person or different_person."
			return nil
		}
		note := notes[dec.EntityID]
		fresh := &check.HitReview{Decision: dec.Decision, Reviewer: sub.Reviewer, Note: note, DecidedAt: stamp, CheckID: c.ID.String(), By: &by}
		step := applyDecision(&fm.Review, fresh, fourEyes)
		if step == decisionIgnored {
			continue
		}
		out.Applied = true
		if step == decisionApproved {
			out.Approved = append(out.Approved, check.FaceMatchEntity)
		}
	}
	if !out.Applied {
		return nil
	}
	done := fm.Review.Final()
	var row FaceReview
	if done {
		decided, err := inForce(fm.Review, at)
		if err != nil {
			return err
		}
		row = FaceReview{TenantID: c.TenantID, CustomerID: *c.CustomerID, CheckID: c.ID, Decided: decided}
		v := fm.Review.Decision == check.SamePerson
		out.Status, out.Validated = check.Completed, &v
		if v {
			d.Reason, d.Message = nil, ptr("A reviewer found the selfie to show the document's holder.")
		} else {
			d.Reason, d.Message = ptr(check.ReasonFaceMismatch), ptr("A reviewer found the selfie not to show the document's holder.")
		}
	}
	data, err := json.Marshal(d)
	if err != nil {
		return err
	}
	// As for aml reviews: the data, the row (its event), then the status.
	if _, err := tx.ExecContext(ctx, `UPDATE checks SET data = $3, updated_at = $4 WHERE tenant_id = $1 AND id = $2`,
		c.TenantID, c.ID, JSON(data), at); err != nil {
		return err
	}
	if !done {
		return nil
	}
	if _, err := tx.NamedExecContext(ctx, `INSERT INTO face_reviews (`+faceReviewCols+`) VALUES (:tenant_id, :customer_id, :check_id, :decision,
		:reviewer, :note, :decided_at, :approved_by, :approved_at, :approval_note, :reviewer_by, :approved_via)`, row); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE checks SET status = $3, validated = $4, completed_at = $5 WHERE tenant_id = $1 AND id = $2`,
		c.TenantID, c.ID, check.Completed, *out.Validated, at)
	return err
}

// FaceReviews are the decisions recorded on a customer's face matches,
// newest first: the audit trail.
func (s *Store) FaceReviews(ctx context.Context, tenantID, customerID uuid.UUID) ([]FaceReview, error) {
	var out []FaceReview
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		return tx.SelectContext(ctx, &out, `SELECT `+faceReviewCols+` FROM face_reviews WHERE tenant_id = $1 AND customer_id = $2
			ORDER BY decided_at DESC`, tenantID, customerID)
	})
	return out, err
}
