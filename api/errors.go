package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kycflow/kycflow/store"
)

// apiError is an error with its HTTP answer. Every error a handler returns
// is turned into a response by errorHandler, the one place that maps errors
// to HTTP.
type apiError struct {
	status     int
	message    string
	fields     *fieldErrors
	retryAfter int
}

func (e *apiError) Error() string { return e.message }

func newError(status int, message string) *apiError {
	return &apiError{status: status, message: message}
}

var (
	errNotFound        = newError(http.StatusNotFound, "Not found.")
	errUnknownTenant   = newError(http.StatusNotFound, "Unknown tenant.")
	errUnauthenticated = newError(http.StatusUnauthorized, "Unauthenticated.")
	errMalformed       = newError(http.StatusBadRequest, "Malformed JSON body.")
	errTooLarge        = newError(http.StatusRequestEntityTooLarge, "Request body too large: the limit is 1 MiB.")
	errMediaType       = newError(http.StatusUnsupportedMediaType, "Unsupported media type: send Content-Type: application/json.")
	errUnavailable     = newError(http.StatusServiceUnavailable, "Service unavailable, try again shortly.")
	errServer          = newError(http.StatusInternalServerError, "Server error.")
	errClientGone      = newError(499, "Client closed the request.")
)

// validationError is the 422 answer: the first message, a count of the
// others, and every message by field.
func validationError(fe *fieldErrors) *apiError {
	msgs := fe.all()
	msg := msgs[0]
	switch n := len(msgs) - 1; {
	case n == 1:
		msg += " (and 1 more error)"
	case n > 1:
		msg += fmt.Sprintf(" (and %d more errors)", n)
	}
	return &apiError{status: http.StatusUnprocessableEntity, message: msg, fields: fe}
}

// fieldError is the 422 answer for one message about one field.
func fieldError(field, msg string) *apiError {
	var fe fieldErrors
	fe.add(field, msg)
	return validationError(&fe)
}

// fieldErrors keeps validation messages by field, in the order found.
type fieldErrors struct {
	order []string
	msgs  map[string][]string
}

func (fe *fieldErrors) add(field, msg string) {
	if fe.msgs == nil {
		fe.msgs = map[string][]string{}
	}
	if _, ok := fe.msgs[field]; !ok {
		fe.order = append(fe.order, field)
	}
	fe.msgs[field] = append(fe.msgs[field], msg)
}

func (fe *fieldErrors) has(field string) bool { _, ok := fe.msgs[field]; return ok }

// hasWithin reports whether field, or an object holding it, has an error.
func (fe *fieldErrors) hasWithin(field string) bool {
	for f := range fe.msgs {
		if f == field || strings.HasPrefix(field, f+".") {
			return true
		}
	}
	return false
}

func (fe *fieldErrors) empty() bool { return len(fe.order) == 0 }

func (fe *fieldErrors) all() []string {
	var out []string
	for _, f := range fe.order {
		out = append(out, fe.msgs[f]...)
	}
	return out
}

// MarshalJSON writes the fields in the order they were found.
func (fe *fieldErrors) MarshalJSON() ([]byte, error) {
	buf := []byte{'{'}
	for i, f := range fe.order {
		if i > 0 {
			buf = append(buf, ',')
		}
		k, _ := json.Marshal(f)
		v, err := json.Marshal(fe.msgs[f])
		if err != nil {
			return nil, err
		}
		buf = append(append(append(buf, k...), ':'), v...)
	}
	return append(buf, '}'), nil
}

type errorBody struct {
	Message string       `json:"message"`
	Errors  *fieldErrors `json:"errors,omitempty"`
}

// errorHandler answers every error as JSON. Internal details go to the log
// under the request id, never into the body.
func (s *Server) errorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	e := s.toAPIError(err, c)
	if e.retryAfter > 0 {
		c.Response().Header().Set("Retry-After", strconv.Itoa(e.retryAfter))
	}
	body := errorBody{Message: e.message, Errors: e.fields}
	var werr error
	if c.Request().Method == http.MethodHead {
		werr = c.NoContent(e.status)
	} else {
		werr = c.JSON(e.status, body)
	}
	if werr != nil {
		s.log.Warn("write error response", "error", werr)
	}
}

func (s *Server) toAPIError(err error, c echo.Context) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		switch he.Code {
		case http.StatusNotFound:
			return errNotFound
		case http.StatusMethodNotAllowed:
			return newError(he.Code, "Method not allowed.")
		case http.StatusRequestEntityTooLarge:
			return errTooLarge
		case http.StatusUnsupportedMediaType:
			return errMediaType
		case http.StatusTooManyRequests:
			return &apiError{status: he.Code, message: "Too many requests.", retryAfter: 1}
		}
		if he.Code >= 400 && he.Code < 500 {
			return newError(he.Code, http.StatusText(he.Code)+".")
		}
	}
	switch {
	case c.Request().Context().Err() != nil:
		// The client went away: whatever failed after that (a cancelled
		// query, a transaction database/sql already rolled back) is no
		// server error, and nobody is listening. Logged as 499.
		return errClientGone
	case errors.Is(err, store.ErrNotFound):
		return errNotFound
	case errors.Is(err, store.ErrUnknownTenant):
		return errUnknownTenant
	case errors.Is(err, store.ErrUnauthenticated):
		return errUnauthenticated
	case errors.Is(err, store.ErrConflict):
		return newError(http.StatusConflict, "Conflict with the record's current state.")
	case errors.Is(err, store.ErrUnavailable):
		s.log.Error("database unavailable", "request_id", requestID(c), "error", err)
		return &apiError{status: http.StatusServiceUnavailable, message: errUnavailable.message, retryAfter: 5}
	}
	s.log.Error("request failed", "request_id", requestID(c), "method", c.Request().Method, "route", c.Path(), "error", err)
	return errServer
}

func requestID(c echo.Context) string {
	return c.Response().Header().Get(echo.HeaderXRequestID)
}
