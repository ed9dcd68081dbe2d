package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/activity"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/engines/sanctions"
	"github.com/kycflow/kycflow/engines/watchlist"
	"github.com/kycflow/kycflow/store"
)

// RescreenInput is where a rescreening of a list version stands.
type RescreenInput struct {
	VersionID int64
	Cursor    RescreenCursor
}

// RescreenCursor is the last customer rescreened, in (tenant, customer) id order.
type RescreenCursor struct {
	TenantID uuid.UUID
	After    uuid.UUID
}

// RescreenResult is one batch's outcome.
type RescreenResult struct {
	Next       RescreenCursor
	Done       bool
	Screened   int // customers looked at
	Candidates int // whose name resembles an entity the version changed
	Requeued   int // whose hits changed: a new aml check was queued
}

// rescreenBatch is how many customers one activity looks at.
const rescreenBatch = 500

// changeIndexes holds, per list version being rescreened, an index of only
// the entities the version added, changed or removed: a customer none of
// them resembles cannot screen differently, so only the rest are rescreened
// in full. Lists rescreen side by side, so there is one per list at most:
// an index whose version the worker no longer loads (superseded) is
// dropped when another is built, and each is dropped when its rescreening
// is marked done — a whole list replaced makes one as large as the list's
// own index.
type changeIndexes struct {
	mu sync.Mutex
	m  map[int64]*sanctions.Index
}

var changes = changeIndexes{m: map[int64]*sanctions.Index{}}

func (a *Activities) changeIndex(ctx context.Context, versionID int64) (*sanctions.Index, error) {
	changes.mu.Lock()
	defer changes.mu.Unlock()
	if ix, ok := changes.m[versionID]; ok {
		return ix, nil
	}
	loaded := a.Screener.Versions()
	for id := range changes.m {
		if !slices.ContainsFunc(loaded, func(v store.WatchlistVersion) bool { return v.ID == id }) {
			delete(changes.m, id)
		}
	}
	var es []watchlist.Entity
	err := a.Store.WatchlistChanges(ctx, versionID, func(_ string, data []byte, _ bool) (err error) {
		es, err = watchlist.AppendJSON(es, data)
		return err
	})
	if err != nil {
		return nil, err
	}
	// A lower bar than any threshold: this only decides who is rescreened.
	// No vocabulary: the changed entities' words are not the list's, and a
	// filter must not score lower than the full index would.
	ix := sanctions.Build(es, sanctions.Options{MinScore: 0.75, NoVocabulary: true})
	changes.m[versionID] = ix
	return ix, nil
}

// dropChangeIndex forgets versionID's change index once its rescreening is
// done, and hands the memory back to the system (see Watchlists.Refresh).
func dropChangeIndex(versionID int64) {
	changes.mu.Lock()
	_, dropped := changes.m[versionID]
	delete(changes.m, versionID)
	changes.mu.Unlock()
	if dropped {
		debug.FreeOSMemory()
	}
}

// RescreenBatch rescreens the next customers after the cursor, across
// tenants: each active customer with a finished aml check whose name
// resembles an entity the version changed is screened again, and a new aml
// check is queued when the hits above the tenant's threshold differ.
// Customers never screened are left alone. Heartbeats carry progress.
func (a *Activities) RescreenBatch(ctx context.Context, in RescreenInput) (RescreenResult, error) {
	if a.Screener == nil || !slices.ContainsFunc(a.Screener.Versions(), func(v store.WatchlistVersion) bool { return v.ID == in.VersionID }) {
		// The worker loads new versions within seconds; try again then.
		return RescreenResult{}, fmt.Errorf("list version %d is not loaded by this worker yet", in.VersionID)
	}
	ix, err := a.changeIndex(ctx, in.VersionID)
	if err != nil {
		return RescreenResult{}, wrap(err, "load changes")
	}
	tenants, err := a.Store.TenantIDs(ctx)
	if err != nil {
		return RescreenResult{}, wrap(err, "list tenants")
	}
	slices.SortFunc(tenants, compareUUID)
	res := RescreenResult{Next: in.Cursor}
	now := time.Now()
	for _, tenantID := range tenants {
		if compareUUID(tenantID, res.Next.TenantID) < 0 {
			continue
		}
		if tenantID != res.Next.TenantID {
			res.Next = RescreenCursor{TenantID: tenantID}
		}
		set, err := a.Store.AMLSettings(ctx, tenantID)
		if err != nil {
			return res, wrap(err, "load aml settings")
		}
		for res.Screened < rescreenBatch {
			cs, err := a.Store.ActiveCustomers(ctx, tenantID, res.Next.After, rescreenBatch-res.Screened)
			if err != nil {
				return res, wrap(err, "list customers")
			}
			for i := range cs {
				c := &cs[i]
				res.Screened++
				res.Next.After = c.ID
				changed, concerned, err := a.rescreenOne(ctx, ix, c, set, now)
				if err != nil {
					return res, err
				}
				if concerned {
					res.Candidates++
				}
				if changed {
					res.Requeued++
				}
			}
			if activity.IsActivity(ctx) {
				activity.RecordHeartbeat(ctx, res)
			}
			if len(cs) == 0 || res.Screened >= rescreenBatch {
				break
			}
		}
		if res.Screened >= rescreenBatch {
			return res, nil
		}
	}
	res.Done = true
	return res, nil
}

// rescreenOne screens one customer again when the version concerns them.
func (a *Activities) rescreenOne(ctx context.Context, changed *sanctions.Index, c *store.Customer, set store.AMLSettings, now time.Time) (requeued, concerned bool, err error) {
	// The in-memory filter first: most customers resemble no changed
	// entity, and they cost no query.
	if len(changed.Search(customerQuery(c), 1)) == 0 {
		return false, false, nil
	}
	last, err := a.Store.LatestCheck(ctx, c.TenantID, c.ID, check.AML)
	if errors.Is(err, store.ErrNotFound) {
		return false, true, nil // never screened: nothing to compare
	}
	if err != nil {
		return false, true, wrap(err, "load aml check")
	}
	if last.Status != check.Completed || last.Data == nil {
		return false, true, nil // unfinished checks screen with the new list anyway
	}
	var before check.AMLData
	if err := json.Unmarshal(last.Data, &before); err != nil {
		return false, true, nil
	}
	after, ok := a.screen(c, set, now)
	if withHash := before.Hashed(); !ok || slices.Equal(before.HitKeys(withHash), after.HitKeys(withHash)) {
		return false, true, nil
	}
	if _, _, err := a.Store.QueueChecks(ctx, c.TenantID, check.Customer, c.ID, []check.Type{check.AML}); err != nil {
		return false, true, wrap(err, "queue aml check")
	}
	return true, true, nil
}

// MarkRescreened records that a version's rescreening finished.
func (a *Activities) MarkRescreened(ctx context.Context, in RescreenInput) error {
	if err := a.Store.MarkRescreened(ctx, in.VersionID); err != nil {
		return wrap(err, "mark rescreened")
	}
	dropChangeIndex(in.VersionID)
	return nil
}

func compareUUID(x, y uuid.UUID) int {
	for i := range x {
		if x[i] != y[i] {
			return int(x[i]) - int(y[i])
		}
	}
	return 0
}
