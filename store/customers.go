package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/kycflow/kycflow/check"
)

const customerCols = `id, tenant_id, business_id, notes, initials, firstname, lastname, name, email, gender, birthdate,
	nationality_id, document_number, document_expiration, document_type, phone, address, street, housenumber,
	addition, postalcode, city, country_id, iban_number, mails, is_active, inactive_at, created_at, updated_at`

// ErrBusinessNotFound: a customer names a business the tenant does not have.
var ErrBusinessNotFound = errors.New("business not found")

// CustomerWithChecks is a customer and the newest check of each type.
type CustomerWithChecks struct {
	Customer
	Checks map[check.Type]Check
}

// CreateCustomer stores a customer and queues its checks in one statement
// (shared with concurrent creates: create.go, store/batch); when the customer gets no
// mails, the idin/idscan links are issued with them and returned (type →
// token).
func (s *Store) CreateCustomer(ctx context.Context, tenantID uuid.UUID, c Customer, checkTypes []check.Type) (Customer, []Check, map[check.Type]string, error) {
	q, err := s.create(ctx, tenantID, check.Customer, newCustomer(tenantID, &c, checkTypes))
	if err != nil {
		return c, nil, nil, customerError(err)
	}
	return c, q.checks, q.links, nil
}

// newCustomer sets a new customer's id, tenant and timestamps, and makes
// it a subject to insert.
func newCustomer(tenantID uuid.UUID, c *Customer, checkTypes []check.Type) newSubject {
	c.ID, c.TenantID, c.IsActive = NewID(), tenantID, true
	c.CreatedAt = now()
	c.UpdatedAt = c.CreatedAt
	return newSubject{id: c.ID, row: *c, types: checkTypes, withLinks: !c.Mails, at: c.CreatedAt}
}

// customerError names a failed customer insert's cause.
func customerError(err error) error {
	// The composite foreign key admits only a business of the same tenant.
	var pqErr *pq.Error
	if errors.As(err, &pqErr) && pqErr.Code == "23503" && pqErr.Constraint == "customers_tenant_id_business_id_fkey" {
		return ErrBusinessNotFound
	}
	return fmt.Errorf("insert customer: %w", classify(err))
}

// GetCustomer reads a customer of the tenant with its latest checks.
func (s *Store) GetCustomer(ctx context.Context, tenantID, id uuid.UUID) (CustomerWithChecks, error) {
	var out CustomerWithChecks
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		// Checks first: each statement sees what was committed when it
		// began, and a check's result commits with the record's enrichment,
		// so a completed check is never shown beside a record without it.
		var err error
		if out.Checks, err = latestChecks(ctx, tx, tenantID, check.Customer, id); err != nil {
			return err
		}
		return tx.GetContext(ctx, &out.Customer, `SELECT `+customerCols+` FROM customers WHERE tenant_id = $1 AND id = $2`, tenantID, id)
	})
	return out, err
}

// ListCustomers returns one page of the tenant's customers, newest first,
// optionally only those of one business.
func (s *Store) ListCustomers(ctx context.Context, tenantID uuid.UUID, businessID *uuid.UUID, q PageQuery) (Page[Customer], error) {
	var p Page[Customer]
	where, args := "", []any{tenantID}
	if businessID != nil {
		where, args = " AND business_id = $2", append(args, *businessID)
	}
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		var err error
		p, err = listPage(ctx, tx, "customers", customerCols, where, args, q, func(c Customer) uuid.UUID { return c.ID })
		return err
	})
	return p, err
}

// DeleteCustomer erases a customer and its checks, cancels its unfinished
// workflows and writes an audit row.
func (s *Store) DeleteCustomer(ctx context.Context, p Principal, id uuid.UUID) error {
	return s.deleteSubject(ctx, p, check.Customer, id)
}

// ActiveCustomers pages through a tenant's active customers in id order,
// after the given id (uuid.Nil: from the start); for rescreening.
func (s *Store) ActiveCustomers(ctx context.Context, tenantID, after uuid.UUID, limit int) ([]Customer, error) {
	var out []Customer
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		return tx.SelectContext(ctx, &out, `SELECT `+customerCols+` FROM customers
			WHERE tenant_id = $1 AND is_active AND id > $2 ORDER BY id LIMIT $3`, tenantID, after, limit)
	})
	return out, err
}

// LatestCheck is the newest check of a type on a customer; ErrNotFound when none.
func (s *Store) LatestCheck(ctx context.Context, tenantID, customerID uuid.UUID, typ check.Type) (Check, error) {
	var c Check
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		return tx.GetContext(ctx, &c, `SELECT `+checkCols+` FROM checks WHERE tenant_id = $1 AND customer_id = $2 AND type = $3
			ORDER BY id DESC LIMIT 1`, tenantID, customerID, typ)
	})
	return c, err
}
