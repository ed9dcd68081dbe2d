package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

var (
	customerReadKeys    = strings.Fields("id notes business_id initials firstname lastname name email gender birthdate nationality_id document_number document_expiration document_type phone address street housenumber addition postalcode city country_id iban_number is_active inactive_at created_at updated_at iban_check aml_check idin_check idscan_check")
	customerCreatedKeys = strings.Fields("id initials firstname lastname name email iban_number phone address city postalcode country_id birthdate updated_at created_at messages mails")
	customerItemKeys    = strings.Fields("id business_id name email is_active inactive_at created_at updated_at")
)

func TestCustomerLifecycle(t *testing.T) {
	biz := createBusiness(t, env.a, "", map[string]bool{"coc": false, "vat": false, "iban": false}).body["id"].(string)
	r := request(t, env.a, http.MethodPost, "/api/v1/customers/create", map[string]any{
		"name": "Jan de Vries", "initials": "J.", "firstname": "Jan", "lastname": "de Vries", "email": "jan@example.nl",
		"country_code": "NLD", "business_id": biz, "phone": "+31 6 12345678", "iban_number": "BE68539007547034",
		"address": "Damrak 1A", "city": "Amsterdam", "postalcode": "1012 LG", "birthdate": "1990-05-17", "mails": false,
		"checks": map[string]bool{"iban": true, "idin": false, "idscan": false},
	}).want(t, http.StatusCreated)
	wantKeys(t, "customer create", r.raw, customerCreatedKeys)
	if r.body["phone"] != "+31612345678" || r.body["birthdate"] != "1990-05-17" || r.body["country_id"] != float64(528) {
		t.Fatalf("create response: %s", r.raw)
	}
	if string(field(t, r.raw, "mails")) != `{"idin":false,"idscan":false}` {
		t.Fatalf("mails: %s", field(t, r.raw, "mails"))
	}
	id := r.body["id"].(string)
	path := "/api/v1/customers/" + id
	chk := waitCheck(t, env.a, path, "iban", 2*time.Second)
	if chk["validated"] != true || obj(chk["data"])["country_code"] != "BE" {
		t.Fatalf("iban check: %v", chk)
	}
	got := request(t, env.a, http.MethodGet, path, nil).want(t, http.StatusOK)
	wantKeys(t, "customer read", got.raw, customerReadKeys)
	b := got.body
	if b["street"] != "Damrak" || b["housenumber"] != "1" || b["addition"] != "A" || b["business_id"] != biz || b["is_active"] != float64(1) || b["notes"] != nil {
		t.Fatalf("customer read: %s", got.raw)
	}

	// aml and idin are accepted and end failed until their providers exist;
	// the customer gets no mails, so the idin link comes back in urls.
	q := request(t, env.a, http.MethodPost, path+"/check", map[string]any{"type": []string{"aml", "idin"}}).want(t, http.StatusAccepted)
	if strings.Join(toStrings(q.body["messages"]), "|") != "AML Check has been queued|IDIN Check has been queued" {
		t.Fatalf("messages: %s", q.raw)
	}
	if urls := obj(q.body["urls"]); len(urls) != 1 || linkPath(t, urls["idin"]) == "" {
		t.Fatalf("urls: %s", q.raw)
	}
	if aml := waitCheck(t, env.a, path, "aml", 5*time.Second); obj(aml["error"])["code"] != "provider_not_configured" {
		t.Fatalf("aml: %v", aml)
	}
	request(t, env.a, http.MethodPost, path+"/check", map[string]any{"type": []string{"coc"}}).want(t, http.StatusUnprocessableEntity)

	// List, filtered by business.
	l := request(t, env.a, http.MethodGet, "/api/v1/customers?business_id="+biz, nil).want(t, http.StatusOK)
	if data := l.body["data"].([]any); len(data) != 1 || obj(data[0])["id"] != id {
		t.Fatalf("filtered list: %s", l.raw)
	}
	wantKeys(t, "customer item", index(t, field(t, l.raw, "data"), 0), customerItemKeys)
	request(t, env.a, http.MethodGet, "/api/v1/customers?business_id=nope", nil).want(t, http.StatusUnprocessableEntity)

	request(t, env.a, http.MethodDelete, path+"/delete", nil).want(t, http.StatusOK)
	request(t, env.a, http.MethodGet, path, nil).want(t, http.StatusNotFound)
	request(t, env.a, http.MethodDelete, path+"/delete", nil).want(t, http.StatusNotFound)
	var left int
	env.admin.DB().Get(&left, `SELECT count(*) FROM checks WHERE customer_id = $1`, id)
	if left != 0 {
		t.Fatalf("%d check rows left after delete", left)
	}
}

func TestCustomerLinksWithoutMail(t *testing.T) {
	r := request(t, env.a, http.MethodPost, "/api/v1/customers/create", map[string]any{
		"name": "No Mail", "email": "n@example.com", "country_code": "BEL", "mails": false,
		"checks": map[string]bool{"idin": true, "idscan": true, "iban": false},
	}).want(t, http.StatusCreated)
	wantKeys(t, "create with urls", r.raw, append(customerCreatedKeys, "urls"))
	urls := obj(r.body["urls"])
	if len(urls) != 2 || linkPath(t, urls["idin"]) == linkPath(t, urls["idscan"]) || string(field(t, r.raw, "mails")) != `{"idin":false,"idscan":false}` {
		t.Fatalf("links: %s", r.raw)
	}
	if !strings.HasPrefix(urls["idscan"].(string), env.publicURL+"/verify/") {
		t.Fatalf("links are not under PUBLIC_URL: %v", urls)
	}
}

func TestCustomerValidation(t *testing.T) {
	r := request(t, env.a, http.MethodPost, "/api/v1/customers/create", map[string]any{
		"name": "Kid", "email": "not-an-email", "country_code": "USA", "phone": "12345", "birthdate": time.Now().AddDate(-17, 0, 0).Format(time.DateOnly),
		"checks": map[string]any{"idin": "yes", "iban": true},
	}).want(t, http.StatusUnprocessableEntity)
	errs := obj(r.body["errors"])
	for _, f := range []string{"email", "country_code", "phone", "birthdate", "checks.idin", "checks.idscan", "iban_number"} {
		if errs[f] == nil {
			t.Errorf("no error for %s: %s", f, r.raw)
		}
	}
	if !strings.Contains(r.body["message"].(string), "more errors") {
		t.Errorf("message: %v", r.body["message"])
	}
	var n int
	env.admin.DB().Get(&n, `SELECT count(*) FROM customers WHERE name = 'Kid'`)
	if n != 0 {
		t.Fatal("a rejected create wrote a row")
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// A customer's delete in its GET and POST forms (docs/openapi.yaml) deletes
// as DELETE does: then the customer is gone and a second delete is 404.
func TestCustomerDeleteByGetAndPost(t *testing.T) {
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		id := request(t, env.a, http.MethodPost, "/api/v1/customers/create", map[string]any{
			"name": "Gone By " + method, "email": "gone@example.com", "country_code": "NLD",
			"checks": map[string]bool{"idin": false, "idscan": false, "iban": false},
		}).want(t, http.StatusCreated).body["id"].(string)
		path := "/api/v1/customers/" + id
		if del := request(t, env.a, method, path+"/delete", nil).want(t, http.StatusOK); strings.TrimSpace(string(del.raw)) != `{"message":"ok"}` {
			t.Fatalf("%s delete body %s", method, del.raw)
		}
		request(t, env.a, http.MethodGet, path, nil).want(t, http.StatusNotFound)
		request(t, env.a, method, path+"/delete", nil).want(t, http.StatusNotFound)
	}
}
