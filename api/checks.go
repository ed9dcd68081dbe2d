package api

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
)

// queuedMessage is the seed API's message for a queued check.
func queuedMessage(typ check.Type) string {
	return strings.ToUpper(string(typ)) + " Check has been queued"
}

// joinTypes lists types for a message.
func joinTypes(types []check.Type) string {
	s := make([]string, len(types))
	for i, t := range types {
		s[i] = string(t)
	}
	return strings.Join(s, ", ")
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
func checkTypes(body *object, required, optional []check.Type, fe *fieldErrors) (map[check.Type]bool, []check.Type) {
	obj := body.obj("checks", fe)
	if obj == nil {
		if !fe.has("checks") {
			fe.add("checks", msg("checks", "is required."))
		}
		return nil, nil
	}
	set := map[check.Type]bool{}
	for _, t := range slices.Concat(required, optional) {
		k := string(t)
		v := obj.boolean(k, fe)
		if slices.Contains(required, t) {
			validateField(fe, obj.name(k), v, present)
		}
		if v != nil && *v {
			set[t] = true
		}
	}
	var order []check.Type
	for _, k := range obj.keys {
		t := check.Type(k)
		switch {
		case set[t]:
			order = append(order, t)
		case !slices.Contains(required, t) && !slices.Contains(optional, t):
			fe.add(obj.name(k), msg(obj.name(k), "is not a check type here (one of "+joinTypes(slices.Concat(required, optional))+")."))
		}
	}
	return set, order
}

// seedChecks are the check types a create body must name, true or false
// (the seed API's, in its order); the kind's other types may be named.
var seedChecks = map[check.Kind][]check.Type{
	check.Business: {check.CoC, check.VAT, check.IBAN},
	check.Customer: {check.IDIN, check.IDScan, check.IBAN},
}

// createChecks reads a create body's `checks` for the kind: the seed
// types required, the others optional. It also names, for each type asked
// for, the record field the type requires when the body leaves it blank.
func createChecks(body *object, kind check.Kind, fields map[string]*string, fe *fieldErrors) []check.Type {
	var optional []check.Type
	for _, t := range check.Types(kind) {
		if !slices.Contains(seedChecks[kind], t) {
			optional = append(optional, t)
		}
	}
	set, order := checkTypes(body, seedChecks[kind], optional, fe)
	for _, t := range check.Types(kind) {
		if f := needs(t, fields); set[t] && f != "" && !fe.has(f) {
			fe.add(f, msg(f, "is required when checks."+string(t)+" is true."))
		}
	}
	return order
}

// typeList reads the check endpoint's `type` array: non-empty, known types
// for the kind, no duplicates.
func typeList(body *object, allowed []check.Type, fe *fieldErrors) []check.Type {
	names, ok := body.strings("type", fe)
	switch {
	case fe.has("type"):
		return nil
	case len(names) == 0: // absent, null or []
		fe.add("type", msg("type", "is required."))
		return nil
	case !ok: // an element was not a string; named already
		return nil
	}
	types := make([]check.Type, len(names))
	seen := map[check.Type]bool{}
	for i, name := range names {
		t := check.Type(name)
		field := "type." + itoa(i)
		switch {
		case !slices.Contains(allowed, t):
			fe.add(field, "The selected "+field+" is invalid: allowed are "+joinTypes(allowed)+".")
		case seen[t]:
			fe.add(field, msg(field, "has a duplicate value."))
		}
		seen[t] = true
		types[i] = t
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
		return newError(http.StatusConflict, "Only a failed check can be retried; this check is "+string(chk.Status)+".")
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, struct {
		Message string     `json:"message"`
		Check   *checkJSON `json:"check"`
	}{"Check retry has been queued.", toCheck(chk)})
}
