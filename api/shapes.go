package api

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
)

// Wire shapes: every documented key is always present (null when absent),
// timestamps are UTC with microseconds, is_active is 1 or 0.

// Time is a timestamp on the wire.
type Time time.Time

const timeLayout = "2006-01-02T15:04:05.000000Z"

// MarshalJSON writes 2006-01-02T15:04:05.000000Z.
func (t Time) MarshalJSON() ([]byte, error) {
	return []byte(`"` + time.Time(t).UTC().Format(timeLayout) + `"`), nil
}

func optTime(t *time.Time) *Time {
	if t == nil {
		return nil
	}
	v := Time(*t)
	return &v
}

// Date is a calendar date on the wire.
type Date time.Time

// MarshalJSON writes 2006-01-02.
func (d Date) MarshalJSON() ([]byte, error) {
	return []byte(`"` + time.Time(d).Format(time.DateOnly) + `"`), nil
}

func optDate(t *time.Time) *Date {
	if t == nil {
		return nil
	}
	v := Date(*t)
	return &v
}

func activeInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

type checkJSON struct {
	ID          uuid.UUID    `json:"id"`
	Type        check.Type   `json:"type"`
	Status      check.Status `json:"status"`
	Validated   *bool        `json:"validated"`
	Data        store.JSON   `json:"data"`
	Error       store.JSON   `json:"error"`
	CreatedAt   Time         `json:"created_at"`
	UpdatedAt   Time         `json:"updated_at"`
	CompletedAt *Time        `json:"completed_at"`
}

func toCheck(c store.Check) *checkJSON {
	return &checkJSON{
		ID: c.ID, Type: c.Type, Status: c.Status, Validated: c.Validated, Data: c.Data, Error: c.Error,
		CreatedAt: Time(c.CreatedAt), UpdatedAt: Time(c.UpdatedAt), CompletedAt: optTime(c.CompletedAt),
	}
}

// checkFields are a record's `<type>_check` fields in the order the seed API
// placed them; a type added since follows them, in the check package's
// order.
var checkFields = map[check.Kind][]check.Type{
	check.Business: withRest(check.Business, check.CoC, check.IBAN, check.VAT),
	check.Customer: withRest(check.Customer, check.IBAN, check.AML, check.IDIN, check.IDScan),
}

func withRest(kind check.Kind, seed ...check.Type) []check.Type {
	for _, t := range check.Types(kind) {
		if !slices.Contains(seed, t) {
			seed = append(seed, t)
		}
	}
	return seed
}

// latestChecks are a record's `<type>_check` fields: the latest check of
// each type of its kind, null when it has none.
type latestChecks []latestCheck

type latestCheck struct {
	field string
	check *checkJSON
}

func latestOf(kind check.Kind, checks map[check.Type]store.Check) latestChecks {
	types := checkFields[kind]
	out := make(latestChecks, len(types))
	for i, t := range types {
		out[i].field = string(t) + "_check"
		if c, ok := checks[t]; ok {
			out[i].check = toCheck(c)
		}
	}
	return out
}

// append writes record as a JSON object followed by the check fields.
func (l latestChecks) append(record any) ([]byte, error) {
	b, err := json.Marshal(record)
	if err != nil {
		return nil, err
	}
	b = b[:len(b)-1] // the closing brace
	for _, f := range l {
		c, err := json.Marshal(f.check)
		if err != nil {
			return nil, err
		}
		b = append(append(append(append(b, ',', '"'), f.field...), '"', ':'), c...)
	}
	return append(b, '}'), nil
}

type businessJSON struct {
	ID          uuid.UUID `json:"id"`
	Name        string    `json:"name"`
	Address     *string   `json:"address"`
	Street      *string   `json:"street"`
	HouseNumber *string   `json:"housenumber"`
	Addition    *string   `json:"addition"`
	PostalCode  *string   `json:"postalcode"`
	City        *string   `json:"city"`
	CountryID   int       `json:"country_id"`
	IBAN        *string   `json:"iban_number"`
	CoCNumber   string    `json:"coc_number"`
	VATNumber   *string   `json:"vat_number"`
	IsActive    int       `json:"is_active"`
	InactiveAt  *Time     `json:"inactive_at"`
	CreatedAt   Time      `json:"created_at"`
	UpdatedAt   Time      `json:"updated_at"`
	checks      latestChecks
}

func (b businessJSON) MarshalJSON() ([]byte, error) {
	type record businessJSON // without this method
	return b.checks.append(record(b))
}

func toBusiness(b store.BusinessWithChecks) businessJSON {
	return businessJSON{
		ID: b.ID, Name: b.Name, Address: b.Address, Street: b.Street, HouseNumber: b.HouseNumber,
		Addition: b.Addition, PostalCode: b.PostalCode, City: b.City, CountryID: b.CountryID, IBAN: b.IBAN,
		CoCNumber: b.CoCNumber, VATNumber: b.VATNumber, IsActive: activeInt(b.IsActive), InactiveAt: optTime(b.InactiveAt),
		CreatedAt: Time(b.CreatedAt), UpdatedAt: Time(b.UpdatedAt), checks: latestOf(check.Business, b.Checks),
	}
}

type businessCreatedJSON struct {
	ID        uuid.UUID `json:"id"`
	Name      string    `json:"name"`
	CoCNumber string    `json:"coc_number"`
	VATNumber *string   `json:"vat_number"`
	IBAN      *string   `json:"iban_number"`
	CountryID int       `json:"country_id"`
	UpdatedAt Time      `json:"updated_at"`
	CreatedAt Time      `json:"created_at"`
	Messages  []string  `json:"messages"`
}

type businessItemJSON struct {
	ID         uuid.UUID `json:"id"`
	Name       string    `json:"name"`
	CoCNumber  string    `json:"coc_number"`
	City       *string   `json:"city"`
	IsActive   int       `json:"is_active"`
	InactiveAt *Time     `json:"inactive_at"`
	CreatedAt  Time      `json:"created_at"`
	UpdatedAt  Time      `json:"updated_at"`
}

func toBusinessItem(b store.Business) businessItemJSON {
	return businessItemJSON{ID: b.ID, Name: b.Name, CoCNumber: b.CoCNumber, City: b.City, IsActive: activeInt(b.IsActive),
		InactiveAt: optTime(b.InactiveAt), CreatedAt: Time(b.CreatedAt), UpdatedAt: Time(b.UpdatedAt)}
}

type customerJSON struct {
	ID                 uuid.UUID  `json:"id"`
	Notes              store.JSON `json:"notes"`
	BusinessID         *uuid.UUID `json:"business_id"`
	Initials           *string    `json:"initials"`
	FirstName          *string    `json:"firstname"`
	LastName           *string    `json:"lastname"`
	Name               string     `json:"name"`
	Email              string     `json:"email"`
	Gender             *string    `json:"gender"`
	Birthdate          *Date      `json:"birthdate"`
	NationalityID      *int       `json:"nationality_id"`
	DocumentNumber     *string    `json:"document_number"`
	DocumentExpiration *Time      `json:"document_expiration"`
	DocumentType       *int       `json:"document_type"`
	Phone              *string    `json:"phone"`
	Address            *string    `json:"address"`
	Street             *string    `json:"street"`
	HouseNumber        *string    `json:"housenumber"`
	Addition           *string    `json:"addition"`
	PostalCode         *string    `json:"postalcode"`
	City               *string    `json:"city"`
	CountryID          int        `json:"country_id"`
	IBAN               *string    `json:"iban_number"`
	IsActive           int        `json:"is_active"`
	InactiveAt         *Time      `json:"inactive_at"`
	CreatedAt          Time       `json:"created_at"`
	UpdatedAt          Time       `json:"updated_at"`
	checks             latestChecks
}

func (c customerJSON) MarshalJSON() ([]byte, error) {
	type record customerJSON // without this method
	return c.checks.append(record(c))
}

func toCustomer(c store.CustomerWithChecks) customerJSON {
	return customerJSON{
		ID: c.ID, Notes: c.Notes, BusinessID: c.BusinessID, Initials: c.Initials, FirstName: c.FirstName,
		LastName: c.LastName, Name: c.Name, Email: c.Email, Gender: c.Gender, Birthdate: optDate(c.Birthdate),
		NationalityID: c.NationalityID, DocumentNumber: c.DocumentNumber, DocumentExpiration: optTime(c.DocumentExpiration),
		DocumentType: c.DocumentType, Phone: c.Phone, Address: c.Address, Street: c.Street, HouseNumber: c.HouseNumber,
		Addition: c.Addition, PostalCode: c.PostalCode, City: c.City, CountryID: c.CountryID, IBAN: c.IBAN,
		IsActive: activeInt(c.IsActive), InactiveAt: optTime(c.InactiveAt), CreatedAt: Time(c.CreatedAt), UpdatedAt: Time(c.UpdatedAt),
		checks: latestOf(check.Customer, c.Checks),
	}
}

// mailsJSON tells, per link check type (every one always present), whether
// a link mail was queued; JSON sorts the keys.
type mailsJSON map[check.Type]bool

type customerCreatedJSON struct {
	ID         uuid.UUID              `json:"id"`
	Initials   *string                `json:"initials"`
	FirstName  *string                `json:"firstname"`
	LastName   *string                `json:"lastname"`
	Name       string                 `json:"name"`
	Email      string                 `json:"email"`
	IBAN       *string                `json:"iban_number"`
	Phone      *string                `json:"phone"`
	Address    *string                `json:"address"`
	City       *string                `json:"city"`
	PostalCode *string                `json:"postalcode"`
	CountryID  int                    `json:"country_id"`
	Birthdate  *Date                  `json:"birthdate"`
	UpdatedAt  Time                   `json:"updated_at"`
	CreatedAt  Time                   `json:"created_at"`
	Messages   []string               `json:"messages"`
	Mails      mailsJSON              `json:"mails"`
	URLs       map[check.Type]*string `json:"urls,omitempty"`
}

type customerItemJSON struct {
	ID         uuid.UUID  `json:"id"`
	BusinessID *uuid.UUID `json:"business_id"`
	Name       string     `json:"name"`
	Email      string     `json:"email"`
	IsActive   int        `json:"is_active"`
	InactiveAt *Time      `json:"inactive_at"`
	CreatedAt  Time       `json:"created_at"`
	UpdatedAt  Time       `json:"updated_at"`
}

func toCustomerItem(c store.Customer) customerItemJSON {
	return customerItemJSON{ID: c.ID, BusinessID: c.BusinessID, Name: c.Name, Email: c.Email, IsActive: activeInt(c.IsActive),
		InactiveAt: optTime(c.InactiveAt), CreatedAt: Time(c.CreatedAt), UpdatedAt: Time(c.UpdatedAt)}
}

type businessChecksQueuedJSON struct {
	Messages []string `json:"messages"`
}

type customerChecksQueuedJSON struct {
	Messages []string               `json:"messages"`
	URLs     map[check.Type]*string `json:"urls"`
}

type messageJSON struct {
	Message string `json:"message"`
}
