package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/webhook"
)

// ErrLimit: the tenant has as many of these as it may.
var ErrLimit = errors.New("limit reached")

const endpointCols = `id, tenant_id, url, events, description, secret, previous_secret, previous_expires_at,
	disabled_at, disabled_reason, failing_since, created_at, updated_at,
	(SELECT t.sandbox FROM tenants t WHERE t.id = tenant_id) AS sandbox`

// Endpoint is a tenant's webhook endpoint. Its secrets are sealed (see
// webhook.Cipher): the store never sees them in the clear.
type Endpoint struct {
	ID                uuid.UUID      `db:"id"`
	TenantID          uuid.UUID      `db:"tenant_id"`
	URL               string         `db:"url"`
	Events            pq.StringArray `db:"events"`
	Description       *string        `db:"description"`
	Secret            []byte         `db:"secret"`
	PreviousSecret    []byte         `db:"previous_secret"`
	PreviousExpiresAt *time.Time     `db:"previous_expires_at"`
	DisabledAt        *time.Time     `db:"disabled_at"`
	DisabledReason    *string        `db:"disabled_reason"`
	FailingSince      *time.Time     `db:"failing_since"`
	CreatedAt         time.Time      `db:"created_at"`
	UpdatedAt         time.Time      `db:"updated_at"`
	// Sandbox: the tenant's is a sandbox tenant (webhook.Guard.ForTenant).
	Sandbox bool `db:"sandbox"`
}

// Secrets are the sealed secrets that sign now, newest first: the previous
// one until it expires.
func (e Endpoint) Secrets(at time.Time) [][]byte {
	out := [][]byte{e.Secret}
	if e.PreviousSecret != nil && e.PreviousExpiresAt != nil && at.Before(*e.PreviousExpiresAt) {
		out = append(out, e.PreviousSecret)
	}
	return out
}

// CreateEndpoint stores a new endpoint (its ID and sealed secret set by
// the caller, who sealed the secret with the ID). ErrLimit when the tenant
// has webhook.MaxEndpoints already.
func (s *Store) CreateEndpoint(ctx context.Context, e Endpoint) (Endpoint, error) {
	e.CreatedAt = now()
	e.UpdatedAt = e.CreatedAt
	err := s.inTenant(ctx, e.TenantID, func(tx *sqlx.Tx) error {
		// Serialises the tenant's creates, so the count holds.
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 12))`, e.TenantID.String()); err != nil {
			return err
		}
		var n int
		if err := tx.GetContext(ctx, &n, `SELECT count(*) FROM webhook_endpoints WHERE tenant_id = $1`, e.TenantID); err != nil {
			return err
		}
		if n >= webhook.MaxEndpoints {
			return ErrLimit
		}
		_, err := tx.NamedExecContext(ctx, `INSERT INTO webhook_endpoints (id, tenant_id, url, events, description, secret, created_at, updated_at)
			VALUES (:id, :tenant_id, :url, :events, :description, :secret, :created_at, :updated_at)`, e)
		return err
	})
	return e, err
}

// ListEndpoints returns one page of the tenant's endpoints, newest first.
func (s *Store) ListEndpoints(ctx context.Context, tenantID uuid.UUID, q PageQuery) (Page[Endpoint], error) {
	var p Page[Endpoint]
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		var err error
		p, err = listPage(ctx, tx, "webhook_endpoints", endpointCols, "", []any{tenantID}, q, func(e Endpoint) uuid.UUID { return e.ID })
		return err
	})
	return p, err
}

// GetEndpoint reads one endpoint of the tenant.
func (s *Store) GetEndpoint(ctx context.Context, tenantID, id uuid.UUID) (Endpoint, error) {
	return getByID[Endpoint](ctx, s, "webhook_endpoints", endpointCols, tenantID, id)
}

// DeleteEndpoint removes an endpoint and its deliveries; their workflows
// find it gone and stop.
func (s *Store) DeleteEndpoint(ctx context.Context, tenantID, id uuid.UUID) error {
	return s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		// Its deliveries first (no foreign key does it: see the migration).
		if _, err := tx.ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE tenant_id = $1 AND endpoint_id = $2`, tenantID, id); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2`, tenantID, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}

// RotateSecret makes sealed the endpoint's secret; the one it replaces
// keeps signing for webhook.SecretOverlap (a secret rotated out before
// that is dropped).
func (s *Store) RotateSecret(ctx context.Context, tenantID, id uuid.UUID, sealed []byte) (Endpoint, error) {
	var e Endpoint
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		at := now()
		return tx.GetContext(ctx, &e, `UPDATE webhook_endpoints SET previous_secret = secret, previous_expires_at = $3,
				secret = $4, updated_at = $5
			WHERE tenant_id = $1 AND id = $2 RETURNING `+endpointCols,
			tenantID, id, at.Add(webhook.SecretOverlap), sealed, at)
	})
	return e, err
}

// deliveryCols select a Delivery from webhook_deliveries named d.
const deliveryCols = `d.id, d.tenant_id, d.endpoint_id, d.event_id, (SELECT ev.type FROM events ev WHERE ev.id = d.event_id) AS event_type,
	d.number, d.status, d.attempts, d.first_attempt_at, d.next_attempt_at, d.finished_at, d.created_at, d.updated_at`

// Delivery is an event's delivery to an endpoint, with its attempts.
type Delivery struct {
	ID             uuid.UUID       `db:"id"`
	TenantID       uuid.UUID       `db:"tenant_id"`
	EndpointID     uuid.UUID       `db:"endpoint_id"`
	EventID        uuid.UUID       `db:"event_id"`
	EventType      check.EventType `db:"event_type"`
	Number         int             `db:"number"`
	Status         webhook.Status  `db:"status"`
	Attempts       int             `db:"attempts"`
	FirstAttemptAt *time.Time      `db:"first_attempt_at"`
	NextAttemptAt  *time.Time      `db:"next_attempt_at"`
	FinishedAt     *time.Time      `db:"finished_at"`
	CreatedAt      time.Time       `db:"created_at"`
	UpdatedAt      time.Time       `db:"updated_at"`
	Tries          []Attempt       `db:"-"`
}

// Ref names the delivery for its workflow.
func (d Delivery) Ref() webhook.Ref {
	return webhook.Ref{TenantID: d.TenantID, DeliveryID: d.ID, EndpointID: d.EndpointID, EventID: d.EventID, Number: d.Number}
}

// Attempt is one try at a delivery.
type Attempt struct {
	DeliveryID uuid.UUID `json:"delivery_id"`
	Attempt    int       `json:"attempt"`
	At         time.Time `json:"at"`
	StatusCode *int      `json:"status_code"`
	DurationMS int       `json:"duration_ms"`
	Error      *string   `json:"error"`
	// Response is the start of the receiver's answer (base64 in the
	// query's JSON, which encoding/json decodes into bytes).
	Response []byte `json:"response"`
}

// attemptsCol reads a delivery's attempts with the delivery, in the same
// statement (so a list never shows an attempt its delivery does not count).
const attemptsCol = `(SELECT coalesce(json_agg(json_build_object('delivery_id', a.delivery_id, 'attempt', a.attempt, 'at', a.at,
	'status_code', a.status_code, 'duration_ms', a.duration_ms, 'error', a.error, 'response', encode(a.response, 'base64'))
	ORDER BY a.attempt), '[]') FROM webhook_attempts a WHERE a.delivery_id = d.id) AS tries`

// ListDeliveries returns one page of an endpoint's deliveries, newest
// first, each with its attempts. ErrNotFound for another tenant's endpoint.
func (s *Store) ListDeliveries(ctx context.Context, tenantID, endpointID uuid.UUID, q PageQuery) (Page[Delivery], error) {
	var p Page[Delivery]
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		var one int
		if err := tx.GetContext(ctx, &one, `SELECT 1 FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2`, tenantID, endpointID); err != nil {
			return err
		}
		type row struct {
			Delivery
			Tries JSON `db:"tries"`
		}
		rp, err := listPage(ctx, tx, "webhook_deliveries d", deliveryCols+", "+attemptsCol,
			" AND endpoint_id = $2", []any{tenantID, endpointID}, q, func(r row) uuid.UUID { return r.ID })
		if err != nil {
			return err
		}
		p = Page[Delivery]{HasNext: rp.HasNext, HasPrev: rp.HasPrev, Items: make([]Delivery, len(rp.Items))}
		for i, r := range rp.Items {
			p.Items[i] = r.Delivery
			if err := json.Unmarshal(r.Tries, &p.Items[i].Tries); err != nil {
				return fmt.Errorf("attempts of delivery %s: %w", r.ID, err)
			}
		}
		return nil
	})
	return p, err
}

// Redeliver queues a new delivery of an event to an endpoint (or to every
// live endpoint subscribed to its type, when endpointID is nil).
// ErrNotFound for an unknown event or endpoint; ErrConflict when the
// endpoint is disabled or no endpoint takes the event.
func (s *Store) Redeliver(ctx context.Context, tenantID, eventID uuid.UUID, endpointID *uuid.UUID) ([]Delivery, error) {
	var out []Delivery
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		ev, err := byID[Event](ctx, tx, "events", eventCols, tenantID, eventID)
		if err != nil {
			return err
		}
		// Each endpoint's row is locked (in id order, so two redeliveries
		// of different scope cannot deadlock): a concurrent redelivery of
		// the same event waits here, then numbers its delivery after this
		// one's instead of colliding with it (its insert's snapshot is
		// taken after the wait: the store's transactions are READ
		// COMMITTED).
		var eps []Endpoint
		if err := tx.SelectContext(ctx, &eps, `SELECT `+endpointCols+` FROM webhook_endpoints
			WHERE tenant_id = $1 AND ($2::uuid IS NULL OR id = $2) ORDER BY id FOR NO KEY UPDATE`, tenantID, endpointID); err != nil {
			return err
		}
		if endpointID != nil && len(eps) == 0 {
			return ErrNotFound
		}
		for _, ep := range eps {
			filter, _, _ := check.ParseEventFilter(ep.Events)
			if ep.DisabledAt != nil || (endpointID == nil && !filter.Matches(ev.Type)) {
				continue
			}
			var d Delivery
			if err := tx.GetContext(ctx, &d, `WITH d AS (
					INSERT INTO webhook_deliveries (tenant_id, endpoint_id, event_id, subject_id, number)
					SELECT $1, $2, $3, $4, coalesce(max(number), 0) + 1 FROM webhook_deliveries WHERE endpoint_id = $2 AND event_id = $3
					RETURNING *)
				SELECT `+deliveryCols+` FROM d`, tenantID, ep.ID, ev.ID, ev.SubjectID); err != nil {
				return fmt.Errorf("redeliver: %w", err)
			}
			out = append(out, d) // the relay announces it to the endpoint's dispatcher
		}
		if len(out) == 0 {
			return ErrConflict
		}
		return nil
	})
	if err == nil {
		s.wakeRelay()
	}
	return out, err
}

// enqueueDelivery queues the start of a delivery's workflow, which owns
// its retries.
func enqueueDelivery(ctx context.Context, tx *sqlx.Tx, ref webhook.Ref) error {
	p, err := payload(ref)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO outbox (tenant_id, action, payload) VALUES ($1, $2, $3)`,
		ref.TenantID, ActionDeliver, p); err != nil {
		return fmt.Errorf("enqueue delivery: %w", err)
	}
	return nil
}

// Announce hands a pending delivery back to the relay, which wakes its
// endpoint's dispatcher (the line behind a delivery that settled).
func (s *Store) Announce(ctx context.Context, ref webhook.Ref) error {
	err := s.inTenant(ctx, ref.TenantID, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET announced_at = NULL WHERE tenant_id = $1 AND id = $2`, ref.TenantID, ref.DeliveryID)
		return err
	})
	if err == nil {
		s.wakeRelay()
	}
	return err
}

// AnnounceDeliveries marks up to limit new deliveries, of every tenant,
// announced, and calls wake once per endpoint they belong to. An
// endpoint whose wake fails keeps its deliveries unannounced (the next
// call tries again); the others stay done. It returns how many endpoints
// were woken, and the first wake error.
func (s *Store) AnnounceDeliveries(ctx context.Context, limit int, wake func(tenantID, endpointID uuid.UUID) error) (int, error) {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return 0, classify(err)
	}
	defer tx.Rollback() //nolint:errcheck
	var eps []struct {
		TenantID   uuid.UUID `db:"tenant_id"`
		EndpointID uuid.UUID `db:"endpoint_id"`
	}
	if err := tx.SelectContext(ctx, &eps, `SELECT tenant_id, endpoint_id FROM webhook_announce($1)`, limit); err != nil {
		return 0, fmt.Errorf("announce deliveries: %w", classify(err))
	}
	woken := 0
	var first error
	for _, e := range eps {
		err := wake(e.TenantID, e.EndpointID)
		if err == nil {
			woken++
			continue
		}
		if first == nil {
			first = err
		}
		// Unmark this endpoint's: those this transaction marked (now() is
		// its start, the mark webhook_announce wrote).
		if _, err := tx.ExecContext(ctx, `SELECT set_config('app.tenant_id', $1, true)`, e.TenantID.String()); err != nil {
			return 0, classify(err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET announced_at = NULL
			WHERE tenant_id = $1 AND endpoint_id = $2 AND announced_at = now()`, e.TenantID, e.EndpointID); err != nil {
			return 0, fmt.Errorf("unmark deliveries: %w", classify(err))
		}
	}
	if err := classify(tx.Commit()); err != nil {
		return 0, err
	}
	return woken, first
}

// ClaimState says whether a delivery may be attempted now.
type ClaimState int

// The claim states.
const (
	// Claimed: this caller holds the delivery until it records an attempt.
	Claimed ClaimState = iota
	// Blocked: an earlier delivery of the same subject to the endpoint is
	// still open.
	Blocked
	// Busy: another attempt holds it (until Until).
	Busy
	// Final: it is settled already (Delivery.Status says how).
	Final
	// Orphaned: its endpoint is disabled; nothing will be sent.
	Orphaned
)

// Claim is the answer to a claim: the state and, when claimed, what the
// attempt needs.
type Claim struct {
	State    ClaimState
	Delivery Delivery
	Endpoint Endpoint
	Event    Event
	// Until: a Busy delivery's hold ends then.
	Until time.Time
}

// ClaimDelivery takes hold of a delivery for an attempt, for lease (longer
// than the receiver's timeout and the writes around it: a crashed
// worker's hold runs out then), if it is its subject's turn and no other
// attempt holds it. ErrNotFound when it is gone (its endpoint deleted, or
// its event pruned).
func (s *Store) ClaimDelivery(ctx context.Context, ref webhook.Ref, lease time.Duration) (Claim, error) {
	var c Claim
	err := s.inTenant(ctx, ref.TenantID, func(tx *sqlx.Tx) error {
		var err error
		c, err = claim(ctx, tx, ref.TenantID, ref.DeliveryID, lease)
		return err
	})
	return c, err
}

func claim(ctx context.Context, tx *sqlx.Tx, tenantID, deliveryID uuid.UUID, lease time.Duration) (Claim, error) {
	var c Claim
	var row struct {
		Delivery
		Seq          int64      `db:"seq"`
		SubjectID    *uuid.UUID `db:"subject_id"`
		ClaimedUntil *time.Time `db:"claimed_until"`
		Now          time.Time  `db:"now"`
	}
	// The row lock orders concurrent claims of one delivery.
	if err := tx.GetContext(ctx, &row, `SELECT `+deliveryCols+`, d.seq, d.subject_id, d.claimed_until, now() AS now
		FROM webhook_deliveries d WHERE d.tenant_id = $1 AND d.id = $2 FOR UPDATE`, tenantID, deliveryID); err != nil {
		return c, err
	}
	c.Delivery = row.Delivery
	if c.Delivery.Status.Final() {
		c.State = Final
		return c, nil
	}
	var err error
	if c.Endpoint, err = byID[Endpoint](ctx, tx, "webhook_endpoints", endpointCols, tenantID, c.Delivery.EndpointID); err != nil {
		return c, err
	}
	if c.Endpoint.DisabledAt != nil {
		c.State = Orphaned
		return c, nil
	}
	if row.ClaimedUntil != nil && row.ClaimedUntil.After(row.Now) {
		c.State, c.Until = Busy, *row.ClaimedUntil
		return c, nil
	}
	if row.SubjectID != nil {
		var blocked bool
		if err := tx.GetContext(ctx, &blocked, `SELECT EXISTS (SELECT 1 FROM webhook_deliveries
			WHERE endpoint_id = $1 AND subject_id = $2 AND seq < $3 AND status IN ('pending', 'retrying'))`,
			c.Delivery.EndpointID, *row.SubjectID, row.Seq); err != nil {
			return c, err
		}
		if blocked {
			c.State = Blocked
			return c, nil
		}
	}
	if c.Event, err = byID[Event](ctx, tx, "events", eventCols, tenantID, c.Delivery.EventID); err != nil {
		return c, err
	}
	_, err = tx.ExecContext(ctx, `UPDATE webhook_deliveries SET claimed_until = now() + $3::interval WHERE tenant_id = $1 AND id = $2`,
		tenantID, deliveryID, interval(lease))
	c.State = Claimed
	return c, err
}

// ClaimDue takes hold of up to limit pending deliveries of an endpoint
// that may go now: never attempted, not held, each the head of its
// subject's line (so at most one per subject), oldest first. None when the
// endpoint is disabled or gone.
func (s *Store) ClaimDue(ctx context.Context, tenantID, endpointID uuid.UUID, limit int, lease time.Duration) ([]Claim, error) {
	var out []Claim
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		ep, err := byID[Endpoint](ctx, tx, "webhook_endpoints", endpointCols, tenantID, endpointID)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && ep.DisabledAt != nil) {
			return nil
		}
		if err != nil {
			return err
		}
		var ds []Delivery
		if err := tx.SelectContext(ctx, &ds, `WITH due AS (
				SELECT d.id FROM webhook_deliveries d
				WHERE d.tenant_id = $1 AND d.endpoint_id = $2 AND d.status = 'pending'
				  AND (d.claimed_until IS NULL OR d.claimed_until < now())
				  AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p WHERE p.endpoint_id = d.endpoint_id
				      AND p.subject_id = d.subject_id AND p.seq < d.seq AND p.status IN ('pending', 'retrying'))
				-- FOR UPDATE waits (no SKIP LOCKED): a new delivery stays
				-- locked by the relay's announcement until it commits, and
				-- the dispatcher it woke must not pass it by.
				ORDER BY d.seq LIMIT $3 FOR UPDATE),
			claimed AS (UPDATE webhook_deliveries w SET claimed_until = now() + $4::interval FROM due WHERE w.id = due.id RETURNING w.*)
			SELECT `+deliveryCols+` FROM claimed d ORDER BY d.seq`,
			tenantID, endpointID, limit, interval(lease)); err != nil {
			return fmt.Errorf("claim due deliveries: %w", err)
		}
		if len(ds) == 0 {
			return nil
		}
		ids := make([]string, len(ds))
		for i, d := range ds {
			ids[i] = d.EventID.String()
		}
		var evs []Event
		if err := tx.SelectContext(ctx, &evs, `SELECT `+eventCols+` FROM events WHERE tenant_id = $1 AND id = ANY($2)`, tenantID, pq.Array(ids)); err != nil {
			return err
		}
		byID := make(map[uuid.UUID]Event, len(evs))
		for _, e := range evs {
			byID[e.ID] = e
		}
		for _, d := range ds {
			out = append(out, Claim{State: Claimed, Delivery: d, Endpoint: ep, Event: byID[d.EventID]})
		}
		return nil
	})
	return out, err
}

// Release lets go of a claimed delivery without an attempt (its retry is
// not due yet).
func (s *Store) Release(ctx context.Context, ref webhook.Ref) error {
	return s.inTenant(ctx, ref.TenantID, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET claimed_until = NULL WHERE tenant_id = $1 AND id = $2`, ref.TenantID, ref.DeliveryID)
		return err
	})
}

// AttemptRecord is the outcome of an attempt, to record.
type AttemptRecord struct {
	Attempt webhook.Result
	At      time.Time
	// Status is the delivery's status after it; NextAttemptAt is set when
	// it is retrying.
	Status        webhook.Status
	NextAttemptAt *time.Time
	// ProbeAt, when set, brings a retry forward to then if no other
	// delivery of the endpoint is due by then: a failing endpoint is
	// always probed soon.
	ProbeAt *time.Time
	// Adopt: the attempt was the dispatcher's; a failure hands the
	// delivery to a workflow of its own, which retries it on the schedule.
	Adopt bool
	// ClaimNext, when set, claims the next delivery in line (pending and
	// free) for that long, in the same transaction: the line goes on.
	ClaimNext time.Duration
}

// Settled is what the store tells a delivery's workflow after a write.
type Settled struct {
	// Applied is false when the delivery was already final (a repeated step).
	Applied bool
	// Next is the delivery of the same subject to the same endpoint that
	// was waiting for this one, now at the head of the line; NextStatus is
	// its status (pending: the dispatcher's; retrying: its workflow's).
	Next       *webhook.Ref
	NextStatus webhook.Status
	// Recovered: this delivery succeeded where the endpoint was failing.
	Recovered bool
	// NextAttemptAt: a retrying delivery's next attempt, as recorded.
	NextAttemptAt *time.Time
	// Adopted: the delivery's workflow is queued to start.
	Adopted bool
	// Claimed: the next delivery in line, held for the caller (ClaimNext).
	Claimed *Claim
}

// RecordAttempt writes an attempt and the delivery's new status; a 410
// disables the endpoint, a failure marks it failing, a success clears that.
func (s *Store) RecordAttempt(ctx context.Context, ref webhook.Ref, rec AttemptRecord) (Settled, error) {
	var out Settled
	err := s.inTenant(ctx, ref.TenantID, func(tx *sqlx.Tx) error {
		if p := rec.ProbeAt; p != nil && rec.NextAttemptAt != nil && rec.NextAttemptAt.After(*p) {
			// Take the endpoint's probe unless another delivery holds it:
			// the endpoint row's lock makes it one taker per window.
			var taken bool
			if err := tx.GetContext(ctx, &taken, `WITH u AS (UPDATE webhook_endpoints SET next_probe_at = $3
					WHERE tenant_id = $1 AND id = $2 AND (next_probe_at IS NULL OR next_probe_at <= $4) RETURNING 1)
				SELECT EXISTS (SELECT 1 FROM u)`, ref.TenantID, ref.EndpointID, *p, rec.At); err != nil {
				return err
			}
			if taken {
				rec.NextAttemptAt = p
			}
		}
		out.NextAttemptAt = rec.NextAttemptAt
		r := rec.Attempt
		var code *int
		if r.StatusCode != 0 {
			code = &r.StatusCode
		}
		var msg *string
		if r.Error != "" {
			msg = &r.Error
		}
		// One statement: the delivery, its attempt, the endpoint's health
		// (failing since the first failure, until a success), and the
		// next delivery in its subject's line once it is settled.
		var row struct {
			Applied bool       `db:"applied"`
			Changed bool       `db:"health_changed"`
			NextID  *uuid.UUID `db:"next_id"`
			EventID *uuid.UUID `db:"next_event_id"`
			Number  *int       `db:"next_number"`
			Status  *string    `db:"next_status"`
		}
		err := tx.GetContext(ctx, &row, `WITH d AS (
				UPDATE webhook_deliveries SET attempts = attempts + 1, status = $3,
					first_attempt_at = coalesce(first_attempt_at, $4), next_attempt_at = $5, claimed_until = NULL,
					finished_at = CASE WHEN $3 IN ('delivered', 'failed', 'cancelled') THEN $4::timestamptz END, updated_at = $4
				WHERE tenant_id = $1 AND id = $2 AND status IN ('pending', 'retrying')
				RETURNING attempts, endpoint_id, subject_id, seq),
			a AS (INSERT INTO webhook_attempts (delivery_id, tenant_id, attempt, at, status_code, duration_ms, error, response)
				SELECT $2, $1, d.attempts, $4, $6, $7, $8, $9 FROM d),
			h AS (UPDATE webhook_endpoints e SET failing_since = CASE WHEN $10 THEN NULL ELSE $4::timestamptz END
				WHERE e.tenant_id = $1 AND e.id = $11 AND EXISTS (SELECT 1 FROM d)
				  AND CASE WHEN $10 THEN e.failing_since IS NOT NULL ELSE e.failing_since IS NULL END
				RETURNING 1),
			n AS (SELECT x.id, x.event_id, x.number, x.status FROM webhook_deliveries x, d
				WHERE $3 IN ('delivered', 'failed', 'cancelled') AND x.tenant_id = $1 AND x.endpoint_id = d.endpoint_id
				  AND x.subject_id = d.subject_id AND x.seq > d.seq AND x.status IN ('pending', 'retrying')
				ORDER BY x.seq LIMIT 1)
			SELECT EXISTS (SELECT 1 FROM d) AS applied, EXISTS (SELECT 1 FROM h) AS health_changed,
				(SELECT id FROM n) AS next_id, (SELECT event_id FROM n) AS next_event_id,
				(SELECT number FROM n) AS next_number, (SELECT status FROM n) AS next_status`,
			ref.TenantID, ref.DeliveryID, rec.Status, rec.At, rec.NextAttemptAt,
			code, r.Duration.Milliseconds(), msg, r.Response[:min(len(r.Response), webhook.MaxResponse)], r.OK, ref.EndpointID)
		if err != nil {
			return fmt.Errorf("record attempt: %w", err)
		}
		if !row.Applied {
			return nil // already final: a repeated step
		}
		out.Applied, out.Recovered = true, r.OK && row.Changed
		if row.NextID != nil {
			out.Next = &webhook.Ref{TenantID: ref.TenantID, DeliveryID: *row.NextID, EndpointID: ref.EndpointID, EventID: *row.EventID, Number: *row.Number}
			out.NextStatus = webhook.Status(*row.Status)
		}
		if rec.Adopt && rec.Status == webhook.Retrying {
			if err := enqueueDelivery(ctx, tx, ref); err != nil {
				return err
			}
			out.Adopted = true
		}
		if r.Gone {
			// Disabled: what it still had open will not be sent.
			if _, err := tx.ExecContext(ctx, `WITH e AS (UPDATE webhook_endpoints SET disabled_at = $3, disabled_reason = $4, updated_at = $3
					WHERE tenant_id = $1 AND id = $2 AND disabled_at IS NULL RETURNING id)
				UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL, claimed_until = NULL, finished_at = $3, updated_at = $3
				WHERE tenant_id = $1 AND endpoint_id IN (SELECT id FROM e) AND status IN ('pending', 'retrying')`,
				ref.TenantID, ref.EndpointID, rec.At, "the receiver answered 410 Gone"); err != nil {
				return fmt.Errorf("disable endpoint: %w", err)
			}
			out.Next = nil
		}
		// Going on with the line: hold the next delivery in the same
		// transaction, when it is pending and free.
		if rec.ClaimNext > 0 && out.Next != nil && out.NextStatus == webhook.Pending {
			c, err := claim(ctx, tx, ref.TenantID, out.Next.DeliveryID, rec.ClaimNext)
			if err != nil {
				return err
			}
			if c.State == Claimed {
				out.Claimed = &c
			}
		}
		return nil
	})
	if err == nil && out.Adopted {
		s.wakeRelay() // the start of its workflow
	}
	return out, err
}

// FinishDelivery ends a delivery without an attempt (its endpoint
// disabled), or, for one already final, just finds the next in line.
func (s *Store) FinishDelivery(ctx context.Context, ref webhook.Ref, status webhook.Status) (Settled, error) {
	var out Settled
	err := s.inTenant(ctx, ref.TenantID, func(tx *sqlx.Tx) error {
		at := now()
		res, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET status = $3, next_attempt_at = NULL, claimed_until = NULL, finished_at = $4, updated_at = $4
			WHERE tenant_id = $1 AND id = $2 AND status IN ('pending', 'retrying')`, ref.TenantID, ref.DeliveryID, status, at)
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		out.Applied = n == 1
		out.Next, out.NextStatus, err = nextInLine(ctx, tx, ref)
		return err
	})
	return out, err
}

// nextInLine is the open delivery, to the same endpoint, of the same
// subject, that follows ref's.
func nextInLine(ctx context.Context, tx *sqlx.Tx, ref webhook.Ref) (*webhook.Ref, webhook.Status, error) {
	var d Delivery
	err := tx.GetContext(ctx, &d, `SELECT `+deliveryCols+` FROM webhook_deliveries d
		JOIN webhook_deliveries me ON me.id = $2
		WHERE d.tenant_id = $1 AND d.endpoint_id = me.endpoint_id AND d.subject_id = me.subject_id AND d.seq > me.seq
		  AND d.status IN ('pending', 'retrying')
		ORDER BY d.seq LIMIT 1`, ref.TenantID, ref.DeliveryID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("next in line: %w", err)
	}
	r := d.Ref()
	return &r, d.Status, nil
}

// RetryingDeliveries are an endpoint's deliveries waiting to be tried
// again: a recovered endpoint's backlog.
func (s *Store) RetryingDeliveries(ctx context.Context, tenantID, endpointID uuid.UUID) ([]webhook.Ref, error) {
	var ds []Delivery
	err := s.inTenant(ctx, tenantID, func(tx *sqlx.Tx) error {
		return tx.SelectContext(ctx, &ds, `SELECT `+deliveryCols+` FROM webhook_deliveries d
			WHERE d.tenant_id = $1 AND d.endpoint_id = $2 AND d.status = 'retrying' ORDER BY d.seq`, tenantID, endpointID)
	})
	out := make([]webhook.Ref, len(ds))
	for i, d := range ds {
		out[i] = d.Ref()
	}
	return out, err
}
