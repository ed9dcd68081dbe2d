package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// ProviderTurn reserves the next call to provider within scope, spaced at
// least spacing after the one reserved before it by any process, and says
// how long to wait for it (0: call now). It reserves nothing and answers
// ok false when the turn is more than maxWait away. The wait is measured on
// the database's clock, so the processes' clocks need not agree.
func (s *Store) ProviderTurn(ctx context.Context, provider, scope string, spacing, maxWait time.Duration) (wait time.Duration, ok bool, err error) {
	var secs sql.NullFloat64
	if err := s.db.GetContext(ctx, &secs, `SELECT provider_turn($1, $2, $3::interval, $4::interval)`,
		provider, scope, interval(spacing), interval(maxWait)); err != nil {
		return 0, false, fmt.Errorf("provider turn: %w", classify(err))
	}
	if !secs.Valid {
		return 0, false, nil
	}
	return max(0, time.Duration(secs.Float64*float64(time.Second))), true, nil
}

// TakeProviderSlot leases one of slots in-flight slots of provider within
// scope to holder for ttl, and says which; ok is false when every slot is
// held. The holder renews the lease while its call lasts (KeepProviderSlot);
// a holder that dies keeps its slot until the ttl runs out.
func (s *Store) TakeProviderSlot(ctx context.Context, provider, scope string, slots int, holder uuid.UUID, ttl time.Duration) (slot int, ok bool, err error) {
	var n sql.NullInt64
	if err := s.db.GetContext(ctx, &n, `SELECT provider_slot_take($1, $2, $3, $4, $5::interval)`,
		provider, scope, slots, holder, interval(ttl)); err != nil {
		return 0, false, fmt.Errorf("take provider slot: %w", classify(err))
	}
	return int(n.Int64), n.Valid, nil
}

// KeepProviderSlot renews holder's lease of slot for ttl, or ends it with
// ttl 0, and says whether holder still held it.
func (s *Store) KeepProviderSlot(ctx context.Context, provider, scope string, slot int, holder uuid.UUID, ttl time.Duration) (bool, error) {
	var held bool
	if err := s.db.GetContext(ctx, &held, `SELECT provider_slot_keep($1, $2, $3, $4, $5::interval)`,
		provider, scope, slot, holder, interval(ttl)); err != nil {
		return false, fmt.Errorf("keep provider slot: %w", classify(err))
	}
	return held, nil
}
