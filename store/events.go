package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/kycflow/kycflow/check"
)

// EventTTL is how long events are kept: a tenant whose endpoint was down
// catches up from GET /events within it.
const EventTTL = 30 * 24 * time.Hour

// eventBody renders an event as the API and webhooks send it: the one
// rendering there is (the e2e suite holds a delivery's body and GET
// /events/{id} equal).
const eventBody = `json_build_object('id', id, 'type', type, 'created_at', public.wire_time(created_at), 'data', data)`

const eventCols = `id, tenant_id, type, subject_kind, subject_id, created_at, ` + eventBody + ` AS body`

// Event is something that happened to a tenant's data. The database's
// triggers write events; the store only reads them.
type Event struct {
	ID          uuid.UUID       `db:"id"`
	TenantID    uuid.UUID       `db:"tenant_id"`
	Type        check.EventType `db:"type"`
	SubjectKind *check.Kind     `db:"subject_kind"`
	SubjectID   *uuid.UUID      `db:"subject_id"`
	CreatedAt   time.Time       `db:"created_at"`
	// Body is the whole event document, as the API sends it.
	Body JSON `db:"body"`
}

// EventQuery selects a page of a tenant's events.
type EventQuery struct {
	PageQuery
	Types        check.EventFilter
	SubjectID    *uuid.UUID
	CreatedAfter *time.Time
}

// ListEvents returns one page of the tenant's events, newest first.
func (s *Store) ListEvents(ctx context.Context, tenantID uuid.UUID, q EventQuery) (Page[Event], error) {
	var p Page[Event]
	args := []any{tenantID}
	where := ""
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	if f := q.Types; !f.All && (f.Checks || len(f.Types) > 0) {
		cond := "type = ANY(" + arg(pq.Array(strs(f.Types))) + ")"
		if f.Checks {
			cond += " OR type LIKE 'check.%'"
		}
		where += " AND (" + cond + ")"
	}
	if q.SubjectID != nil {
		where += " AND subject_id = " + arg(*q.SubjectID)
	}
	if q.CreatedAfter != nil {
		where += " AND created_at > " + arg(*q.CreatedAfter)
	}
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		var err error
		p, err = listPage(ctx, tx, "events", eventCols, where, args, q.PageQuery, func(e Event) uuid.UUID { return e.ID })
		return err
	})
	return p, err
}

// GetEvent reads one event of a tenant.
func (s *Store) GetEvent(ctx context.Context, tenantID, id uuid.UUID) (Event, error) {
	return getByID[Event](ctx, s, "events", eventCols, tenantID, id)
}

// PruneEvents deletes every tenant's events past EventTTL (the worker's
// role, through events_prune).
func (s *Store) PruneEvents(ctx context.Context) (int64, error) {
	return s.prune(ctx, "events_prune", EventTTL)
}
