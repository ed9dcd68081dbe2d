package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/api"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/store/pgcluster"
)

// The handlers over HTTP against the real store, on a PostgreSQL cluster of
// this package's own (as the store's tests start one): a handler change
// fails here in seconds, without Temporal or the e2e suite. Checks stay
// queued (no relay runs); what the worker does is the e2e suite's.

var (
	srv   *httptest.Server
	admin *store.Store
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	ctx := context.Background()
	pg, err := pgcluster.StartTemp(ctx, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL: PostgreSQL did not start:", err)
		return 1
	}
	defer pg.Stop()
	if err := store.Migrate(ctx, pg.DSN("postgres", "kycflow"), store.RolePasswords{}); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL: migrate:", err)
		return 1
	}
	if admin, err = store.Open(ctx, pg.DSN("postgres", "kycflow"), 4); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		return 1
	}
	defer admin.Close()
	app, err := store.Open(ctx, pg.DSN(store.AppRole, "kycflow"), 8)
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		return 1
	}
	defer app.Close()
	srv = httptest.NewServer(api.New(api.Config{Store: app, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), PublicURL: "https://kyc.example"}))
	defer srv.Close()
	return m.Run()
}

// tenant is a tenant of a test's own: its host and key.
type tenant struct{ host, key string }

func newTenant(t *testing.T) tenant {
	t.Helper()
	host := "h-" + uuid.NewString()[:8] + ".test"
	if _, key, err := admin.CreateTenant(context.Background(), host, []string{host}, false); err != nil {
		t.Fatal(err)
	} else {
		return tenant{host, key}
	}
	return tenant{}
}

// call sends a request as tn and decodes the answer.
func call(t *testing.T, tn tenant, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, srv.URL+path, r)
	req.Host = tn.host
	req.Header.Set("Authorization", "Bearer "+tn.key)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(resp.Body)
	if len(raw) > 0 && json.Unmarshal(raw, &out) != nil {
		t.Fatalf("%s %s: %d %s: not a JSON object", method, path, resp.StatusCode, raw)
	}
	if resp.StatusCode >= 500 {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	return resp.StatusCode, out
}

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }

// A business's life through the handlers: created with its checks queued,
// read back with them, listed, deleted, and gone.
func TestBusinessThroughTheHandlers(t *testing.T) {
	t.Parallel()
	tn := newTenant(t)
	code, b := call(t, tn, http.MethodPost, "/api/v1/businesses/create", map[string]any{"name": "Test BV", "country_code": "NLD",
		"coc_number": "68750110", "iban_number": "NL91 ABNA 0417 1643 00", "checks": map[string]bool{"coc": true, "vat": false, "iban": true}})
	if code != http.StatusCreated || b["name"] != "Test BV" || b["country_id"] != 528.0 || fmt.Sprint(b["messages"]) != "[COC Check has been queued IBAN Check has been queued]" {
		t.Fatalf("create: %d %v", code, b)
	}
	id := b["id"].(string)
	code, got := call(t, tn, http.MethodGet, "/api/v1/businesses/"+id, nil)
	if code != http.StatusOK || obj(got["coc_check"])["status"] != "queued" || obj(got["iban_check"])["status"] != "queued" || got["vat_check"] != nil {
		t.Fatalf("read: %d %v", code, got)
	}
	code, list := call(t, tn, http.MethodGet, "/api/v1/businesses?per_page=5", nil)
	if code != http.StatusOK || len(list["data"].([]any)) != 1 {
		t.Fatalf("list: %d %v", code, list)
	}
	if code, q := call(t, tn, http.MethodPost, "/api/v1/businesses/"+id+"/check", map[string]any{"type": []string{"iban"}}); code != http.StatusAccepted || fmt.Sprint(q["messages"]) != "[IBAN Check has been queued]" {
		t.Fatalf("check: %d %v", code, q)
	}
	if code, _ := call(t, tn, http.MethodDelete, "/api/v1/businesses/"+id+"/delete", nil); code != http.StatusOK {
		t.Fatalf("delete: %d", code)
	}
	if code, _ := call(t, tn, http.MethodGet, "/api/v1/businesses/"+id, nil); code != http.StatusNotFound {
		t.Fatalf("read after delete: %d", code)
	}
}

// A customer without mails gets its links in the answer, on create and on
// a check request; another tenant sees none of it.
func TestCustomerThroughTheHandlers(t *testing.T) {
	t.Parallel()
	tn, other := newTenant(t), newTenant(t)
	code, c := call(t, tn, http.MethodPost, "/api/v1/customers/create", map[string]any{"name": "Jan de Vries", "email": "jan@example.nl",
		"country_code": "NLD", "mails": false, "checks": map[string]bool{"idin": true, "idscan": true, "iban": false}})
	urls := obj(c["urls"])
	if code != http.StatusCreated || !strings.HasPrefix(fmt.Sprint(urls["idin"]), "https://kyc.example/verify/") || !strings.HasPrefix(fmt.Sprint(urls["idscan"]), "https://kyc.example/verify/") {
		t.Fatalf("create: %d %v", code, c)
	}
	id := c["id"].(string)
	code, q := call(t, tn, http.MethodPost, "/api/v1/customers/"+id+"/check", map[string]any{"type": []string{"idscan", "aml"}})
	if code != http.StatusAccepted || !strings.HasPrefix(fmt.Sprint(obj(q["urls"])["idscan"]), "https://kyc.example/verify/") || obj(q["urls"])["idscan"] == urls["idscan"] {
		t.Fatalf("check: %d %v", code, q)
	}
	for _, path := range []string{"/api/v1/customers/" + id, "/api/v1/customers/" + id + "/delete"} {
		method := http.MethodGet
		if strings.HasSuffix(path, "delete") {
			method = http.MethodDelete
		}
		if code, _ := call(t, other, method, path, nil); code != http.StatusNotFound {
			t.Fatalf("another tenant's %s %s: %d", method, path, code)
		}
	}
	if code, _ := call(t, other, http.MethodPost, "/api/v1/customers/"+id+"/check", map[string]any{"type": []string{"aml"}}); code != http.StatusNotFound {
		t.Fatalf("another tenant's check request: %d", code)
	}
}

// Bad requests are 422s naming the field, on create and on a check
// request alike, and leave nothing behind.
func TestHandlersNameTheField(t *testing.T) {
	t.Parallel()
	tn := newTenant(t)
	_, b := call(t, tn, http.MethodPost, "/api/v1/businesses/create", map[string]any{"name": "Plain BV", "country_code": "NLD",
		"coc_number": "123456789", "checks": map[string]bool{"coc": false, "vat": false, "iban": false}})
	plain := b["id"].(string)
	for _, c := range []struct {
		path  string
		body  any
		field string
		words string
	}{
		{"/api/v1/businesses/create", map[string]any{"name": "A", "country_code": "NLD", "coc_number": "123456789", "checks": map[string]bool{"coc": true, "vat": false, "iban": false}},
			"coc_number", "8-digit KvK number"},
		{"/api/v1/businesses/create", map[string]any{"name": "A", "country_code": "NLD", "coc_number": "68750110", "checks": map[string]bool{"coc": false, "vat": false, "iban": true}},
			"iban_number", "required when checks.iban is true"},
		{"/api/v1/businesses/create", map[string]any{"name": "A", "country_code": "NLD", "coc_number": "68750110", "checks": map[string]bool{"coc": false, "vat": false, "iban": false, "aml": true}},
			"checks.aml", "not a check type here"},
		{"/api/v1/businesses/" + plain + "/check", map[string]any{"type": []string{"coc"}}, "type.0", "8-digit KvK number"},
		{"/api/v1/businesses/" + plain + "/check", map[string]any{"type": []string{"vat"}}, "type.0", "vat_number, which is not set"},
		{"/api/v1/businesses/" + plain + "/check", map[string]any{"type": []string{}}, "type", "required"},
		{"/api/v1/customers/create", map[string]any{"name": "B", "email": "not-an-email", "country_code": "NLD", "checks": map[string]bool{"idin": false, "idscan": false, "iban": false}},
			"email", "valid email"},
	} {
		code, body := call(t, tn, http.MethodPost, c.path, c.body)
		if code != http.StatusUnprocessableEntity || !strings.Contains(fmt.Sprint(obj(body["errors"])[c.field]), c.words) {
			t.Errorf("%s %v: %d %v, want 422 on %s saying %q", c.path, c.body, code, body, c.field, c.words)
		}
	}
	if code, list := call(t, tn, http.MethodGet, "/api/v1/businesses", nil); code != http.StatusOK || len(list["data"].([]any)) != 1 {
		t.Fatalf("a refused create left something: %v", list)
	}
}
