package e2e

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// noRedirect is a browser that stops at each redirect so the test sees it.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// form posts a form and returns the status, the Location and the body.
func form(t *testing.T, target string, v url.Values) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, target, strings.NewReader(v.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", env.publicURL) // as a browser posting the page's own form
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 500 {
		t.Fatalf("POST %s: %d %s", target, resp.StatusCode, body)
	}
	return resp.StatusCode, resp.Header.Get("Location"), string(body)
}

func newIDINCustomer(t *testing.T, name, first, last, birthdate string) (string, string) {
	t.Helper()
	r := request(t, env.a, http.MethodPost, "/api/v1/customers/create", map[string]any{
		"name": name, "firstname": first, "lastname": last, "email": "idin@example.nl", "country_code": "NLD",
		"birthdate": birthdate, "mails": false, "checks": map[string]bool{"idin": true, "idscan": false, "iban": false},
	}).want(t, http.StatusCreated)
	return r.body["id"].(string), linkPath(t, obj(r.body["urls"])["idin"])
}

func idinCheck(t *testing.T, id, status string) map[string]any {
	t.Helper()
	var chk map[string]any
	eventually(t, 15*time.Second, "idin check "+status, func() bool {
		chk = obj(request(t, env.a, http.MethodGet, "/api/v1/customers/"+id, nil).want(t, http.StatusOK).body["idin_check"])
		return chk["status"] == status
	})
	return chk
}

// throughBank walks the person through: bank choice → the sandbox bank →
// the chosen outcome → back on our return page.
func throughBank(t *testing.T, path string, outcome url.Values) string {
	t.Helper()
	code, page := getPage(t, path+"?lang=en")
	if code != http.StatusOK || !strings.Contains(page, "Confirm your identity with your bank") || !strings.Contains(page, `name="issuer"`) {
		t.Fatalf("bank choice %d: %s", code, page)
	}
	issuer := regexp.MustCompile(`<option value="([A-Z0-9]+)">`).FindStringSubmatch(page)
	if issuer == nil {
		t.Fatalf("no bank to choose: %s", page)
	}
	code, bank, _ := form(t, env.apiURL+path+"/idin?lang=en", url.Values{"issuer": {issuer[1]}})
	if code != http.StatusSeeOther || !strings.Contains(bank, "/bank/") {
		t.Fatalf("off to the bank: %d %q", code, bank)
	}
	code, back, body := form(t, bank, outcome)
	if code != http.StatusSeeOther || !strings.HasPrefix(back, env.publicURL+path+"/return?") {
		t.Fatalf("the bank sends back: %d %q %s", code, back, body)
	}
	u, _ := url.Parse(back)
	code, page = getPage(t, u.RequestURI()+"&lang=en")
	if code != http.StatusOK || !strings.Contains(page, "Thank you") {
		t.Fatalf("return page %d: %s", code, page)
	}
	return u.RequestURI()
}

func TestIDINThroughTheSandboxBank(t *testing.T) {
	id, path := newIDINCustomer(t, "Jan de Vries", "Jan", "de Vries", "1990-05-17")
	idinCheck(t, id, "awaiting_input")
	back := throughBank(t, path, url.Values{"outcome": {"success"}, "initials": {"J"}, "last_name_prefix": {"de"}, "last_name": {"Vries"},
		"gender": {"male"}, "date_of_birth": {"1990-05-17"}, "street": {"Damrak"}, "house_number": {"1"}, "house_number_suffix": {"A"},
		"postal_code": {"1012LG"}, "city": {"Amsterdam"}, "country": {"NL"}, "18y_or_older": {"yes"}})
	chk := idinCheck(t, id, "completed")
	d := obj(chk["data"])
	if chk["validated"] != true || d["last_name"] != "Vries" || d["last_name_prefix"] != "de" || d["bin"] == nil || d["status"] != "success" {
		t.Fatalf("idin check: %v", chk)
	}
	cu := request(t, env.a, http.MethodGet, "/api/v1/customers/"+id, nil).body
	if cu["gender"] != "male" || cu["street"] != "Damrak" || cu["housenumber"] != "1" || cu["addition"] != "A" || cu["postalcode"] != "1012LG" || cu["city"] != "Amsterdam" {
		t.Fatalf("customer not enriched: %v", cu)
	}
	// A reload of the return page is harmless; the link is used.
	if code, page := getPage(t, back+"&lang=en"); code != http.StatusOK || !strings.Contains(page, "Thank you") {
		t.Fatalf("return page reloaded: %d", code)
	}
	if code, _ := getPage(t, path); code != http.StatusGone {
		t.Fatalf("used link: %d", code)
	}
}

func TestIDINOutcomes(t *testing.T) {
	for _, c := range []struct {
		name   string
		values url.Values
		reason string
	}{
		{"cancelled", url.Values{"outcome": {"cancelled"}}, "bank_cancelled"},
		{"expired", url.Values{"outcome": {"expired"}}, "bank_expired"},
		{"failure", url.Values{"outcome": {"failure"}}, "bank_failure"},
		{"other person", url.Values{"outcome": {"success"}, "initials": {"P"}, "last_name_prefix": {""}, "last_name": {"Jansen"}, "date_of_birth": {"1990-05-17"}}, "name_mismatch"},
		{"other birthdate", url.Values{"outcome": {"success"}, "initials": {"J"}, "last_name_prefix": {"de"}, "last_name": {"Vries"}, "date_of_birth": {"1991-05-17"}}, "birthdate_mismatch"},
	} {
		t.Run(c.name, func(t *testing.T) {
			id, path := newIDINCustomer(t, "Jan de Vries", "Jan", "de Vries", "1990-05-17")
			idinCheck(t, id, "awaiting_input")
			throughBank(t, path, c.values)
			chk := idinCheck(t, id, "completed")
			if chk["validated"] != false || obj(chk["data"])["reason"] != c.reason {
				t.Fatalf("check: %v", chk)
			}
			if cu := request(t, env.a, http.MethodGet, "/api/v1/customers/"+id, nil).body; cu["gender"] != nil || cu["street"] != nil {
				t.Fatalf("an unconfirmed identity enriched the record: %v", cu)
			}
		})
	}
	// A forged return (wrong entrance code) changes nothing.
	_, path := newIDINCustomer(t, "Jan de Vries", "Jan", "de Vries", "1990-05-17")
	if code, page := getPage(t, path+"/return?trxid=x&ec=y&lang=en"); code != http.StatusBadRequest || !strings.Contains(page, "does not belong") {
		t.Fatalf("forged return: %d %s", code, page)
	}
	if code, _ := getPage(t, path); code != http.StatusOK {
		t.Fatalf("the link should still be open: %d", code)
	}
}
