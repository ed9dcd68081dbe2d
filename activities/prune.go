package activities

import "context"

// PruneInput is empty: the store knows what has expired.
type PruneInput struct{}

// PruneResult counts what was deleted.
type PruneResult struct {
	IdempotencyKeys int64
	Events          int64
	Images          int64
	SignInGuards    int64
}

// Prune deletes every tenant's expired idempotency keys and events, the
// document images past their tenant's retention, and the console's
// sign-in guards untouched for a day.
func (a *Activities) Prune(ctx context.Context, _ PruneInput) (PruneResult, error) {
	var out PruneResult
	var err error
	if out.IdempotencyKeys, err = a.Store.PruneIdempotencyKeys(ctx); err != nil {
		return out, wrap(err, "prune idempotency keys")
	}
	if out.Events, err = a.Store.PruneEvents(ctx); err != nil {
		return out, wrap(err, "prune events")
	}
	if out.Images, err = a.Store.EraseDocumentImages(ctx); err != nil {
		return out, wrap(err, "erase document images")
	}
	if out.SignInGuards, err = a.Store.PruneSignInGuards(ctx); err != nil {
		return out, wrap(err, "prune sign-in guards")
	}
	return out, nil
}
