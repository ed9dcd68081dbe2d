package store

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/kycflow/kycflow/check"
)

// AMLReview is one recorded decision on a hit.
type AMLReview struct {
	TenantID   uuid.UUID `db:"tenant_id"`
	CustomerID uuid.UUID `db:"customer_id"`
	CheckID    uuid.UUID `db:"check_id"`
	EntityID   string    `db:"entity_id"`
	EntityHash string    `db:"entity_hash"`
	QueryHash  string    `db:"query_hash"`
	Decided
}

// Decided is a decision in force as its audit row keeps it (aml_reviews,
// face_reviews): who decided and when, and under four eyes who approved.
type Decided struct {
	Decision     check.Decision `db:"decision"`
	Reviewer     string         `db:"reviewer"`
	Note         *string        `db:"note"`
	DecidedAt    time.Time      `db:"decided_at"`
	ApprovedBy   *string        `db:"approved_by"`
	ApprovedAt   *time.Time     `db:"approved_at"`
	ApprovalNote *string        `db:"approval_note"`
	By           *Reviewer      `db:"reviewer_by"`
	ApprovedVia  *Reviewer      `db:"approved_via"`
}

// inForce is the audit row of r, a decision in force recorded at: decided
// then, or — approved then, under four eyes — when it was proposed.
func inForce(r *check.HitReview, at time.Time) (Decided, error) {
	d := Decided{Decision: r.Decision, Reviewer: r.Reviewer, Note: r.Note, DecidedAt: at, By: (*Reviewer)(r.By)}
	if r.ApprovedBy != nil {
		proposed, err := time.Parse(time.RFC3339Nano, r.DecidedAt)
		if err != nil {
			return d, fmt.Errorf("read the pending decision's time: %w", err)
		}
		d.DecidedAt, d.ApprovedBy, d.ApprovedAt, d.ApprovalNote, d.ApprovedVia = proposed, r.ApprovedBy, &at, r.ApprovalNote, (*Reviewer)(r.ApprovedVia)
	}
	return d, nil
}

// Reviewer is a check.Reviewer as a jsonb column keeps it.
type Reviewer check.Reviewer

// Value and Scan make Reviewer a jsonb column.
func (r Reviewer) Value() (driver.Value, error) {
	b, err := json.Marshal(check.Reviewer(r))
	return string(b), err
}

func (r *Reviewer) Scan(src any) error {
	var j JSON
	if err := j.Scan(src); err != nil {
		return err
	}
	return json.Unmarshal(j, (*check.Reviewer)(r))
}

// HitReview is the decision as a hit shows it.
func (r AMLReview) HitReview() *check.HitReview {
	h := &check.HitReview{Decision: r.Decision, Reviewer: r.Reviewer, Note: r.Note, DecidedAt: r.DecidedAt.UTC().Format(time.RFC3339Nano),
		CheckID: r.CheckID.String(), ApprovedBy: r.ApprovedBy, ApprovalNote: r.ApprovalNote,
		By: (*check.Reviewer)(r.By), ApprovedVia: (*check.Reviewer)(r.ApprovedVia)}
	if r.ApprovedAt != nil {
		h.ApprovedAt = ptr(r.ApprovedAt.UTC().Format(time.RFC3339Nano))
	}
	return h
}

const amlReviewCols = `check_id, entity_id, entity_hash, query_hash, decision, reviewer, note, decided_at, approved_by, approved_at,
	approval_note, reviewer_by, approved_via`

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

// ReviewSubmission is a review as it was submitted: who it is by (a staff
// member's session; or an API key and the name its holder claimed) and
// its decisions with their notes. The check's workflow is sent its id.
type ReviewSubmission struct {
	ID       uuid.UUID  `db:"id"`
	TenantID uuid.UUID  `db:"tenant_id"`
	CheckID  uuid.UUID  `db:"check_id"`
	StaffID  *uuid.UUID `db:"staff_id"`
	KeyID    *uuid.UUID `db:"api_key_id"`
	NameID   *uuid.UUID `db:"name_id"`
	// Reviewer is the name shown: a staff member's address, or the name an
	// API review claimed (check.ReviewerName).
	Reviewer  string    `db:"reviewer"`
	Decisions JSON      `db:"decisions"` // []check.ReviewDecision
	CreatedAt time.Time `db:"created_at"`
}

// By is who the submission is by, in ids.
func (r ReviewSubmission) By() check.Reviewer {
	return check.Reviewer{StaffID: r.StaffID, KeyID: r.KeyID, NameID: r.NameID}
}

const submissionCols = `id, tenant_id, check_id, staff_id, api_key_id, name_id, reviewer, decisions, created_at`

// ErrReviewerIsStaff: an API review claims the name of one of the
// tenant's console staff (their address): staff review in the console.
var ErrReviewerIsStaff = fmt.Errorf("%w: the reviewer named is one of the console's staff", ErrConflict)

// AddReviewSubmission keeps a review of a check of p's tenant as
// submitted, and returns it. p is a staff member (StaffID: they review
// under their address) or an API key (KeyID: under the name the review
// claims, whose id it looks up or makes; ErrReviewerIsStaff when that name
// is a staff member's address). ErrNotFound for a check that is not the
// tenant's, or a staff member not active.
func (s *Store) AddReviewSubmission(ctx context.Context, p Principal, checkID uuid.UUID, r check.ReviewRequest) (ReviewSubmission, error) {
	sub := ReviewSubmission{ID: NewID(), TenantID: p.TenantID, CheckID: checkID, CreatedAt: now()}
	decisions, err := json.Marshal(r.Decisions)
	if err != nil {
		return sub, err
	}
	sub.Decisions = decisions
	err = s.inTenant(ctx, p.TenantID, func(tx *sqlx.Tx) error {
		switch {
		case p.StaffID != uuid.Nil:
			sub.StaffID = staffIDOf(p)
			if err := tx.GetContext(ctx, &sub.Reviewer, `SELECT email FROM staff WHERE tenant_id = $1 AND id = $2 AND status = $3`,
				p.TenantID, p.StaffID, check.StaffActive); err != nil {
				return err
			}
		case p.KeyID != uuid.Nil:
			sub.KeyID = keyIDOf(p)
			sub.Reviewer = check.ReviewerName(r.Reviewer)
			key := check.NameKey(r.Reviewer)
			var staff int
			if err := tx.GetContext(ctx, &staff, `SELECT count(*) FROM staff WHERE tenant_id = $1 AND email = $2`, p.TenantID, key); err != nil { // addresses are kept lower-case
				return err
			}
			if staff > 0 {
				return ErrReviewerIsStaff
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO reviewer_names (tenant_id, name_key, id) VALUES ($1, $2, $3) ON CONFLICT (tenant_id, name_key) DO NOTHING`,
				p.TenantID, key, NewID()); err != nil {
				return err
			}
			sub.NameID = new(uuid.UUID)
			if err := tx.GetContext(ctx, sub.NameID, `SELECT id FROM reviewer_names WHERE tenant_id = $1 AND name_key = $2`, p.TenantID, key); err != nil {
				return err
			}
		default:
			return fmt.Errorf("store: a review by no one")
		}
		var found int
		if err := tx.GetContext(ctx, &found, `SELECT count(*) FROM checks WHERE tenant_id = $1 AND id = $2`, p.TenantID, checkID); err != nil || found == 0 {
			return cmp.Or(err, ErrNotFound)
		}
		_, err := tx.NamedExecContext(ctx, `INSERT INTO review_submissions (`+submissionCols+`)
			VALUES (:id, :tenant_id, :check_id, :staff_id, :api_key_id, :name_id, :reviewer, :decisions, :created_at)`, sub)
		return err
	})
	return sub, err
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
	// Approved are the entities whose pending decision this review
	// approved (four eyes).
	Approved []string
	// Rejected says why the review was not the one its update claimed
	// (no such submission of this check, or other decisions or another
	// reviewer than it holds): nothing was recorded.
	Rejected string
}

// RecordReview records a review's decisions on an aml check awaiting
// review (an idscan check's face match: recordFaceReview), in one
// transaction: each decided hit's review in the check's
// data, an aml_reviews row per decision in force (the audit trail and the
// memory of false positives; its trigger writes the check.reviewed event)
// and, once every alerting hit is decided, the check completed: validated
// false if a hit is a true match, else true. Decisions on hits decided
// already are skipped, so a repeated call changes nothing. The review is
// the submission u names, which must be of this check, by u.By and with
// u's decisions; its notes and its reviewer's name are read from it.
//
// Under four eyes a decision is first pending (in the data only); another
// reviewer's same decision approves it (then it is in force, its row
// naming both), another's different decision replaces it as the one
// pending; the decider's own repeat changes nothing (check.Reviewer.Same;
// for a decision recorded before reviews were by id, its name).
func (s *Store) RecordReview(ctx context.Context, ref check.Ref, u check.ReviewUpdate, at time.Time, fourEyes bool) (ReviewOutcome, error) {
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
		var sub ReviewSubmission
		err := tx.GetContext(ctx, &sub, `SELECT `+submissionCols+` FROM review_submissions WHERE tenant_id = $1 AND id = $2 AND check_id = $3`,
			ref.TenantID, u.Submission, ref.CheckID)
		if errors.Is(err, sql.ErrNoRows) {
			out.Rejected = "The review names no submission of this check."
			return nil
		}
		if err != nil {
			return err
		}
		notes, why := sub.matches(u)
		if why != "" {
			out.Rejected = why
			return nil
		}
		if c.Type == check.IDScan {
			return recordFaceReview(ctx, tx, c, sub, u, notes, at, fourEyes, &out)
		}
		by := sub.By()
		var d check.AMLData
		if err := json.Unmarshal(c.Data, &d); err != nil {
			return fmt.Errorf("read aml data: %w", err)
		}
		stamp := at.UTC().Format(time.RFC3339Nano)
		var rows []AMLReview
		for _, dec := range u.Decisions {
			note := notes[dec.EntityID]
			for i := range d.Hits {
				h := &d.Hits[i]
				if h.EntityID != dec.EntityID || !h.Alerting || h.Review.Final() {
					continue
				}
				fresh := &check.HitReview{Decision: dec.Decision, Reviewer: sub.Reviewer, Note: note, DecidedAt: stamp, CheckID: c.ID.String(), By: &by}
				switch applyDecision(&h.Review, fresh, fourEyes) {
				case decisionIgnored:
					continue
				case decisionPending:
					out.Applied = true
					continue
				case decisionApproved:
					if !slices.Contains(out.Approved, h.EntityID) {
						out.Approved = append(out.Approved, h.EntityID)
					}
				}
				out.Applied = true
				if slices.ContainsFunc(rows, func(r AMLReview) bool { return r.EntityID == h.EntityID }) {
					continue // listed twice (two lists share the id): one decision
				}
				decided, err := inForce(h.Review, at)
				if err != nil {
					return err
				}
				rows = append(rows, AMLReview{TenantID: ref.TenantID, CustomerID: *c.CustomerID, CheckID: c.ID, EntityID: h.EntityID,
					EntityHash: h.EntityHash, QueryHash: d.Query.Hash(), Decided: decided})
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
				VALUES (:tenant_id, :customer_id, :check_id, :entity_id, :entity_hash, :query_hash, :decision, :reviewer, :note, :decided_at,
					:approved_by, :approved_at, :approval_note, :reviewer_by, :approved_via)`, rows); err != nil {
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

// What a decision did to the review of a hit (or a face match).
type decisionStep int

const (
	decisionIgnored  decisionStep = iota // the decider's own, again: never an approval
	decisionPending                      // awaits another reviewer's approval (four eyes)
	decisionApproved                     // another reviewer's same decision: in force, naming both
	decisionInForce                      // one reviewer decides (no four eyes)
)

// applyDecision applies fresh, a reviewer's decision, to *cur, the
// review so far (nil: none). Under four eyes a decision is first pending;
// another reviewer's same decision approves it, a different one replaces
// it as the one pending, and the decider's own repeat changes nothing.
func applyDecision(cur **check.HitReview, fresh *check.HitReview, fourEyes bool) decisionStep {
	r := *cur
	switch {
	case !fourEyes:
		*cur = fresh
		return decisionInForce
	case r != nil && decidersOwn(r, *fresh.By, fresh.Reviewer):
		return decisionIgnored
	case r == nil || r.Decision != fresh.Decision:
		fresh.Pending = true
		*cur = fresh
		return decisionPending
	}
	r.Pending, r.ApprovedBy, r.ApprovedAt, r.ApprovalNote, r.ApprovedVia = false, &fresh.Reviewer, &fresh.DecidedAt, fresh.Note, fresh.By
	return decisionApproved
}

// matches reports whether the submission is the review u claims — by
// u.By, with u's decisions — and returns its notes by entity; else why
// not.
func (r ReviewSubmission) matches(u check.ReviewUpdate) (map[string]*string, string) {
	if !reflect.DeepEqual(r.By(), u.By) {
		return nil, "The review is not by the reviewer its submission names."
	}
	var decisions []check.ReviewDecision
	if err := json.Unmarshal(r.Decisions, &decisions); err != nil || len(decisions) != len(u.Decisions) {
		return nil, "The review's decisions are not its submission's."
	}
	notes := map[string]*string{}
	for i, d := range decisions {
		if d.EntityID != u.Decisions[i].EntityID || d.Decision != u.Decisions[i].Decision {
			return nil, "The review's decisions are not its submission's."
		}
		if d.Note != "" {
			notes[d.EntityID] = &d.Note
		}
	}
	return notes, ""
}

// decidersOwn reports whether a review by (named name) is the pending
// decision h's own decider's.
func decidersOwn(h *check.HitReview, by check.Reviewer, name string) bool {
	if h.By != nil {
		return h.By.Same(by)
	}
	return check.SameReviewer(h.Reviewer, name) // recorded before reviews were by id
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
