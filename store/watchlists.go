package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// WatchlistVersion is one imported version of a sanctions or PEP list.
type WatchlistVersion struct {
	ID           int64      `db:"id"`
	List         string     `db:"list"`
	Format       string     `db:"format"`
	ContentHash  []byte     `db:"content_hash"`
	Entities     int        `db:"entities"`
	Names        int        `db:"names"`
	ImportedAt   time.Time  `db:"imported_at"`
	RescreenedAt *time.Time `db:"rescreened_at"`
	// LoadedAt is when a worker first loaded the version.
	LoadedAt *time.Time `db:"loaded_at"`
}

const watchlistCols = `id, list, format, content_hash, entities, names, imported_at, rescreened_at, loaded_at`

// WatchlistImport writes one list version in a transaction: Add each
// entity, then Commit (or Rollback).
type WatchlistImport struct {
	tx      *sqlx.Tx
	version WatchlistVersion
	ids     []string
	hashes  [][]byte
	data    []string
	seen    map[string]bool
}

// ErrWatchlistUnchanged: this list already has a version with this content.
var ErrWatchlistUnchanged = errors.New("store: list version already imported")

// BeginWatchlistImport starts importing a version of list, its files read
// by reader (watchlist.Reader). A version with the same content hash read
// the same way is returned with ErrWatchlistUnchanged (re-importing a file
// is a no-op; after an upgrade that reads it differently, a new version).
// Lists are global: this needs the owner role.
func (s *Store) BeginWatchlistImport(ctx context.Context, list, format, reader string, contentHash []byte) (*WatchlistImport, *WatchlistVersion, error) {
	var existing WatchlistVersion
	err := s.db.GetContext(ctx, &existing, `SELECT `+watchlistCols+` FROM watchlist_versions WHERE list = $1 AND content_hash = $2 AND reader = $3`, list, contentHash, reader)
	if err == nil {
		return nil, &existing, ErrWatchlistUnchanged
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return nil, nil, classify(err)
	}
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return nil, nil, classify(err)
	}
	imp := &WatchlistImport{tx: tx, seen: map[string]bool{}}
	if err := tx.GetContext(ctx, &imp.version, `INSERT INTO watchlist_versions (list, format, content_hash, reader, entities, names)
		VALUES ($1, $2, $3, $4, 0, 0) RETURNING `+watchlistCols, list, format, contentHash, reader); err != nil {
		tx.Rollback()
		if errors.Is(classify(err), ErrConflict) {
			return nil, nil, ErrWatchlistUnchanged // imported concurrently
		}
		return nil, nil, classify(err)
	}
	return imp, nil, nil
}

// Add queues one entity (its id and JSON); rows go in batches.
func (imp *WatchlistImport) Add(ctx context.Context, entityID string, data []byte) error {
	if imp.seen[entityID] {
		return fmt.Errorf("entity %q appears twice in the list", entityID)
	}
	imp.seen[entityID] = true
	h := sha256.Sum256(data)
	imp.ids, imp.hashes, imp.data = append(imp.ids, entityID), append(imp.hashes, h[:]), append(imp.data, string(data))
	if len(imp.ids) >= 1000 {
		return imp.flush(ctx)
	}
	return nil
}

func (imp *WatchlistImport) flush(ctx context.Context) error {
	if len(imp.ids) == 0 {
		return nil
	}
	_, err := imp.tx.ExecContext(ctx, `INSERT INTO watchlist_entities (version_id, entity_id, data_hash, data)
		SELECT $1, t.id, t.h, t.d::jsonb FROM unnest($2::text[], $3::bytea[], $4::text[]) AS t(id, h, d)`,
		imp.version.ID, pq.Array(imp.ids), pq.Array(imp.hashes), pq.Array(imp.data))
	imp.ids, imp.hashes, imp.data = imp.ids[:0], imp.hashes[:0], imp.data[:0]
	if err != nil {
		return fmt.Errorf("insert entities: %w", err)
	}
	return nil
}

// Commit writes the counts and makes the version visible.
func (imp *WatchlistImport) Commit(ctx context.Context, entities, names int) (WatchlistVersion, error) {
	if err := imp.flush(ctx); err != nil {
		imp.tx.Rollback()
		return WatchlistVersion{}, err
	}
	if err := imp.tx.GetContext(ctx, &imp.version, `UPDATE watchlist_versions SET entities = $2, names = $3 WHERE id = $1
		RETURNING `+watchlistCols, imp.version.ID, entities, names); err != nil {
		imp.tx.Rollback()
		return WatchlistVersion{}, classify(err)
	}
	return imp.version, classify(imp.tx.Commit())
}

// Rollback abandons the import.
func (imp *WatchlistImport) Rollback() { imp.tx.Rollback() }

// LatestWatchlists returns the newest version of every list.
func (s *Store) LatestWatchlists(ctx context.Context) ([]WatchlistVersion, error) {
	var out []WatchlistVersion
	err := s.db.SelectContext(ctx, &out, `SELECT DISTINCT ON (list) `+watchlistCols+` FROM watchlist_versions ORDER BY list, id DESC`)
	return out, classify(err)
}

// Watchlists returns every version, newest first.
func (s *Store) Watchlists(ctx context.Context) ([]WatchlistVersion, error) {
	var out []WatchlistVersion
	err := s.db.SelectContext(ctx, &out, `SELECT `+watchlistCols+` FROM watchlist_versions ORDER BY id DESC`)
	return out, classify(err)
}

// WatchlistEntities streams a version's entities (id and JSON).
func (s *Store) WatchlistEntities(ctx context.Context, versionID int64, fn func(id string, data []byte) error) error {
	rows, err := s.db.QueryContext(ctx, `SELECT entity_id, data FROM watchlist_entities WHERE version_id = $1`, versionID)
	if err != nil {
		return classify(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var data []byte
		if err := rows.Scan(&id, &data); err != nil {
			return classify(err)
		}
		if err := fn(id, data); err != nil {
			return err
		}
	}
	return classify(rows.Err())
}

// WatchlistChanges streams what a version changed against the last
// rescreened version of its list: entities added or changed (their new
// data) and removed (their old data). The first version changes everything.
func (s *Store) WatchlistChanges(ctx context.Context, versionID int64, fn func(id string, data []byte, removed bool) error) error {
	rows, err := s.db.QueryContext(ctx, `
		WITH cur AS (SELECT list FROM watchlist_versions WHERE id = $1),
		prev AS (SELECT max(v.id) AS id FROM watchlist_versions v, cur
			WHERE v.list = cur.list AND v.id < $1 AND v.rescreened_at IS NOT NULL)
		SELECT n.entity_id, n.data, false FROM watchlist_entities n
			LEFT JOIN watchlist_entities o ON o.version_id = (SELECT id FROM prev) AND o.entity_id = n.entity_id
			WHERE n.version_id = $1 AND (o.entity_id IS NULL OR o.data_hash <> n.data_hash)
		UNION ALL
		SELECT o.entity_id, o.data, true FROM watchlist_entities o
			WHERE o.version_id = (SELECT id FROM prev)
			  AND NOT EXISTS (SELECT 1 FROM watchlist_entities n WHERE n.version_id = $1 AND n.entity_id = o.entity_id)`, versionID)
	if err != nil {
		return classify(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var data []byte
		var removed bool
		if err := rows.Scan(&id, &data, &removed); err != nil {
			return classify(err)
		}
		if err := fn(id, data, removed); err != nil {
			return err
		}
	}
	return classify(rows.Err())
}

// PendingRescreens are the versions whose rescreening has not finished.
func (s *Store) PendingRescreens(ctx context.Context) ([]WatchlistVersion, error) {
	var out []WatchlistVersion
	err := s.db.SelectContext(ctx, &out, `SELECT `+watchlistCols+` FROM watchlist_versions WHERE rescreened_at IS NULL ORDER BY id`)
	return out, classify(err)
}

// MarkRescreened records that a version's rescreening is done, and with it
// that of older versions of its list it superseded before their turn.
func (s *Store) MarkRescreened(ctx context.Context, versionID int64) error {
	_, err := s.db.ExecContext(ctx, `UPDATE watchlist_versions SET rescreened_at = now()
		WHERE list = (SELECT list FROM watchlist_versions WHERE id = $1) AND id <= $1 AND rescreened_at IS NULL`, versionID)
	return classify(err)
}

// MarkWatchlistsLoaded records that a worker has loaded these versions.
func (s *Store) MarkWatchlistsLoaded(ctx context.Context, ids []int64) error {
	_, err := s.db.ExecContext(ctx, `UPDATE watchlist_versions SET loaded_at = now() WHERE id = ANY($1) AND loaded_at IS NULL`, pq.Array(ids))
	return classify(err)
}

// ScreeningCounts is what the audit trail keeps of a synchronous
// screening: counts, never the names screened.
type ScreeningCounts struct {
	Queries  int `json:"queries"`
	Hits     int `json:"hits"`
	Alerting int `json:"alerting"`
}

// RecordScreening writes the audit row of a synchronous screening.
func (s *Store) RecordScreening(ctx context.Context, p Principal, n ScreeningCounts) error {
	detail, err := json.Marshal(n)
	if err != nil {
		return err
	}
	// One prepared statement, one round trip: the tenant is set before the
	// row meets row-level security, as in create.sql.
	return classify(s.prepared(ctx, `WITH tenant AS MATERIALIZED (SELECT set_config('app.tenant_id', $1, true)::uuid AS id)
		INSERT INTO audit_log (id, tenant_id, action, record_kind, record_id, api_key_id, detail)
		SELECT $2, tenant.id, 'screen', 'screening', $2, $3, $4 FROM tenant`, p.TenantID.String(), NewID(), keyIDOf(p), JSON(detail)))
}

// keyIDOf is the principal's key id as an audit row holds it (null for
// admin tools, which have none).
func keyIDOf(p Principal) *uuid.UUID { return nilIfZero(p.KeyID) }

// staffIDOf is the acting staff member's id for the audit log, if any.
func staffIDOf(p Principal) *uuid.UUID { return nilIfZero(p.StaffID) }

func nilIfZero(id uuid.UUID) *uuid.UUID {
	if id == uuid.Nil {
		return nil
	}
	return &id
}
