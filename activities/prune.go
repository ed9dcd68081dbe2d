package activities

import "context"

// PruneInput is empty: the store knows what has expired.
type PruneInput struct{}

// PruneResult counts what was deleted.
type PruneResult struct {
	IdempotencyKeys int64
}

// Prune deletes every tenant's expired idempotency keys.
func (a *Activities) Prune(ctx context.Context, _ PruneInput) (PruneResult, error) {
	n, err := a.Store.PruneIdempotencyKeys(ctx)
	if err != nil {
		return PruneResult{}, wrap(err, "prune idempotency keys")
	}
	return PruneResult{IdempotencyKeys: n}, nil
}
