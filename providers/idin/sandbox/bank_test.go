package sandbox

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// noRedirect is a browser that shows the bank's redirect instead of following it.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func getPage(t *testing.T, srv *httptest.Server, path string) (*http.Response, string) {
	t.Helper()
	resp, err := noRedirect.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func submit(t *testing.T, srv *httptest.Server, id string, form url.Values) (*http.Response, string) {
	t.Helper()
	resp, err := noRedirect.PostForm(srv.URL+"/bank/"+id, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// complete finishes a transaction through the page, as a tester would.
func complete(t *testing.T, s *Server, id, outcome string) {
	t.Helper()
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	if resp, body := submit(t, srv, id, url.Values{"outcome": {outcome}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("complete %s: %d\n%s", outcome, resp.StatusCode, body)
	}
}

func txStatus(s *Server, id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.txs[id].status
}

var (
	idAttr    = regexp.MustCompile(`<(?:input|select)[^>]* id="([^"]+)"`)
	scriptTag = regexp.MustCompile(`(?i)<script`)
)

func TestBankPageRenders(t *testing.T) {
	_, srv := newSandbox(t)
	id := startTx(t, srv, nil)["transaction_id"].(string)
	resp, page := getPage(t, srv, "/bank/"+id)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("%d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "form-action") {
		t.Errorf("CSP %q", csp)
	}
	for _, want := range []string{
		`<html lang="en">`, `name="viewport"`, "SANDBOX BANK", "Sandbox Bank: confirm your identity",
		"merchant.example", id, `<form method="post"`,
		`value="1985-07-14"`, `value="Berg"`, `value="van den"`, `value="9999ZZ"`, `value="NL"`, `value="NLBANK`,
		`<option value="male" selected>`, `<option value="yes" selected>`,
		`name="outcome" value="success"`, `name="outcome" value="cancelled"`, `name="outcome" value="expired"`, `name="outcome" value="failure"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if scriptTag.MatchString(page) {
		t.Error("page has a script; it must work without JavaScript")
	}
	// Every control is labelled.
	ids := idAttr.FindAllStringSubmatch(page, -1)
	if len(ids) != 16 {
		t.Errorf("%d controls, want 16", len(ids))
	}
	for _, m := range ids {
		if !strings.Contains(page, `<label for="`+m[1]+`">`) {
			t.Errorf("control %s has no label", m[1])
		}
	}
}

// Only the requested groups are on the page.
func TestBankPageShowsRequestedGroupsOnly(t *testing.T) {
	_, srv := newSandbox(t)
	id := startTx(t, srv, map[string]any{"identity": false, "gender": false, "address": false, "date_of_birth": false,
		"18y_or_older": false, "email_address": false, "telephone_number": false})["transaction_id"].(string)
	_, page := getPage(t, srv, "/bank/"+id)
	if !strings.Contains(page, `id="f-last_name"`) || !strings.Contains(page, "The merchant asks for: Name.") {
		t.Error("name group missing")
	}
	for _, absent := range []string{`id="f-bin"`, `id="f-street"`, `id="f-date_of_birth"`, `id="f-email_address"`} {
		if strings.Contains(page, absent) {
			t.Errorf("unrequested %s shown", absent)
		}
	}
}

// What a tester or a preset puts in is shown escaped, never as markup.
func TestBankPageEscapes(t *testing.T) {
	_, srv := newSandbox(t)
	const evil = `"><script>alert(1)</script>`
	id := startTx(t, srv, map[string]any{
		"merchant_return_url": "https://merchant.example/return?x=<b>",
		"sandbox_attributes":  map[string]any{"name": map[string]any{"last_name": evil}},
	})["transaction_id"].(string)
	_, page := getPage(t, srv, "/bank/"+id)
	if scriptTag.MatchString(page) || strings.Contains(page, evil) {
		t.Fatal("preset value rendered as markup")
	}
	if !strings.Contains(page, `value="&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"`) {
		t.Error("preset value not shown escaped")
	}

	// Re-rendered after a validation error, the tester's input is escaped too.
	resp, page := submit(t, srv, id, url.Values{"outcome": {"success"}, "city": {"<img src=x onerror=alert(1)>"}, "date_of_birth": {"yesterday"}})
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("invalid form: %d", resp.StatusCode)
	}
	if strings.Contains(page, "<img") || !strings.Contains(page, `value="&lt;img src=x onerror=alert(1)&gt;"`) {
		t.Error("tester input not escaped on re-render")
	}

	// An id with markup in the path is escaped on the unknown page.
	resp, page = getPage(t, srv, "/bank/"+url.PathEscape("<script>x</script>"))
	if resp.StatusCode != http.StatusNotFound || scriptTag.MatchString(page) || !strings.Contains(page, "&lt;script&gt;") {
		t.Errorf("unknown page: %d\n%s", resp.StatusCode, page)
	}
}

func TestBankSubmitRecordsAndRedirects(t *testing.T) {
	s, srv := newSandbox(t)
	id := startTx(t, srv, map[string]any{"merchant_return_url": "https://merchant.example/return?a=1&b=x%20y"})["transaction_id"].(string)
	resp, _ := submit(t, srv, id, url.Values{
		"outcome":       {"success"},
		"initials":      {"MK"},
		"last_name":     {"Visser"},
		"email_address": {""}, // sent empty: delivered empty
		// date_of_birth left out: keeps its prefilled value
	})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("%d", resp.StatusCode)
	}
	want := "https://merchant.example/return?a=1&b=x%20y&trxid=" + id + "&ec=abcDEF123"
	if got := resp.Header.Get("Location"); got != want {
		t.Errorf("Location %q, want %q", got, want)
	}
	st := status(t, srv, id)
	name, _ := st["name"].(map[string]any)
	age, _ := st["age"].(map[string]any)
	if st["status"] != "success" || name["initials"] != "MK" || name["last_name"] != "Visser" ||
		age["date_of_birth"] != "1985-07-14" || st["email_address"] != nil {
		t.Errorf("recorded: %v", st)
	}
	if txStatus(s, id) != "success" {
		t.Error("outcome not recorded")
	}
}

func TestBankOutcomes(t *testing.T) {
	s, srv := newSandbox(t)
	for _, outcome := range []string{"cancelled", "expired", "failure"} {
		id := startTx(t, srv, nil)["transaction_id"].(string)
		resp, _ := submit(t, srv, id, url.Values{"outcome": {outcome}, "last_name": {"ignored"}})
		loc, _ := url.Parse(resp.Header.Get("Location"))
		if resp.StatusCode != http.StatusSeeOther || loc.Query().Get("trxid") != id || loc.Query().Get("ec") != "abcDEF123" {
			t.Errorf("%s: %d %v", outcome, resp.StatusCode, loc)
		}
		if st := status(t, srv, id); st["status"] != outcome || st["bin"] != nil || st["name"] != nil {
			t.Errorf("%s: %v", outcome, st)
		}
		if txStatus(s, id) != outcome {
			t.Errorf("%s not recorded", outcome)
		}
	}
}

func TestBankCompletesOnce(t *testing.T) {
	s, srv := newSandbox(t)
	id := startTx(t, srv, nil)["transaction_id"].(string)
	if resp, _ := submit(t, srv, id, url.Values{"outcome": {"cancelled"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("first: %d", resp.StatusCode)
	}
	resp, page := submit(t, srv, id, url.Values{"outcome": {"success"}})
	if resp.StatusCode != http.StatusConflict || !strings.Contains(page, "already completed") || !strings.Contains(page, "cancelled") {
		t.Errorf("second submit: %d\n%s", resp.StatusCode, page)
	}
	if txStatus(s, id) != "cancelled" {
		t.Error("second submit changed the outcome")
	}
	resp, page = getPage(t, srv, "/bank/"+id)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(page, "already completed") ||
		!strings.Contains(page, `href="https://merchant.example/return?trxid=`+id+`&amp;ec=abcDEF123"`) {
		t.Errorf("page after completion: %d\n%s", resp.StatusCode, page)
	}
}

func TestBankRejectsBadSubmissions(t *testing.T) {
	s, srv := newSandbox(t)
	id := startTx(t, srv, nil)["transaction_id"].(string)

	resp, page := submit(t, srv, id, url.Values{"outcome": {"maybe"}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, "Choose one of the outcome buttons") || !strings.Contains(page, `role="alert"`) {
		t.Errorf("bad outcome: %d", resp.StatusCode)
	}
	resp, page = submit(t, srv, id, url.Values{"outcome": {"success"}, "date_of_birth": {"14-07-1985"}})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(page, `aria-invalid="true"`) ||
		!strings.Contains(page, `aria-describedby="h-date_of_birth e-date_of_birth"`) || !strings.Contains(page, `value="14-07-1985"`) {
		t.Errorf("bad date: %d\n%s", resp.StatusCode, page)
	}
	if txStatus(s, id) != "open" {
		t.Fatal("a rejected submission completed the transaction")
	}
	if resp, _ := submit(t, srv, id, url.Values{"outcome": {"success"}, "date_of_birth": {"1970"}}); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("corrected: %d", resp.StatusCode)
	}

	resp, page = submit(t, srv, "4242424242424242", url.Values{"outcome": {"success"}})
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(page, "Unknown transaction") {
		t.Errorf("unknown: %d", resp.StatusCode)
	}
}

func TestPanicsBecomePlain500(t *testing.T) {
	h := recoverPanics(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/bank/1", nil))
	if rec.Code != http.StatusInternalServerError || strings.Contains(rec.Body.String(), "boom") || strings.Contains(rec.Body.String(), "goroutine") {
		t.Errorf("%d %q", rec.Code, rec.Body.String())
	}
}
