package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/kycflow/kycflow/check"
)

// AMLReview is one recorded decision on a hit.
type AMLReview struct {
	TenantID   uuid.UUID      `db:"tenant_id"`
	CustomerID uuid.UUID      `db:"customer_id"`
	CheckID    uuid.UUID      `db:"check_id"`
	EntityID   string         `db:"entity_id"`
	EntityHash string         `db:"entity_hash"`
	QueryHash  string         `db:"query_hash"`
	Decision   check.Decision `db:"decision"`
	Reviewer   string         `db:"reviewer"`
	Note       *string        `db:"note"`
	DecidedAt  time.Time      `db:"decided_at"`
	ApprovedBy *string        `db:"approved_by"`
	ApprovedAt *time.Time     `db:"approved_at"`
}

// HitReview is the decision as a hit shows it.
func (r AMLReview) HitReview() *check.HitReview {
	h := &check.HitReview{Decision: r.Decision, Reviewer: r.Reviewer, Note: r.Note,
		DecidedAt: r.DecidedAt.UTC().Format(time.RFC3339Nano), CheckID: r.CheckID.String(), ApprovedBy: r.ApprovedBy}
	if r.ApprovedAt != nil {
		h.ApprovedAt = ptr(r.ApprovedAt.UTC().Format(time.RFC3339Nano))
	}
	return h
}

const amlReviewCols = `check_id, entity_id, entity_hash, query_hash, decision, reviewer, note, decided_at, approved_by, approved_at`

// AMLMemory returns the latest decision on each entity a customer's hits
// were reviewed for: what a new screening of the customer remembers.
func (s *Store) AMLMemory(ctx context.Context, tenantID, customerID uuid.UUID) ([]AMLReview, error) {
	var out []AMLReview
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		return tx.SelectContext(ctx, &out, `SELECT DISTINCT ON (entity_id) `+amlReviewCols+` FROM aml_reviews
			WHERE tenant_id = $1 AND customer_id = $2 ORDER BY entity_id, decided_at DESC, id DESC`, tenantID, customerID)
	})
	return out, err
}

// ReviewOutcome is what recording a review did.
type ReviewOutcome struct {
	// Applied: the decisions were recorded now (false: the check was no
	// longer awaiting review, or a repeat found them recorded already).
	Applied bool
	// Status and Validated are the check's afterwards: completed once
	// every alerting hit is decided.
	Status    check.Status
	Validated *bool
}

// RecordReview records a review's decisions on an aml check awaiting
// review, in one transaction: each decided hit's review in the check's
// data, an aml_reviews row per decision in force (the audit trail and the
// memory of false positives; its trigger writes the check.reviewed event)
// and, once every alerting hit is decided, the check completed: validated
// false if a hit is a true match, else true. Decisions on hits decided
// already are skipped, so a repeated call changes nothing.
//
// Under four eyes a decision is first pending (in the data only); another
// reviewer's same decision approves it (then it is in force, its row
// naming both), another's different decision replaces it as the one
// pending; the decider's own repeat changes nothing.
func (s *Store) RecordReview(ctx context.Context, ref check.Ref, r check.ReviewRequest, at time.Time, fourEyes bool) (ReviewOutcome, error) {
	var out ReviewOutcome
	err := s.inTenant(ctx, ref.TenantID, func(tx *sqlx.Tx) error {
		var c Check
		if err := tx.GetContext(ctx, &c, `SELECT `+checkCols+` FROM checks WHERE tenant_id = $1 AND id = $2 FOR UPDATE`,
			ref.TenantID, ref.CheckID); err != nil {
			return err
		}
		out.Status, out.Validated = c.Status, c.Validated
		if c.Status != check.AwaitingReview || c.CustomerID == nil {
			return nil
		}
		var d check.AMLData
		if err := json.Unmarshal(c.Data, &d); err != nil {
			return fmt.Errorf("read aml data: %w", err)
		}
		stamp := at.UTC().Format(time.RFC3339Nano)
		var rows []AMLReview
		for _, dec := range r.Decisions {
			var note *string
			if dec.Note != "" {
				note = &dec.Note
			}
			for i := range d.Hits {
				h := &d.Hits[i]
				if h.EntityID != dec.EntityID || !h.Alerting || h.Review.Final() {
					continue
				}
				switch {
				case fourEyes && h.Review != nil && check.SameReviewer(h.Review.Reviewer, r.Reviewer):
					continue // the decider's own: never an approval
				case fourEyes && (h.Review == nil || h.Review.Decision != dec.Decision):
					h.Review = &check.HitReview{Decision: dec.Decision, Reviewer: r.Reviewer, Note: note, DecidedAt: stamp, CheckID: c.ID.String(), Pending: true}
					out.Applied = true
					continue
				case fourEyes: // another reviewer's same decision: approved
					h.Review.Pending, h.Review.ApprovedBy, h.Review.ApprovedAt = false, &r.Reviewer, &stamp
				default:
					h.Review = &check.HitReview{Decision: dec.Decision, Reviewer: r.Reviewer, Note: note, DecidedAt: stamp, CheckID: c.ID.String()}
				}
				out.Applied = true
				if slices.ContainsFunc(rows, func(r AMLReview) bool { return r.EntityID == h.EntityID }) {
					continue // listed twice (two lists share the id): one decision
				}
				row := AMLReview{TenantID: ref.TenantID, CustomerID: *c.CustomerID, CheckID: c.ID, EntityID: h.EntityID, EntityHash: h.EntityHash, QueryHash: d.Query.Hash(),
					Decision: h.Review.Decision, Reviewer: h.Review.Reviewer, Note: h.Review.Note, DecidedAt: at}
				if h.Review.ApprovedBy != nil {
					decided, err := time.Parse(time.RFC3339Nano, h.Review.DecidedAt)
					if err != nil {
						return fmt.Errorf("read the pending decision's time: %w", err)
					}
					row.DecidedAt, row.ApprovedBy, row.ApprovedAt = decided, h.Review.ApprovedBy, &at
				}
				rows = append(rows, row)
			}
		}
		if !out.Applied {
			return nil
		}
		done, match := true, false
		for _, h := range d.Hits {
			if h.Alerting && !h.Review.Final() {
				done = false
			}
			if h.Alerting && h.Review.Final() && h.Review.Decision == check.TrueMatch {
				match = true
			}
		}
		if done {
			v := !match
			out.Status, out.Validated = check.Completed, &v
			if v {
				d.Reason, d.Message = nil, ptr("Every alerting hit was reviewed as a false positive.")
			} else {
				d.Message = ptr("A reviewer confirmed a hit as a true match.")
			}
		}
		data, err := json.Marshal(d)
		if err != nil {
			return err
		}
		// The data first, so the check.reviewed event shows the decisions;
		// then the rows (their trigger writes that event); then the status,
		// whose own event follows it.
		if _, err := tx.ExecContext(ctx, `UPDATE checks SET data = $3, updated_at = $4 WHERE tenant_id = $1 AND id = $2`,
			ref.TenantID, ref.CheckID, JSON(data), at); err != nil {
			return err
		}
		if len(rows) > 0 {
			if _, err := tx.NamedExecContext(ctx, `INSERT INTO aml_reviews (tenant_id, customer_id, `+amlReviewCols+`)
				VALUES (:tenant_id, :customer_id, :check_id, :entity_id, :entity_hash, :query_hash, :decision, :reviewer, :note, :decided_at, :approved_by, :approved_at)`,
				rows); err != nil {
				return err
			}
		}
		if done {
			_, err = tx.ExecContext(ctx, `UPDATE checks SET status = $3, validated = $4, completed_at = $5 WHERE tenant_id = $1 AND id = $2`,
				ref.TenantID, ref.CheckID, check.Completed, *out.Validated, at)
		}
		return err
	})
	if err == nil && out.Applied {
		s.wakeRelay() // the events' deliveries
	}
	return out, err
}

// ReviewQueue lists a tenant's aml checks awaiting review, oldest first.
func (s *Store) ReviewQueue(ctx context.Context, tenantID uuid.UUID, q PageQuery) (Page[Check], error) {
	q.OldestFirst = true
	var p Page[Check]
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) (err error) {
		p, err = listPage(ctx, tx, "checks", checkCols, " AND status = $2", []any{tenantID, check.AwaitingReview}, q, func(c Check) uuid.UUID { return c.ID })
		return err
	})
	return p, err
}

func ptr[T any](v T) *T { return &v }
