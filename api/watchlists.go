package api

import (
	"encoding/hex"
	"net/http"
	"slices"
	"time"

	"github.com/labstack/echo/v4"
)

type watchlistJSON struct {
	List        string `json:"list"`
	Version     int64  `json:"version"`
	Format      string `json:"format"`
	Entities    int    `json:"entities"`
	ContentHash string `json:"content_hash"`
	ImportedAt  Time   `json:"imported_at"`
	AgeSeconds  int64  `json:"age_seconds"`
	// LoadedAt: when a worker first loaded this version (null: none yet).
	LoadedAt *Time `json:"loaded_at"`
	// Applies: the tenant screens against this list.
	Applies bool `json:"applies"`
}

// listWatchlists shows the newest version of every imported list (lists
// are shared by all tenants) and which of them the tenant screens against.
func (s *Server) listWatchlists(c echo.Context) error {
	ctx := c.Request().Context()
	vs, err := s.store.LatestWatchlists(ctx)
	if err != nil {
		return err
	}
	set, err := s.store.AMLSettings(ctx, principal(c).TenantID)
	if err != nil {
		return err
	}
	now := time.Now()
	out := make([]watchlistJSON, 0, len(vs))
	for _, v := range vs {
		out = append(out, watchlistJSON{List: v.List, Version: v.ID, Format: v.Format, Entities: v.Entities,
			ContentHash: hex.EncodeToString(v.ContentHash), ImportedAt: Time(v.ImportedAt), AgeSeconds: int64(now.Sub(v.ImportedAt).Seconds()),
			LoadedAt: optTime(v.LoadedAt), Applies: set.Lists == nil || slices.Contains(set.Lists, v.List)})
	}
	return c.JSON(http.StatusOK, map[string]any{"data": out})
}
