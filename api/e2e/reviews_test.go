package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/proto"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/webhook"
	"github.com/kycflow/kycflow/workflows"
)

// reviewList imports the review tests' own list (its own name, so the
// other tests' lists are untouched) and waits until the worker has loaded
// it and rescreened the customers it concerns.
func reviewList(t *testing.T, lines ...string) { t.Helper(); namedList(t, "reviewtest", lines...) }

// namedList imports lines as the list name and waits until the worker has
// loaded it and rescreened the customers it concerns.
func namedList(t *testing.T, name string, lines ...string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), name+".ftm.json")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := importList(t, "ftm", "--list", name, file)
	if !strings.Contains(out, "imported "+name+" version") {
		t.Fatalf("import: %s", out)
	}
	latest := func() int64 {
		vs, err := env.admin.LatestWatchlists(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			if v.List == name {
				return v.ID
			}
		}
		return 0
	}()
	eventually(t, 30*time.Second, "the worker to load and rescreen the review list", func() bool {
		loaded := false
		for _, v := range env.lists.Versions() {
			loaded = loaded || v.ID == latest
		}
		pending, err := env.admin.PendingRescreens(context.Background())
		return loaded && err == nil && len(pending) == 0
	})
}

const (
	rostov          = `{"id":"NK-rev-rostov","schema":"Person","properties":{"name":["Yevgeny Rostov-Kamarin"],"birthDate":["1961-02-03"],"topics":["sanction"]},"datasets":["rev"]}`
	rostovChanged   = `{"id":"NK-rev-rostov","schema":"Person","properties":{"name":["Yevgeny Rostov-Kamarin"],"alias":["Evgeni Rostov"],"birthDate":["1961-02-03"],"topics":["sanction"]},"datasets":["rev"]}`
	unrelatedEntity = `{"id":"NK-rev-vlasceanu","schema":"Person","properties":{"name":["Teodora Vlasceanu-Brandt"],"topics":["sanction"]},"datasets":["rev"]}`
)

func reviewPath(checkID string) string { return "/api/v1/checks/" + checkID + "/review" }

func clearance(entity string) map[string]any {
	return map[string]any{"reviewer": "Ada Compliance", "decisions": []map[string]any{
		{"entity_id": entity, "decision": "false_positive", "note": "Different person: the customer's passport shows another birth place."}}}
}

// The compliance officer's loop: a listed customer waits in the queue (and
// in the Temporal UI); invalid reviews are refused with the field named;
// concurrent clearances apply once; the cleared check completes validated,
// with who, when and why, and the check.reviewed event is delivered. A new
// screening remembers the clearance; a change to the listed entity's data
// makes it alert again.
func TestAMLReviewLoop(t *testing.T) {
	reviewList(t, rostov)
	tn := hookTenant(t, true) // a sandbox tenant: its webhook receiver is on loopback
	rcv := newReceiver(t, true, "")
	env.dns.set("reviews.test", receiverIP)
	_, secret := register(t, tn, "https://reviews.test:"+strings.Split(rcv.addr, ":")[1]+"/hooks", string(check.CheckReviewed))

	first := newAMLCustomer(t, tn, "Yevgeny Rostov-Kamarin", "1961-02-03", true)
	second := newAMLCustomer(t, tn, "Yevgeny Rostov-Kamarin", "", true)
	chk := amlCheck(t, tn, first)
	if chk["status"] != "awaiting_review" || chk["validated"] != nil {
		t.Fatalf("listed customer: %v", chk)
	}
	hit := obj(obj(chk["data"])["hits"].([]any)[0])
	if hit["entity_id"] != "NK-rev-rostov" || hit["alerting"] != true || hit["review"] != nil || hit["entity_hash"] == "" {
		t.Fatalf("hit: %v", hit)
	}
	checkID := chk["id"].(string)
	secondID := amlCheck(t, tn, second)["id"].(string)

	// The queue, oldest first; the other tenant sees none of it.
	q := request(t, tn, http.MethodGet, "/api/v1/reviews", nil).want(t, http.StatusOK)
	items := q.body["data"].([]any)
	if len(items) != 2 || obj(items[0])["check_id"] != checkID || obj(items[1])["check_id"] != secondID ||
		obj(items[0])["customer_id"] != first || obj(items[0])["alerting_hits"] != float64(1) || obj(items[0])["top_score"].(float64) < 0.88 {
		t.Fatalf("queue: %s", q.raw)
	}
	for _, it := range request(t, env.b, http.MethodGet, "/api/v1/reviews", nil).want(t, http.StatusOK).body["data"].([]any) {
		if c := obj(it)["check_id"]; c == checkID || c == secondID {
			t.Fatalf("another tenant's queue shows %v", c)
		}
	}
	// Operators see it in the Temporal UI by its search attribute.
	eventually(t, 15*time.Second, "the Temporal UI to list the check awaiting review", func() bool {
		page, err := env.client.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{Namespace: "default",
			Query: fmt.Sprintf("WorkflowId = '%s' AND CheckStatus = 'awaiting_review'", workflows.WorkflowID(mustUUID(t, checkID)))})
		return err == nil && len(page.Executions) == 1
	})

	// Invalid reviews: 422 naming the field, 404 for another tenant.
	for _, tc := range []struct {
		body  any
		field string
	}{
		{map[string]any{}, "reviewer"},
		{map[string]any{"reviewer": "Ada"}, "decisions"},
		{map[string]any{"reviewer": "Ada", "decisions": "all"}, "decisions"},
		{map[string]any{"reviewer": "Ada", "decisions": []any{"x"}}, "decisions.0"},
		{map[string]any{"reviewer": "Ada", "decisions": []map[string]any{{"entity_id": "NK-rev-rostov", "decision": "false_positive"}}}, "decisions.0.note"},
		{map[string]any{"reviewer": "Ada", "decisions": []map[string]any{{"entity_id": "NK-rev-rostov", "decision": "false_positive", "note": "no"}}}, "decisions.0.note"},
		{map[string]any{"reviewer": "Ada", "decisions": []map[string]any{{"entity_id": "NK-rev-rostov", "decision": "maybe"}}}, "decisions.0.decision"},
		{map[string]any{"reviewer": "Ada", "decisions": []map[string]any{{"decision": "true_match"}}}, "decisions.0.entity_id"},
		{map[string]any{"reviewer": 7, "decisions": []map[string]any{{"entity_id": "NK-rev-rostov", "decision": "true_match"}}}, "reviewer"},
		{map[string]any{"reviewer": "Ada", "decisions": []map[string]any{{"entity_id": "NK-unknown", "decision": "true_match"}}}, "decisions.0.entity_id"},
	} {
		r := request(t, tn, http.MethodPost, reviewPath(checkID), tc.body)
		if r.status != http.StatusUnprocessableEntity || obj(r.body["errors"])[tc.field] == nil {
			t.Fatalf("review %v: %d %s, want 422 on %s", tc.body, r.status, r.raw, tc.field)
		}
	}
	request(t, env.b, http.MethodPost, reviewPath(checkID), clearance("NK-rev-rostov")).want(t, http.StatusNotFound)
	request(t, tn, http.MethodPost, reviewPath("00000000-0000-0000-0000-000000000000"), clearance("NK-rev-rostov")).want(t, http.StatusNotFound)

	// Five officers clear it at once: one review applies, the others conflict.
	var wg sync.WaitGroup
	statuses := make([]int, 5)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = request(t, tn, http.MethodPost, reviewPath(checkID), clearance("NK-rev-rostov")).status
		}()
	}
	wg.Wait()
	ok, conflicts := 0, 0
	for _, s := range statuses {
		switch s {
		case http.StatusOK:
			ok++
		case http.StatusConflict:
			conflicts++
		}
	}
	if ok != 1 || conflicts != 4 {
		t.Fatalf("concurrent reviews answered %v, want one 200 and four 409", statuses)
	}
	chk = obj(request(t, tn, http.MethodGet, "/api/v1/customers/"+first, nil).body["aml_check"])
	review := obj(obj(obj(chk["data"])["hits"].([]any)[0])["review"])
	if chk["status"] != "completed" || chk["validated"] != true || review["decision"] != "false_positive" || review["reviewer"] != "Ada Compliance" ||
		!strings.HasPrefix(review["note"].(string), "Different person") || review["decided_at"] == nil || review["check_id"] != checkID {
		t.Fatalf("cleared check: %v", chk)
	}
	r := request(t, tn, http.MethodPost, reviewPath(checkID), clearance("NK-rev-rostov")).want(t, http.StatusConflict)
	if !strings.Contains(r.body["message"].(string), "awaiting review") {
		t.Fatalf("review of a completed check: %s", r.raw)
	}
	evs := request(t, tn, http.MethodGet, "/api/v1/events?type=check.reviewed&subject_id="+first, nil).want(t, http.StatusOK).body["data"].([]any)
	if len(evs) != 1 {
		t.Fatalf("%d check.reviewed events, want 1", len(evs))
	}
	eventually(t, 20*time.Second, "the check.reviewed event to be delivered", func() bool { return len(rcv.delivered()) >= 1 })
	d := rcv.delivered()[0]
	var ev struct {
		Type string
		Data struct {
			Check  map[string]any
			Review struct {
				Reviewer  string
				Decisions []map[string]any
			}
		}
	}
	if err := json.Unmarshal(d.body, &ev); err != nil || ev.Type != string(check.CheckReviewed) || ev.Data.Review.Reviewer != "Ada Compliance" ||
		len(ev.Data.Review.Decisions) != 1 || ev.Data.Check["id"] != checkID {
		t.Fatalf("delivered event: %s %v", d.body, err)
	}
	if err := webhook.Verify(d.signature, d.body, secret, time.Now()); err != nil {
		t.Fatal(err)
	}

	// A review signalled from the Temporal UI by name (no submission, no
	// one who authenticated it) is ignored; the API's goes through.
	if err := env.client.SignalWorkflow(context.Background(), workflows.WorkflowID(mustUUID(t, secondID)), "", workflows.SignalReview,
		check.ReviewUpdate{Legacy: "Temporal UI", Decisions: []check.HitDecision{{EntityID: "NK-rev-rostov", Decision: check.TrueMatch}}}); err != nil {
		t.Fatal(err)
	}
	request(t, tn, http.MethodPost, reviewPath(secondID), map[string]any{"reviewer": "Ada Compliance", "decisions": []map[string]any{
		{"entity_id": "NK-rev-rostov", "decision": "true_match"}}}).want(t, http.StatusOK)
	if c := obj(request(t, tn, http.MethodGet, "/api/v1/customers/"+second, nil).body["aml_check"]); c["status"] != "completed" || c["validated"] != false ||
		obj(obj(obj(c["data"])["hits"].([]any)[0])["review"])["reviewer"] != "Ada Compliance" {
		t.Fatalf("after a signal by name and the API's review: %v", c)
	}

	// An unrelated list update rescreens nobody here; a new screening
	// remembers the clearance: the hit is shown with its review, no alert.
	reviewList(t, rostov, unrelatedEntity)
	if c := obj(request(t, tn, http.MethodGet, "/api/v1/customers/"+first, nil).body["aml_check"]); c["id"] != checkID {
		t.Fatalf("an unrelated update rescreened the cleared customer: %v", c)
	}
	request(t, tn, http.MethodPost, "/api/v1/customers/"+first+"/check", map[string]any{"type": []string{"aml"}}).want(t, http.StatusAccepted)
	again := amlCheck(t, tn, first)
	hit = obj(obj(again["data"])["hits"].([]any)[0])
	if again["id"] == checkID || again["status"] != "completed" || again["validated"] != true || hit["alerting"] != false ||
		hit["above_threshold"] != true || obj(hit["review"])["check_id"] != checkID {
		t.Fatalf("screening after the clearance: %v", again)
	}
	// The true match alerts again; an operator decides it with the CLI.
	request(t, tn, http.MethodPost, "/api/v1/customers/"+second+"/check", map[string]any{"type": []string{"aml"}}).want(t, http.StatusAccepted)
	realert := amlCheck(t, tn, second)
	if realert["status"] != "awaiting_review" {
		t.Fatalf("a true match did not alert again: %v", realert)
	}
	cliReview := func(args ...string) (string, error) {
		cmd := exec.Command(env.bin, append([]string{"check", "review", realert["id"].(string)}, args...)...)
		cmd.Env = append(os.Environ(), "DATABASE_ADMIN_URL="+env.adminDSN, "TEMPORAL_ADDRESS="+env.temporalOpts.HostPort, "KYCFLOW_API_KEY="+tn.key)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := cliReview("--reviewer", "CLI Officer", "--entity", "NK-rev-rostov", "--decision", "false_positive"); err == nil || !strings.Contains(out, "--note") {
		t.Fatalf("CLI review without a note: %v %s", err, out)
	}
	if out, err := cliReview("--reviewer", "CLI Officer", "--entity", "NK-unknown", "--decision", "true_match"); err == nil || !strings.Contains(out, "--entity") {
		t.Fatalf("CLI review of an unknown entity: %v %s", err, out)
	}
	if out, err := cliReview("--reviewer", "CLI Officer", "--entity", "NK-rev-rostov", "--decision", "true_match"); err != nil || !strings.Contains(out, "completed") {
		t.Fatalf("CLI review: %v %s", err, out)
	}

	// The listed entity's data changes: the rescreening alerts again.
	reviewList(t, rostovChanged, unrelatedEntity)
	var changed map[string]any
	eventually(t, 30*time.Second, "the rescreening to alert on the changed entity", func() bool {
		changed = obj(request(t, tn, http.MethodGet, "/api/v1/customers/"+first, nil).body["aml_check"])
		return changed["id"] != again["id"] && changed["status"] == "awaiting_review"
	})
	if hit := obj(obj(changed["data"])["hits"].([]any)[0]); hit["alerting"] != true || hit["review"] != nil {
		t.Fatalf("hit on the changed entity: %v", hit)
	}
}

// Four eyes, on by default for a live tenant: the first decision waits,
// its decider cannot approve it by any path with any spelling of a name —
// the same key in another name, another key in the decider's name with
// invisible characters, the CLI with the same key, a console staff
// member's address through the API — and a second reviewer's same
// decision completes the check, naming both and what authenticated each,
// audited; the workflow's history holds neither a name nor a note.
func TestAMLFourEyes(t *testing.T) {
	namedList(t, "foureyes", `{"id":"NK-4eyes-marlowe","schema":"Person","properties":{"name":["Octavia Marlowe-Venn"],"birthDate":["1958-09-12"],"topics":["sanction"]},"datasets":["4eyes"]}`)
	tn, err := newTenant(t.Context(), "Four Eyes", "four-eyes-"+uuid.NewString()[:8]+".test")
	if err != nil {
		t.Fatal(err)
	}
	other, secondKeyID := anotherKey(t, tn)
	staffOn(t, tn, "cy@four-eyes.test", check.RoleReviewer)
	chk := amlCheck(t, tn, newAMLCustomer(t, tn, "Octavia Marlowe-Venn", "1958-09-12", true))
	if chk["status"] != "awaiting_review" {
		t.Fatalf("listed customer: %v", chk)
	}
	checkID := chk["id"].(string)
	const note = "Another person: born in Leiden, Dutch passport since birth."
	decide := func(as tenant, who string) response {
		return request(t, as, http.MethodPost, reviewPath(checkID), map[string]any{"reviewer": who, "decisions": []map[string]any{
			{"entity_id": "NK-4eyes-marlowe", "decision": "false_positive", "note": note}}})
	}
	r := decide(tn, "Ada Compliance").want(t, http.StatusOK)
	c := obj(r.body["check"])
	review := obj(obj(obj(c["data"])["hits"].([]any)[0])["review"])
	if c["status"] != "awaiting_review" || review["pending"] != true || review["reviewer"] != "Ada Compliance" || obj(review["by"])["key_id"] == nil {
		t.Fatalf("the first decision: %s", r.raw)
	}
	if q := request(t, tn, http.MethodGet, "/api/v1/reviews", nil).want(t, http.StatusOK); !strings.Contains(string(q.raw), `"pending_hits":1`) {
		t.Fatalf("queue: %s", q.raw)
	}
	// The Temporal UI shows the decision awaiting approval in the memo.
	desc, err := env.client.DescribeWorkflowExecution(t.Context(), workflows.WorkflowID(mustUUID(t, checkID)), "")
	if err != nil {
		t.Fatal(err)
	}
	var awaiting int
	if p := desc.WorkflowExecutionInfo.GetMemo().GetFields()["AwaitingApproval"]; p == nil || converter.GetDefaultDataConverter().FromPayload(p, &awaiting) != nil || awaiting != 1 {
		t.Fatalf("memo: %v", desc.WorkflowExecutionInfo.GetMemo())
	}
	for _, attempt := range []struct {
		name string
		as   tenant
		who  string
	}{
		{"the same key in a colleague's name", tn, "Ben Second"},
		{"another key in the decider's name, respelled", other, " ada\u200b COMPLIANCE\ufeff"},
		{"another key in the decider's name with a joiner", other, "Ada\u200d Compliance"},
	} {
		if r := decide(attempt.as, attempt.who); r.status != http.StatusConflict || !strings.Contains(string(r.raw), "four eyes") {
			t.Fatalf("the decider approving by %s: %d %s", attempt.name, r.status, r.raw)
		}
	}
	if r := decide(other, "CY@four-eyes.test"); r.status != http.StatusUnprocessableEntity || !strings.Contains(string(r.raw), "console") {
		t.Errorf("an API review in a staff member's name: %d %s", r.status, r.raw)
	}
	cmd := exec.Command(env.bin, "check", "review", checkID, "--reviewer", "Ben Second", "--entity", "NK-4eyes-marlowe",
		"--decision", "false_positive", "--note", "Approving my own decision from the terminal.")
	cmd.Env = append(os.Environ(), "DATABASE_ADMIN_URL="+env.adminDSN, "TEMPORAL_ADDRESS="+env.temporalOpts.HostPort, "KYCFLOW_API_KEY="+tn.key)
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "four eyes") {
		t.Fatalf("the decider approving through the CLI, as their key: %v %s", err, out)
	}
	r = decide(other, "Ben Second").want(t, http.StatusOK)
	c = obj(r.body["check"])
	review = obj(obj(obj(c["data"])["hits"].([]any)[0])["review"])
	if c["status"] != "completed" || c["validated"] != true || review["pending"] != nil || review["reviewer"] != "Ada Compliance" ||
		review["approved_by"] != "Ben Second" || review["approved_at"] == nil || review["approval_note"] != note ||
		obj(review["approved_via"])["key_id"] != secondKeyID.String() {
		t.Fatalf("approved: %s", r.raw)
	}
	// Audited, by key: the decision and the approval.
	var audit []string
	if err := env.admin.DB().Select(&audit, `SELECT action || ' ' || api_key_id FROM audit_log WHERE tenant_id = $1 AND record_id = $2 ORDER BY created_at`,
		tn.id, checkID); err != nil {
		t.Fatal(err)
	}
	if len(audit) != 2 || !strings.HasPrefix(audit[0], "review.decided ") || audit[1] != "review.approved "+secondKeyID.String() {
		t.Fatalf("audit: %v", audit)
	}
	notInHistory(t, workflows.WorkflowID(mustUUID(t, checkID)), note, "Ada Compliance", "Ben Second", "cy@four-eyes.test")
}

// anotherKey is tn as a client holding another of its API keys (to four
// eyes, another reviewer), and that key's id.
func anotherKey(t *testing.T, tn tenant) (tenant, uuid.UUID) {
	t.Helper()
	key, id, err := env.admin.CreateKey(t.Context(), mustUUID(t, tn.id))
	if err != nil {
		t.Fatal(err)
	}
	return tenant{id: tn.id, host: tn.host, key: key}, id
}

// notInHistory fails the test when a needle is anywhere in a workflow's
// history: its inputs, updates, signals, markers and results, as the
// Temporal server keeps them.
func notInHistory(t *testing.T, workflowID string, needles ...string) {
	t.Helper()
	it := env.client.GetWorkflowHistory(t.Context(), workflowID, "", false, 0)
	events := 0
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		events++
		raw, err := proto.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range needles {
			if bytes.Contains(raw, []byte(n)) {
				t.Errorf("%q is in the history of %s (event %d, %s)", n, workflowID, e.EventId, e.EventType)
			}
		}
	}
	if events < 5 {
		t.Fatalf("only %d events in the history of %s", events, workflowID)
	}
}

// The console's review inbox lists the tenant's aml checks awaiting
// review, oldest first, with what is decided and what awaits approval;
// another tenant's staff see none of them; signed out, nothing. (Here,
// not in console_test.go: a list imported changes what every later aml
// check screens against, and the suite's earlier files expect none.)
func TestConsoleReviewInbox(t *testing.T) {
	namedList(t, "inboxtest", `{"id":"NK-inbox-harrow","schema":"Person","properties":{"name":["Lucan Harrowgate-Pell"],"birthDate":["1966-04-21"],"topics":["sanction"]},"datasets":["inbox"]}`)
	ctx := t.Context()
	enrolled := func(name string) (tenant, *staffBrowser) {
		tn, err := newTenant(ctx, name, "inbox-"+uuid.NewString()[:8]+".test")
		if err != nil {
			t.Fatal(err)
		}
		token, hash, _ := staffKey.NewToken()
		if _, err := env.admin.CreateStaff(ctx, uuid.MustParse(tn.id), "viewer@inbox.test", check.RoleViewer, hash); err != nil {
			t.Fatal(err)
		}
		b := newStaffBrowser(t, tn.host)
		b.enrol("/console/invite/"+token, "a viewer's long password")
		return tn, b
	}
	a, viewer := enrolled("Inbox A")
	_, other := enrolled("Inbox B")
	first := amlCheck(t, a, newAMLCustomer(t, a, "Lucan Harrowgate-Pell", "1966-04-21", true))
	second := amlCheck(t, a, newAMLCustomer(t, a, "Lucan Harrowgate Pell", "", true))
	if first["status"] != "awaiting_review" || second["status"] != "awaiting_review" {
		t.Fatalf("listed customers: %v %v", first["status"], second["status"])
	}
	request(t, a, http.MethodPost, reviewPath(second["id"].(string)), map[string]any{"reviewer": "Ada Compliance", "decisions": []map[string]any{
		{"entity_id": "NK-inbox-harrow", "decision": "true_match"}}}).want(t, http.StatusOK)

	code, page, _ := viewer.do(http.MethodGet, "/console/reviews", nil, "")
	i, j := strings.Index(page, `data-check="`+first["id"].(string)+`"`), strings.Index(page, `data-check="`+second["id"].(string)+`"`)
	if code != http.StatusOK || i < 0 || j < 0 || i > j || !strings.Contains(page, "30 d") {
		t.Fatalf("inbox: %d, first at %d, second at %d: %s", code, i, j, page)
	}
	row := page[j:]
	row = row[:strings.Index(row, "</tr>")]
	if !strings.Contains(row, "<td>1</td><td>0</td><td>1</td>") {
		t.Fatalf("the second review's row (one hit, none decided, one awaiting approval): %s", row)
	}
	if _, page, _ := other.do(http.MethodGet, "/console/reviews", nil, ""); strings.Contains(page, first["id"].(string)) || !strings.Contains(page, "Nothing awaits review") {
		t.Fatalf("another tenant's inbox: %s", page)
	}
	if code, _, h := newStaffBrowser(t, a.host).do(http.MethodGet, "/console/reviews", nil, ""); code != http.StatusSeeOther || h.Get("Location") != "/console/sign-in" {
		t.Fatalf("signed out: %d", code)
	}
}
