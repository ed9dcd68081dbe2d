package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/providers/mail/sink"
	"github.com/kycflow/kycflow/signin"
	"github.com/kycflow/kycflow/workflows"
)

// (Here, not in console_test.go: these import a watchlist, which changes
// what every later aml check screens against.)

// staffOn enrols a staff member of role on tenant tn, created as the CLI
// does, and returns their signed-in browser.
func staffOn(t *testing.T, tn tenant, email string, role check.Role) *staffBrowser {
	t.Helper()
	token, hash, _ := staffKey.NewToken()
	if _, err := env.admin.CreateStaff(t.Context(), uuid.MustParse(tn.id), email, role, hash); err != nil {
		t.Fatal(err)
	}
	b := newStaffBrowser(t, tn.host)
	b.enrol("/console/invite/"+token, "a long enough password for "+email)
	return b
}

// post sends a console form with the session's CSRF token.
func (b *staffBrowser) post(path string, form url.Values) (int, string, http.Header) {
	b.t.Helper()
	csrf, _ := b.form("/console")
	form.Set("csrf", csrf)
	return b.do(http.MethodPost, path, form, "")
}

// Every action of the console refused to a role without it, whatever the
// page sends; a decider cannot approve their own decision there either;
// a form without its CSRF token, and another tenant's staff, get nothing.
func TestConsoleActionsRefused(t *testing.T) {
	namedList(t, "consoleroles", `{"id":"NK-roles-quill","schema":"Person","properties":{"name":["Perpetua Quillfeather-Oakes"],"birthDate":["1961-02-03"],"topics":["sanction"]},"datasets":["roles"]}`)
	tn, err := newTenant(t.Context(), "Console Roles", "roles-"+uuid.NewString()[:8]+".test")
	if err != nil {
		t.Fatal(err)
	}
	other, err := newTenant(t.Context(), "Console Other", "roles-"+uuid.NewString()[:8]+".test")
	if err != nil {
		t.Fatal(err)
	}
	customer := newAMLCustomer(t, tn, "Perpetua Quillfeather-Oakes", "1961-02-03", true)
	chk := amlCheck(t, tn, customer)
	if chk["status"] != "awaiting_review" {
		t.Fatalf("listed customer: %v", chk)
	}
	checkID := chk["id"].(string)
	viewer := staffOn(t, tn, "viewer@roles.test", check.RoleViewer)
	ada := staffOn(t, tn, "ada@roles.test", check.RoleReviewer)
	outsider := staffOn(t, other, "admin@other.test", check.RoleAdmin)
	adaID := staffID(t, tn, "ada@roles.test")

	decision := url.Values{"entity": {"NK-roles-quill"}, "decision": {"false_positive"}, "note": {"Born elsewhere, another person entirely."}}
	for _, a := range []struct {
		path string
		form url.Values
	}{
		{"/console/reviews/" + checkID + "/assign", url.Values{"to": {"me"}}},
		{"/console/reviews/" + checkID + "/decide", decision},
		{"/console/checks/retry", url.Values{"check": {checkID}}},
		{"/console/customers/" + customer + "/checks", url.Values{"type": {"aml"}}},
		{"/console/support/webhooks/" + uuid.NewString() + "/redeliver", url.Values{"event": {uuid.NewString()}}},
		{"/console/staff", url.Values{"email": {"new@roles.test"}, "role": {"admin"}}},
		{"/console/staff/" + adaID, url.Values{"do": {"role"}, "role": {"admin"}}},
	} {
		if code, body, _ := viewer.post(a.path, a.form); code != http.StatusForbidden || !strings.Contains(body, "Not allowed") {
			t.Errorf("a viewer's POST %s: %d", a.path, code)
		}
	}
	if code, _, _ := viewer.do(http.MethodGet, "/console/staff", nil, ""); code != http.StatusForbidden {
		t.Errorf("a viewer opening the staff page: %d", code)
	}
	if code, _, _ := ada.do(http.MethodPost, "/console/reviews/"+checkID+"/decide", decision, ""); code != http.StatusForbidden {
		t.Errorf("a decision without the CSRF token: %d", code)
	}
	for _, path := range []string{"/console/reviews/" + checkID, "/console/customers/" + customer, "/console/find?id=" + customer} {
		if code, body, _ := outsider.do(http.MethodGet, path, nil, ""); code != http.StatusNotFound || strings.Contains(body, "Quillfeather") {
			t.Errorf("another tenant's admin on %s: %d", path, code)
		}
	}
	if code, _, _ := outsider.post("/console/reviews/"+checkID+"/assign", url.Values{"to": {"me"}}); code != http.StatusNotFound {
		t.Errorf("another tenant's admin claiming: %d", code)
	}
	if code, _, _ := ada.post("/console/reviews/"+checkID+"/assign", url.Values{"to": {staffID(t, other, "admin@other.test")}}); code != http.StatusUnprocessableEntity {
		t.Errorf("assigning to another tenant's staff member: %d", code)
	}

	// A review in another reviewer's hands is theirs to decide: cal claims
	// it, ada's decision is refused until she takes it over.
	cal := staffOn(t, tn, "cal@roles.test", check.RoleReviewer)
	if code, _, _ := cal.post("/console/reviews/"+checkID+"/assign", url.Values{"to": {"me"}}); code != http.StatusSeeOther {
		t.Fatalf("cal's claim: %d", code)
	}
	if code, body, _ := ada.post("/console/reviews/"+checkID+"/decide", decision); code != http.StatusConflict || !strings.Contains(body, "cal@roles.test has this review in hand") {
		t.Fatalf("ada deciding cal's review: %d %s", code, body)
	}
	if code, _, _ := ada.post("/console/reviews/"+checkID+"/assign", url.Values{"to": {"me"}}); code != http.StatusSeeOther {
		t.Fatalf("ada taking it over: %d", code)
	}

	// Four eyes, kept by the workflow: ada's decision waits, and her own
	// approval, sent as the page would, is refused.
	if code, body, _ := ada.post("/console/reviews/"+checkID+"/decide", url.Values{"entity": {"NK-roles-quill"}, "decision": {"false_positive"}, "note": {"short"}}); code != http.StatusUnprocessableEntity || !strings.Contains(body, "at least 10 characters") {
		t.Fatalf("a decision without a real note: %d %s", code, body)
	}
	if code, _, h := ada.post("/console/reviews/"+checkID+"/decide", decision); code != http.StatusSeeOther || !strings.Contains(h.Get("Location"), "done=decided") {
		t.Fatalf("ada's decision: %d", code)
	}
	if code, body, _ := ada.post("/console/reviews/"+checkID+"/decide", decision); code != http.StatusConflict || !strings.Contains(body, "four eyes") {
		t.Fatalf("ada approving her own decision: %d %s", code, body)
	}
	if _, page, _ := ada.do(http.MethodGet, "/console/reviews/"+checkID, nil, ""); strings.Contains(page, `value="false_positive">Approve`) || !strings.Contains(page, "another reviewer must approve it") {
		t.Fatalf("ada is offered to approve her own decision: %s", page)
	}
	if c := amlCheck(t, tn, customer); c["status"] != "awaiting_review" {
		t.Fatalf("after ada's decision: %v", c["status"])
	}
}

// staffID is a staff member's id.
func staffID(t *testing.T, tn tenant, email string) string {
	t.Helper()
	st, err := env.admin.StaffByEmail(t.Context(), uuid.MustParse(tn.id), email)
	if err != nil {
		t.Fatal(err)
	}
	return st.ID.String()
}

// count is how many elements a selector finds.
func count(t *testing.T, bctx context.Context, sel string) int {
	t.Helper()
	n, err := chromedp.Run(bctx, chromedp.Evaluate[int](fmt.Sprintf("document.querySelectorAll(%q).length", sel)))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

var invitationLink = regexp.MustCompile(`/console/invite/[A-Za-z0-9_-]+`)

// browserEnrol accepts an invitation in the browser: the key read off the
// page as a person copies it into their app.
func browserEnrol(t *testing.T, bctx context.Context, link, password string) ([]byte, int64) {
	t.Helper()
	do(t, bctx, chromedp.Navigate(link))
	waitHeading(t, bctx, "Set up your account")
	secret, err := decodeSecret(strings.ReplaceAll(text(t, bctx, "#secret"), " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	step := signin.Step(time.Now())
	do(t, bctx, chromedp.SendKeys("#password", password), chromedp.SendKeys("#confirm", password),
		chromedp.SendKeys("#code", signin.Code(secret, step)), chromedp.Click("button[type=submit]"))
	waitHeading(t, bctx, "Console")
	return secret, step
}

// The acceptance, in Chromium at phone width: an admin invites two
// reviewers and a support agent from the console; reviewer A claims the
// hit and clears it with a note; the check waits; A is offered no
// approval; reviewer B approves; the check completes validated, the
// check.reviewed event reaches the tenant's webhook, the case's audit
// shows both. The support agent retries a failed check and sees it
// complete. axe-core checks every page on the way.
func TestConsoleFourEyesInBrowser(t *testing.T) {
	namedList(t, "consolebrowser", `{"id":"NK-browser-wren","schema":"Person","properties":{"name":["Cosima Wrenfield-Hatch"],"birthDate":["1972-06-30"],"topics":["sanction"]},"datasets":["browser"]}`)
	ctx := t.Context()
	host := "review-" + uuid.NewString()[:8] + ".localhost"
	created, key, err := env.admin.CreateTenant(ctx, "Console Review", []string{host}, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.admin.SetAMLFourEyes(ctx, created.ID, true); err != nil {
		t.Fatal(err)
	}
	tn := tenant{id: created.ID.String(), host: host, key: key}
	rcv := newReceiver(t, false, "")
	env.dns.set("review-hooks.test", receiverIP)
	register(t, tn, "http://review-hooks.test:"+strings.Split(rcv.addr, ":")[1]+"/hook")

	customer := newAMLCustomer(t, tn, "Cosima Wrenfield-Hatch", "1972-06-30", true)
	chk := amlCheck(t, tn, customer)
	if chk["status"] != "awaiting_review" {
		t.Fatalf("listed customer: %v", chk)
	}
	checkID := chk["id"].(string)
	// A vat check VIES refuses for good: failed at once, for support.
	env.vies.Fail("VAT_BLOCKED", time.Hour)
	business := newBusiness(t, tn, map[string]any{"name": "Test BV Donald", "coc_number": "68750110", "vat_number": "NL854750137B01"}, "vat")
	failed := finished(t, tn, business, "vat", 30*time.Second)
	env.vies.Recover()
	if failed["status"] != "failed" {
		t.Fatalf("the vat check VIES refused: %v", failed)
	}

	token, hash, _ := staffKey.NewToken()
	if _, err := env.admin.CreateStaff(ctx, created.ID, "admin@review.test", check.RoleAdmin, hash); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(env.apiURL)
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + host + ":" + u.Port()
	bctx := browser(t)
	do(t, bctx, chromedp.EmulateViewport(390, 844))
	browserEnrol(t, bctx, base+"/console/invite/"+token, "the administrator's long password")
	signOut := func() {
		do(t, bctx, chromedp.Navigate(base+"/console"))
		waitHeading(t, bctx, "Console")
		do(t, bctx, chromedp.Click("#sign-out"))
		waitHeading(t, bctx, "Sign in")
	}

	// The admin invites from the staff page; each invitation is mailed.
	invite := func(email, role string) string {
		do(t, bctx, chromedp.Navigate(base+"/console/staff"))
		waitHeading(t, bctx, "Staff")
		do(t, bctx, chromedp.SendKeys("#email", email), chromedp.SetValue("#role", role), chromedp.Click(`form[action="/console/staff"] button[type=submit]`))
		eventually(t, 15*time.Second, "the invitation mailed", func() bool {
			s, err := tryText(bctx, ".notice")
			return err == nil && strings.Contains(s, "mailed to "+email)
		})
		m, err := env.mail.Wait(t.Context(), func(m sink.Message) bool { return slices.Contains(m.To, email) })
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(m.Text, "Console Review's kycflow console as "+role) {
			t.Fatalf("the invitation mail: %s", m.Text)
		}
		link := invitationLink.FindString(m.Text)
		if link == "" {
			t.Fatalf("no invitation link in the mail to %s: %s", email, m.Text)
		}
		return base + link
	}
	linkA, linkB := invite("ada@review.test", "reviewer"), invite("ben@review.test", "reviewer")
	shoot(t, bctx, "console-staff")
	accessible(t, bctx, "the staff page")
	linkS := invite("sam@review.test", "support")
	signOut()

	// Reviewer A: claims the review in the inbox, decides it with a note.
	browserEnrol(t, bctx, linkA, "reviewer ada's long password")
	do(t, bctx, chromedp.Navigate(base+"/console/reviews?assigned=none"))
	waitHeading(t, bctx, "Review inbox")
	accessible(t, bctx, "the filtered inbox")
	do(t, bctx, chromedp.Click(`tr[data-check="`+checkID+`"] form button`))
	eventually(t, 15*time.Second, "the claim", func() bool {
		s, err := tryText(bctx, `tr[data-check="`+checkID+`"]`)
		return err == nil && strings.Contains(s, "ada@review.test")
	})
	do(t, bctx, chromedp.Click(`tr[data-check="`+checkID+`"] a[href="/console/reviews/`+checkID+`"]`))
	waitHeading(t, bctx, "Review")
	if s := text(t, bctx, "main"); !strings.Contains(s, "Cosima Wrenfield-Hatch") || !strings.Contains(s, "1972-06-30") || !strings.Contains(s, "consolebrowser") || !strings.Contains(s, "ada@review.test") {
		t.Fatalf("the review page: %s", s)
	}
	shoot(t, bctx, "console-review")
	accessible(t, bctx, "the review page")
	do(t, bctx, chromedp.SendKeys("#note-0", "Another person: the customer's passport was issued in Utrecht in 1990."),
		chromedp.Click(`button[name=decision][value=false_positive]`))
	eventually(t, 15*time.Second, "the decision pending", func() bool {
		s, err := tryText(bctx, `.decision`)
		return err == nil && strings.Contains(s, "another reviewer must approve it")
	})
	if n := count(t, bctx, `button[name=decision]`); n != 0 {
		t.Fatalf("reviewer A is offered %d decision buttons on her own pending decision", n)
	}
	if c := amlCheck(t, tn, customer); c["status"] != "awaiting_review" {
		t.Fatalf("after A's decision: %v", c["status"])
	}
	signOut()

	// Reviewer B approves.
	browserEnrol(t, bctx, linkB, "reviewer ben's long password")
	do(t, bctx, chromedp.Navigate(base+"/console/reviews/"+checkID))
	waitHeading(t, bctx, "Review")
	do(t, bctx, chromedp.SendKeys("#note-0", "Agreed: the birth place and the passport rule the listed person out."),
		chromedp.Click(`button[name=decision][value=false_positive]`))
	eventually(t, 15*time.Second, "the approval", func() bool {
		s, err := tryText(bctx, `.decision`)
		return err == nil && strings.Contains(s, "approved by ben@review.test")
	})
	if c := amlCheck(t, tn, customer); c["status"] != "completed" || c["validated"] != true {
		t.Fatalf("after B's approval: %v", c)
	}
	if s := text(t, bctx, ".decision"); !strings.Contains(s, "Agreed: the birth place") {
		t.Fatalf("the approver's note is not shown: %s", s)
	}
	// The workflow was told who by id: no address, no note in its history.
	notInHistory(t, workflows.WorkflowID(mustUUID(t, checkID)), "ada@review.test", "ben@review.test",
		"the customer's passport was issued in Utrecht", "Agreed: the birth place")
	eventually(t, 30*time.Second, "check.reviewed and the review events at the webhook", func() bool {
		seen := map[string]bool{}
		for _, d := range rcv.delivered() {
			seen[d.typ] = true
			if d.typ == "review.approved" && strings.Contains(string(d.body), "Cosima") {
				t.Fatalf("a review event with personal data: %s", d.body)
			}
		}
		return seen["check.reviewed"] && seen["review.assigned"] && seen["review.decided"] && seen["review.approved"]
	})
	do(t, bctx, chromedp.Navigate(base+"/console/customers/"+customer))
	waitHeading(t, bctx, "Cosima Wrenfield-Hatch")
	audit := text(t, bctx, "#audit")
	for _, want := range []string{"review.assigned", "review.decided", "review.approved", "ada@review.test", "ben@review.test"} {
		if !strings.Contains(audit, want) {
			t.Fatalf("the case's audit lacks %s: %s", want, audit)
		}
	}
	shoot(t, bctx, "console-case")
	accessible(t, bctx, "the case page")
	signOut()

	// The support agent retries the failed check and sees it complete.
	browserEnrol(t, bctx, linkS, "support sam's long password")
	do(t, bctx, chromedp.Navigate(base+"/console/support?type=vat"))
	waitHeading(t, bctx, "Support")
	failedID := failed["id"].(string)
	if s := text(t, bctx, `tr[data-check="`+failedID+`"]`); !strings.Contains(s, "provider_error") || !strings.Contains(s, "VAT_BLOCKED") {
		t.Fatalf("the failed check's row: %s", s)
	}
	accessible(t, bctx, "the support page")
	shoot(t, bctx, "console-support")
	do(t, bctx, chromedp.Click(`input[value="`+failedID+`"]`), chromedp.Click(`form[action="/console/checks/retry"] > button[type=submit]`))
	eventually(t, 15*time.Second, "the retry's notice", func() bool {
		s, err := tryText(bctx, ".notice")
		return err == nil && strings.Contains(s, "queued again")
	})
	eventually(t, 30*time.Second, "the retried check to complete on its case page", func() bool {
		do(t, bctx, chromedp.Navigate(base+"/console/businesses/"+business))
		s, err := tryText(bctx, `section[data-check="`+failedID+`"] h3`)
		return err == nil && strings.Contains(s, "completed") && strings.Contains(s, "validated: true")
	})

	// The audit rows carry ids, never personal data.
	var details []string
	if err := env.admin.DB().Select(&details, `SELECT coalesce(detail::text, '') FROM audit_log WHERE tenant_id = $1 AND staff_id IS NOT NULL`, tn.id); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(details)
	if strings.Contains(string(raw), "Cosima") || strings.Contains(string(raw), "Donald") || strings.Contains(string(raw), "@review.test") {
		t.Fatalf("audit details with personal data: %s", raw)
	}
}

// A support agent sees an endpoint's failing delivery with the receiver's
// last answer, and redelivers its event: a new delivery, audited; a viewer
// may look but not redeliver.
func TestConsoleRedeliver(t *testing.T) {
	tn := hookTenant(t, true)
	rcv := newReceiver(t, false, "")
	rcv.setAnswer(func(delivery) int { return http.StatusServiceUnavailable })
	env.dns.set("redeliver-hooks.test", receiverIP)
	epID, _ := register(t, tn, "http://redeliver-hooks.test:"+strings.Split(rcv.addr, ":")[1]+"/hook", "customer.created")
	r := request(t, tn, http.MethodPost, "/api/v1/customers/create", map[string]any{"name": "Redelivered Person", "email": "r@example.com",
		"country_code": "NLD", "checks": map[string]bool{"idin": false, "idscan": false, "iban": false, "aml": false}}).want(t, http.StatusCreated)
	customer := r.body["id"].(string)
	var eventID string
	eventually(t, 30*time.Second, "a delivery answered 503", func() bool {
		return env.admin.DB().Get(&eventID, `SELECT d.event_id::text FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id
			WHERE d.endpoint_id = $1 AND d.subject_id = $2 AND a.status_code = 503 LIMIT 1`, epID, customer) == nil
	})
	support := staffOn(t, tn, "support@redeliver.test", check.RoleSupport)
	viewer := staffOn(t, tn, "viewer@redeliver.test", check.RoleViewer)
	page := "/console/support/webhooks/" + epID
	code, body, _ := support.do(http.MethodGet, page, nil, "")
	if code != http.StatusOK || !strings.Contains(body, `data-event="`+eventID+`"`) || !strings.Contains(body, "HTTP 503") || !strings.Contains(body, `{&#34;answer&#34;:503}`) ||
		!strings.Contains(body, `name="event" value="`+eventID+`"`) {
		t.Fatalf("the endpoint's page: %d %s", code, body)
	}
	if _, body, _ := viewer.do(http.MethodGet, page, nil, ""); strings.Contains(body, `name="event"`) {
		t.Fatal("a viewer is offered to redeliver")
	}
	if code, _, _ := viewer.post(page+"/redeliver", url.Values{"event": {eventID}}); code != http.StatusForbidden {
		t.Fatalf("a viewer's redelivery: %d", code)
	}
	rcv.setAnswer(nil)
	if code, _, h := support.post(page+"/redeliver", url.Values{"event": {eventID}}); code != http.StatusSeeOther || !strings.Contains(h.Get("Location"), "done=redelivered") {
		t.Fatalf("the redelivery: %d", code)
	}
	if n := countRows(t, `SELECT count(*) FROM webhook_deliveries WHERE event_id = $1 AND endpoint_id = $2`, eventID, epID); n != 2 {
		t.Fatalf("%d deliveries of the event", n)
	}
	if n := countRows(t, `SELECT count(*) FROM audit_log WHERE action = 'webhook.redelivered' AND staff_id IS NOT NULL AND tenant_id = $1`, tn.id); n != 1 {
		t.Fatalf("%d audited redeliveries", n)
	}
	eventually(t, 30*time.Second, "the event delivered", func() bool {
		return slices.ContainsFunc(rcv.delivered(), func(d delivery) bool { return d.id == eventID })
	})
}
