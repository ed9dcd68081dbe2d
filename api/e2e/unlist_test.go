package e2e

import (
	"context"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/store"
)

// The real UN Security Council consolidated list through the import
// command, then screened as a tenant who uses only it: a listed man asked
// by given and family name, and in Arabic script, alerts; a stranger does
// not.
func TestUNListImportAndScreening(t *testing.T) {
	file := filepath.Join("..", "..", "engines", "watchlist", "testdata", "real", "un-consolidated-2026-02.xml")
	out := importList(t, "un-xml", "--list", "un_e2e", file)
	if !strings.Contains(out, "imported un_e2e version") && !strings.Contains(out, "unchanged") {
		t.Fatalf("import: %s", out)
	}
	if strings.Contains(out, "imported") && (!strings.Contains(out, ": 1003 entities") || strings.Contains(out, "warning")) {
		t.Fatalf("import: %s", out)
	}
	eventually(t, 30*time.Second, "the worker to load the UN list", func() bool {
		return slices.ContainsFunc(env.lists.Versions(), func(v store.WatchlistVersion) bool { return v.List == "un_e2e" })
	})
	tn := hookTenant(t, false)
	if err := env.admin.SetAMLLists(context.Background(), uuid.MustParse(tn.id), []string{"un_e2e"}); err != nil {
		t.Fatal(err)
	}
	r := request(t, tn, http.MethodPost, "/api/v1/screen", map[string]any{"queries": []map[string]any{
		{"name": "Qusay al-Tikriti", "nationality": "IQ"},
		{"name": "قصي صدام حسين التكريتي"},
		{"name": "Maria Jansen-Koopmans", "birth_date": "1985-03-02"},
	}}).want(t, http.StatusOK)
	results := r.body["results"].([]any)
	for i, want := range []bool{true, true, false} {
		res := obj(results[i])
		if res["alerting"] != want {
			t.Fatalf("query %d: %v", i, res)
		}
		if want && obj(res["hits"].([]any)[0])["entity_id"] != "un-IQi.002" {
			t.Fatalf("query %d found %v", i, res["hits"])
		}
	}
	if lists := r.body["lists"].([]any); len(lists) != 1 || obj(lists[0])["list"] != "un_e2e" {
		t.Fatalf("lists: %v", lists)
	}
}
