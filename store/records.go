package store

import (
	"database/sql/driver"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
)

// Business is a stored business record.
type Business struct {
	ID          uuid.UUID  `db:"id"`
	TenantID    uuid.UUID  `db:"tenant_id"`
	Name        string     `db:"name"`
	Address     *string    `db:"address"`
	Street      *string    `db:"street"`
	HouseNumber *string    `db:"housenumber"`
	Addition    *string    `db:"addition"`
	PostalCode  *string    `db:"postalcode"`
	City        *string    `db:"city"`
	CountryID   int        `db:"country_id"`
	IBAN        *string    `db:"iban_number"`
	CoCNumber   string     `db:"coc_number"`
	VATNumber   *string    `db:"vat_number"`
	IsActive    bool       `db:"is_active"`
	InactiveAt  *time.Time `db:"inactive_at"`
	CreatedAt   time.Time  `db:"created_at"`
	UpdatedAt   time.Time  `db:"updated_at"`
}

// Customer is a stored customer (natural person) record.
type Customer struct {
	ID                 uuid.UUID  `db:"id"`
	TenantID           uuid.UUID  `db:"tenant_id"`
	BusinessID         *uuid.UUID `db:"business_id"`
	Notes              JSON       `db:"notes"`
	Initials           *string    `db:"initials"`
	FirstName          *string    `db:"firstname"`
	LastName           *string    `db:"lastname"`
	Name               string     `db:"name"`
	Email              string     `db:"email"`
	Gender             *string    `db:"gender"`
	Birthdate          *time.Time `db:"birthdate"`
	NationalityID      *int       `db:"nationality_id"`
	DocumentNumber     *string    `db:"document_number"`
	DocumentExpiration *time.Time `db:"document_expiration"`
	DocumentType       *int       `db:"document_type"`
	Phone              *string    `db:"phone"`
	Address            *string    `db:"address"`
	Street             *string    `db:"street"`
	HouseNumber        *string    `db:"housenumber"`
	Addition           *string    `db:"addition"`
	PostalCode         *string    `db:"postalcode"`
	City               *string    `db:"city"`
	CountryID          int        `db:"country_id"`
	IBAN               *string    `db:"iban_number"`
	Mails              bool       `db:"mails"`
	IsActive           bool       `db:"is_active"`
	InactiveAt         *time.Time `db:"inactive_at"`
	CreatedAt          time.Time  `db:"created_at"`
	UpdatedAt          time.Time  `db:"updated_at"`
}

// Check is one verification check of a business or a customer.
type Check struct {
	ID          uuid.UUID    `db:"id"`
	TenantID    uuid.UUID    `db:"tenant_id"`
	BusinessID  *uuid.UUID   `db:"business_id"`
	CustomerID  *uuid.UUID   `db:"customer_id"`
	Type        check.Type   `db:"type"`
	Status      check.Status `db:"status"`
	Validated   *bool        `db:"validated"`
	Data        JSON         `db:"data"`
	Error       JSON         `db:"error"`
	CreatedAt   time.Time    `db:"created_at"`
	UpdatedAt   time.Time    `db:"updated_at"`
	CompletedAt *time.Time   `db:"completed_at"`
}

// Ref returns the check's ids.
func (c Check) Ref() check.Ref {
	r := check.Ref{TenantID: c.TenantID, CheckID: c.ID, Type: c.Type, SubjectKind: check.Business}
	if c.BusinessID != nil {
		r.SubjectID = *c.BusinessID
	} else if c.CustomerID != nil {
		r.SubjectKind, r.SubjectID = check.Customer, *c.CustomerID
	}
	return r
}

// JSON is a nullable json/jsonb column: nil is SQL NULL.
type JSON []byte

// Scan implements sql.Scanner.
func (j *JSON) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*j = nil
	case []byte:
		*j = append(JSON(nil), v...)
	case string:
		*j = JSON(v)
	default:
		return fmt.Errorf("store.JSON: cannot scan %T", src)
	}
	return nil
}

// Value implements driver.Valuer. A string, because binary parameters
// would need jsonb's binary format.
func (j JSON) Value() (driver.Value, error) {
	if j == nil {
		return nil, nil
	}
	return string(j), nil
}

// MarshalJSON writes the raw document, or null.
func (j JSON) MarshalJSON() ([]byte, error) {
	if j == nil {
		return []byte("null"), nil
	}
	return j, nil
}
