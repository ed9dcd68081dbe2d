package api

import (
	"net/http"
	"slices"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/engines/eu"
	"github.com/kycflow/kycflow/store"
)

// createBusinessRequest is a validated business create request.
type createBusinessRequest struct {
	business store.Business
	checks   []check.Type // in request order
}

// parseCreateBusiness validates a create body: every rule of the create
// endpoint (docs/openapi.yaml, docs/DECISIONS.md).
// It touches no storage, so it is also the fuzz target.
func parseCreateBusiness(body *object) (createBusinessRequest, error) {
	var fe fieldErrors
	name := body.str("name", &fe)
	country := body.str("country_code", &fe)
	coc := body.digits("coc_number", &fe)
	vat := body.str("vat_number", &fe)
	ibanNr := body.str("iban_number", &fe)

	validateField(&fe, "name", name, required, maxLen(255))
	validateField(&fe, "country_code", country, required, euCountry)
	validateField(&fe, "coc_number", coc, required, cocDigits)
	validateField(&fe, "vat_number", vat, maxLen(255))
	validateField(&fe, "iban_number", ibanNr, maxLen(255))
	order := createChecks(body, check.Business, map[string]*string{"vat_number": vat, "iban_number": ibanNr}, &fe)
	if st, ok := eu.ByAlpha3(blankIfNil(country)); ok && coc != nil && !fe.has("coc_number") && slices.Contains(order, check.CoC) && !cocNumberFits(st.Numeric, *coc) {
		fe.add("coc_number", msg("coc_number", "must be "+kvkNumberRule+"."))
	}
	if !fe.empty() {
		return createBusinessRequest{}, validationError(&fe)
	}
	st, _ := eu.ByAlpha3(*country)
	return createBusinessRequest{
		business: store.Business{Name: *name, CountryID: st.Numeric, CoCNumber: *coc, VATNumber: blankToNil(vat), IBAN: blankToNil(ibanNr)},
		checks:   order,
	}, nil
}

func (s *Server) createBusiness(c echo.Context) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	req, err := parseCreateBusiness(body)
	if err != nil {
		return err
	}
	b, checks, err := s.store.CreateBusiness(c.Request().Context(), principal(c).TenantID, req.business, req.checks)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, businessCreatedJSON{
		ID: b.ID, Name: b.Name, CoCNumber: b.CoCNumber, VATNumber: b.VATNumber, IBAN: b.IBAN, CountryID: b.CountryID,
		UpdatedAt: Time(b.UpdatedAt), CreatedAt: Time(b.CreatedAt), Messages: queuedMessages(checks),
	})
}

func (s *Server) checkBusiness(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	ctx, tenant := c.Request().Context(), principal(c).TenantID
	b, err := s.store.GetBusiness(ctx, tenant, id)
	if err != nil {
		return err
	}
	types, err := checkRequest(c, check.Business, map[string]*string{"vat_number": b.VATNumber, "iban_number": b.IBAN}, b.CountryID, b.CoCNumber)
	if err != nil {
		return err
	}
	checks, _, err := s.store.QueueChecks(ctx, tenant, check.Business, id, types)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, businessChecksQueuedJSON{Messages: queuedMessages(checks)})
}

func (s *Server) listBusinesses(c echo.Context) error {
	var fe fieldErrors
	fetch := func(q store.PageQuery) (store.Page[store.Business], error) {
		return s.store.ListBusinesses(c.Request().Context(), principal(c).TenantID, q)
	}
	return answerPage(c, pageParams(c, &fe), &fe, fetch, toBusinessItem, func(b store.Business) uuid.UUID { return b.ID })
}

func isBlank(s *string) bool { return s == nil || *s == "" }

func blankIfNil(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func blankToNil(s *string) *string {
	if isBlank(s) {
		return nil
	}
	return s
}
