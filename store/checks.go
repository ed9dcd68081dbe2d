package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/kycflow/kycflow/check"
)

const checkCols = `id, tenant_id, business_id, customer_id, type, status, validated, data, error, created_at, updated_at, completed_at`

// subjectTable is the table holding subjects of this kind.
func subjectTable(kind check.Kind) string {
	if kind == check.Customer {
		return "customers"
	}
	return "businesses"
}

// subjectColumn is the checks column that points at a subject of this kind.
func subjectColumn(kind check.Kind) string {
	if kind == check.Customer {
		return "customer_id"
	}
	return "business_id"
}

// cancelUnfinished marks the subject's unfinished checks (of the given types,
// or all when types is nil) cancelled and queues their workflows' cancellation.
func cancelUnfinished(ctx context.Context, tx *sqlx.Tx, tenantID uuid.UUID, kind check.Kind, subjectID uuid.UUID, types []check.Type, at time.Time) error {
	q := `WITH c AS (
			UPDATE checks SET status = 'cancelled', updated_at = $3, completed_at = $3
			WHERE tenant_id = $1 AND ` + subjectColumn(kind) + ` = $2 AND status = ANY($4)
			  AND ($5::text[] IS NULL OR type = ANY($5))
			RETURNING id, type),
		-- Their verification links stop working with them.
		l AS (UPDATE links SET revoked_at = $3
			WHERE tenant_id = $1 AND check_id IN (SELECT id FROM c) AND used_at IS NULL AND revoked_at IS NULL)
		INSERT INTO outbox (tenant_id, check_id, action, payload)
		SELECT $1, c.id, 'cancel', '{}' FROM c`
	var typesArg any
	if types != nil {
		typesArg = pq.Array(strs(types))
	}
	if _, err := tx.ExecContext(ctx, q, tenantID, subjectID, at, pq.Array(strs(check.Unfinished)), typesArg); err != nil {
		return fmt.Errorf("cancel unfinished checks: %w", err)
	}
	return nil
}

// latestChecks returns the newest check of each type on a subject.
func latestChecks(ctx context.Context, tx *sqlx.Tx, tenantID uuid.UUID, kind check.Kind, subjectID uuid.UUID) (map[check.Type]Check, error) {
	var cs []Check
	// Cancelled checks were superseded, so they rank last: ids come from the
	// api processes' clocks, which may disagree by a few milliseconds.
	err := tx.SelectContext(ctx, &cs, `SELECT DISTINCT ON (type) `+checkCols+` FROM checks
		WHERE tenant_id = $1 AND `+subjectColumn(kind)+` = $2 ORDER BY type, status = 'cancelled', id DESC`, tenantID, subjectID)
	if err != nil {
		return nil, fmt.Errorf("latest checks: %w", err)
	}
	m := make(map[check.Type]Check, len(cs))
	for _, c := range cs {
		m[c.Type] = c
	}
	return m, nil
}

// QueueChecks queues checks on an existing subject; a new check supersedes
// an unfinished one of the same type. For a customer who gets no mails, the
// idin/idscan checks' links are issued here and returned (type → token).
// ErrNotFound when the subject is not the tenant's.
func (s *Store) QueueChecks(ctx context.Context, tenantID uuid.UUID, kind check.Kind, subjectID uuid.UUID, types []check.Type) ([]Check, map[check.Type]string, error) {
	var out []Check
	var links map[check.Type]string
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		// The lock orders concurrent check requests on one record, so each
		// supersedes the one before it.
		q := `SELECT true FROM businesses WHERE tenant_id = $1 AND id = $2 FOR UPDATE`
		if kind == check.Customer {
			q = `SELECT mails FROM customers WHERE tenant_id = $1 AND id = $2 FOR UPDATE`
		}
		var mails bool
		if err := tx.GetContext(ctx, &mails, q, tenantID, subjectID); err != nil {
			return err
		}
		at := now()
		if err := cancelUnfinished(ctx, tx, tenantID, kind, subjectID, types, at); err != nil {
			return err
		}
		added, err := s.writeSubjects(ctx, tx, tenantID, kind, []newSubject{{id: subjectID, types: types, withLinks: !mails, at: at}})
		if err != nil {
			return err
		}
		out, links = added[0].checks, added[0].links
		return nil
	})
	if err == nil {
		s.wakeRelay()
	}
	return out, links, err
}

// CheckWithSubject is what an activity needs to run a check.
type CheckWithSubject struct {
	Check    Check
	Business *Business
	Customer *Customer
	// Sandbox is the tenant's sandbox flag: providers' test inputs are
	// honoured for sandbox tenants only.
	Sandbox bool
}

// LoadCheck reads a check and its subject. ErrNotFound when either is gone
// (deleted records take their checks with them).
func (s *Store) LoadCheck(ctx context.Context, ref check.Ref) (CheckWithSubject, error) {
	var out CheckWithSubject
	err := s.inTenant(ctx, ref.TenantID, func(tx *sqlx.Tx) error {
		row := struct {
			Check
			Sandbox bool `db:"sandbox"`
		}{}
		if err := tx.GetContext(ctx, &row, `SELECT `+checkCols+`, (SELECT sandbox FROM tenants WHERE id = $1) AS sandbox
				FROM checks WHERE tenant_id = $1 AND id = $2`, ref.TenantID, ref.CheckID); err != nil {
			return err
		}
		out.Check, out.Sandbox = row.Check, row.Sandbox
		subjectID := out.Check.Ref().SubjectID
		if out.Check.CustomerID != nil {
			out.Customer = new(Customer)
			return tx.GetContext(ctx, out.Customer, `SELECT `+customerCols+` FROM customers WHERE tenant_id = $1 AND id = $2`, ref.TenantID, subjectID)
		}
		out.Business = new(Business)
		return tx.GetContext(ctx, out.Business, `SELECT `+businessCols+` FROM businesses WHERE tenant_id = $1 AND id = $2`, ref.TenantID, subjectID)
	})
	return out, err
}

// GetCheck reads one check of a tenant.
func (s *Store) GetCheck(ctx context.Context, tenantID, checkID uuid.UUID) (Check, error) {
	return getByID[Check](ctx, s, "checks", checkCols, tenantID, checkID)
}

// CheckUpdate is a status change written by a workflow step. Writes are
// idempotent: From lists the statuses the change applies to, so a step that
// is retried after a crash, or arrives after a cancellation, changes nothing.
type CheckUpdate struct {
	Status    check.Status
	From      []check.Status
	Validated *bool
	Data      JSON
	Error     JSON
	// Address, when set, is written onto the check's subject in the same
	// transaction, and only if the change took effect (a register's address).
	Address *Address
	// Identity, when set, is written onto the check's customer likewise;
	// nil fields leave the record's value.
	Identity *Identity
	// DropSubmission erases what the person submitted through the check's
	// link in the same transaction (a typed MRZ once checked: a crash
	// between the two must not keep it).
	DropSubmission bool
}

// Identity is what a verified document or bank identification tells about
// a customer.
type Identity struct {
	Gender             *string
	Birthdate          *time.Time
	NationalityID      *int
	DocumentNumber     *string
	DocumentType       *int
	DocumentExpiration *time.Time
}

// Address is a record's address columns.
type Address struct {
	Address, Street, HouseNumber, Addition, PostalCode, City *string
}

// UpdateCheck applies a status change, reporting whether it took effect and
// the check's status afterwards. A check that no longer exists reports
// ErrNotFound.
func (s *Store) UpdateCheck(ctx context.Context, ref check.Ref, u CheckUpdate) (applied bool, status check.Status, err error) {
	for _, from := range u.From {
		if !check.CanMove(from, u.Status) {
			return false, "", fmt.Errorf("check %s: illegal status move %s → %s", ref.CheckID, from, u.Status)
		}
	}
	err = s.inTenant(ctx, ref.TenantID, func(tx *sqlx.Tx) error {
		at := now()
		var completed *time.Time
		switch u.Status {
		case check.Completed, check.Expired, check.Cancelled:
			completed = &at
		}
		err := tx.GetContext(ctx, &status, `UPDATE checks SET status = $3, validated = $4, data = COALESCE($5, data),
				error = $6, updated_at = $7, completed_at = $8
			WHERE tenant_id = $1 AND id = $2 AND status = ANY($9) RETURNING status`,
			ref.TenantID, ref.CheckID, u.Status, u.Validated, u.Data, u.Error, at, completed, pq.Array(strs(u.From)))
		if err == nil {
			applied = true
			if a := u.Address; a != nil {
				_, err = tx.ExecContext(ctx, `UPDATE `+subjectTable(ref.SubjectKind)+` SET address = $3, street = $4,
						housenumber = $5, addition = $6, postalcode = $7, city = $8, updated_at = $9
					WHERE tenant_id = $1 AND id = $2`,
					ref.TenantID, ref.SubjectID, a.Address, a.Street, a.HouseNumber, a.Addition, a.PostalCode, a.City, at)
			}
			if id := u.Identity; id != nil && err == nil && ref.SubjectKind == check.Customer {
				_, err = tx.ExecContext(ctx, `UPDATE customers SET gender = COALESCE($3, gender),
						birthdate = COALESCE($4, birthdate), nationality_id = COALESCE($5, nationality_id),
						document_number = COALESCE($6, document_number), document_type = COALESCE($7, document_type),
						document_expiration = COALESCE($8, document_expiration), updated_at = $9
					WHERE tenant_id = $1 AND id = $2`,
					ref.TenantID, ref.SubjectID, id.Gender, id.Birthdate, id.NationalityID, id.DocumentNumber,
					id.DocumentType, id.DocumentExpiration, at)
			}
			if u.DropSubmission && err == nil {
				_, err = tx.ExecContext(ctx, `UPDATE links SET submission = NULL WHERE tenant_id = $1 AND check_id = $2`, ref.TenantID, ref.CheckID)
			}
			return err
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		return tx.GetContext(ctx, &status, `SELECT status FROM checks WHERE tenant_id = $1 AND id = $2`, ref.TenantID, ref.CheckID)
	})
	if applied {
		s.wakeRelay() // its event's deliveries
	}
	return applied, status, err
}

// RequestRetry puts a failed check back in the queue and asks its workflow,
// through the outbox, to try again. ErrConflict, with the check as it is,
// when the check is not failed.
func (s *Store) RequestRetry(ctx context.Context, tenantID, checkID uuid.UUID) (Check, error) {
	var c Check
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &c, `SELECT `+checkCols+` FROM checks WHERE tenant_id = $1 AND id = $2 FOR UPDATE`, tenantID, checkID); err != nil {
			return err
		}
		if c.Status != check.Failed {
			return ErrConflict // c tells the caller the status it is in
		}
		c.Status, c.UpdatedAt = check.Queued, now()
		if _, err := tx.ExecContext(ctx, `UPDATE checks SET status = $3, updated_at = $4 WHERE tenant_id = $1 AND id = $2`,
			tenantID, checkID, c.Status, c.UpdatedAt); err != nil {
			return err
		}
		return enqueue(ctx, tx, c.Ref(), ActionRetry)
	})
	if err == nil {
		s.wakeRelay()
	}
	return c, err
}

// CheckTenant finds which tenant a check belongs to (admin tools only: needs the owner role).
func (s *Store) CheckTenant(ctx context.Context, checkID uuid.UUID) (uuid.UUID, error) {
	var id uuid.UUID
	err := s.db.GetContext(ctx, &id, `SELECT tenant_id FROM checks WHERE id = $1`, checkID)
	return id, classify(err)
}

// strs turns a slice of domain words into the []string lib/pq sends as an array.
func strs[T ~string](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}
