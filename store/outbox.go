package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/webhook"
)

// Outbox actions, carried to Temporal by the relay.
const (
	ActionStart  = "start"
	ActionCancel = "cancel"
	ActionRetry  = "retry"
	// ActionVerified tells a check's workflow that the person submitted
	// through the check's link (the submission itself stays in the store).
	ActionVerified = "verified"
	// ActionDeliver starts the workflow of a webhook delivery that failed
	// its first attempt, to retry it on the schedule (payload: a webhook.Ref).
	ActionDeliver = "deliver"
	// ActionDocument tells a check's workflow that the person uploaded a
	// photo of their document (the images stay in the store).
	ActionDocument = "document"
)

// OutboxActions are every outbox action.
var OutboxActions = []string{ActionStart, ActionCancel, ActionRetry, ActionVerified, ActionDeliver, ActionDocument}

// OutboxNotifyChannel is the channel the store notifies after committing outbox rows.
const OutboxNotifyChannel = "kycflow_outbox"

// OutboxItem is one pending action for the relay.
type OutboxItem struct {
	ID       int64     `db:"id"`
	Action   string    `db:"action"`
	TenantID uuid.UUID `db:"tenant_id"`
	CheckID  uuid.UUID `db:"check_id"`
	// Ref is the check the action is about: the payload (the workflow's
	// input, a check.Ref as JSON) with the row's own ids. A cancellation
	// needs the ids only, and its payload is empty.
	Ref check.Ref `db:"-"`
	// Delivery is the webhook delivery an ActionDeliver starts.
	Delivery webhook.Ref `db:"-"`
	Payload  []byte      `db:"payload"`
	Attempts int         `db:"attempts"`
}

// Key groups the actions whose order matters: those on one check (a start
// before its cancel). Each delivery stands alone.
func (it OutboxItem) Key() string {
	if it.Action == ActionDeliver {
		return it.Delivery.DeliveryID.String()
	}
	return it.CheckID.String()
}

// decode reads the payload into Ref or Delivery, with the row's own ids.
func (it *OutboxItem) decode() error {
	if it.Action == ActionDeliver {
		err := json.Unmarshal(it.Payload, &it.Delivery)
		it.Delivery.TenantID = it.TenantID
		return err
	}
	err := json.Unmarshal(it.Payload, &it.Ref)
	it.Ref.TenantID, it.Ref.CheckID = it.TenantID, it.CheckID
	return err
}

// payload is the outbox payload of an action on ref (a check.Ref, or a
// webhook.Ref): the one place it is made in Go (cancellations carry none;
// an event's deliveries are queued by its trigger).
func payload(ref any) (string, error) {
	p, err := json.Marshal(ref)
	return string(p), err
}

func enqueue(ctx context.Context, tx *sqlx.Tx, ref check.Ref, action string) error {
	p, err := payload(ref)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO outbox (tenant_id, check_id, action, payload) VALUES ($1, $2, $3, $4)`,
		ref.TenantID, ref.CheckID, action, p); err != nil {
		return fmt.Errorf("enqueue %s: %w", action, err)
	}
	return nil
}

// OutboxLag is how long the oldest unsent outbox row has waited (0 when
// none waits), across tenants: what the relay is behind by.
func (s *Store) OutboxLag(ctx context.Context) (time.Duration, error) {
	var secs float64
	if err := s.db.GetContext(ctx, &secs, `SELECT outbox_lag()`); err != nil {
		return 0, fmt.Errorf("outbox lag: %w", classify(err))
	}
	return time.Duration(secs * float64(time.Second)), nil
}

// RelayBatch claims up to limit due outbox items across tenants (rows locked
// with SKIP LOCKED, so several relays share the work), hands them to deliver,
// and settles them in the same transaction: delivered rows are deleted, the
// others are retried after backoff(attempts).
func (s *Store) RelayBatch(ctx context.Context, limit int, deliver func([]OutboxItem) []bool, backoff func(attempts int) time.Duration) (int, error) {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return 0, classify(err)
	}
	defer tx.Rollback() //nolint:errcheck
	var items []OutboxItem
	if err := tx.SelectContext(ctx, &items, `SELECT id, tenant_id, check_id, action, payload, attempts FROM outbox_claim($1)`, limit); err != nil {
		return 0, fmt.Errorf("claim outbox: %w", classify(err))
	}
	if len(items) == 0 {
		return 0, nil
	}
	// A row whose payload does not decode cannot be delivered; it is set
	// aside for a day (and logged by the caller) rather than blocking the rest.
	var good []OutboxItem
	var bad []int64
	for _, it := range items {
		if err := it.decode(); err != nil {
			bad = append(bad, it.ID)
			continue
		}
		good = append(good, it)
	}
	ok := deliver(good)
	var done, failed []int64
	delay := time.Duration(0)
	for i, it := range good {
		if ok[i] {
			done = append(done, it.ID)
			continue
		}
		failed = append(failed, it.ID)
		delay = max(delay, backoff(it.Attempts+1))
	}
	settle := func(done, failed []int64, delay time.Duration) error {
		_, err := tx.ExecContext(ctx, `SELECT outbox_settle($1, $2, $3::interval)`,
			pq.Array(done), pq.Array(failed), interval(delay))
		return err
	}
	if err := settle(done, failed, delay); err != nil {
		return 0, fmt.Errorf("settle outbox: %w", classify(err))
	}
	if len(bad) > 0 {
		if err := settle(nil, bad, 24*time.Hour); err != nil {
			return 0, fmt.Errorf("set aside outbox rows: %w", classify(err))
		}
	}
	if err := classify(tx.Commit()); err != nil {
		return 0, err
	}
	if len(bad) > 0 {
		return len(done), fmt.Errorf("outbox rows %v have undecodable payloads; set aside for a day", bad)
	}
	return len(done), nil
}

// Listen returns a listener woken by commits that add outbox rows.
func (s *Store) Listen(onProblem func(error)) (*pq.Listener, error) {
	l := pq.NewListener(s.dsn, time.Second, 30*time.Second, func(ev pq.ListenerEventType, err error) {
		if err != nil && onProblem != nil {
			onProblem(err)
		}
	})
	if err := l.Listen(OutboxNotifyChannel); err != nil {
		l.Close()
		return nil, fmt.Errorf("listen: %w", err)
	}
	return l, nil
}
