package api

import (
	"encoding/hex"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/kycflow/kycflow/check"
)

// imageJSON describes a kept image of an idscan check.
type imageJSON struct {
	N           int       `json:"n"`
	Attempt     int       `json:"attempt"`
	ContentType string    `json:"content_type"`
	Bytes       int       `json:"bytes"`
	Width       int       `json:"width"`
	Height      int       `json:"height"`
	SHA256      string    `json:"sha256"`
	UploadedAt  time.Time `json:"uploaded_at"`
	URL         string    `json:"url"`
}

// listImages is GET /api/v1/checks/{id}/images: the photos kept of one
// of the tenant's idscan checks, and until when they are kept (null while
// the check runs).
func (s *Server) listImages(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	rows, until, err := s.store.CheckImages(c.Request().Context(), principal(c), id)
	if err != nil {
		return err
	}
	out := make([]imageJSON, len(rows))
	for i, r := range rows {
		out[i] = imageJSON{N: r.N, Attempt: r.Attempt, ContentType: r.ContentType, Bytes: r.Bytes, Width: r.Width, Height: r.Height,
			SHA256: hex.EncodeToString(r.SHA256), UploadedAt: r.CreatedAt.UTC(), URL: "/api/v1/checks/" + id.String() + "/images/" + strconv.Itoa(r.N)}
	}
	return c.JSON(http.StatusOK, struct {
		Data      []imageJSON `json:"data"`
		KeptUntil *time.Time  `json:"kept_until"`
	}{out, until})
}

// getImage is GET /api/v1/checks/{id}/images/{n}: the photo itself, as
// uploaded (its metadata stripped), for the tenant's staff; each view is
// written to the audit log. 404 once it is erased.
func (s *Server) getImage(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(c.Param("n"))
	if err != nil || n < 1 || n > 1000 {
		return errNotFound
	}
	if s.images == nil {
		return newError(http.StatusServiceUnavailable, "Images cannot be shown: IMAGE_KEYS is not set on this api.")
	}
	row, err := s.store.CheckImage(c.Request().Context(), principal(c), id, n)
	if err != nil {
		return err
	}
	im, err := s.images.OpenImage(check.Ref{TenantID: principal(c).TenantID, CheckID: id}, row)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Disposition", "inline")
	h.Set("X-Content-Type-Options", "nosniff")
	return c.Blob(http.StatusOK, row.ContentType, im.Bytes)
}
