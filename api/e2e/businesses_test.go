package e2e

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kycflow/kycflow/workflows"
)

var (
	businessReadKeys    = strings.Fields("id name address street housenumber addition postalcode city country_id iban_number coc_number vat_number is_active inactive_at created_at updated_at coc_check iban_check vat_check")
	businessCreatedKeys = strings.Fields("id name coc_number vat_number iban_number country_id updated_at created_at messages")
	businessItemKeys    = strings.Fields("id name coc_number city is_active inactive_at created_at updated_at")
	checkKeys           = strings.Fields("id type status validated data error created_at updated_at completed_at")
	pageKeys            = strings.Fields("data path per_page next_cursor next_page_url prev_cursor prev_page_url")
	timestampRE         = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$`)
)

func wantKeys(t *testing.T, what string, raw []byte, want []string) {
	t.Helper()
	if got := keys(t, raw); !slices.Equal(got, want) {
		t.Fatalf("%s keys\n got %v\nwant %v", what, got, want)
	}
}

func createBusiness(t *testing.T, tn tenant, iban string, checks map[string]bool) response {
	t.Helper()
	body := map[string]any{"name": "Acme BV", "country_code": "NLD", "coc_number": "68750110", "checks": checks}
	if iban != "" {
		body["iban_number"] = iban
	}
	return request(t, tn, http.MethodPost, "/api/v1/businesses/create", body).want(t, http.StatusCreated)
}

// waitCheck polls the record until the check of typ reaches one of the
// final statuses, and returns it.
func waitCheck(t *testing.T, tn tenant, path, typ string, within time.Duration) map[string]any {
	t.Helper()
	var chk map[string]any
	eventually(t, within, typ+" check of "+path+" to finish or await review", func() bool {
		r := request(t, tn, http.MethodGet, path, nil).want(t, http.StatusOK)
		chk = obj(r.body[typ+"_check"])
		s, _ := chk["status"].(string)
		return s == "completed" || s == "failed" || s == "cancelled" || s == "expired" || s == "awaiting_review"
	})
	return chk
}

func TestBusinessIBANCheckEndToEnd(t *testing.T) {
	start := time.Now()
	r := createBusiness(t, env.a, "nl91 abna 0417 1643 00", map[string]bool{"coc": false, "vat": false, "iban": true})
	wantKeys(t, "create response", r.raw, businessCreatedKeys)
	if r.body["country_id"] != float64(528) || r.body["vat_number"] != nil {
		t.Fatalf("create response: %s", r.raw)
	}
	if msgs := r.body["messages"].([]any); len(msgs) != 1 || msgs[0] != "IBAN Check has been queued" {
		t.Fatalf("messages: %v", msgs)
	}
	for _, k := range []string{"created_at", "updated_at"} {
		if !timestampRE.MatchString(r.body[k].(string)) {
			t.Fatalf("%s = %v", k, r.body[k])
		}
	}
	path := "/api/v1/businesses/" + r.body["id"].(string)
	chk := waitCheck(t, env.a, path, "iban", 2*time.Second)
	t.Logf("iban check completed %s after the create request", time.Since(start))
	if chk["status"] != "completed" || chk["validated"] != true {
		t.Fatalf("iban check: %v", chk)
	}
	data := obj(chk["data"])
	if data["country_code"] != "NL" || data["bank_code"] != "ABNA" || data["iban_masked"] != "**************4300" || data["reason"] != nil {
		t.Fatalf("iban data: %v", data)
	}

	got := request(t, env.a, http.MethodGet, path, nil).want(t, http.StatusOK)
	wantKeys(t, "business read", got.raw, businessReadKeys)
	wantKeys(t, "check record", field(t, got.raw, "iban_check"), checkKeys)
	if got.body["is_active"] != float64(1) || got.body["coc_check"] != nil || got.body["inactive_at"] != nil {
		t.Fatalf("business read: %s", got.raw)
	}
	if !timestampRE.MatchString(obj(got.body["iban_check"])["completed_at"].(string)) {
		t.Fatalf("completed_at: %v", got.body["iban_check"])
	}
}

func TestBusinessInvalidIBANHasReason(t *testing.T) {
	cases := map[string]string{
		"NL92ABNA0417164300": "bad_checksum",
		"NL91ABNA041716430":  "bad_length",
		"XX91ABNA0417164300": "unknown_country",
		"NL91AB1A0417164300": "bad_format",
	}
	for iban, reason := range cases {
		r := createBusiness(t, env.a, iban, map[string]bool{"coc": false, "vat": false, "iban": true})
		chk := waitCheck(t, env.a, "/api/v1/businesses/"+r.body["id"].(string), "iban", 5*time.Second)
		data := obj(chk["data"])
		if chk["status"] != "completed" || chk["validated"] != false || data["reason"] != reason || data["message"] == nil {
			t.Errorf("%s: %v", iban, chk)
		}
	}
}

func TestBusinessCheckEndpointAndSupersede(t *testing.T) {
	// KvK test number 90004973 answers 500: the check keeps retrying (running).
	r := request(t, env.a, http.MethodPost, "/api/v1/businesses/create", map[string]any{
		"name": "Retrying BV", "country_code": "NLD", "coc_number": "90004973", "checks": map[string]bool{"coc": true, "vat": false, "iban": false},
	}).want(t, http.StatusCreated)
	id := r.body["id"].(string)
	path := "/api/v1/businesses/" + id
	var first map[string]any
	eventually(t, 5*time.Second, "coc check retrying", func() bool {
		first = obj(request(t, env.a, http.MethodGet, path, nil).want(t, http.StatusOK).body["coc_check"])
		return first["status"] == "running"
	})
	if first["validated"] != nil || first["error"] != nil {
		t.Fatalf("retrying coc check: %v", first)
	}
	// iban without an IBAN on the record, and vat without a VAT number: 422 on the type entry.
	bad := request(t, env.a, http.MethodPost, path+"/check", map[string]any{"type": []string{"coc", "iban", "vat"}}).want(t, http.StatusUnprocessableEntity)
	errs := obj(bad.body["errors"])
	if errs["type.1"] == nil || errs["type.2"] == nil || errs["type.0"] != nil {
		t.Fatalf("missing inputs: %s", bad.raw)
	}
	request(t, env.a, http.MethodPost, path+"/check", map[string]any{"type": []string{"aml"}}).want(t, http.StatusUnprocessableEntity)
	ok := request(t, env.a, http.MethodPost, path+"/check", map[string]any{"type": []string{"coc"}}).want(t, http.StatusAccepted)
	if msgs := ok.body["messages"].([]any); len(msgs) != 1 || msgs[0] != "COC Check has been queued" {
		t.Fatalf("messages: %s", ok.raw)
	}
	wantKeys(t, "business check response", ok.raw, []string{"messages"})
	var second map[string]any
	eventually(t, 5*time.Second, "the read to show the new check", func() bool {
		second = obj(request(t, env.a, http.MethodGet, path, nil).want(t, http.StatusOK).body["coc_check"])
		return second["id"] != first["id"]
	})
	old, err := env.app.GetCheck(t.Context(), mustUUID(t, env.a.id), mustUUID(t, first["id"].(string)))
	if err != nil || old.Status != "cancelled" {
		t.Fatalf("superseded check: %+v %v", old, err)
	}
	// The superseded check's workflow was retrying KvK; its search
	// attribute follows it to cancelled.
	eventually(t, 10*time.Second, "CheckStatus of the superseded workflow", func() bool {
		d, err := env.client.DescribeWorkflow(t.Context(), "check-"+first["id"].(string), "")
		if err != nil {
			return false
		}
		v, _ := d.TypedSearchAttributes.GetKeyword(workflows.SACheckStatus)
		return v == "cancelled"
	})

	// On an NLD business the coc check needs an 8-digit KvK number, as on create.
	short := request(t, env.a, http.MethodPost, "/api/v1/businesses/create", map[string]any{
		"name": "Short BV", "country_code": "NLD", "coc_number": "123456", "checks": map[string]bool{"coc": false, "vat": false, "iban": false},
	}).want(t, http.StatusCreated)
	r = request(t, env.a, http.MethodPost, "/api/v1/businesses/"+short.body["id"].(string)+"/check", map[string]any{"type": []string{"coc"}}).want(t, http.StatusUnprocessableEntity)
	if !strings.Contains(fmt.Sprint(obj(r.body["errors"])["type.0"]), "8-digit KvK number") {
		t.Fatalf("KvK rule on the check endpoint: %s", r.raw)
	}
	// The second check is still retrying KvK's 500: deleting the business
	// cancels it, so later tests count only their own KvK calls.
	request(t, env.a, http.MethodDelete, path+"/delete", nil).want(t, http.StatusOK)
}

func TestBusinessListPages(t *testing.T) {
	tn, err := newTenant(t.Context(), "Pages", "pages.test")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for range 45 {
		ids = append(ids, createBusiness(t, tn, "", map[string]bool{"coc": false, "vat": false, "iban": false}).body["id"].(string))
	}
	slices.Reverse(ids) // newest first
	var seen []string
	page := request(t, tn, http.MethodGet, "/api/v1/businesses?per_page=20", nil).want(t, http.StatusOK)
	wantKeys(t, "page", page.raw, pageKeys)
	if page.body["prev_cursor"] != nil || page.body["prev_page_url"] != nil || page.body["per_page"] != float64(20) {
		t.Fatalf("first page: %s", page.raw)
	}
	if page.body["path"] != "http://pages.test/api/v1/businesses" {
		t.Fatalf("path: %v", page.body["path"])
	}
	wantKeys(t, "list item", index(t, field(t, page.raw, "data"), 0), businessItemKeys)
	var pages []response
	for {
		pages = append(pages, page)
		for _, it := range page.body["data"].([]any) {
			seen = append(seen, obj(it)["id"].(string))
		}
		next, _ := page.body["next_page_url"].(string)
		if next == "" {
			break
		}
		if !strings.Contains(next, "per_page=20") || !strings.Contains(next, "cursor=") {
			t.Fatalf("next_page_url %q", next)
		}
		page = request(t, tn, http.MethodGet, strings.TrimPrefix(next, "http://pages.test"), nil).want(t, http.StatusOK)
	}
	if !slices.Equal(seen, ids) || len(pages) != 3 {
		t.Fatalf("walked %d pages, %d ids; order kept: %v", len(pages), len(seen), slices.Equal(seen, ids))
	}
	// Back from the last page: the middle page again.
	prev := pages[2].body["prev_page_url"].(string)
	back := request(t, tn, http.MethodGet, strings.TrimPrefix(prev, "http://pages.test"), nil).want(t, http.StatusOK)
	if string(mustJSON(t, back.body["data"])) != string(mustJSON(t, pages[1].body["data"])) {
		t.Fatal("prev page differs from the page walked forward")
	}
	// The default page size and the bounds.
	if n := len(request(t, tn, http.MethodGet, "/api/v1/businesses", nil).body["data"].([]any)); n != 20 {
		t.Fatalf("default page size %d", n)
	}
	if n := len(request(t, tn, http.MethodGet, "/api/v1/businesses?per_page=100", nil).body["data"].([]any)); n != 45 {
		t.Fatalf("per_page=100 gave %d", n)
	}
}

func TestBusinessDelete(t *testing.T) {
	r := createBusiness(t, env.a, "NL91ABNA0417164300", map[string]bool{"coc": true, "vat": false, "iban": true})
	id := r.body["id"].(string)
	c := request(t, env.a, http.MethodPost, "/api/v1/customers/create", map[string]any{
		"name": "Linked Person", "email": "p@example.com", "country_code": "NLD", "business_id": id,
		"checks": map[string]bool{"idin": false, "idscan": false, "iban": false},
	}).want(t, http.StatusCreated)
	for i, method := range []string{http.MethodDelete, http.MethodGet, http.MethodPost} {
		target := id
		if i > 0 {
			target = createBusiness(t, env.a, "", map[string]bool{"coc": false, "vat": false, "iban": false}).body["id"].(string)
		}
		del := request(t, env.a, method, "/api/v1/businesses/"+target+"/delete", nil).want(t, http.StatusOK)
		if strings.TrimSpace(string(del.raw)) != `{"message":"ok"}` {
			t.Fatalf("delete body %s", del.raw)
		}
		request(t, env.a, http.MethodGet, "/api/v1/businesses/"+target, nil).want(t, http.StatusNotFound)
		request(t, env.a, method, "/api/v1/businesses/"+target+"/delete", nil).want(t, http.StatusNotFound)
	}
	cu := request(t, env.a, http.MethodGet, "/api/v1/customers/"+c.body["id"].(string), nil).want(t, http.StatusOK)
	if cu.body["business_id"] != nil {
		t.Fatalf("customer still linked: %v", cu.body["business_id"])
	}
	var checks, audits int
	env.admin.DB().Get(&checks, `SELECT count(*) FROM checks WHERE business_id = $1`, id)
	env.admin.DB().Get(&audits, `SELECT count(*) FROM audit_log WHERE record_id = $1 AND action = 'delete' AND api_key_id IS NOT NULL`, id)
	if checks != 0 || audits != 1 {
		t.Fatalf("after delete: %d check rows, %d audit rows", checks, audits)
	}
}
