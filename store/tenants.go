package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Tenant is one customer of kycflow, reached through its hostnames.
type Tenant struct {
	ID        uuid.UUID `db:"id"`
	Name      string    `db:"name"`
	Sandbox   bool      `db:"sandbox"`
	CreatedAt time.Time `db:"created_at"`
	Hosts     []string  `db:"-"`
}

// APIKey is a stored key: its hash and display prefix, never the key itself.
type APIKey struct {
	ID         uuid.UUID  `db:"id"`
	TenantID   uuid.UUID  `db:"tenant_id"`
	Prefix     string     `db:"prefix"`
	CreatedAt  time.Time  `db:"created_at"`
	LastUsedAt *time.Time `db:"last_used_at"`
	RevokedAt  *time.Time `db:"revoked_at"`
}

// Principal is who a request acts as.
type Principal struct {
	TenantID uuid.UUID
	KeyID    uuid.UUID
	// StaffID: a console staff member acting (then KeyID is nil).
	StaffID uuid.UUID
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// HashKey is how keys are stored and looked up.
func HashKey(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:]
}

// newKey makes `kyc_live_` (or `kyc_test_`) plus 32 random base62 characters.
func newKey(sandbox bool) string {
	var b strings.Builder
	if sandbox {
		b.WriteString("kyc_test_")
	} else {
		b.WriteString("kyc_live_")
	}
	max := big.NewInt(int64(len(base62)))
	for range 32 {
		n, err := rand.Int(rand.Reader, max)
		if err != nil {
			panic(err) // crypto/rand does not fail on Linux
		}
		b.WriteByte(base62[n.Int64()])
	}
	return b.String()
}

// NormalizeHost lower-cases a Host header value and drops its port.
func NormalizeHost(host string) string {
	host = strings.ToLower(strings.TrimSpace(host))
	if strings.HasPrefix(host, "[") { // [::1]:8080
		if i := strings.Index(host, "]"); i > 0 {
			return host[1:i]
		}
	}
	if i := strings.LastIndex(host, ":"); i >= 0 && strings.Count(host, ":") == 1 {
		host = host[:i]
	}
	return strings.TrimSuffix(host, ".")
}

// CreateTenant creates a tenant with its hosts and a first key, returning the
// key in clear (the only time it exists outside the caller).
func (s *Store) CreateTenant(ctx context.Context, name string, hosts []string, sandbox bool) (Tenant, string, error) {
	t := Tenant{ID: NewID(), Name: name, Sandbox: sandbox, CreatedAt: now()}
	var key string
	err := s.inTenant(ctx, t.ID, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO tenants (id, name, sandbox, created_at) VALUES ($1, $2, $3, $4)`,
			t.ID, t.Name, t.Sandbox, t.CreatedAt); err != nil {
			return fmt.Errorf("insert tenant: %w", err)
		}
		for _, h := range hosts {
			h = NormalizeHost(h)
			if h == "" {
				continue
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO tenant_hosts (host, tenant_id) VALUES ($1, $2)`, h, t.ID); err != nil {
				return fmt.Errorf("host %q: %w", h, err)
			}
			t.Hosts = append(t.Hosts, h)
		}
		var err error
		key, _, err = insertKey(ctx, tx, t.ID, sandbox)
		return err
	})
	return t, key, err
}

func insertKey(ctx context.Context, tx *sqlx.Tx, tenantID uuid.UUID, sandbox bool) (string, uuid.UUID, error) {
	key := newKey(sandbox)
	id := NewID()
	_, err := tx.ExecContext(ctx, `INSERT INTO api_keys (id, tenant_id, prefix, hash, created_at) VALUES ($1, $2, $3, $4, $5)`,
		id, tenantID, key[:13], HashKey(key), now())
	if err != nil {
		return "", uuid.Nil, fmt.Errorf("insert key: %w", err)
	}
	return key, id, nil
}

// CreateKey adds a key to a tenant (rotation: several may be active at once).
func (s *Store) CreateKey(ctx context.Context, tenantID uuid.UUID) (string, uuid.UUID, error) {
	var (
		key string
		id  uuid.UUID
	)
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		var sandbox bool
		if err := tx.GetContext(ctx, &sandbox, `SELECT sandbox FROM tenants WHERE id = $1`, tenantID); err != nil {
			return fmt.Errorf("tenant %s: %w", tenantID, err)
		}
		var err error
		key, id, err = insertKey(ctx, tx, tenantID, sandbox)
		return err
	})
	return key, id, err
}

// RevokeKey revokes a key of a tenant, given its id or its display prefix.
func (s *Store) RevokeKey(ctx context.Context, tenantID uuid.UUID, idOrPrefix string) error {
	return s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE api_keys SET revoked_at = $3
			WHERE tenant_id = $1 AND (id::text = $2 OR prefix = $2) AND revoked_at IS NULL`, tenantID, idOrPrefix, now())
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("active key %q: %w", idOrPrefix, ErrNotFound)
		}
		return nil
	})
}

// ActiveKey is the id of the tenant's active key that hashes to keyHash
// (the operator's: `kycflow check review` acts as the key it is given);
// ErrUnauthenticated for any other key.
func (s *Store) ActiveKey(ctx context.Context, tenantID uuid.UUID, keyHash []byte) (uuid.UUID, error) {
	var id uuid.UUID
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		return tx.GetContext(ctx, &id, `SELECT id FROM api_keys WHERE tenant_id = $1 AND hash = $2 AND revoked_at IS NULL`, tenantID, keyHash)
	})
	if errors.Is(err, ErrNotFound) {
		return id, ErrUnauthenticated
	}
	return id, err
}

// TenantIDs lists every tenant's id: the worker's rescreening walks them
// (its role reads tenants, never their hosts or keys).
func (s *Store) TenantIDs(ctx context.Context) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	if err := s.db.SelectContext(ctx, &ids, `SELECT id FROM tenants`); err != nil {
		return nil, classify(err)
	}
	return ids, nil
}

// Tenants lists every tenant with its hosts (admin only: runs as the owner).
func (s *Store) Tenants(ctx context.Context) ([]Tenant, error) {
	var ts []Tenant
	if err := s.db.SelectContext(ctx, &ts, `SELECT id, name, sandbox, created_at FROM tenants ORDER BY created_at`); err != nil {
		return nil, classify(err)
	}
	for i := range ts {
		if err := s.db.SelectContext(ctx, &ts[i].Hosts, `SELECT host FROM tenant_hosts WHERE tenant_id = $1 ORDER BY host`, ts[i].ID); err != nil {
			return nil, classify(err)
		}
	}
	return ts, nil
}

// Keys lists a tenant's keys.
func (s *Store) Keys(ctx context.Context, tenantID uuid.UUID) ([]APIKey, error) {
	var ks []APIKey
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		return tx.SelectContext(ctx, &ks, `SELECT id, tenant_id, prefix, created_at, last_used_at, revoked_at
			FROM api_keys WHERE tenant_id = $1 ORDER BY created_at`, tenantID)
	})
	return ks, err
}

// TenantByHost resolves the tenant owning a (normalised) host.
func (s *Store) TenantByHost(ctx context.Context, host string) (uuid.UUID, error) {
	var id *uuid.UUID
	if err := classify(s.db.GetContext(ctx, &id, `SELECT tenant_by_host($1)`, host)); err != nil {
		return uuid.Nil, err
	}
	if id == nil {
		return uuid.Nil, ErrUnknownTenant
	}
	return *id, nil
}

// Authenticate resolves the tenant owning host and checks that an active
// key with this hash is that tenant's: ErrUnknownTenant for a host no tenant
// owns, ErrUnauthenticated for any key problem.
func (s *Store) Authenticate(ctx context.Context, host string, keyHash []byte) (Principal, error) {
	c := s.auth.Load()
	if c == nil {
		return s.authenticate(ctx, host, keyHash)
	}
	k, now := authCacheKey(host, keyHash), time.Now()
	if p, ok := c.get(k, now); ok {
		return p, nil
	}
	gen := c.generation()
	p, err := s.authenticate(ctx, host, keyHash)
	if err == nil {
		c.put(k, p, gen, now)
	}
	return p, err
}

func (s *Store) authenticate(ctx context.Context, host string, keyHash []byte) (Principal, error) {
	var row struct {
		TenantID *uuid.UUID `db:"tenant_id"`
		KeyID    *uuid.UUID `db:"key_id"`
	}
	err := classify(s.db.GetContext(ctx, &row, `SELECT tenant_id, key_id FROM authenticate($1, $2)`, host, keyHash))
	switch {
	case errors.Is(err, ErrNotFound):
		return Principal{}, ErrUnknownTenant
	case err != nil:
		return Principal{}, err
	case row.KeyID == nil:
		return Principal{}, ErrUnauthenticated
	}
	return Principal{TenantID: *row.TenantID, KeyID: *row.KeyID}, nil
}

// TenantName is the tenant's display name (shown to people on verification
// mails and pages).
func (s *Store) TenantName(ctx context.Context, id uuid.UUID) (string, error) {
	var name string
	err := s.db.GetContext(ctx, &name, `SELECT name FROM tenants WHERE id = $1`, id)
	return name, classify(err)
}

// SetLinkTTL sets how long the tenant's new verification links stay valid
// (admin tools; links already issued keep their expiry).
func (s *Store) SetLinkTTL(ctx context.Context, tenantID uuid.UUID, ttl time.Duration) error {
	if ttl < time.Minute {
		return fmt.Errorf("link ttl %s: at least a minute", ttl)
	}
	return s.updateTenant(ctx, `UPDATE tenants SET link_ttl = make_interval(secs => $2) WHERE id = $1`, tenantID, ttl.Seconds())
}

// updateTenant runs a one-row UPDATE of tenants ($1 the tenant's id):
// ErrNotFound when there is no such tenant.
func (s *Store) updateTenant(ctx context.Context, query string, tenantID uuid.UUID, value any) error {
	res, err := s.db.ExecContext(ctx, query, tenantID, value)
	if err != nil {
		return classify(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// AMLSettings are a tenant's aml screening settings.
type AMLSettings struct {
	// Threshold is the score from which a watchlist hit alerts (awaits review).
	Threshold float64
	// HardConflict drops hits whose birth date or nationality contradicts
	// the customer's instead of scoring them lower.
	HardConflict bool
	// ReviewWindow is how long a check awaits its review before it expires.
	ReviewWindow time.Duration
	// Lists are the watchlists the tenant screens against; nil: all.
	Lists pq.StringArray
	// FourEyes: a decision on a hit is final only once a second reviewer
	// approves it (on for live tenants unless set, off for sandbox ones).
	FourEyes bool
}

// AMLSettings reads the tenant's aml screening settings.
func (s *Store) AMLSettings(ctx context.Context, tenantID uuid.UUID) (AMLSettings, error) {
	var a AMLSettings
	// Prepared: every synchronous screening reads it.
	stmt, err := s.statement(ctx, `SELECT aml_threshold, aml_hard_conflict,
		(extract(epoch FROM aml_review_window) * 1e9)::bigint, aml_lists,
		coalesce(aml_four_eyes, NOT sandbox) FROM tenants WHERE id = $1`)
	if err != nil {
		return a, err
	}
	var window int64
	err = stmt.QueryRowContext(ctx, tenantID).Scan(&a.Threshold, &a.HardConflict, &window, &a.Lists, &a.FourEyes)
	a.ReviewWindow = time.Duration(window)
	return a, classify(err)
}

// SetAMLHardConflict sets AMLSettings.HardConflict (admin tools).
func (s *Store) SetAMLHardConflict(ctx context.Context, tenantID uuid.UUID, on bool) error {
	return s.updateTenant(ctx, `UPDATE tenants SET aml_hard_conflict = $2 WHERE id = $1`, tenantID, on)
}

// SetAMLFourEyes sets AMLSettings.FourEyes (admin tools); it applies to
// checks screened from then on.
func (s *Store) SetAMLFourEyes(ctx context.Context, tenantID uuid.UUID, on bool) error {
	return s.updateTenant(ctx, `UPDATE tenants SET aml_four_eyes = $2 WHERE id = $1`, tenantID, on)
}

// SetAMLThreshold sets AMLSettings.Threshold (admin tools).
func (s *Store) SetAMLThreshold(ctx context.Context, tenantID uuid.UUID, t float64) error {
	if t <= 0 || t > 1 {
		return fmt.Errorf("aml threshold %v: want a score in (0, 1]", t)
	}
	return s.updateTenant(ctx, `UPDATE tenants SET aml_threshold = $2 WHERE id = $1`, tenantID, t)
}

// SetAMLReviewWindow sets AMLSettings.ReviewWindow (admin tools).
func (s *Store) SetAMLReviewWindow(ctx context.Context, tenantID uuid.UUID, d time.Duration) error {
	if d < time.Minute {
		return fmt.Errorf("aml review window %s: at least a minute", d)
	}
	return s.updateTenant(ctx, `UPDATE tenants SET aml_review_window = make_interval(secs => $2) WHERE id = $1`, tenantID, d.Seconds())
}

// SetAMLLists sets AMLSettings.Lists (admin tools); nil: every list.
func (s *Store) SetAMLLists(ctx context.Context, tenantID uuid.UUID, lists []string) error {
	var v any
	if lists != nil {
		v = pq.Array(lists)
	}
	return s.updateTenant(ctx, `UPDATE tenants SET aml_lists = $2 WHERE id = $1`, tenantID, v)
}

// IsSandbox reports whether a tenant is a sandbox tenant.
func (s *Store) IsSandbox(ctx context.Context, tenantID uuid.UUID) (bool, error) {
	var sandbox bool
	err := s.db.GetContext(ctx, &sandbox, `SELECT sandbox FROM tenants WHERE id = $1`, tenantID)
	return sandbox, classify(err)
}
