package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/kycflow/kycflow/store"
)

// importList stores a version made of (id, json) pairs.
func importList(t *testing.T, s *store.Store, list string, hash string, entities map[string]string) (store.WatchlistVersion, error) {
	return importListRead(t, s, list, "r1", hash, entities)
}

// importListRead is importList with the files read by reader.
func importListRead(t *testing.T, s *store.Store, list, reader, hash string, entities map[string]string) (store.WatchlistVersion, error) {
	t.Helper()
	ctx := context.Background()
	imp, existing, err := s.BeginWatchlistImport(ctx, list, "ftm", reader, []byte(hash))
	if err != nil {
		if existing != nil {
			return *existing, err
		}
		return store.WatchlistVersion{}, err
	}
	ids := make([]string, 0, len(entities))
	for id := range entities {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if err := imp.Add(ctx, id, []byte(entities[id])); err != nil {
			t.Fatal(err)
		}
	}
	return imp.Commit(ctx, len(entities), len(entities))
}

// Versions are idempotent by content; changes are computed against the last
// rescreened version; marking a version rescreened marks the older ones.
func TestWatchlistVersionsAndChanges(t *testing.T) {
	ctx := context.Background()
	admin, app := open(t, ownerDSN), open(t, workerDSN)
	v1, err := importList(t, admin, "test_list", "h1", map[string]string{"a": `{"ID":"a"}`, "b": `{"ID":"b"}`})
	if err != nil {
		t.Fatal(err)
	}
	if again, err := importList(t, admin, "test_list", "h1", nil); !errors.Is(err, store.ErrWatchlistUnchanged) || again.ID != v1.ID {
		t.Fatalf("re-import: %+v %v", again, err)
	}
	// The same files read by a kycflow that reads them differently: a
	// new version (the entities it reads alike are no change).
	reread, err := importListRead(t, admin, "reread_list", "r1", "h1", map[string]string{"a": `{"ID":"a"}`})
	if err != nil {
		t.Fatal(err)
	}
	if again, err := importListRead(t, admin, "reread_list", "r2", "h1", map[string]string{"a": `{"ID":"a"}`}); err != nil || again.ID == reread.ID {
		t.Fatalf("read anew: %+v %v", again, err)
	}
	changes := func(v int64) []string {
		var out []string
		if err := app.WatchlistChanges(ctx, v, func(id string, _ []byte, removed bool) error {
			if removed {
				id = "-" + id
			}
			out = append(out, id)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		slices.Sort(out)
		return out
	}
	if got := changes(v1.ID); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("first version changes: %v", got)
	}
	if err := app.MarkRescreened(ctx, v1.ID); err != nil {
		t.Fatal(err)
	}
	// v2 changes b, drops a, adds c; v3 adds d on top; only v3 is rescreened.
	v2, err := importList(t, admin, "test_list", "h2", map[string]string{"b": `{"ID":"b","Gender":"male"}`, "c": `{"ID":"c"}`})
	if err != nil {
		t.Fatal(err)
	}
	v3, err := importList(t, admin, "test_list", "h3", map[string]string{"b": `{"ID":"b","Gender":"male"}`, "c": `{"ID":"c"}`, "d": `{"ID":"d"}`})
	if err != nil {
		t.Fatal(err)
	}
	if got := changes(v3.ID); !slices.Equal(got, []string{"-a", "b", "c", "d"}) {
		t.Fatalf("changes against the last rescreened version: %v", got)
	}
	latest, err := app.LatestWatchlists(ctx)
	if err != nil || !slices.ContainsFunc(latest, func(v store.WatchlistVersion) bool { return v.ID == v3.ID }) {
		t.Fatalf("latest: %+v %v", latest, err)
	}
	if err := app.MarkRescreened(ctx, v3.ID); err != nil {
		t.Fatal(err)
	}
	pending, err := app.PendingRescreens(ctx)
	if err != nil || slices.ContainsFunc(pending, func(v store.WatchlistVersion) bool { return v.ID == v2.ID || v.ID == v3.ID }) {
		t.Fatalf("pending after marking v3: %+v %v", pending, err)
	}
	n := 0
	if err := app.WatchlistEntities(ctx, v3.ID, func(string, []byte) error { n++; return nil }); err != nil || n != 3 {
		t.Fatalf("entities of v3: %d %v", n, err)
	}
	// The app role reads lists but cannot write them.
	if _, _, err := app.BeginWatchlistImport(ctx, "test_list", "ftm", "r1", []byte("h4")); err == nil {
		t.Fatal("the app role imported a list")
	}
}
