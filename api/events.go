package api

import (
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
)

// toEvent is an event on the wire, as the store renders it for GET /events
// and webhook deliveries alike: {"id", "type", "created_at", "data"}.
func toEvent(e store.Event) store.JSON { return e.Body }

func (s *Server) listEvents(c echo.Context) error {
	var fe fieldErrors
	q := store.EventQuery{PageQuery: pageParams(c, &fe)}
	params := c.QueryParams()
	// type=a&type=b and type=a,b both name several types.
	var names []string
	for _, v := range append(params["type"], params["type[]"]...) {
		for _, n := range strings.Split(v, ",") {
			names = append(names, strings.TrimSpace(n))
		}
	}
	if f, bad, ok := check.ParseEventFilter(names); ok {
		q.Types = f
	} else {
		fe.add("type", "The type "+quoteParam(bad)+" is not an event type: see GET /api/v1/events in the API reference for the list, or use check.* for every check event.")
	}
	q.SubjectID = queryUUID(c, "subject_id", &fe)
	if v := c.QueryParam("created_after"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			fe.add("created_after", msg("created_after", "must be an RFC 3339 timestamp, such as 2026-01-31T12:00:00Z."))
		} else {
			q.CreatedAfter = &t
		}
	}
	fetch := func(pq store.PageQuery) (store.Page[store.Event], error) {
		q.PageQuery = pq
		return s.store.ListEvents(c.Request().Context(), principal(c).TenantID, q)
	}
	return answerPage(c, q.PageQuery, &fe, fetch, toEvent, func(e store.Event) uuid.UUID { return e.ID })
}

func (s *Server) getEvent(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	e, err := s.store.GetEvent(c.Request().Context(), principal(c).TenantID, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, e.Body)
}

// quoteParam quotes a caller's value for a message, cut to a sane length.
func quoteParam(v string) string {
	if r := []rune(v); len(r) > 64 {
		v = string(r[:64]) + "…"
	}
	return `"` + v + `"`
}
