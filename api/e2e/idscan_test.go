package e2e

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/api/enums/v1"

	"github.com/kycflow/kycflow/engines/mrz"
	"github.com/kycflow/kycflow/providers/mail/sink"
	"github.com/kycflow/kycflow/workflows"
)

// td3 builds a passport MRZ with correct check digits.
func td3(t *testing.T, surname, given, number, nationality, birth, sex, expiry string) string {
	t.Helper()
	return td3Personal(t, "", surname, given, number, nationality, birth, sex, expiry)
}

// td3Personal is td3 with a personal number (a Dutch passport's BSN).
func td3Personal(t *testing.T, personalNumber, surname, given, number, nationality, birth, sex, expiry string) string {
	t.Helper()
	pad := func(s string, n int) string { return s + strings.Repeat("<", n-len(s)) }
	cd := func(s string) string {
		d, ok := mrz.CheckDigit(s)
		if !ok {
			t.Fatalf("check digit of %q", s)
		}
		return string(d)
	}
	name := strings.ReplaceAll(surname, " ", "<") + "<<" + strings.ReplaceAll(given, " ", "<")
	line1 := "P<" + nationality + pad(name, 39)
	num, personal := pad(number, 9), pad(personalNumber, 14)
	personalCD := "<"
	if personalNumber != "" {
		personalCD = cd(personal)
	}
	l2 := num + cd(num) + nationality + birth + cd(birth) + sex + expiry + cd(expiry) + personal + personalCD
	composite := cd(l2[0:10] + l2[13:20] + l2[21:43])
	return line1 + "\n" + l2 + composite
}

// linkPath is the path of a verification URL (PUBLIC_URL is not this server).
func linkPath(t *testing.T, raw any) string {
	t.Helper()
	s, _ := raw.(string)
	u, err := url.Parse(s)
	if err != nil || !strings.HasPrefix(u.Path, "/verify/") || len(u.Path) < len("/verify/")+40 {
		t.Fatalf("not a verification URL: %v", raw)
	}
	return u.Path
}

// fetch requests a verification page as a person's browser would.
func fetch(t *testing.T, method, path, contentType, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, env.apiURL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if method == http.MethodPost {
		req.Header.Set("Origin", env.publicURL) // as a browser posting the page's own form
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 500 {
		t.Fatalf("%s %s: server error %d: %s", method, path, resp.StatusCode, raw)
	}
	return resp.StatusCode, string(raw)
}

func getPage(t *testing.T, path string) (int, string) {
	t.Helper()
	return fetch(t, http.MethodGet, path, "", "")
}

func postForm(t *testing.T, path, mrzText string) (int, string) {
	t.Helper()
	return fetch(t, http.MethodPost, path, "application/x-www-form-urlencoded", url.Values{"mrz": {mrzText}}.Encode())
}

func newIDScanCustomer(t *testing.T, tn tenant, name, first, last, birthdate string) (string, string) {
	t.Helper()
	r := request(t, tn, http.MethodPost, "/api/v1/customers/create", map[string]any{
		"name": name, "firstname": first, "lastname": last, "email": "p@example.com", "country_code": "NLD",
		"birthdate": birthdate, "mails": false, "checks": map[string]bool{"idin": false, "idscan": true, "iban": false},
	}).want(t, http.StatusCreated)
	if string(field(t, r.raw, "mails")) != `{"idin":false,"idscan":false}` {
		t.Fatalf("mails: %s", r.raw)
	}
	return r.body["id"].(string), linkPath(t, obj(r.body["urls"])["idscan"])
}

func customerCheck(t *testing.T, tn tenant, id string) map[string]any {
	t.Helper()
	return obj(request(t, tn, http.MethodGet, "/api/v1/customers/"+id, nil).want(t, http.StatusOK).body["idscan_check"])
}

func waitStatus(t *testing.T, tn tenant, id, status string) map[string]any {
	t.Helper()
	var chk map[string]any
	eventually(t, 15*time.Second, "idscan check "+status, func() bool {
		chk = customerCheck(t, tn, id)
		return chk["status"] == status
	})
	return chk
}

func TestIDScanThroughTheLink(t *testing.T) {
	expiry := time.Now().AddDate(5, 0, 0).Format("060102")
	bsn := randomBSN()
	good := td3Personal(t, bsn, "DE VRIES", "JAN PIETER", "SPECI2014", "NLD", "900517", "M", expiry)
	id, path := newIDScanCustomer(t, env.a, "Jan de Vries", "Jan", "de Vries", "1990-05-17")
	waitStatus(t, env.a, id, "awaiting_input")

	// The page, in Dutch for a Dutch customer and in English on request;
	// the tenant's name, never its key.
	code, page := getPage(t, path)
	if code != http.StatusOK || !strings.Contains(page, `lang="nl"`) || !strings.Contains(page, "Tenant A vraagt u") || strings.Contains(page, env.a.key) {
		t.Fatalf("page %d: %s", code, page)
	}
	if code, page = getPage(t, path+"?lang=en"); code != http.StatusOK || !strings.Contains(page, "Machine-readable zone") || !strings.Contains(page, `name="mrz"`) {
		t.Fatalf("english page %d: %s", code, page)
	}

	// A typo in the date of birth: the form names the field and the link stays open.
	bad := strings.Replace(good, "900517", "900518", 1)
	if code, page = postForm(t, path+"?lang=en", bad); code != http.StatusUnprocessableEntity ||
		!strings.Contains(page, "check digit of the date of birth") || !strings.Contains(page, "final check digit") {
		t.Fatalf("bad check digit %d: %s", code, page)
	}
	r := requestWith(t, http.MethodPost, path+"/mrz", "anything.test", "", "application/json", map[string]string{"mrz": bad})
	if r.status != http.StatusUnprocessableEntity || obj(r.body["errors"])["mrz.birth_date"] == nil || obj(r.body["errors"])["mrz.composite"] == nil {
		t.Fatalf("json bad check digit: %d %s", r.status, r.raw)
	}

	// The right MRZ, typed in lower case with spaces as people do.
	r = requestWith(t, http.MethodPost, path+"/mrz", "anything.test", "", "application/json", map[string]string{"mrz": strings.ToLower(good)})
	if r.status != http.StatusAccepted {
		t.Fatalf("submit: %d %s", r.status, r.raw)
	}
	chk := waitStatus(t, env.a, id, "completed")
	d := obj(chk["data"])
	if chk["validated"] != true || d["reason"] != nil || d["document_number"] != "SPECI2014" || d["name_match_score"] != float64(1) {
		t.Fatalf("idscan check: %v", chk)
	}
	if d["source"] != "typed" || obj(obj(d["checks"])["check_digits"])["result"] != "clear" || obj(d["checks"])["image_quality"] != nil {
		t.Fatalf("typed idscan data: %v", d)
	}
	// The typed MRZ is dropped once checked: what stays is what data shows.
	if n := countRows(t, `SELECT count(*) FROM links WHERE check_id = $1 AND submission IS NOT NULL`, chk["id"]); n != 0 {
		t.Fatalf("the typed MRZ is still kept on the link")
	}
	cu := request(t, env.a, http.MethodGet, "/api/v1/customers/"+id, nil).body
	if cu["document_number"] != "SPECI2014" || cu["document_type"] != float64(1) || cu["gender"] != "male" || cu["nationality_id"] != float64(528) ||
		!strings.HasPrefix(cu["document_expiration"].(string), time.Now().AddDate(5, 0, 0).Format("2006-01-02")) {
		t.Fatalf("customer not enriched: %v", cu)
	}
	// A link works once.
	if code, page = getPage(t, path+"?lang=en"); code != http.StatusGone || !strings.Contains(page, "has been used") {
		t.Fatalf("used link %d: %s", code, page)
	}
	if code, _ = postForm(t, path, good); code != http.StatusGone {
		t.Fatalf("second submission %d", code)
	}
	// The personal number was never written in clear: not in a table, not
	// in PostgreSQL's files (the WAL, a dead row of links) — where it would
	// stand in the MRZ as typed, its fillers as JSON writes them.
	nowhereAtRest(t, bsn, strings.Split(good, "\n")[1])
	notOnDisk(t, bsn+"<", bsn+`\u003c`)
}

// randomBSN is a citizen service number that passes the eleven test, new
// for each run (so that it is found only where this run wrote it).
func randomBSN() string {
	for {
		d := make([]int, 9)
		sum := 0
		for i := range 8 {
			d[i] = rand.IntN(10)
			sum += (9 - i) * d[i]
		}
		if d[0] == 0 || sum%11 == 10 {
			continue
		}
		d[8] = sum % 11
		return fmt.Sprintf("%d%d%d%d%d%d%d%d%d", d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8])
	}
}

func TestIDScanMismatchAndExpiredDocument(t *testing.T) {
	future := time.Now().AddDate(3, 0, 0).Format("060102")
	for _, c := range []struct {
		name, reason, mrzText string
	}{
		{"name", "name_mismatch", td3(t, "JANSEN", "PIET", "XR1234567", "NLD", "900517", "M", future)},
		{"birthdate", "birthdate_mismatch", td3(t, "DE VRIES", "JAN", "XR1234567", "NLD", "910517", "M", future)},
		{"expired", "document_expired", td3(t, "DE VRIES", "JAN", "XR1234567", "NLD", "900517", "M", "200101")},
	} {
		t.Run(c.name, func(t *testing.T) {
			id, path := newIDScanCustomer(t, env.a, "Jan de Vries", "Jan", "de Vries", "1990-05-17")
			waitStatus(t, env.a, id, "awaiting_input")
			if code, page := postForm(t, path, c.mrzText); code != http.StatusOK {
				t.Fatalf("submit %d: %s", code, page)
			}
			chk := waitStatus(t, env.a, id, "completed")
			if chk["validated"] != false || obj(chk["data"])["reason"] != c.reason {
				t.Fatalf("check: %v", chk)
			}
			if cu := request(t, env.a, http.MethodGet, "/api/v1/customers/"+id, nil).body; cu["document_number"] != nil {
				t.Fatalf("a document that does not verify enriched the record: %v", cu)
			}
		})
	}
}

func TestLinkExpirySupersessionAndDeletion(t *testing.T) {
	tn, err := newTenant(t.Context(), "Short Links", "short-"+uuid.NewString()[:8]+".test") // a host of its own each run
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.admin.DB().Exec(`UPDATE tenants SET link_ttl = interval '2 seconds' WHERE id = $1`, tn.id); err != nil {
		t.Fatal(err)
	}
	id, path := newIDScanCustomer(t, tn, "Jan de Vries", "", "", "1990-05-17")
	waitStatus(t, tn, id, "expired")
	if code, page := getPage(t, path+"?lang=en"); code != http.StatusGone || !strings.Contains(page, "has expired") {
		t.Fatalf("expired link %d: %s", code, page)
	}

	// A new idscan check revokes the open link of the one it supersedes.
	if _, err := env.admin.DB().Exec(`UPDATE tenants SET link_ttl = interval '7 days' WHERE id = $1`, tn.id); err != nil {
		t.Fatal(err)
	}
	id, first := newIDScanCustomer(t, tn, "Jan de Vries", "", "", "1990-05-17")
	old := waitStatus(t, tn, id, "awaiting_input")
	r := request(t, tn, http.MethodPost, "/api/v1/customers/"+id+"/check", map[string]any{"type": []string{"idscan"}}).want(t, http.StatusAccepted)
	second := linkPath(t, obj(r.body["urls"])["idscan"])
	if code, page := getPage(t, first+"?lang=en"); code != http.StatusGone || !strings.Contains(page, "no longer valid") {
		t.Fatalf("superseded link %d: %s", code, page)
	}
	if code, _ := getPage(t, second); code != http.StatusOK {
		t.Fatalf("new link %d", code)
	}
	if c, err := env.app.GetCheck(t.Context(), mustUUID(t, tn.id), mustUUID(t, old["id"].(string))); err != nil || c.Status != "cancelled" {
		t.Fatalf("superseded check: %+v %v", c, err)
	}
	workflowStatus(t, old["id"].(string), "cancelled")
	// Deleting the customer cancels the waiting workflow and kills the link.
	current := waitStatus(t, tn, id, "awaiting_input")
	request(t, tn, http.MethodDelete, "/api/v1/customers/"+id+"/delete", nil).want(t, http.StatusOK)
	if code, page := getPage(t, second+"?lang=en"); code != http.StatusNotFound || !strings.Contains(page, "not valid") {
		t.Fatalf("deleted customer's link %d: %s", code, page)
	}
	workflowStatus(t, current["id"].(string), "cancelled")
	if code, _ := getPage(t, "/verify/not-a-token"); code != http.StatusNotFound {
		t.Fatalf("unknown token %d", code)
	}
}

// mails: true sends exactly one mail per requested link, and its link works;
// mails: false sends none.
func TestIDScanLinkByMail(t *testing.T) {
	before := len(env.mail.Messages())
	quiet := request(t, env.a, http.MethodPost, "/api/v1/customers/create", map[string]any{
		"name": "Quiet Person", "email": "quiet@example.com", "country_code": "BEL", "mails": false,
		"checks": map[string]bool{"idin": false, "idscan": true, "iban": false},
	}).want(t, http.StatusCreated)
	r := request(t, env.a, http.MethodPost, "/api/v1/customers/create", map[string]any{
		"name": "Jan de Vries", "firstname": "Jan", "lastname": "de Vries", "email": "jan.mail@example.nl", "country_code": "NLD",
		"birthdate": "1990-05-17", "checks": map[string]bool{"idin": false, "idscan": true, "iban": false},
	}).want(t, http.StatusCreated)
	if string(field(t, r.raw, "mails")) != `{"idin":false,"idscan":true}` || r.body["urls"] != nil {
		t.Fatalf("create with mails: %s", r.raw)
	}
	id := r.body["id"].(string)
	waitStatus(t, env.a, id, "awaiting_input")
	m, err := env.mail.Wait(t.Context(), func(m sink.Message) bool { return slices.Contains(m.To, "jan.mail@example.nl") })
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Subject, "Tenant A") || !strings.Contains(m.Text, env.publicURL+"/verify/") || !strings.Contains(m.HTML, env.publicURL+"/verify/") {
		t.Fatalf("mail: %s\n%s", m.Subject, m.Text)
	}
	link := regexp.MustCompile(regexp.QuoteMeta(env.publicURL) + `(/verify/[A-Za-z0-9_-]{43})`).FindStringSubmatch(m.Text)
	if link == nil {
		t.Fatalf("no link in the mail: %s", m.Text)
	}
	expiry := time.Now().AddDate(5, 0, 0).Format("060102")
	if code, page := postForm(t, link[1], td3(t, "DE VRIES", "JAN", "NX1234567", "NLD", "900517", "M", expiry)); code != http.StatusOK {
		t.Fatalf("submit %d: %s", code, page)
	}
	if chk := waitStatus(t, env.a, id, "completed"); chk["validated"] != true {
		t.Fatalf("check: %v", chk)
	}
	var sent []string
	for _, m := range env.mail.Messages()[:len(env.mail.Messages())-before] {
		sent = append(sent, m.To...)
	}
	if len(sent) != 1 || sent[0] != "jan.mail@example.nl" {
		t.Fatalf("mails sent: %v (the customer without mails is %s)", sent, quiet.body["id"])
	}
}

// workflowStatus waits for a check's workflow to carry CheckStatus and be closed.
func workflowStatus(t *testing.T, checkID, status string) {
	t.Helper()
	eventually(t, 15*time.Second, "workflow of "+checkID+" "+status, func() bool {
		d, err := env.client.DescribeWorkflow(t.Context(), "check-"+checkID, "")
		if err != nil {
			return false
		}
		v, _ := d.TypedSearchAttributes.GetKeyword(workflows.SACheckStatus)
		return v == status && d.WorkflowExecutionMetadata.Status != enums.WORKFLOW_EXECUTION_STATUS_RUNNING
	})
}
