// Package store is kycflow's PostgreSQL layer. Every query on tenant data runs
// in a transaction that first sets app.tenant_id, which the row-level security
// policies of every tenant table key on, and also names tenant_id explicitly.
package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/kycflow/kycflow/store/batch"
)

var (
	// ErrNotFound: no such row for this tenant.
	ErrNotFound = errors.New("not found")
	// ErrConflict: the row exists but is not in a state that allows the change.
	ErrConflict = errors.New("conflict")
	// ErrUnavailable: the database cannot be reached.
	ErrUnavailable = errors.New("database unavailable")
	// ErrUnknownTenant: no tenant owns the host.
	ErrUnknownTenant = errors.New("unknown tenant")
	// ErrUnauthenticated: the key is unknown, revoked or another tenant's.
	ErrUnauthenticated = errors.New("unauthenticated")
)

// Store wraps the connection pool.
type Store struct {
	db  *sqlx.DB
	dsn string
	// poke, stop and stopped drive the relay notifier (notify.go).
	poke          chan struct{}
	stop, stopped chan struct{}
	// auth caches authentications when CacheAuthentications runs.
	auth atomic.Pointer[authCache]
	// creates queues creates for shared statements (create.go, store/batch);
	// plainCreates writes each alone instead (SetPlainCreates).
	creates      *batch.Batcher[newSubject, queued]
	plainCreates atomic.Bool
	// stmts holds the prepared statements, by text (prepared.go).
	stmts sync.Map
}

// Open connects and pings. maxConns bounds the pool (0 keeps the default 20).
func Open(ctx context.Context, dsn string, maxConns int) (*Store, error) {
	dsn = withBinaryParameters(dsn)
	db, err := sqlx.Open("postgres", dsn)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if maxConns <= 0 {
		maxConns = 20
	}
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("ping database: %w", classify(err))
	}
	s := &Store{db: db, dsn: dsn}
	s.creates = s.newCreates()
	s.startNotifier()
	return s, nil
}

// Close stops the notifier, sends a wake-up still pending (a short-lived
// admin command commits and closes at once), and closes the pool.
func (s *Store) Close() error {
	close(s.stop)
	<-s.stopped
	select {
	case <-s.poke:
		s.notify()
	default:
	}
	return s.db.Close()
}

// DB exposes the pool for tests and admin tools.
func (s *Store) DB() *sqlx.DB { return s.db }

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error { return classify(s.db.PingContext(ctx)) }

// inTenant runs fn in a transaction scoped to one tenant (RLS plus explicit
// filters), committing when fn returns nil.
func (s *Store) inTenant(ctx context.Context, tenantID uuid.UUID, fn func(tx *sqlx.Tx) error) error {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return classify(err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit this is a no-op
	if _, err := tx.ExecContext(ctx, `SELECT set_config('app.tenant_id', $1, true)`, tenantID.String()); err != nil {
		return classify(err)
	}
	if err := fn(tx); err != nil {
		return classify(err)
	}
	return classify(tx.Commit())
}

// byID reads one row of a tenant's table by its id (cols selects it into T).
func byID[T any](ctx context.Context, tx *sqlx.Tx, table, cols string, tenantID, id uuid.UUID) (T, error) {
	var v T
	err := tx.GetContext(ctx, &v, `SELECT `+cols+` FROM `+table+` WHERE tenant_id = $1 AND id = $2`, tenantID, id)
	return v, err
}

// getByID is byID in a transaction of its own.
func getByID[T any](ctx context.Context, s *Store, table, cols string, tenantID, id uuid.UUID) (T, error) {
	var v T
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		var err error
		v, err = byID[T](ctx, tx, table, cols, tenantID, id)
		return err
	})
	return v, err
}

// classify maps driver errors onto the store's sentinel errors, keeping the cause.
func classify(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	for _, sentinel := range []error{ErrNotFound, ErrConflict, ErrUnavailable, ErrUnknownTenant, ErrUnauthenticated} {
		if errors.Is(err, sentinel) {
			return err
		}
	}
	var pqErr *pq.Error
	if errors.As(err, &pqErr) {
		switch pqErr.Code.Class() {
		case "08", "53", "57": // connection exception, insufficient resources, operator intervention
			return fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
		return err
	}
	var netErr net.Error
	if errors.As(err, &netErr) || errors.Is(err, sql.ErrConnDone) || errors.Is(err, driver.ErrBadConn) {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return err
}

// withBinaryParameters turns on lib/pq's binary_parameters: it sends a
// parameterised query in one round trip instead of two, which halves the
// round trips of every request. ([]byte parameters then travel as binary, so
// jsonb values are passed as strings; see JSON.Value.)
func withBinaryParameters(dsn string) string {
	if strings.Contains(dsn, "binary_parameters") {
		return dsn
	}
	return withParam(dsn, "binary_parameters", "yes")
}

// withParam sets a connection parameter (value: no spaces or quotes) in a
// URL or key=value DSN.
func withParam(dsn, key, value string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		q := u.Query()
		q.Set(key, value)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return dsn + " " + key + "=" + value
}

// now is the timestamp written by the store: UTC at the API's microsecond precision.
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// NewID returns a UUIDv7, so ids sort by creation time.
func NewID() uuid.UUID { return uuid.Must(uuid.NewV7()) }

// interval is d as a PostgreSQL interval literal, to the microsecond.
func interval(d time.Duration) string { return fmt.Sprintf("%d microseconds", d.Microseconds()) }
