package api

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/kycflow/kycflow/store"
)

const (
	defaultPerPage = 20
	maxPerPage     = 100
)

// cursor is Laravel's cursor shape: the boundary row's id and the direction.
type cursor struct {
	ID   uuid.UUID `json:"id"`
	Next bool      `json:"_pointsToNextItems"`
}

func (c cursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string) (cursor, bool) {
	var c cursor
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		if raw, err = base64.URLEncoding.DecodeString(s); err != nil {
			return c, false
		}
	}
	var fields struct {
		ID   *uuid.UUID `json:"id"`
		Next *bool      `json:"_pointsToNextItems"`
	}
	if err := json.Unmarshal(raw, &fields); err != nil || fields.ID == nil || fields.Next == nil {
		return c, false
	}
	return cursor{ID: *fields.ID, Next: *fields.Next}, true
}

// pageParams reads cursor and per_page; bad values are a 422 on that parameter.
func pageParams(c echo.Context, fe *fieldErrors) store.PageQuery {
	q := store.PageQuery{Limit: defaultPerPage}
	if v := c.QueryParam("per_page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxPerPage {
			fe.add("per_page", msg("per_page", "must be an integer between 1 and 100."))
		} else {
			q.Limit = n
		}
	}
	if v := c.QueryParam("cursor"); v != "" {
		cur, ok := decodeCursor(v)
		switch {
		case !ok:
			fe.add("cursor", "The cursor is invalid: pass next_cursor or prev_cursor from a list response unchanged.")
		case cur.Next:
			q.After = &cur.ID
		default:
			q.Before = &cur.ID
		}
	}
	return q
}

// pageJSON is the list envelope.
type pageJSON[T any] struct {
	Data        []T     `json:"data"`
	Path        string  `json:"path"`
	PerPage     int     `json:"per_page"`
	NextCursor  *string `json:"next_cursor"`
	NextPageURL *string `json:"next_page_url"`
	PrevCursor  *string `json:"prev_cursor"`
	PrevPageURL *string `json:"prev_page_url"`
}

// envelope builds the list answer; page URLs keep every query parameter
// the caller sent but the cursor.
func envelope[S, T any](c echo.Context, p store.Page[S], limit int, conv func(S) T, idOf func(S) uuid.UUID) pageJSON[T] {
	out := pageJSON[T]{Data: make([]T, 0, len(p.Items)), PerPage: limit}
	for _, it := range p.Items {
		out.Data = append(out.Data, conv(it))
	}
	req := c.Request()
	out.Path = c.Scheme() + "://" + req.Host + req.URL.Path
	link := func(cur cursor) (*string, *string) {
		s := cur.encode()
		q := url.Values{}
		for k, v := range req.URL.Query() {
			if k != "cursor" {
				q[k] = v
			}
		}
		q.Set("cursor", s)
		u := out.Path + "?" + q.Encode()
		return &s, &u
	}
	if len(p.Items) > 0 {
		if p.HasNext {
			out.NextCursor, out.NextPageURL = link(cursor{ID: idOf(p.Items[len(p.Items)-1]), Next: true})
		}
		if p.HasPrev {
			out.PrevCursor, out.PrevPageURL = link(cursor{ID: idOf(p.Items[0]), Next: false})
		}
	}
	return out
}

// answerPage answers a list request: a 422 for the parameters' errors
// gathered in fe, else the page fetch reads, in the list envelope.
func answerPage[S, T any](c echo.Context, q store.PageQuery, fe *fieldErrors, fetch func(store.PageQuery) (store.Page[S], error),
	conv func(S) T, idOf func(S) uuid.UUID) error {
	if !fe.empty() {
		return validationError(fe)
	}
	p, err := fetch(q)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, envelope(c, p, q.Limit, conv, idOf))
}

// queryUUID reads a UUID query parameter (nil when absent); anything but a
// 36-character UUID is an error on it.
func queryUUID(c echo.Context, name string, fe *fieldErrors) *uuid.UUID {
	v := c.QueryParam(name)
	if v == "" {
		return nil
	}
	id, err := uuid.Parse(v)
	if err != nil || len(v) != 36 {
		fe.add(name, msg(name, "must be a valid UUID."))
		return nil
	}
	return &id
}
