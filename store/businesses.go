package store

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/kycflow/kycflow/check"
)

const businessCols = `id, tenant_id, name, address, street, housenumber, addition, postalcode, city, country_id,
	iban_number, coc_number, vat_number, is_active, inactive_at, created_at, updated_at`

// BusinessWithChecks is a business and the newest check of each type.
type BusinessWithChecks struct {
	Business
	Checks map[check.Type]Check
}

// CreateBusiness stores a business and queues its checks in one statement
// (shared with concurrent creates: create.go, store/batch). b.ID, timestamps and TenantID
// are set here.
func (s *Store) CreateBusiness(ctx context.Context, tenantID uuid.UUID, b Business, checkTypes []check.Type) (Business, []Check, error) {
	b.ID, b.TenantID, b.IsActive = NewID(), tenantID, true
	b.CreatedAt = now()
	b.UpdatedAt = b.CreatedAt
	q, err := s.create(ctx, tenantID, check.Business, newSubject{id: b.ID, row: b, types: checkTypes, at: b.CreatedAt})
	if err != nil {
		return b, nil, fmt.Errorf("insert business: %w", classify(err))
	}
	return b, q.checks, nil
}

// GetBusiness reads a business of the tenant with its latest checks.
func (s *Store) GetBusiness(ctx context.Context, tenantID, id uuid.UUID) (BusinessWithChecks, error) {
	var out BusinessWithChecks
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		// Checks first: each statement sees what was committed when it
		// began, and a check's result commits with the record's enrichment,
		// so a completed check is never shown beside a record without it.
		var err error
		if out.Checks, err = latestChecks(ctx, tx, tenantID, check.Business, id); err != nil {
			return err
		}
		return tx.GetContext(ctx, &out.Business, `SELECT `+businessCols+` FROM businesses WHERE tenant_id = $1 AND id = $2`, tenantID, id)
	})
	return out, err
}

// ListBusinesses returns one page of the tenant's businesses, newest first.
func (s *Store) ListBusinesses(ctx context.Context, tenantID uuid.UUID, q PageQuery) (Page[Business], error) {
	var p Page[Business]
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		var err error
		p, err = listPage(ctx, tx, "businesses", businessCols, "", []any{tenantID}, q, func(b Business) uuid.UUID { return b.ID })
		return err
	})
	return p, err
}

// DeleteBusiness erases a business and its checks, cancels its unfinished
// workflows, unlinks its customers (by the foreign key) and writes an audit row.
func (s *Store) DeleteBusiness(ctx context.Context, p Principal, id uuid.UUID) error {
	return s.deleteSubject(ctx, p, check.Business, id)
}

// deleteSubject is the shared erase path of businesses and customers.
func (s *Store) deleteSubject(ctx context.Context, p Principal, kind check.Kind, id uuid.UUID) error {
	err := s.inTenant(ctx, p.TenantID, func(tx *sqlx.Tx) error {
		var one int
		if err := tx.GetContext(ctx, &one, `SELECT 1 FROM `+subjectTable(kind)+` WHERE tenant_id = $1 AND id = $2 FOR UPDATE`, p.TenantID, id); err != nil {
			return err
		}
		at := now()
		if err := cancelUnfinished(ctx, tx, p.TenantID, kind, id, nil, at); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+subjectTable(kind)+` WHERE tenant_id = $1 AND id = $2`, p.TenantID, id); err != nil {
			return fmt.Errorf("delete %s: %w", kind, err)
		}
		// Stored idempotent answers that carry the record (its create,
		// checks queued on it) go with it: its personal data must not
		// outlive it for a day in a replay.
		if _, err := tx.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE tenant_id = $1
			AND position(convert_to($2, 'UTF8') IN body) > 0`, p.TenantID, id.String()); err != nil {
			return fmt.Errorf("forget answers about %s: %w", kind, err)
		}
		return audit(ctx, tx, p, "delete", string(kind), id, nil)
	})
	if err == nil {
		s.wakeRelay() // cancellations of its workflows
	}
	return err
}
