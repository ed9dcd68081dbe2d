package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/kycflow/kycflow/check"
)

// audit appends an audit row for p's action on a record: ids only, and a
// detail of ids or counts (never personal data).
func audit(ctx context.Context, tx *sqlx.Tx, p Principal, action, kind string, recordID uuid.UUID, detail any) error {
	var d any
	if detail != nil {
		raw, err := json.Marshal(detail)
		if err != nil {
			return err
		}
		d = JSON(raw)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO audit_log (id, tenant_id, action, record_kind, record_id, api_key_id, staff_id, detail, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, NewID(), p.TenantID, action, kind, recordID, keyIDOf(p), staffIDOf(p), d, now())
	if err != nil {
		return fmt.Errorf("audit %s: %w", action, err)
	}
	return nil
}

// Audit records a staff member's action on a record (p.StaffID acting);
// actions on reviews also raise their event (review.*), by trigger.
func (s *Store) Audit(ctx context.Context, p Principal, action, kind string, recordID uuid.UUID, detail any) error {
	err := s.inTenant(ctx, p.TenantID, func(tx *sqlx.Tx) error { return audit(ctx, tx, p, action, kind, recordID, detail) })
	if err == nil {
		s.wakeRelay()
	}
	return err
}

// ErrNotAssignable: the review cannot go to that staff member (not an
// active member whose role decides reviews).
var ErrNotAssignable = fmt.Errorf("%w: not an active staff member who decides reviews", ErrConflict)

// ErrNotInReview: the check is not an aml check awaiting review.
var ErrNotInReview = fmt.Errorf("%w: not an aml check awaiting review", ErrConflict)

// AssignReview gives an aml check awaiting review to a staff member (nil:
// to no one), as p.StaffID's action: audited, and a review.assigned event.
func (s *Store) AssignReview(ctx context.Context, p Principal, checkID uuid.UUID, to *uuid.UUID) error {
	err := s.inTenant(ctx, p.TenantID, func(tx *sqlx.Tx) error {
		var c Check
		err := tx.GetContext(ctx, &c, `SELECT `+checkCols+` FROM checks WHERE tenant_id = $1 AND id = $2 FOR UPDATE`, p.TenantID, checkID)
		if err != nil {
			return err
		}
		if c.Type != check.AML || c.Status != check.AwaitingReview {
			return ErrNotInReview
		}
		if to == nil {
			if _, err := tx.ExecContext(ctx, `DELETE FROM review_assignments WHERE tenant_id = $1 AND check_id = $2`, p.TenantID, checkID); err != nil {
				return err
			}
		} else {
			var st Staff
			err := tx.GetContext(ctx, &st, `SELECT `+staffCols+` FROM staff WHERE tenant_id = $1 AND id = $2`, p.TenantID, *to)
			if errors.Is(classify(err), ErrNotFound) || (err == nil && (st.Status != check.StaffActive || !st.Role.Can(check.ActionDecide))) {
				return ErrNotAssignable
			}
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO review_assignments (check_id, tenant_id, staff_id, assigned_by, assigned_at) VALUES ($1, $2, $3, $4, $5)
				ON CONFLICT (check_id) DO UPDATE SET staff_id = EXCLUDED.staff_id, assigned_by = EXCLUDED.assigned_by, assigned_at = EXCLUDED.assigned_at`,
				checkID, p.TenantID, *to, p.StaffID, now()); err != nil {
				return err
			}
		}
		return audit(ctx, tx, p, "review.assigned", "check", checkID, map[string]*uuid.UUID{"to": to})
	})
	if err == nil {
		s.wakeRelay()
	}
	return err
}

// Assignee is who has a review in hand.
type Assignee struct {
	StaffID uuid.UUID `db:"staff_id"`
	Email   string    `db:"email"`
}

// ReviewAssignee is who has the review of a check in hand; nil for no one.
func (s *Store) ReviewAssignee(ctx context.Context, tenantID, checkID uuid.UUID) (*Assignee, error) {
	var a []Assignee
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		return tx.SelectContext(ctx, &a, `SELECT a.staff_id, s.email FROM review_assignments a JOIN staff s ON s.tenant_id = a.tenant_id AND s.id = a.staff_id
			WHERE a.tenant_id = $1 AND a.check_id = $2`, tenantID, checkID)
	})
	if err != nil || len(a) == 0 {
		return nil, err
	}
	return &a[0], nil
}

// The inbox's assignment filters.
const (
	AssignedAny  = ""
	AssignedMe   = "me"
	AssignedNone = "none"
)

// InboxQuery selects a page of the review inbox (oldest first; After is
// the last check of the page before).
type InboxQuery struct {
	After    *uuid.UUID
	Limit    int
	Assigned string    // AssignedAny, AssignedMe, AssignedNone
	Me       uuid.UUID // for AssignedMe
	// List: only checks with an alerting hit from that list (any, when
	// empty); MinScore: only those whose top alerting score is at least
	// this.
	List     string
	MinScore float64
	// OlderThan: only checks that have waited at least this long.
	OlderThan time.Duration
}

// InboxItem is an aml check awaiting review, with who has it in hand.
type InboxItem struct {
	Check
	AssigneeID *uuid.UUID `db:"assignee_id"`
	Assignee   *string    `db:"assignee"`
}

// ReviewInbox is the console's review inbox: the tenant's checks awaiting
// review (aml hits, idscan face matches), oldest first, filtered.
func (s *Store) ReviewInbox(ctx context.Context, tenantID uuid.UUID, q InboxQuery) (Page[InboxItem], error) {
	var p Page[InboxItem]
	args := []any{tenantID, check.AwaitingReview}
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	where := ""
	switch q.Assigned {
	// As (NOT) EXISTS, not a test of the join's columns, so the planner
	// walks the queue in order and stops at a page.
	case AssignedMe:
		where += " AND EXISTS (SELECT 1 FROM review_assignments m WHERE m.check_id = c.id AND m.staff_id = " + arg(q.Me) + ")"
	case AssignedNone:
		where += " AND NOT EXISTS (SELECT 1 FROM review_assignments m WHERE m.check_id = c.id)"
	}
	if q.List != "" {
		where += " AND c.review_lists @> ARRAY[" + arg(q.List) + "]::text[]"
	}
	if q.MinScore > 0 {
		where += " AND c.review_top >= " + arg(q.MinScore)
	}
	if q.OlderThan > 0 {
		where += " AND coalesce(nullif(c.data->>'screened_at', '')::timestamptz, c.updated_at) <= " + arg(now().Add(-q.OlderThan))
	}
	if q.After != nil {
		where += " AND c.id > " + arg(*q.After)
	}
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		return tx.SelectContext(ctx, &p.Items, `SELECT `+prefixed("c", checkCols)+`, a.staff_id AS assignee_id, s.email AS assignee
			FROM checks c LEFT JOIN review_assignments a ON a.check_id = c.id
			LEFT JOIN staff s ON s.tenant_id = a.tenant_id AND s.id = a.staff_id
			WHERE c.tenant_id = $1 AND c.status = $2`+where+fmt.Sprintf(` ORDER BY c.id LIMIT %d`, q.Limit+1), args...)
	})
	if len(p.Items) > q.Limit {
		p.Items, p.HasNext = p.Items[:q.Limit], true
	}
	return p, err
}

// AuditEntry is one audit row, with the staff member's address when a
// staff member acted.
type AuditEntry struct {
	Action     string     `db:"action"`
	RecordKind string     `db:"record_kind"`
	RecordID   uuid.UUID  `db:"record_id"`
	KeyID      *uuid.UUID `db:"api_key_id"`
	StaffID    *uuid.UUID `db:"staff_id"`
	StaffEmail *string    `db:"staff_email"`
	Detail     JSON       `db:"detail"`
	CreatedAt  time.Time  `db:"created_at"`
}

// AuditTrail lists the newest audit rows (at most limit) about the given
// records of a tenant, newest first.
func (s *Store) AuditTrail(ctx context.Context, tenantID uuid.UUID, records []uuid.UUID, limit int) ([]AuditEntry, error) {
	var out []AuditEntry
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		return tx.SelectContext(ctx, &out, `SELECT l.action, l.record_kind, l.record_id, l.api_key_id, l.staff_id, s.email AS staff_email, l.detail, l.created_at
			FROM audit_log l LEFT JOIN staff s ON s.tenant_id = l.tenant_id AND s.id = l.staff_id
			WHERE l.tenant_id = $1 AND l.record_id = ANY($2) ORDER BY l.created_at DESC, l.id DESC LIMIT $3`, tenantID, pq.Array(records), limit)
	})
	return out, err
}

// ListedEntity is an entity as a list version holds it (the JSON of a
// watchlist.Entity).
type ListedEntity struct {
	List     string `db:"list"`
	Version  int64  `db:"version_id"`
	EntityID string `db:"entity_id"`
	Data     JSON   `db:"data"`
}

// ListedEntities reads the entities with the given ids from the given list
// versions (a screening's); versions pruned since are missing.
func (s *Store) ListedEntities(ctx context.Context, versions []int64, ids []string) ([]ListedEntity, error) {
	var out []ListedEntity
	err := s.db.SelectContext(ctx, &out, `SELECT v.list, e.version_id, e.entity_id, e.data FROM watchlist_entities e
		JOIN watchlist_versions v ON v.id = e.version_id WHERE e.version_id = ANY($1) AND e.entity_id = ANY($2) ORDER BY e.entity_id, e.version_id`,
		pq.Array(versions), pq.Array(ids))
	return out, classify(err)
}

// FailedQuery selects a page of a tenant's failed checks, newest first.
type FailedQuery struct {
	PageQuery
	Type check.Type // any, when empty
	Code string     // the error's code; any, when empty
}

// FailedChecks lists a tenant's failed checks, newest first.
func (s *Store) FailedChecks(ctx context.Context, tenantID uuid.UUID, q FailedQuery) (Page[Check], error) {
	var p Page[Check]
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) (err error) {
		p, err = listPage(ctx, tx, "checks", checkCols, ` AND status = 'failed' AND ($2 = '' OR type = $2) AND ($3 = '' OR error->>'code' = $3)`,
			[]any{tenantID, string(q.Type), q.Code}, q.PageQuery, func(c Check) uuid.UUID { return c.ID })
		return err
	})
	return p, err
}

// SubjectChecks lists every check of a subject, newest first (at most
// limit).
func (s *Store) SubjectChecks(ctx context.Context, tenantID uuid.UUID, kind check.Kind, subjectID uuid.UUID, limit int) ([]Check, error) {
	var out []Check
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		return tx.SelectContext(ctx, &out, `SELECT `+checkCols+` FROM checks WHERE tenant_id = $1 AND `+subjectColumn(kind)+` = $2 ORDER BY id DESC LIMIT $3`,
			tenantID, subjectID, limit)
	})
	return out, err
}

// prefixed qualifies each of a comma-separated column list with a table
// alias.
func prefixed(alias, cols string) string {
	return alias + "." + strings.ReplaceAll(cols, ", ", ", "+alias+".")
}
