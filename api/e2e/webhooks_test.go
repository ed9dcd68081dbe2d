package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/webhook"
	"github.com/kycflow/kycflow/worker/devserver"
)

// hookTenant is a tenant of its own for one webhook test, so no other
// test's events reach its endpoints.
func hookTenant(t *testing.T, sandbox bool) tenant {
	t.Helper()
	host := "hooks-" + uuid.NewString()[:8] + ".test"
	tn, key, err := env.admin.CreateTenant(context.Background(), "Hooks "+host, []string{host}, sandbox)
	if err != nil {
		t.Fatal(err)
	}
	return tenant{id: tn.ID.String(), host: host, key: key}
}

// register creates an endpoint and returns its id and secret.
func register(t *testing.T, tn tenant, url string, events ...string) (string, string) {
	t.Helper()
	body := map[string]any{"url": url, "description": "e2e receiver"}
	if events != nil {
		body["events"] = events
	}
	r := request(t, tn, http.MethodPost, "/api/v1/webhooks", body).want(t, http.StatusCreated)
	id, _ := r.body["id"].(string)
	secret, _ := r.body["secret"].(string)
	if !strings.HasPrefix(secret, webhook.SecretPrefix) || id == "" {
		t.Fatalf("created endpoint: %s", r.raw)
	}
	// Its deliveries stop with the test.
	t.Cleanup(func() { request(t, tn, http.MethodDelete, "/api/v1/webhooks/"+id, nil) })
	return id, secret
}

// plainBusiness is a create body that queues no check.
func plainBusiness(name string) map[string]any {
	return map[string]any{"name": name, "country_code": "NLD", "coc_number": "68750110",
		"checks": map[string]bool{"coc": false, "vat": false, "iban": false}}
}

// eventOf decodes a delivered body.
type eventDoc struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	CreatedAt string          `json:"created_at"`
	Data      json.RawMessage `json:"data"`
}

func (d delivery) event(t *testing.T) eventDoc {
	t.Helper()
	var e eventDoc
	if err := json.Unmarshal(d.body, &e); err != nil || e.ID != d.id || e.Type != d.typ {
		t.Fatalf("delivery %s %s: body %s (%v)", d.id, d.typ, d.body, err)
	}
	return e
}

// subjectOf is an event's subject id (check events) or record id.
func (e eventDoc) subject() string {
	var d struct {
		Subject  struct{ ID string } `json:"subject"`
		Business struct{ ID string } `json:"business"`
		Customer struct{ ID string } `json:"customer"`
	}
	json.Unmarshal(e.Data, &d)
	return d.Subject.ID + d.Business.ID + d.Customer.ID
}

// Every change of the tenant's data arrives at its https endpoint, signed
// so the documented recipe verifies, in order per subject, with the body
// GET /events/{id} returns; another tenant's changes never do.
func TestWebhooksDeliverSignedEvents(t *testing.T) {
	// Sandbox tenants: the operator's allow-list, which opens the
	// receivers' loopback address, is theirs alone.
	tn, other := hookTenant(t, true), hookTenant(t, true)
	rcv := newReceiver(t, true, "")
	env.dns.set("signed.test", receiverIP)
	epID, secret := register(t, tn, "https://signed.test:"+strings.Split(rcv.addr, ":")[1]+"/kycflow")
	defer func() {
		if t.Failed() {
			t.Logf("deliveries: %s", request(t, tn, http.MethodGet, "/api/v1/webhooks/"+epID+"/deliveries", nil).raw)
		}
	}()
	// The other tenant's endpoint is the same URL: still only its own events.
	register(t, other, "https://signed.test:"+strings.Split(rcv.addr, ":")[1]+"/kycflow", "customer.created")

	b := createBusiness(t, tn, "NL91ABNA0417164300", map[string]bool{"coc": true, "vat": false, "iban": true})
	bid := b.body["id"].(string)
	request(t, other, http.MethodPost, "/api/v1/businesses/create", plainBusiness("Other BV")).want(t, http.StatusCreated)
	waitCheck(t, tn, "/api/v1/businesses/"+bid, "coc", 10*time.Second)
	waitCheck(t, tn, "/api/v1/businesses/"+bid, "iban", 10*time.Second)
	// 1 created + 2 × (queued, running, completed).
	want := 7
	eventually(t, 30*time.Second, "7 events delivered", func() bool { return len(rcv.delivered()) >= want })
	time.Sleep(300 * time.Millisecond) // nothing more should come
	got := rcv.delivered()
	if len(got) != want {
		t.Fatalf("%d deliveries, want %d", len(got), want)
	}
	seen := map[string]bool{}
	statuses := map[string][]string{} // check id → statuses in arrival order
	for i, d := range got {
		if err := webhook.Verify(d.signature, d.body, secret, time.Now()); err != nil {
			t.Fatalf("delivery %d: %v (%s)", i, err, d.signature)
		}
		e := d.event(t)
		if seen[e.ID] {
			t.Fatalf("event %s delivered twice", e.ID)
		}
		seen[e.ID] = true
		if e.subject() != bid {
			t.Fatalf("event %s is about %s, not the tenant's business %s", e.Type, e.subject(), bid)
		}
		// The delivered body is the event as the API lists it.
		r := request(t, tn, http.MethodGet, "/api/v1/events/"+e.ID, nil).want(t, http.StatusOK)
		if strings.TrimSpace(string(r.raw)) != string(d.body) {
			t.Fatalf("delivered %s\n GET gave %s", d.body, r.raw)
		}
		if i == 0 && e.Type != "business.created" {
			t.Fatalf("first event %s", e.Type)
		}
		if strings.HasPrefix(e.Type, "check.") {
			var c struct {
				Check struct {
					ID     string `json:"id"`
					Status string `json:"status"`
				} `json:"check"`
			}
			json.Unmarshal(e.Data, &c)
			statuses[c.Check.ID] = append(statuses[c.Check.ID], c.Check.Status)
			if "check."+c.Check.Status != e.Type {
				t.Fatalf("%s carries a %s check", e.Type, c.Check.Status)
			}
		}
	}
	for id, st := range statuses {
		if !slices.Equal(st, []string{"queued", "running", "completed"}) {
			t.Fatalf("check %s arrived as %v", id, st)
		}
	}
	// The completed check in its event is the check as GET shows it.
	rec := request(t, tn, http.MethodGet, "/api/v1/businesses/"+bid, nil).want(t, http.StatusOK)
	last := got[len(got)-1].event(t)
	var c struct {
		Check json.RawMessage `json:"check"`
	}
	json.Unmarshal(last.Data, &c)
	var typ struct{ Type string }
	json.Unmarshal(c.Check, &typ)
	if string(field(t, rec.raw, typ.Type+"_check")) != string(c.Check) {
		t.Fatalf("event check %s\n GET check %s", c.Check, field(t, rec.raw, typ.Type+"_check"))
	}
}

// SSRF: loopback, link-local, metadata and private addresses are refused
// when an endpoint is registered (a live tenant; 422 naming url), and at
// delivery (a name that resolves elsewhere by then; a redirect), which
// fails the attempt with a clear message. The suite's dialer fails the
// run on any dial off loopback, so none of this sends a packet anywhere.
func TestWebhookSSRF(t *testing.T) {
	t.Parallel() // its own tenants, or its own records by id: no state another test reads
	live := hookTenant(t, false)
	env.dns.set("rebind-live.ssrf.test", receiverIP)
	env.dns.set("internal.ssrf.test", "10.0.0.1")
	env.dns.set("meta.ssrf.test", "169.254.169.254")
	env.dns.set("mixed.ssrf.test", "93.184.216.34", "192.168.1.20")
	for url, want := range map[string]string{
		"http://127.0.0.1/hook":                           "must use https",
		"https://127.0.0.1/hook":                          "127.0.0.1 is a loopback address",
		"https://169.254.169.254/latest/":                 "cloud metadata service",
		"https://[::1]/hook":                              "::1 is a loopback address",
		"https://internal.ssrf.test/hook":                 "internal.ssrf.test resolves to 10.0.0.1, a private network address",
		"https://meta.ssrf.test/":                         "cloud metadata service",
		"https://mixed.ssrf.test/":                        "192.168.1.20",
		"https://nowhere.ssrf.test/":                      "could not be resolved",
		"https://[fe80::1]/":                              "link-local",
		"https://0.0.0.0/":                                "unspecified",
		"https://user:pw@" + receiverIP:                   "credentials",
		"ftp://" + receiverIP + "/":                       "must be an https URL",
		"not a url":                                       "absolute URL",
		"https://" + strings.Repeat("a", 3000) + ".test/": "longer than",
		// IPv6 forms that carry a private IPv4 address, zones, deprecated
		// prefixes, and IPv4 in notations resolvers read their own way.
		"https://[64:ff9b::a00:1%25eth0]/":   "scoped (with a zone)",
		"https://[64:ff9b::a9fe:a9fe%25x]/":  "scoped",
		"https://[2001:db8::1%25x]/":         "scoped",
		"https://[64:ff9b::a00:1]/":          "NAT64 form of 10.0.0.1, a private network",
		"https://[64:FF9B::A9FE:A9FE]/":      "NAT64 form of 169.254.169.254, a cloud metadata service",
		"https://[64:ff9b:1::a00:1]/":        "local-use NAT64 form",
		"https://[2002:7f00:1::]/":           "6to4 (deprecated) form of 127.0.0.1, a loopback",
		"https://[::10.0.0.1]/":              "IPv4-compatible (deprecated) form of 10.0.0.1",
		"https://[::169.254.169.254]/":       "cloud metadata service",
		"https://[::ffff:0:a00:1]/":          "IPv4-translated (deprecated) form of 10.0.0.1",
		"https://[fec0::1]/":                 "site-local (deprecated)",
		"https://[100::1]/":                  "discard",
		"https://[2001:0:a00:1::]/":          "Teredo form of 10.0.0.1",
		"https://0x7f.1/":                    "standard notation",
		"https://2130706433/":                "standard notation",
		"https://" + receiverIP + ":8443/":   "loopback", // the operator's allow-list opens it to sandbox tenants only
		"https://rebind-live.ssrf.test:443/": "loopback",
	} {
		r := request(t, live, http.MethodPost, "/api/v1/webhooks", map[string]any{"url": url}).want(t, http.StatusUnprocessableEntity)
		msgs := obj(r.body["errors"])["url"]
		if msgs == nil || !strings.Contains(fmt.Sprint(msgs), want) {
			t.Errorf("%s: %s, want a url error with %q", url, r.raw, want)
		}
	}

	// At delivery: the name resolved to the (allowed) receiver address when
	// registered, and to a private one when delivered (DNS rebinding).
	sb := hookTenant(t, true)
	rcv := newReceiver(t, false, "")
	port := strings.Split(rcv.addr, ":")[1]
	env.dns.set("rebind.ssrf.test", receiverIP)
	rebindID, _ := register(t, sb, "http://rebind.ssrf.test:"+port+"/hook", "business.created")
	env.dns.set("rebind.ssrf.test", "10.0.0.1")
	// A name that turns to an IPv6 form of a private address.
	env.dns.set("rebind6.ssrf.test", receiverIP)
	rebind6ID, _ := register(t, sb, "http://rebind6.ssrf.test:"+port+"/hook", "business.created")
	env.dns.set("rebind6.ssrf.test", "64:ff9b::a9fe:a9fe")
	// A receiver that redirects to loopback's other addresses.
	redirect := newReceiver(t, false, "")
	redirect.setAnswer(func(delivery) int { return http.StatusTemporaryRedirect })
	redirectID, _ := register(t, sb, "http://"+redirect.addr+"/hook", "business.created")
	request(t, sb, http.MethodPost, "/api/v1/businesses/create", plainBusiness("SSRF BV")).want(t, http.StatusCreated)
	for id, want := range map[string]string{
		rebindID:   "refused: rebind.ssrf.test resolves to 10.0.0.1, a private network address",
		rebind6ID:  "refused: rebind6.ssrf.test resolves to 64:ff9b::a9fe:a9fe, a NAT64 form of 169.254.169.254, a cloud metadata service address",
		redirectID: "a redirect",
	} {
		var r response
		defer func() {
			if t.Failed() {
				t.Logf("deliveries of %s: %s", id, r.raw)
			}
		}()
		eventually(t, 30*time.Second, "a failed attempt at "+id, func() bool {
			r = request(t, sb, http.MethodGet, "/api/v1/webhooks/"+id+"/deliveries", nil).want(t, http.StatusOK)
			ds, _ := r.body["data"].([]any)
			if len(ds) != 1 {
				return false
			}
			// Any attempt: a first one may also have met a loaded machine.
			as, _ := obj(ds[0])["attempts"].([]any)
			for _, a := range as {
				if strings.Contains(fmt.Sprint(obj(a)["error"]), want) {
					return true
				}
			}
			return false
		})
	}
	if len(rcv.delivered()) != 0 {
		t.Fatalf("the rebound name was delivered to: %v", rcv.delivered())
	}
}

// A receiver that refuses connections, answers 500 and times out gets
// retries on the schedule; in between the worker is killed and Temporal's
// dev server restarted; when the receiver is back every event arrives,
// exactly once.
func TestWebhookOutageSurvivesRestarts(t *testing.T) {
	sb := hookTenant(t, true)
	rcv := newReceiver(t, false, "")
	addr := rcv.addr
	id, _ := register(t, sb, "http://"+addr+"/hook")
	rcv.stop() // connection refused
	b := request(t, sb, http.MethodPost, "/api/v1/businesses/create", plainBusiness("Down BV")).want(t, http.StatusCreated)
	bid := b.body["id"].(string)
	// The first attempt failed: the delivery is retrying, with when next.
	eventually(t, 30*time.Second, "a retrying delivery", func() bool {
		r := request(t, sb, http.MethodGet, "/api/v1/webhooks/"+id+"/deliveries", nil).want(t, http.StatusOK)
		ds, _ := r.body["data"].([]any)
		return len(ds) == 1 && obj(ds[0])["status"] == "retrying" && obj(ds[0])["next_attempt_at"] != nil &&
			strings.Contains(fmt.Sprint(obj(obj(ds[0])["attempts"].([]any)[0])["error"]), "could not connect")
	})
	// Then 500s and timeouts.
	rcv.start(t, false, addr)
	var calls atomic.Int32 // the receiver answers deliveries side by side
	rcv.setAnswer(func(delivery) int {
		if calls.Add(1)%2 == 1 {
			return http.StatusInternalServerError
		}
		return 0 // no answer in time
	})
	eventually(t, 30*time.Second, "failed attempts with 500 and a timeout", func() bool {
		r := request(t, sb, http.MethodGet, "/api/v1/webhooks/"+id+"/deliveries", nil).want(t, http.StatusOK)
		text := string(r.raw)
		return strings.Contains(text, `"status_code":500`) && strings.Contains(text, "no answer within")
	})
	// Kill the worker, restart Temporal, start the worker again, and bring
	// the receiver back.
	stopped := time.Now()
	env.worker.Stop()
	restartTemporal(t)
	if err := startWorker(); err != nil {
		t.Fatal(err)
	}
	t.Logf("worker stopped, Temporal restarted, worker started in %s", time.Since(stopped))
	back := time.Now()
	rcv.setAnswer(nil)
	// Events made while it was all down arrive too.
	request(t, sb, http.MethodPost, "/api/v1/businesses/"+bid+"/delete", nil).want(t, http.StatusOK)
	eventually(t, 30*time.Second, "both events delivered", func() bool { return len(rcv.delivered()) >= 2 })
	t.Logf("both delivered %s after the receiver came back", time.Since(back))
	time.Sleep(time.Second)
	got := rcv.delivered()
	if len(got) != 2 || got[0].typ != "business.created" || got[1].typ != "business.deleted" {
		var ts []string
		for _, d := range got {
			ts = append(ts, d.typ+" "+d.id)
		}
		t.Fatalf("delivered %v, want business.created then business.deleted, once each", ts)
	}
}

// restartTemporal stops the Temporal server and starts it again on its data.
func restartTemporal(t *testing.T) {
	t.Helper()
	if err := env.temporal.Stop(); err != nil {
		t.Logf("stopping temporal: %v", err)
	}
	srv, err := devserver.StartCluster(context.Background(), env.temporalOpts)
	if err != nil {
		t.Fatalf("restart temporal: %v", err)
	}
	env.temporal = srv
}

// A 410 disables the endpoint; later events are not sent to it.
func TestWebhookGoneDisables(t *testing.T) {
	sb := hookTenant(t, true)
	rcv := newReceiver(t, false, "")
	rcv.setAnswer(func(delivery) int { return http.StatusGone })
	id, _ := register(t, sb, "http://"+rcv.addr+"/hook", "business.created")
	request(t, sb, http.MethodPost, "/api/v1/businesses/create", plainBusiness("Gone BV")).want(t, http.StatusCreated)
	eventually(t, 30*time.Second, "the endpoint disabled", func() bool {
		r := request(t, sb, http.MethodGet, "/api/v1/webhooks/"+id, nil).want(t, http.StatusOK)
		return r.body["status"] == "disabled" && strings.Contains(fmt.Sprint(r.body["disabled_reason"]), "410")
	})
	r := request(t, sb, http.MethodGet, "/api/v1/webhooks/"+id+"/deliveries", nil).want(t, http.StatusOK)
	if d := obj(r.body["data"].([]any)[0]); d["status"] != "failed" || d["attempt_count"] != float64(1) {
		t.Fatalf("delivery after 410: %v", d)
	}
	rcv.setAnswer(nil)
	request(t, sb, http.MethodPost, "/api/v1/businesses/create", plainBusiness("Gone BV 2")).want(t, http.StatusCreated)
	time.Sleep(time.Second)
	if r := request(t, sb, http.MethodGet, "/api/v1/webhooks/"+id+"/deliveries", nil).want(t, http.StatusOK); len(r.body["data"].([]any)) != 1 || len(rcv.delivered()) != 0 {
		t.Fatalf("a disabled endpoint got more: %s", r.raw)
	}
	// Redelivery to it is refused, clearly.
	r = request(t, sb, http.MethodGet, "/api/v1/events?type=business.created", nil).want(t, http.StatusOK)
	ev := obj(r.body["data"].([]any)[0])["id"].(string)
	r = request(t, sb, http.MethodPost, "/api/v1/events/"+ev+"/redeliver", map[string]any{"endpoint_id": id}).want(t, http.StatusConflict)
	if !strings.Contains(r.body["message"].(string), "disabled") {
		t.Fatalf("redeliver to a disabled endpoint: %s", r.raw)
	}
}

// Rotation: for 24 hours deliveries carry a signature by the new and by
// the old secret, so receivers holding either verify.
func TestWebhookRotationAndRedelivery(t *testing.T) {
	sb := hookTenant(t, true)
	rcv := newReceiver(t, false, "")
	id, oldSecret := register(t, sb, "http://"+rcv.addr+"/hook", "business.created")
	r := request(t, sb, http.MethodPost, "/api/v1/webhooks/"+id+"/rotate-secret", nil).want(t, http.StatusOK)
	newSecret, _ := r.body["secret"].(string)
	exp, _ := time.Parse(time.RFC3339, fmt.Sprint(r.body["previous_secret_expires_at"]))
	if !strings.HasPrefix(newSecret, webhook.SecretPrefix) || newSecret == oldSecret || time.Until(exp) < 23*time.Hour || time.Until(exp) > 25*time.Hour {
		t.Fatalf("rotate: %s", r.raw)
	}
	if g := request(t, sb, http.MethodGet, "/api/v1/webhooks/"+id, nil).want(t, http.StatusOK); strings.Contains(string(g.raw), "whsec_") {
		t.Fatalf("GET shows a secret: %s", g.raw)
	}
	request(t, sb, http.MethodPost, "/api/v1/businesses/create", plainBusiness("Rotated BV")).want(t, http.StatusCreated)
	eventually(t, 30*time.Second, "a delivery", func() bool { return len(rcv.delivered()) == 1 })
	d := rcv.delivered()[0]
	if strings.Count(d.signature, "v1=") != 2 {
		t.Fatalf("signature %q, want two v1", d.signature)
	}
	for _, s := range []string{newSecret, oldSecret} {
		if err := webhook.Verify(d.signature, d.body, s, time.Now()); err != nil {
			t.Fatalf("verify: %v", err)
		}
	}
	// Redelivery on request: the same event again, as a new delivery.
	r = request(t, sb, http.MethodPost, "/api/v1/events/"+d.id+"/redeliver", nil).want(t, http.StatusAccepted)
	if ds := r.body["data"].([]any); len(ds) != 1 || obj(ds[0])["redelivery"] != true || obj(ds[0])["endpoint_id"] != id {
		t.Fatalf("redeliver: %s", r.raw)
	}
	eventually(t, 30*time.Second, "the redelivery", func() bool { return len(rcv.delivered()) == 2 })
	if again := rcv.delivered()[1]; again.id != d.id || string(again.body) != string(d.body) {
		t.Fatalf("redelivered %s %s", again.id, again.body)
	}
	eventually(t, 15*time.Second, "both deliveries recorded delivered", func() bool {
		r = request(t, sb, http.MethodGet, "/api/v1/webhooks/"+id+"/deliveries", nil).want(t, http.StatusOK)
		ds := r.body["data"].([]any)
		return len(ds) == 2 && obj(ds[0])["status"] == "delivered" && obj(ds[1])["status"] == "delivered"
	})

	// Twenty redeliveries of the event at once: each one a delivery of its
	// own, numbered in turn, none a server error (request fails the test
	// on any 5xx).
	var wg sync.WaitGroup
	statuses := make([]int, 20)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = request(t, sb, http.MethodPost, "/api/v1/events/"+d.id+"/redeliver", map[string]any{"endpoint_id": id}).status
		}()
	}
	wg.Wait()
	for i, st := range statuses {
		if st != http.StatusAccepted {
			t.Errorf("redelivery %d: %d", i, st)
		}
	}
	if n := countRows(t, `SELECT count(DISTINCT number) FROM webhook_deliveries WHERE endpoint_id = $1 AND event_id = $2 AND number BETWEEN 1 AND 22`, id, d.id); n != 22 {
		t.Fatalf("%d distinct delivery numbers after 22 deliveries", n)
	}
	eventually(t, 60*time.Second, "22 deliveries", func() bool { return len(rcv.delivered()) == 22 })
}

// Endpoint management: shapes, validation naming the field, the limit,
// tenancy, and an idempotent create that replays the same secret without
// keeping it in the clear.
func TestWebhookEndpointsAPI(t *testing.T) {
	t.Parallel() // its own tenants, or its own records by id: no state another test reads
	tn, other := hookTenant(t, true), hookTenant(t, false)
	env.dns.set("mgmt.test", receiverIP)
	url := "https://mgmt.test/hooks"
	r := request(t, tn, http.MethodPost, "/api/v1/webhooks", map[string]any{"url": url, "events": []string{"check.completed", "check", "business.deleted", "check.completed"}, "description": "CRM"}).want(t, http.StatusCreated)
	wantKeys(t, "created endpoint", r.raw, strings.Fields("id url events description status disabled_reason previous_secret_expires_at created_at updated_at secret"))
	if fmt.Sprint(r.body["events"]) != "[check.completed check.* business.deleted]" || r.body["status"] != "enabled" {
		t.Fatalf("created: %s", r.raw)
	}
	id := r.body["id"].(string)
	g := request(t, tn, http.MethodGet, "/api/v1/webhooks/"+id, nil).want(t, http.StatusOK)
	wantKeys(t, "endpoint", g.raw, strings.Fields("id url events description status disabled_reason previous_secret_expires_at created_at updated_at"))
	// Defaults: every event; no description.
	r = request(t, tn, http.MethodPost, "/api/v1/webhooks", map[string]any{"url": "http://mgmt.test/plain"}).want(t, http.StatusCreated)
	if fmt.Sprint(r.body["events"]) != "[*]" || r.body["description"] != nil {
		t.Fatalf("defaults: %s", r.raw)
	}
	l := request(t, tn, http.MethodGet, "/api/v1/webhooks?per_page=1", nil).want(t, http.StatusOK)
	if len(l.body["data"].([]any)) != 1 || l.body["next_cursor"] == nil || strings.Contains(string(l.raw), "whsec_") {
		t.Fatalf("list: %s", l.raw)
	}

	// Bad input: a 422 naming the field, never a 5xx.
	for _, c := range []struct {
		body  any
		field string
	}{
		{map[string]any{}, "url"},
		{map[string]any{"url": 42}, "url"},
		{map[string]any{"url": url, "events": []string{"check.done"}}, "events.0"},
		{map[string]any{"url": url, "events": []any{"check.completed", 7}}, "events.1"},
		{map[string]any{"url": url, "events": "check.completed"}, "events"},
		{map[string]any{"url": url, "events": make([]string, 100)}, "events"},
		{map[string]any{"url": url, "description": strings.Repeat("d", 501)}, "description"},
		{map[string]any{"url": url, "description": []int{1}}, "description"},
		{map[string]any{"url": "https://" + strings.Repeat("x", 70) + ".test/"}, "url"},
	} {
		r := request(t, tn, http.MethodPost, "/api/v1/webhooks", c.body).want(t, http.StatusUnprocessableEntity)
		if obj(r.body["errors"])[c.field] == nil {
			t.Errorf("%v: %s, want an error on %s", c.body, r.raw, c.field)
		}
	}
	// The limit: 16 endpoints, then a 422 that says so.
	for i := 2; i < webhook.MaxEndpoints; i++ {
		request(t, tn, http.MethodPost, "/api/v1/webhooks", map[string]any{"url": fmt.Sprintf("http://mgmt.test/%d", i)}).want(t, http.StatusCreated)
	}
	r = request(t, tn, http.MethodPost, "/api/v1/webhooks", map[string]any{"url": "http://mgmt.test/17"}).want(t, http.StatusUnprocessableEntity)
	if !strings.Contains(fmt.Sprint(obj(r.body["errors"])["url"]), "at most 16") {
		t.Fatalf("17th endpoint: %s", r.raw)
	}

	// Another tenant can neither see, change nor delete it.
	request(t, other, http.MethodGet, "/api/v1/webhooks/"+id, nil).want(t, http.StatusNotFound)
	request(t, other, http.MethodGet, "/api/v1/webhooks/"+id+"/deliveries", nil).want(t, http.StatusNotFound)
	request(t, other, http.MethodPost, "/api/v1/webhooks/"+id+"/rotate-secret", nil).want(t, http.StatusNotFound)
	request(t, other, http.MethodDelete, "/api/v1/webhooks/"+id, nil).want(t, http.StatusNotFound)
	request(t, tn, http.MethodDelete, "/api/v1/webhooks/"+id, nil).want(t, http.StatusOK)
	request(t, tn, http.MethodGet, "/api/v1/webhooks/"+id, nil).want(t, http.StatusNotFound)
	request(t, tn, http.MethodGet, "/api/v1/webhooks/not-an-id", nil).want(t, http.StatusNotFound)

	// Idempotent create: one endpoint, the same answer (secret included)
	// replayed; the stored answer does not hold the secret in the clear.
	// (A live tenant's endpoint: a public address, which the suite never
	// dials.)
	env.dns.set("mgmt-live.test", "93.184.216.34")
	body := map[string]any{"url": "https://mgmt-live.test/idem"}
	first := requestWith(t, http.MethodPost, "/api/v1/webhooks", other.host, "Bearer "+other.key, "application/json", body, "Idempotency-Key", "hook-1").want(t, http.StatusCreated)
	again := requestWith(t, http.MethodPost, "/api/v1/webhooks", other.host, "Bearer "+other.key, "application/json", body, "Idempotency-Key", "hook-1").want(t, http.StatusCreated)
	if string(first.raw) != string(again.raw) || again.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %s\n%s", first.raw, again.raw)
	}
	if l := request(t, other, http.MethodGet, "/api/v1/webhooks", nil).want(t, http.StatusOK); len(l.body["data"].([]any)) != 1 {
		t.Fatalf("endpoints after a replay: %s", l.raw)
	}
	secret := first.body["secret"].(string)
	var clear int
	env.admin.DB().Get(&clear, `SELECT count(*) FROM idempotency_keys WHERE position(convert_to($1, 'UTF8') IN body) > 0`, secret)
	var stored int
	env.admin.DB().Get(&stored, `SELECT count(*) FROM idempotency_keys WHERE tenant_id = $1 AND key = 'hook-1' AND status = 201`, other.id)
	if clear != 0 || stored != 1 {
		t.Fatalf("the stored answer: %d rows with the secret in the clear, %d stored", clear, stored)
	}
	// Nor does the endpoints table.
	env.admin.DB().Get(&clear, `SELECT count(*) FROM webhook_endpoints WHERE position(convert_to($1, 'UTF8') IN secret) > 0`, secret)
	if clear != 0 {
		t.Fatal("a secret is stored in the clear")
	}
	// Nor any other table, Temporal's histories or the log.
	nowhereAtRest(t, secret)
}

// GET /events: the tenant's own, newest first, with filters, bad filters
// a 422 naming the parameter.
func TestEventsAPI(t *testing.T) {
	t.Parallel() // its own tenants, or its own records by id: no state another test reads
	tn, other := hookTenant(t, true), hookTenant(t, true)
	b := request(t, tn, http.MethodPost, "/api/v1/businesses/create", plainBusiness("Events BV")).want(t, http.StatusCreated)
	bid := b.body["id"].(string)
	c := request(t, tn, http.MethodPost, "/api/v1/customers/create", map[string]any{"name": "Eva", "email": "eva@example.com", "country_code": "NLD",
		"checks": map[string]bool{"iban": false, "idin": false, "idscan": false}}).want(t, http.StatusCreated)
	request(t, other, http.MethodPost, "/api/v1/businesses/create", plainBusiness("Other BV")).want(t, http.StatusCreated)
	request(t, tn, http.MethodPost, "/api/v1/businesses/"+bid+"/check", map[string]any{"type": []string{"coc"}}).want(t, http.StatusAccepted)
	waitCheck(t, tn, "/api/v1/businesses/"+bid, "coc", 10*time.Second)
	request(t, tn, http.MethodPost, "/api/v1/businesses/"+bid+"/delete", nil).want(t, http.StatusOK)

	types := func(path string) []string {
		r := request(t, tn, http.MethodGet, path, nil).want(t, http.StatusOK)
		var out []string
		for i, e := range r.body["data"].([]any) {
			wantKeys(t, "event", index(t, field(t, r.raw, "data"), i), []string{"id", "type", "created_at", "data"})
			out = append(out, obj(e)["type"].(string))
		}
		return out
	}
	all := types("/api/v1/events")
	want := []string{"business.deleted", "check.completed", "check.running", "check.queued", "customer.created", "business.created"}
	if !slices.Equal(all, want) {
		t.Fatalf("events %v, want %v", all, want)
	}
	if got := types("/api/v1/events?type=check.*"); !slices.Equal(got, want[1:4]) {
		t.Fatalf("check.*: %v", got)
	}
	if got := types("/api/v1/events?type=business.created&type=customer.created"); !slices.Equal(got, want[4:]) {
		t.Fatalf("two types: %v", got)
	}
	if got := types("/api/v1/events?subject_id=" + c.body["id"].(string)); !slices.Equal(got, []string{"customer.created"}) {
		t.Fatalf("subject: %v", got)
	}
	if got := types("/api/v1/events?per_page=2"); len(got) != 2 {
		t.Fatalf("per_page: %v", got)
	}
	if got := types("/api/v1/events?created_after=" + time.Now().Add(time.Minute).UTC().Format(time.RFC3339)); len(got) != 0 {
		t.Fatalf("created_after: %v", got)
	}
	for q, field := range map[string]string{"type=check.done": "type", "subject_id=x": "subject_id", "created_after=yesterday": "created_after", "per_page=0": "per_page"} {
		r := request(t, tn, http.MethodGet, "/api/v1/events?"+q, nil).want(t, http.StatusUnprocessableEntity)
		if obj(r.body["errors"])[field] == nil {
			t.Errorf("%s: %s", q, r.raw)
		}
	}
	// The deleted business's check events keep ids, not data.
	r := request(t, tn, http.MethodGet, "/api/v1/events?type=check.completed", nil).want(t, http.StatusOK)
	chk := obj(obj(obj(r.body["data"].([]any)[0])["data"])["check"])
	if chk["status"] != "completed" || chk["data"] != nil || chk["id"] == nil {
		t.Fatalf("a deleted record's check event: %v", chk)
	}
	// Another tenant's event is not found by id.
	o := request(t, other, http.MethodGet, "/api/v1/events", nil).want(t, http.StatusOK)
	oid := obj(o.body["data"].([]any)[0])["id"].(string)
	request(t, tn, http.MethodGet, "/api/v1/events/"+oid, nil).want(t, http.StatusNotFound)
	request(t, tn, http.MethodPost, "/api/v1/events/"+oid+"/redeliver", nil).want(t, http.StatusNotFound)
}

// The receiver examples in docs/WEBHOOKS.md verify real deliveries: the Go
// receiver runs as a process and accepts every event of its endpoint, the
// openssl script accepts a delivery as sent and refuses it changed. The
// document quotes both files whole.
func TestWebhookReceiverExamples(t *testing.T) {
	doc, err := os.ReadFile("../../docs/WEBHOOKS.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"../../docs/examples/webhook-receiver/main.go", "../../docs/examples/verify-webhook.sh"} {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), string(src)) {
			t.Fatalf("docs/WEBHOOKS.md does not quote %s as it is", f)
		}
	}
	sb := hookTenant(t, true)

	// The Go receiver.
	bin := filepath.Join(t.TempDir(), "webhook-receiver")
	if out, err := exec.Command("go", "build", "-o", bin, "../../docs/examples/webhook-receiver").CombinedOutput(); err != nil {
		t.Fatalf("build the example: %v %s", err, out)
	}
	l, err := net.Listen("tcp", receiverIP+":0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	id, secret := register(t, sb, "http://"+addr+"/kycflow", "business.created", "check.*")
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "ADDR="+addr, "KYCFLOW_WEBHOOK_SECRET="+secret)
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	eventually(t, 30*time.Second, "the example receiver listening", func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	b := createBusiness(t, sb, "NL91ABNA0417164300", map[string]bool{"coc": false, "vat": false, "iban": true})
	waitCheck(t, sb, "/api/v1/businesses/"+b.body["id"].(string), "iban", 10*time.Second)
	eventually(t, 30*time.Second, "4 events verified by the Go example", func() bool { return strings.Count(out.String(), "verified ") == 4 })
	eventually(t, 15*time.Second, "4 deliveries answered 204", func() bool {
		r := request(t, sb, http.MethodGet, "/api/v1/webhooks/"+id+"/deliveries", nil).want(t, http.StatusOK)
		return strings.Count(string(r.raw), `"status_code":204`) == 4
	})
	// It refuses what kycflow did not sign.
	resp, err := http.Post("http://"+addr+"/kycflow", "application/json", strings.NewReader(`{"id":"forged"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a forged delivery: %d", resp.StatusCode)
	}

	// The openssl script, on a delivery as it arrived.
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Fatal("openssl is needed (make test installs it)")
	}
	rcv := newReceiver(t, false, "")
	_, secret2 := register(t, sb, "http://"+rcv.addr+"/hook", "business.created")
	request(t, sb, http.MethodPost, "/api/v1/businesses/create", plainBusiness("Script BV")).want(t, http.StatusCreated)
	eventually(t, 30*time.Second, "a delivery", func() bool { return len(rcv.delivered()) == 1 })
	d := rcv.delivered()[0]
	dir := t.TempDir()
	script := func(secret, header string, body []byte) error {
		f := filepath.Join(dir, "body.json")
		os.WriteFile(f, body, 0o600)
		return exec.Command("sh", "../../docs/examples/verify-webhook.sh", secret, header, f).Run()
	}
	if err := script(secret2, d.signature, d.body); err != nil {
		t.Fatalf("the script refused a real delivery: %v", err)
	}
	for what, err := range map[string]error{
		"a changed body":   script(secret2, d.signature, append(append([]byte(nil), d.body...), ' ')),
		"another secret":   script(secret, d.signature, d.body),
		"an old signature": script(secret2, webhook.Sign(time.Now().Add(-10*time.Minute), d.body, []byte(secret2)), d.body),
	} {
		if err == nil {
			t.Errorf("the script accepted %s", what)
		}
	}
}

// syncBuffer collects a process's output safely.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
