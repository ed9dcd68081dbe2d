package api

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kycflow/kycflow/store"
)

// Check types per subject kind, in the order the seed API lists them.
var (
	businessCheckTypes = []string{"coc", "vat", "iban"}
	customerCheckTypes = []string{"iban", "aml", "idin", "idscan"}
)

// queuedMessage is the seed API's message for a queued check.
func queuedMessage(typ string) string {
	return strings.ToUpper(typ) + " Check has been queued"
}

func queuedMessages(checks []store.Check) []string {
	out := make([]string, 0, len(checks))
	for _, c := range checks {
		out = append(out, queuedMessage(c.Type))
	}
	return out
}

// checkTypes reads the create request's `checks` object: required booleans
// for the seed API's types of the kind, optional ones for the others (aml
// for customers, which the seed queued only through the check endpoint); a
// key that is no check type of the kind is an error rather than silently
// nothing queued. It returns the types set to true, in the order the caller
// sent them.
func checkTypes(body *object, required, optional []string, fe *fieldErrors) (map[string]bool, []string) {
	obj := body.obj("checks", fe)
	if obj == nil {
		if !fe.has("checks") {
			fe.add("checks", msg("checks", "is required."))
		}
		return nil, nil
	}
	set := map[string]bool{}
	for _, k := range slices.Concat(required, optional) {
		v := obj.boolean(k, fe)
		if slices.Contains(required, k) {
			check(fe, obj.name(k), v, present)
		}
		if v != nil && *v {
			set[k] = true
		}
	}
	var order []string
	for _, k := range obj.keys {
		switch {
		case set[k]:
			order = append(order, k)
		case !slices.Contains(required, k) && !slices.Contains(optional, k):
			fe.add(obj.name(k), msg(obj.name(k), "is not a check type here (one of "+strings.Join(slices.Concat(required, optional), ", ")+")."))
		}
	}
	return set, order
}

// typeList reads the check endpoint's `type` array: non-empty, known types
// for the kind, no duplicates.
func typeList(body *object, allowed []string, fe *fieldErrors) []string {
	types, ok := body.strings("type", fe)
	switch {
	case fe.has("type"):
		return nil
	case len(types) == 0: // absent, null or []
		fe.add("type", msg("type", "is required."))
		return nil
	case !ok: // an element was not a string; named already
		return nil
	}
	seen := map[string]bool{}
	for i, t := range types {
		field := "type." + itoa(i)
		switch {
		case !slices.Contains(allowed, t):
			fe.add(field, "The selected "+field+" is invalid: allowed are "+strings.Join(allowed, ", ")+".")
		case seen[t]:
			fe.add(field, msg(field, "has a duplicate value."))
		}
		seen[t] = true
	}
	return types
}

// retryCheck resumes a failed check: 202 with the check, 409 when it is not failed.
func (s *Server) retryCheck(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	chk, err := s.store.RequestRetry(c.Request().Context(), principal(c).TenantID, id)
	if errors.Is(err, store.ErrConflict) {
		return newError(http.StatusConflict, "Only a failed check can be retried; this check is "+chk.Status+".")
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, struct {
		Message string     `json:"message"`
		Check   *checkJSON `json:"check"`
	}{"Check retry has been queued.", toCheck(chk)})
}
