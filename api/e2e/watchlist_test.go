package e2e

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/store"
)

// importList runs `kycflow watchlist import` as an operator would.
func importList(t *testing.T, format string, files ...string) string {
	t.Helper()
	cmd := exec.Command(env.bin, append([]string{"watchlist", "import", "--format", format}, files...)...)
	cmd.Env = append(os.Environ(), "DATABASE_ADMIN_URL="+env.adminDSN)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("watchlist import: %v: %s", err, out)
	}
	return string(out)
}

// listsLoaded says whether the worker holds the latest version of every
// list imported so far (other tests import lists of their own).
func listsLoaded(t *testing.T) bool {
	t.Helper()
	latest, err := env.admin.LatestWatchlists(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range latest {
		if !slices.ContainsFunc(env.lists.Versions(), func(v store.WatchlistVersion) bool { return v.ID == l.ID }) {
			return false
		}
	}
	return true
}

func fixture(name string) string {
	return filepath.Join("..", "..", "engines", "watchlist", "testdata", name)
}

// newAMLCustomer creates a customer and queues an aml check on it, through
// the check endpoint, or in the create request's checks when atCreate.
func newAMLCustomer(t *testing.T, tn tenant, name, birthdate string, atCreate bool) string {
	t.Helper()
	body := map[string]any{"name": name, "email": "aml@example.com", "country_code": "NLD",
		"checks": map[string]bool{"idin": false, "idscan": false, "iban": false, "aml": atCreate}}
	if birthdate != "" {
		body["birthdate"] = birthdate
	}
	id := request(t, tn, http.MethodPost, "/api/v1/customers/create", body).want(t, http.StatusCreated).body["id"].(string)
	if !atCreate {
		request(t, tn, http.MethodPost, "/api/v1/customers/"+id+"/check", map[string]any{"type": []string{"aml"}}).want(t, http.StatusAccepted)
	}
	return id
}

func amlCheck(t *testing.T, tn tenant, id string) map[string]any {
	t.Helper()
	return waitCheck(t, tn, "/api/v1/customers/"+id, "aml", 20*time.Second)
}

// Import from files (each format), the same file again is a no-op, then
// screening: a listed person written in Cyrillic or with a typo is a hit,
// explained; an unrelated name is clear. A new list version rescreens the
// customers it concerns, and only them.
func TestWatchlistImportScreenAndRescreen(t *testing.T) {
	out := importList(t, "ftm", fixture("entities.ftm.json"))
	if !strings.Contains(out, "imported opensanctions version") || !strings.Contains(out, "entities") {
		t.Fatalf("import: %s", out)
	}
	if out := importList(t, "ftm", fixture("entities.ftm.json")); !strings.Contains(out, "unchanged") {
		t.Fatalf("re-import: %s", out)
	}
	for format, files := range map[string][]string{
		"eu-fsf":   {fixture("eu_fsf.csv")},
		"eu-xml":   {fixture("eu_fsf.xml")},
		"ofac-sdn": {fixture("sdn.csv")},
	} {
		if out := importList(t, format, files...); !strings.Contains(out, "imported") && !strings.Contains(out, "unchanged") {
			t.Fatalf("%s import: %s", format, out)
		}
	}
	eventually(t, 15*time.Second, "the worker to load the lists", func() bool { return listsLoaded(t) })

	// Павел Волков in Cyrillic, a typo in the first letter, and a stranger.
	cyrillic := newAMLCustomer(t, env.a, "Павел Волков", "1970-05-17", false)
	typo := newAMLCustomer(t, env.a, "Bavel Volkov", "", true)
	clear := newAMLCustomer(t, env.a, "Maria Jansen-Koopmans", "1985-03-02", false)
	for _, id := range []string{cyrillic, typo} {
		chk := amlCheck(t, env.a, id)
		d := obj(chk["data"])
		hits, _ := d["hits"].([]any)
		if chk["status"] != "awaiting_review" || chk["validated"] != nil || d["reason"] != "watchlist_hit" || len(hits) == 0 {
			t.Fatalf("listed person not caught: %v", chk)
		}
		hit := obj(hits[0])
		if hit["entity_id"] != "NK-fict-volkov" || hit["above_threshold"] != true || hit["alerting"] != true || hit["review"] != nil || len(hit["explanation"].([]any)) == 0 {
			t.Fatalf("hit: %v", hit)
		}
		if lists, _ := d["lists"].([]any); len(lists) < 3 || obj(lists[0])["content_hash"] == nil {
			t.Fatalf("list versions used: %v", d["lists"])
		}
	}
	if chk := amlCheck(t, env.a, clear); chk["validated"] != true || obj(chk["data"])["reason"] != nil {
		t.Fatalf("unrelated name: %v", chk)
	}

	// A new version of a list adds Maria Jansen-Koopmans: her aml check is
	// queued again and awaits review; Pavel's stays as it was.
	before := obj(request(t, env.a, http.MethodGet, "/api/v1/customers/"+cyrillic, nil).body["aml_check"])["id"]
	dir := t.TempDir()
	extra := filepath.Join(dir, "entities.ftm.json")
	orig, err := os.ReadFile(fixture("entities.ftm.json"))
	if err != nil {
		t.Fatal(err)
	}
	added := `{"id":"NK-fict-jansen","schema":"Person","properties":{"name":["Maria Jansen-Koopmans"],"birthDate":["1985-03-02"],"topics":["sanction"]},"datasets":["fict"]}` + "\n"
	if err := os.WriteFile(extra, append(orig, added...), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := importList(t, "ftm", extra); !strings.Contains(out, "imported opensanctions version") {
		t.Fatalf("new version: %s", out)
	}
	var chk map[string]any
	eventually(t, 30*time.Second, "the rescreening to queue a new aml check", func() bool {
		chk = obj(request(t, env.a, http.MethodGet, "/api/v1/customers/"+clear, nil).body["aml_check"])
		return chk["status"] == "awaiting_review"
	})
	if hit := obj(obj(chk["data"])["hits"].([]any)[0]); hit["entity_id"] != "NK-fict-jansen" {
		t.Fatalf("rescreened hit: %v", hit)
	}
	if after := obj(request(t, env.a, http.MethodGet, "/api/v1/customers/"+cyrillic, nil).body["aml_check"])["id"]; after != before {
		t.Fatal("a customer the new version does not concern was rescreened")
	}
}

// A generated list goes through the real import: the count printed is the
// count generated, and the same file again is a no-op.
func TestWatchlistGenerateImport(t *testing.T) {
	file := filepath.Join(t.TempDir(), "gen.ftm.json")
	if out, err := exec.Command(env.bin, "watchlist", "generate", "--entities", "300", "--seed", "7", "--out", file).CombinedOutput(); err != nil {
		t.Fatalf("generate: %v: %s", err, out)
	}
	if out := importList(t, "ftm", "--list", "generated", file); !strings.Contains(out, "imported generated version") || !strings.Contains(out, ": 300 entities") {
		t.Fatalf("import: %s", out)
	}
	if out := importList(t, "ftm", "--list", "generated", file); !strings.Contains(out, "unchanged") {
		t.Fatalf("re-import: %s", out)
	}
}

// The hard conflict rule, per tenant: off (the default), a listed name with
// a contradicting birth date is a hit scored lower; on, it is dropped.
func TestWatchlistHardConflict(t *testing.T) {
	importList(t, "ftm", fixture("entities.ftm.json")) // imported or unchanged
	eventually(t, 15*time.Second, "the worker to load the list", func() bool { return listsLoaded(t) })
	hard, err := newTenant(context.Background(), "Hard conflict", "hard.test")
	if err != nil {
		t.Fatal(err)
	}
	if err := env.admin.SetAMLHardConflict(context.Background(), uuid.MustParse(hard.id), true); err != nil {
		t.Fatal(err)
	}
	// Pavel Volkov is listed born 1970-05-17 or 1971.
	soft := amlCheck(t, env.a, newAMLCustomer(t, env.a, "Pavel Volkov", "1990-01-01", true))
	if d := obj(soft["data"]); soft["status"] != "awaiting_review" || d["hard_conflict"] != false {
		t.Fatalf("default rule: %v", soft)
	}
	dropped := amlCheck(t, hard, newAMLCustomer(t, hard, "Pavel Volkov", "1990-01-01", true))
	if d := obj(dropped["data"]); dropped["validated"] != true || d["hard_conflict"] != true || len(d["hits"].([]any)) != 0 {
		t.Fatalf("hard conflict rule: %v", dropped)
	}
	// Within a year of a listed date: no conflict, still caught.
	kept := amlCheck(t, hard, newAMLCustomer(t, hard, "Pavel Volkov", "1971-03-03", true))
	if kept["status"] != "awaiting_review" {
		t.Fatalf("hard conflict rule, consistent date: %v", kept)
	}
}
