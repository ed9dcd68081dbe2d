package api

import (
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/engines/eu"
	"github.com/kycflow/kycflow/store"
)

type createCustomerRequest struct {
	customer store.Customer
	checks   []check.Type
}

// parseCreateCustomer validates a create body (docs/openapi.yaml) as of
// `today` (for the age rule). It touches no storage: the business_id's
// tenant is checked by the store's foreign key.
func parseCreateCustomer(body *object, today time.Time) (createCustomerRequest, error) {
	var fe fieldErrors
	name := body.str("name", &fe)
	email := body.str("email", &fe)
	country := body.str("country_code", &fe)
	initials := body.str("initials", &fe)
	first := body.str("firstname", &fe)
	last := body.str("lastname", &fe)
	businessID := body.str("business_id", &fe)
	phone := body.str("phone", &fe)
	ibanNr := body.str("iban_number", &fe)
	address := body.str("address", &fe)
	city := body.str("city", &fe)
	postal := body.str("postalcode", &fe)
	birthdate := body.str("birthdate", &fe)
	mails := body.boolean("mails", &fe)

	region := ""
	if country != nil {
		if st, ok := eu.ByAlpha3(*country); ok {
			region = st.Alpha2
		}
	}
	validateField(&fe, "name", name, required, maxLen(255))
	validateField(&fe, "email", email, required, maxLen(255), emailFormat)
	validateField(&fe, "country_code", country, required, euCountry)
	order := createChecks(body, check.Customer, map[string]*string{"iban_number": ibanNr}, &fe)
	validateField(&fe, "initials", initials, maxLen(255))
	validateField(&fe, "firstname", first, maxLen(255))
	validateField(&fe, "lastname", last, maxLen(255))
	validateField(&fe, "business_id", businessID, uuidString)
	validateField(&fe, "phone", phone, minLen(10), maxLen(32), phoneNumber(region))
	validateField(&fe, "iban_number", ibanNr, maxLen(255))
	validateField(&fe, "address", address, maxLen(255))
	validateField(&fe, "city", city, maxLen(255))
	validateField(&fe, "postalcode", postal, maxLen(32))
	validateField(&fe, "birthdate", birthdate, adultBirthdate(today))
	if !fe.empty() {
		return createCustomerRequest{}, validationError(&fe)
	}

	st, _ := eu.ByAlpha3(*country)
	c := store.Customer{
		Name: *name, Email: *email, CountryID: st.Numeric, Initials: initials, FirstName: first, LastName: last,
		IBAN: ibanNr, Address: address, City: city, PostalCode: postal, Mails: mails == nil || *mails,
	}
	c.Street, c.HouseNumber, c.Addition = splitAddress(address)
	if businessID != nil {
		id := uuid.MustParse(*businessID)
		c.BusinessID = &id
	}
	if phone != nil {
		p := normalizePhone(*phone, region)
		c.Phone = &p
	}
	if birthdate != nil {
		d, _ := time.Parse(time.DateOnly, *birthdate)
		c.Birthdate = &d
	}
	return createCustomerRequest{customer: c, checks: order}, nil
}

func (s *Server) createCustomer(c echo.Context) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	req, err := parseCreateCustomer(body, time.Now().UTC())
	if err != nil {
		return err
	}
	cu, checks, links, err := s.store.CreateCustomer(c.Request().Context(), principal(c).TenantID, req.customer, req.checks)
	if errors.Is(err, store.ErrBusinessNotFound) {
		var fe fieldErrors
		fe.add("business_id", "The selected business id is invalid.")
		return validationError(&fe)
	}
	if err != nil {
		return err
	}
	out := customerCreatedJSON{
		ID: cu.ID, Initials: cu.Initials, FirstName: cu.FirstName, LastName: cu.LastName, Name: cu.Name, Email: cu.Email,
		IBAN: cu.IBAN, Phone: cu.Phone, Address: cu.Address, City: cu.City, PostalCode: cu.PostalCode,
		CountryID: cu.CountryID, Birthdate: optDate(cu.Birthdate), UpdatedAt: Time(cu.UpdatedAt), CreatedAt: Time(cu.CreatedAt),
		Messages: queuedMessages(checks),
		Mails:    mailsQueued(checks, cu.Mails),
	}
	if !cu.Mails {
		out.URLs = s.linkURLs(checks, links)
		if hasLink(out.URLs) {
			shown := out
			shown.URLs = withoutLinks(out.URLs)
			s.keepSealed(c, shown)
		}
	}
	return c.JSON(http.StatusCreated, out)
}

func (s *Server) checkCustomer(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	ctx, tenant := c.Request().Context(), principal(c).TenantID
	cu, err := s.store.GetCustomer(ctx, tenant, id)
	if err != nil {
		return err
	}
	types, err := checkRequest(c, check.Customer, map[string]*string{"iban_number": cu.IBAN}, cu.CountryID, "")
	if err != nil {
		return err
	}
	checks, links, err := s.store.QueueChecks(ctx, tenant, check.Customer, id, types)
	if err != nil {
		return err
	}
	out := customerChecksQueuedJSON{Messages: queuedMessages(checks), URLs: s.linkURLs(checks, links)}
	if hasLink(out.URLs) {
		s.keepSealed(c, customerChecksQueuedJSON{Messages: out.Messages, URLs: withoutLinks(out.URLs)})
	}
	return c.JSON(http.StatusAccepted, out)
}

func hasLink(urls map[check.Type]*string) bool {
	for _, u := range urls {
		if u != nil {
			return true
		}
	}
	return false
}

// withoutLinks is urls with every link left out (null, as when mailed).
func withoutLinks(urls map[check.Type]*string) map[check.Type]*string {
	out := make(map[check.Type]*string, len(urls))
	for t := range urls {
		out[t] = nil
	}
	return out
}

// linkURLs maps each queued idin/idscan check to its verification URL,
// {PUBLIC_URL}/verify/{token}; null when the link goes out by mail instead
// (the token exists only in that mail).
func (s *Server) linkURLs(checks []store.Check, links map[check.Type]string) map[check.Type]*string {
	urls := map[check.Type]*string{}
	for _, c := range checks {
		if c.Type.UsesLink() {
			urls[c.Type] = nil
			if token, ok := links[c.Type]; ok {
				u := s.publicURL + "/verify/" + token
				urls[c.Type] = &u
			}
		}
	}
	return urls
}

// mailsQueued tells, per link type, whether a link mail was queued.
func mailsQueued(checks []store.Check, mails bool) mailsJSON {
	m := mailsJSON{}
	for _, t := range check.Types(check.Customer) {
		if t.UsesLink() {
			m[t] = false
		}
	}
	for _, c := range checks {
		if c.Type.UsesLink() && mails {
			m[c.Type] = true
		}
	}
	return m
}

func (s *Server) listCustomers(c echo.Context) error {
	var fe fieldErrors
	q := pageParams(c, &fe)
	businessID := queryUUID(c, "business_id", &fe)
	fetch := func(q store.PageQuery) (store.Page[store.Customer], error) {
		return s.store.ListCustomers(c.Request().Context(), principal(c).TenantID, businessID, q)
	}
	return answerPage(c, q, &fe, fetch, toCustomerItem, func(c store.Customer) uuid.UUID { return c.ID })
}
