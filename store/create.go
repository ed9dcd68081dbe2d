package store

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"text/template"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store/batch"
)

// A create's way from the handler to the outbox is told in package
// store/batch's doc comment.

// newSubject is one subject's share of a statement that queues checks: the
// subject itself when it is being created (row, its fields set), the checks
// to queue on it, whether its idin/idscan checks get links, and when.
type newSubject struct {
	id        uuid.UUID
	row       any // Business or Customer; nil when the subject exists
	types     []check.Type
	withLinks bool
	at        time.Time
}

// queued is what a statement queued on one subject: its checks, and the
// tokens of the links it issued (type → token).
type queued struct {
	checks []Check
	links  map[check.Type]string
}

// CreateStats is what a process's writers of creates have done.
type CreateStats = batch.Stats

// CreateStats reports the writers' counts (for /metrics).
func (s *Store) CreateStats() CreateStats { return s.creates.Stats() }

// SetPlainCreates writes every create alone, in a plain transaction of one
// statement per row (createPlain), instead of the shared statement of
// store/batch: the reference the differential test compares the shared
// statement with, and a way to rule it out when a create misbehaves.
func (s *Store) SetPlainCreates(on bool) { s.plainCreates.Store(on) }

// create writes a new subject and queues its checks.
func (s *Store) create(ctx context.Context, tenant uuid.UUID, kind check.Kind, sub newSubject) (queued, error) {
	if s.plainCreates.Load() {
		return s.createPlain(ctx, tenant, kind, sub)
	}
	return s.creates.Do(ctx, batch.Group{Tenant: tenant, Kind: kind}, sub)
}

// newCreates is the store's batcher of creates.
func (s *Store) newCreates() *batch.Batcher[newSubject, queued] {
	return &batch.Batcher[newSubject, queued]{
		Write: func(ctx context.Context, g batch.Group, subs []newSubject) ([]queued, error) {
			return s.writeSubjects(ctx, nil, g.Tenant, g.Kind, subs)
		},
		// An outage fails every create alike; anything else may be one
		// create's fault.
		Alone:   func(err error) bool { return !errors.Is(classify(err), ErrUnavailable) },
		Written: s.wakeRelay, // the checks' starts, the events' deliveries
	}
}

// createSQLText is a create (or a check request) as one statement: the
// tenant set first, then the new subjects (New: a create), their checks,
// the links of idin/idscan checks, and an outbox start per check. $1 is
// the tenant, $2…$7 the checks as parallel arrays (checkRows), $8 the new
// subjects as a JSON array (subjects_json.go). A check request on an
// existing subject leaves the subject's insert out: the worker's role,
// which queues rescreenings' checks, may not insert subjects at all.
// (No comment heads the text: pg_stat_activity shows a statement's first
// kilobyte.)
//
//go:embed create.sql
var createSQLText string

// createStatement names a filling of create.sql: the kind, and whether
// subjects are new.
type createStatement struct {
	kind check.Kind
	new  bool
}

// createSQL is create.sql filled in for each kind, with and without new
// subjects, once.
var createSQL = func() map[createStatement]string {
	tmpl := template.Must(template.New("create.sql").Parse(createSQLText))
	out := map[createStatement]string{}
	for _, kind := range []check.Kind{check.Business, check.Customer} {
		for _, new := range []bool{false, true} {
			cols := subjectColumns[kind]
			var b bytes.Buffer
			if err := tmpl.Execute(&b, map[string]any{"New": new, "Table": subjectTable(kind), "SubjectColumn": subjectColumn(kind),
				"Columns": strings.Join(cols, ", "), "RColumns": "r." + strings.Join(cols, ", r.")}); err != nil {
				panic(err)
			}
			out[createStatement{kind, new}] = b.String()
		}
	}
	return out
}()

// checkRows are the checks a statement queues, as create.sql's parallel
// arrays.
type checkRows struct {
	ids, subjects, types, payloads, ats []string
	hashes                              [][]byte
}

// plan makes the checks of subjects: their ids, outbox payloads and, with
// links, the verification links' tokens (returned) and hashes (stored).
func plan(tenantID uuid.UUID, kind check.Kind, subjects []newSubject) ([]queued, checkRows, error) {
	out := make([]queued, len(subjects))
	var rows checkRows
	for i, sub := range subjects {
		for _, t := range sub.types {
			c := Check{ID: NewID(), TenantID: tenantID, Type: t, Status: check.Queued, CreatedAt: sub.at, UpdatedAt: sub.at}
			if kind == check.Customer {
				c.CustomerID = &sub.id
			} else {
				c.BusinessID = &sub.id
			}
			p, err := payload(c.Ref())
			if err != nil {
				return nil, rows, err
			}
			var hash []byte // none: pq sends nil as empty
			if sub.withLinks && t.UsesLink() {
				if out[i].links == nil {
					out[i].links = map[check.Type]string{}
				}
				out[i].links[t], hash = newToken()
			}
			out[i].checks = append(out[i].checks, c)
			rows.ids, rows.subjects, rows.types = append(rows.ids, c.ID.String()), append(rows.subjects, sub.id.String()), append(rows.types, string(t))
			rows.payloads, rows.hashes, rows.ats = append(rows.payloads, p), append(rows.hashes, hash), append(rows.ats, sub.at.Format(time.RFC3339Nano))
		}
	}
	return out, rows, nil
}

// writeSubjects queues checks on subjects of one tenant and kind, creating
// the new subjects among them first (create.sql): one statement, which
// sets the tenant itself, so a create needs no transaction and costs one
// round trip, and one statement serves many creates (store/batch). Its
// text depends only on the kind, so on the pool it runs prepared
// (prepared.go). In tx (not nil) it runs unprepared: preparing on the pool
// would take a second connection while tx holds one, and enough
// transactions doing so at once would wait on each other.
func (s *Store) writeSubjects(ctx context.Context, tx *sqlx.Tx, tenantID uuid.UUID, kind check.Kind, subjects []newSubject) ([]queued, error) {
	out, rows, err := plan(tenantID, kind, subjects)
	if err != nil {
		return nil, err
	}
	var news []any
	for _, sub := range subjects {
		if sub.row != nil {
			news = append(news, sub.row)
		}
	}
	args := []any{tenantID.String(), pq.Array(rows.ids), pq.Array(rows.subjects), pq.Array(rows.types),
		pq.Array(rows.payloads), pq.ByteaArray(rows.hashes), pq.Array(rows.ats)}
	if len(news) > 0 {
		subjects, err := subjectsJSON(kind, news)
		if err != nil {
			return nil, err
		}
		args = append(args, subjects)
	}
	q := createSQL[createStatement{kind, len(news) > 0}]
	if tx != nil {
		_, err = tx.ExecContext(ctx, q, args...)
	} else {
		err = s.prepared(ctx, q, args...)
	}
	if err != nil {
		return nil, fmt.Errorf("queue checks: %w", err)
	}
	return out, nil
}

// createPlain writes one create in a transaction of its own, a statement
// per row: the subject (its columns bound by their db tags), each check,
// its link and its outbox start. Slower than the shared statement by the
// round trips and the per-statement trigger work, and simple to read.
func (s *Store) createPlain(ctx context.Context, tenantID uuid.UUID, kind check.Kind, sub newSubject) (queued, error) {
	out, rows, err := plan(tenantID, kind, []newSubject{sub})
	if err != nil {
		return queued{}, err
	}
	cols := append([]string{"tenant_id"}, subjectColumns[kind]...)
	insert := `INSERT INTO ` + subjectTable(kind) + ` (` + strings.Join(cols, ", ") + `) VALUES (:` + strings.Join(cols, ", :") + `)`
	err = s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		if _, err := tx.NamedExecContext(ctx, insert, sub.row); err != nil {
			return fmt.Errorf("insert %s: %w", kind, err)
		}
		for i, id := range rows.ids {
			if _, err := tx.ExecContext(ctx, `INSERT INTO checks (id, tenant_id, `+subjectColumn(kind)+`, type, status, created_at, updated_at)
				VALUES ($1, $2, $3, $4, 'queued', $5, $5)`, id, tenantID, sub.id, rows.types[i], sub.at); err != nil {
				return fmt.Errorf("insert check: %w", err)
			}
			if len(rows.hashes[i]) > 0 {
				if _, err := tx.ExecContext(ctx, `INSERT INTO links (check_id, tenant_id, customer_id, type, token_hash, created_at, expires_at)
					VALUES ($1, $2, $3, $4, $5, $6, $6::timestamptz + (SELECT link_ttl FROM tenants WHERE id = $2))`,
					id, tenantID, sub.id, rows.types[i], rows.hashes[i], sub.at); err != nil {
					return fmt.Errorf("insert link: %w", err)
				}
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO outbox (tenant_id, check_id, action, payload) VALUES ($1, $2, 'start', $3)`,
				tenantID, id, rows.payloads[i]); err != nil {
				return fmt.Errorf("insert outbox: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return queued{}, err
	}
	s.wakeRelay()
	return out[0], nil
}
