package api

import (
	"context"
	"net/http"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/engines/eu"
	"github.com/kycflow/kycflow/providers/kvk"
	"github.com/kycflow/kycflow/store"
)

// The endpoints a subject (a business or a customer) offers alike: read
// one, delete one, queue checks on one. Each kind's file says what is its
// own: its create body and its shapes.

// getSubject answers GET /{kind}/{id}: the subject with its latest checks.
func getSubject[W any](get func(ctx context.Context, tenant, id uuid.UUID) (W, error), show func(W) any) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := pathID(c)
		if err != nil {
			return err
		}
		w, err := get(c.Request().Context(), principal(c).TenantID, id)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, show(w))
	}
}

// deleteSubject answers DELETE /{kind}/{id}/delete.
func deleteSubject(del func(ctx context.Context, p store.Principal, id uuid.UUID) error) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := pathID(c)
		if err != nil {
			return err
		}
		if err := del(c.Request().Context(), principal(c), id); err != nil {
			return err
		}
		return c.JSON(http.StatusOK, messageJSON{Message: "ok"})
	}
}

// checkRequest reads POST /{kind}/{id}/check's body for a subject whose
// fields (as the API names them) are given: the types asked for, each
// known for the kind, once, with the input it needs.
func checkRequest(c echo.Context, kind check.Kind, fields map[string]*string, countryID int, coc string) ([]check.Type, error) {
	body, err := readBody(c)
	if err != nil {
		return nil, err
	}
	var fe fieldErrors
	types := typeList(body, check.Types(kind), &fe)
	for i, t := range types {
		field := "type." + itoa(i)
		if fe.has(field) {
			continue
		}
		if f := needs(t, fields); f != "" {
			fe.add(field, "The "+string(t)+" check needs the "+string(kind)+"'s "+f+", which is not set.")
		} else if t == check.CoC && !cocNumberFits(countryID, coc) {
			fe.add(field, "The coc check needs the business's coc_number to be "+kvkNumberRule+".")
		}
	}
	if !fe.empty() {
		return nil, validationError(&fe)
	}
	return types, nil
}

// needs is the subject field a check of type t needs that fields leave
// blank, "" when none: the rule of a check's input, for a create's body
// and a check request alike.
func needs(t check.Type, fields map[string]*string) string {
	if f := t.Spec().Requires; f != "" && isBlank(fields[f]) {
		return f
	}
	return ""
}

// kvkNumberRule says what cocNumberFits holds.
const kvkNumberRule = "8 digits: a Dutch business's coc check looks up its 8-digit KvK number"

// cocNumberFits says whether a coc check can run on a business of country
// (numeric) with this coc number: the KvK knows Dutch companies by an
// 8-digit number only; the coc check of a business elsewhere runs offline.
func cocNumberFits(countryID int, coc string) bool {
	return countryID != eu.NetherlandsNumeric || kvk.ValidNumber(coc)
}
