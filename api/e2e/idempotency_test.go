package e2e

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/kycflow/kycflow/workflows"
)

// post sends a POST as tn with an Idempotency-Key.
func post(t *testing.T, tn tenant, path, key string, body any) response {
	t.Helper()
	return requestWith(t, http.MethodPost, path, tn.host, "Bearer "+tn.key, "application/json", body, "Idempotency-Key", key)
}

func countRows(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := env.admin.DB().Get(&n, query, args...); err != nil {
		t.Fatal(err)
	}
	return n
}

// The same create twice under one key makes one record: the repeat gets
// the first answer again, marked replayed, and queues nothing.
func TestIdempotentCreate(t *testing.T) {
	t.Parallel() // its own tenants, or its own records by id: no state another test reads
	key := fmt.Sprintf("create-%d", time.Now().UnixNano())
	name := "Idem BV " + key
	body := map[string]any{"name": name, "country_code": "NLD", "coc_number": "68750110", "iban_number": "NL91ABNA0417164300",
		"checks": map[string]bool{"coc": false, "vat": false, "iban": true}}
	first := post(t, env.a, "/api/v1/businesses/create", key, body).want(t, http.StatusCreated)
	if first.header.Get("Idempotent-Replayed") != "" {
		t.Fatal("the first answer is no replay")
	}
	again := post(t, env.a, "/api/v1/businesses/create", key, body).want(t, http.StatusCreated)
	if again.header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(first.raw, again.raw) {
		t.Fatalf("replay: %v %s\nfirst: %s", again.header, again.raw, first.raw)
	}
	if n := countRows(t, `SELECT count(*) FROM businesses WHERE name = $1`, name); n != 1 {
		t.Fatalf("%d businesses", n)
	}
	if n := countRows(t, `SELECT count(*) FROM checks WHERE business_id = $1`, first.body["id"]); n != 1 {
		t.Fatalf("%d checks queued", n)
	}
	// The key with another body: refused, nothing made.
	body["name"] = name + " changed"
	r := post(t, env.a, "/api/v1/businesses/create", key, body).want(t, http.StatusUnprocessableEntity)
	if r.body["message"] != "This idempotency key was already used with a different request." || obj(r.body["errors"])["Idempotency-Key"] == nil {
		t.Fatalf("mismatch: %s", r.raw)
	}
	// The same key on another path is another request too.
	post(t, env.a, "/api/v1/customers/create", key, body).want(t, http.StatusUnprocessableEntity)
	// Another tenant's key space is its own.
	body["name"] = name
	b := post(t, env.b, "/api/v1/businesses/create", key, body).want(t, http.StatusCreated)
	if b.header.Get("Idempotent-Replayed") != "" || b.body["id"] == first.body["id"] {
		t.Fatalf("tenant B got tenant A's answer: %s", b.raw)
	}
	// Deleting the record forgets the stored answer that carries it.
	request(t, env.a, http.MethodDelete, "/api/v1/businesses/"+first.body["id"].(string)+"/delete", nil).want(t, http.StatusOK)
	if n := countRows(t, `SELECT count(*) FROM idempotency_keys WHERE tenant_id = $1 AND key = $2`, env.a.id, key); n != 0 {
		t.Fatalf("the deleted business's create is still replayable")
	}
}

// Twenty identical creates at once under one key: one record; every other
// answer is a replay or a 409 while the first is in flight.
func TestIdempotentParallelCreates(t *testing.T) {
	t.Parallel() // its own tenants, or its own records by id: no state another test reads
	key := fmt.Sprintf("parallel-%d", time.Now().UnixNano())
	name := "Parallel BV " + key
	body := map[string]any{"name": name, "country_code": "NLD", "coc_number": "68750110", "checks": map[string]bool{"coc": false, "vat": false, "iban": false}}
	var wg sync.WaitGroup
	results := make([]response, 20)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = post(t, env.a, "/api/v1/businesses/create", key, body)
		}()
	}
	wg.Wait()
	seen := map[int]int{}
	for _, r := range results {
		seen[r.status]++
		switch {
		case r.status == http.StatusConflict:
		case r.status == http.StatusCreated:
		default:
			t.Errorf("answer %d: %s", r.status, r.raw)
		}
	}
	if n := countRows(t, `SELECT count(*) FROM businesses WHERE name = $1`, name); n != 1 {
		t.Fatalf("%d businesses from 20 parallel creates (%v)", n, seen)
	}
	// Once the first has answered, every repeat is its replay.
	if r := post(t, env.a, "/api/v1/businesses/create", key, body); r.status != http.StatusCreated || r.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("after: %d %v", r.status, r.header)
	}
	t.Logf("20 parallel creates: %v", seen)
}

// Keys on the other POSTs, and keys that are not keys.
func TestIdempotencyKeyOnEveryPost(t *testing.T) {
	t.Parallel() // its own tenants, or its own records by id: no state another test reads
	id := newBusiness(t, env.a, map[string]any{"name": "Checks BV", "coc_number": "68750110", "iban_number": "NL91ABNA0417164300"})
	key := fmt.Sprintf("check-%d", time.Now().UnixNano())
	first := post(t, env.a, "/api/v1/businesses/"+id+"/check", key, map[string]any{"type": []string{"iban"}}).want(t, http.StatusAccepted)
	post(t, env.a, "/api/v1/businesses/"+id+"/check", key, map[string]any{"type": []string{"iban"}}).want(t, http.StatusAccepted)
	if n := countRows(t, `SELECT count(*) FROM checks WHERE business_id = $1`, id); n != 1 {
		t.Fatalf("%d checks queued by a repeated check request (%s)", n, first.raw)
	}
	// A validation failure is an answer too, replayed as such.
	bad := fmt.Sprintf("bad-%d", time.Now().UnixNano())
	r1 := post(t, env.a, "/api/v1/businesses/"+id+"/check", bad, map[string]any{"type": []string{"nope"}}).want(t, http.StatusUnprocessableEntity)
	r2 := post(t, env.a, "/api/v1/businesses/"+id+"/check", bad, map[string]any{"type": []string{"nope"}}).want(t, http.StatusUnprocessableEntity)
	if r2.header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(r1.raw, r2.raw) {
		t.Fatalf("replayed 422: %v %s", r2.header, r2.raw)
	}
	for _, k := range []string{strings.Repeat("k", 256), "tab\there", "naïve", " "[:0]} {
		req, _ := http.NewRequest(http.MethodPost, env.server.URL+"/api/v1/businesses/create", strings.NewReader(`{}`))
		req.Host = env.a.host
		req.Header.Set("Authorization", "Bearer "+env.a.key)
		req.Header["Idempotency-Key"] = []string{k}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(raw), "Idempotency-Key") {
			t.Errorf("key %.20q: %d %s", k, resp.StatusCode, raw)
		}
	}
}

// Keys past their 24 hours are pruned by the housekeeping Schedule (here
// triggered at once; it runs hourly), for every tenant; fresh keys stay.
func TestHousekeepingPrunesIdempotencyKeys(t *testing.T) {
	db := env.admin.DB()
	old, fresh := fmt.Sprintf("old-%d", time.Now().UnixNano()), fmt.Sprintf("fresh-%d", time.Now().UnixNano())
	for _, k := range []struct {
		tenant, key string
		age         time.Duration
	}{{env.a.id, old, 25 * time.Hour}, {env.b.id, old, 48 * time.Hour}, {env.a.id, fresh, time.Hour}} {
		if _, err := db.Exec(`INSERT INTO idempotency_keys (tenant_id, key, request_hash, status, body, created_at, completed_at)
			VALUES ($1, $2, '\x00', 201, '{}', now() - $3::interval, now())`, k.tenant, k.key, fmt.Sprintf("%d seconds", int(k.age.Seconds()))); err != nil {
			t.Fatal(err)
		}
	}
	h := env.client.ScheduleClient().GetHandle(t.Context(), workflows.HousekeepingScheduleID)
	if err := h.Trigger(t.Context(), client.ScheduleTriggerOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 15*time.Second, "expired keys pruned", func() bool {
		return countRows(t, `SELECT count(*) FROM idempotency_keys WHERE key = $1`, old) == 0
	})
	if n := countRows(t, `SELECT count(*) FROM idempotency_keys WHERE key = $1`, fresh); n != 1 {
		t.Fatalf("the fresh key was pruned")
	}
}

// A create or check request answered with verification links (mails:
// false) under an Idempotency-Key is replayed whole, links included, yet
// the links' tokens are nowhere at rest but as their hashes: the stored
// answer is sealed (checked with SQL on idempotency_keys, then in every
// table, Temporal's histories and the log).
func TestLinkTokensNotKeptInReplays(t *testing.T) {
	t.Parallel() // its own tenants, or its own records by id: no state another test reads
	key := fmt.Sprintf("links-%d", time.Now().UnixNano())
	body := map[string]any{"name": "Replay Person", "email": "replay@example.com", "country_code": "NLD", "mails": false,
		"checks": map[string]bool{"idin": true, "idscan": true, "iban": false}}
	first := post(t, env.a, "/api/v1/customers/create", key, body).want(t, http.StatusCreated)
	again := post(t, env.a, "/api/v1/customers/create", key, body).want(t, http.StatusCreated)
	if again.header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(first.raw, again.raw) {
		t.Fatalf("replay: %s\nfirst: %s", again.raw, first.raw)
	}
	id := first.body["id"].(string)
	queued := post(t, env.a, "/api/v1/customers/"+id+"/check", key+"-check", map[string]any{"type": []string{"idscan"}}).want(t, http.StatusAccepted)
	if r := post(t, env.a, "/api/v1/customers/"+id+"/check", key+"-check", map[string]any{"type": []string{"idscan"}}); !bytes.Equal(r.raw, queued.raw) {
		t.Fatalf("check replay: %s\nfirst: %s", r.raw, queued.raw)
	}
	var tokens []string
	for _, u := range []any{obj(first.body["urls"])["idin"], obj(first.body["urls"])["idscan"], obj(queued.body["urls"])["idscan"]} {
		p := linkPath(t, u)
		tokens = append(tokens, p[strings.LastIndex(p, "/")+1:])
	}
	if n := countRows(t, `SELECT count(*) FROM idempotency_keys WHERE tenant_id = $1 AND key LIKE $2 AND status IN (201, 202)`, env.a.id, key+"%"); n != 2 {
		t.Fatalf("%d stored answers", n)
	}
	for _, tok := range tokens {
		if n := countRows(t, `SELECT count(*) FROM idempotency_keys WHERE strpos(encode(body, 'escape'), $1) > 0`, tok); n != 0 {
			t.Fatalf("a link token is kept in the clear in %d idempotency replays", n)
		}
	}
	// The checks' workflows have run up to the link (the idin check's and
	// the second idscan check's, which superseded the first): their
	// histories too.
	eventually(t, 15*time.Second, "the idin and idscan checks await the person", func() bool {
		return countRows(t, `SELECT count(*) FROM checks WHERE customer_id = $1 AND status = 'awaiting_input'`, id) == 2
	})
	nowhereAtRest(t, tokens...)
}
