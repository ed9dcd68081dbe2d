package store_test

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
)

// The shared statement of creates (create.sql, store/batch) against the
// reference, each create alone in a plain transaction of one statement per
// row (SetPlainCreates): the same creates, made on two tenants, leave the
// same rows — subjects, checks, links, outbox starts, events in their
// order — and get the same answers, ids and times aside.
func TestSharedCreatesMatchPlainOnes(t *testing.T) {
	ctx := context.Background()
	admin := open(t, ownerDSN)
	shared, plain := open(t, appDSN), open(t, appDSN)
	plain.SetPlainCreates(true)
	note := store.JSON(`{"source":"crm","tags":["a","b"]}`)
	iban, addr, first := "NL91ABNA0417164300", "Damrak 1A", "Jan"
	type creates struct {
		answers []string  // each create's answer, normalized
		ids     []ids     // each create's subject and check ids
		tenant  uuid.UUID // whose rows
	}
	run := func(s *store.Store, host string, together bool) creates {
		tn := newTenant(t, admin, host)
		out := creates{tenant: tn.ID}
		answer := func(v any, subject uuid.UUID, checks []store.Check, links map[check.Type]string) {
			id := ids{subject: subject, checks: map[uuid.UUID]string{}}
			var types []string
			for _, c := range checks {
				id.checks[c.ID] = string(c.Type)
				types = append(types, string(c.Type)+":"+string(c.Status))
			}
			var linked []string
			for typ, token := range links {
				if len(token) < 40 {
					t.Fatalf("a short link token %q", token)
				}
				linked = append(linked, string(typ))
			}
			slices.Sort(linked)
			raw, _ := json.Marshal(v)
			out.ids = append(out.ids, id)
			out.answers = append(out.answers, normalize(t, string(raw), tn.ID, id)+" checks "+strings.Join(types, ",")+" links "+strings.Join(linked, ","))
		}
		bizs := []struct {
			b     store.Business
			types []check.Type
		}{
			{store.Business{Name: "Alpha BV", CountryID: 528, CoCNumber: "68750110", IBAN: &iban}, []check.Type{check.CoC, check.VAT, check.IBAN}},
			{store.Business{Name: "Beta BV", CountryID: 56, CoCNumber: "12345678", Address: &addr}, []check.Type{check.IBAN}},
			{store.Business{Name: "Gamma BV", CountryID: 528, CoCNumber: "87654321"}, nil},
		}
		var parent uuid.UUID
		for i, in := range bizs {
			b, cs, err := s.CreateBusiness(ctx, tn.ID, in.b, in.types)
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				parent = b.ID
			}
			answer(b, b.ID, cs, nil)
		}
		cus := []struct {
			c     store.Customer
			types []check.Type
		}{
			{store.Customer{Name: "Jan de Vries", FirstName: &first, Email: "jan@example.nl", CountryID: 528, IBAN: &iban, Notes: note},
				[]check.Type{check.IBAN, check.AML, check.IDIN, check.IDScan}},
			{store.Customer{Name: "Mailed Person", Email: "m@example.nl", CountryID: 528, Mails: true, BusinessID: &parent},
				[]check.Type{check.IDScan}},
			{store.Customer{Name: "No Checks", Email: "n@example.nl", CountryID: 56}, nil},
		}
		if together { // the shared statement with several creates in it
			cs := make([]store.Customer, len(cus))
			for i := range cus {
				cs[i] = cus[i].c
			}
			links, errs := s.CreateCustomersTogether(ctx, tn.ID, cs[:2], cus[0].types)
			for i, err := range errs {
				if err != nil {
					t.Fatal(err)
				}
				stored, err := s.GetCustomer(ctx, tn.ID, cs[i].ID)
				if err != nil {
					t.Fatal(err)
				}
				var checks []store.Check
				for _, typ := range cus[0].types {
					checks = append(checks, stored.Checks[typ])
				}
				answer(cs[i], cs[i].ID, checks, links[i])
			}
			cus = cus[2:]
		} else {
			cus[1].types = cus[0].types
		}
		for _, in := range cus {
			c, checks, links, err := s.CreateCustomer(ctx, tn.ID, in.c, in.types)
			if err != nil {
				t.Fatal(err)
			}
			answer(c, c.ID, checks, links)
		}
		return out
	}
	for _, together := range []bool{false, true} {
		want := run(plain, "plain-"+uuid.NewString()[:8]+".example", false)
		got := run(shared, "shared-"+uuid.NewString()[:8]+".example", together)
		for i := range want.answers {
			if got.answers[i] != want.answers[i] {
				t.Errorf("create %d answered\n  %s\nplain:\n  %s", i, got.answers[i], want.answers[i])
			}
			g, w := rowsOf(t, admin, got.tenant, got.ids[i]), rowsOf(t, admin, want.tenant, want.ids[i])
			if g != w {
				t.Errorf("create %d (together %v) wrote\n%s\nplain:\n%s", i, together, g, w)
			}
		}
	}
}

// ids are a create's subject and its checks (id → type).
type ids struct {
	subject uuid.UUID
	checks  map[uuid.UUID]string
}

var (
	uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timeRE = regexp.MustCompile(`\d{4}-\d\d-\d\d[T ][0-9:.]+(Z|[+-]\d\d(:\d\d)?)`)
)

// normalize writes ids by their role (the tenant, the subject, its checks
// by type) and times as TIME: what the two ways of creating may differ in.
func normalize(t *testing.T, s string, tenant uuid.UUID, id ids) string {
	t.Helper()
	s = uuidRE.ReplaceAllStringFunc(s, func(u string) string {
		x := uuid.MustParse(u)
		switch {
		case x == tenant:
			return "TENANT"
		case x == id.subject:
			return "SUBJECT"
		case id.checks[x] != "":
			return "CHECK(" + id.checks[x] + ")"
		}
		return "OTHER-ID"
	})
	return timeRE.ReplaceAllString(s, "TIME")
}

// rowsOf is every row a create wrote, normalized, in a stable order: the
// subject's row, its checks, their links and outbox rows, and its events
// in the order they were written.
func rowsOf(t *testing.T, admin *store.Store, tenant uuid.UUID, id ids) string {
	t.Helper()
	var out []string
	for _, q := range []string{
		`SELECT row_to_json(b)::text FROM businesses b WHERE tenant_id = $1 AND id = $2`,
		`SELECT row_to_json(c)::text FROM customers c WHERE tenant_id = $1 AND id = $2`,
		`SELECT row_to_json(c)::text FROM (SELECT * FROM checks WHERE tenant_id = $1 AND (business_id = $2 OR customer_id = $2) ORDER BY type) c`,
		`SELECT json_build_object('type', l.type, 'customer', l.customer_id, 'check', l.check_id, 'ttl', (l.expires_at - l.created_at)::text,
			'used', l.used_at IS NOT NULL, 'revoked', l.revoked_at IS NOT NULL, 'hash_bytes', octet_length(l.token_hash))::text
			FROM links l JOIN checks c ON c.id = l.check_id WHERE l.tenant_id = $1 AND (c.business_id = $2 OR c.customer_id = $2) ORDER BY l.type`,
		`SELECT json_build_object('action', o.action, 'check', o.check_id, 'payload', o.payload)::text
			FROM outbox o JOIN checks c ON c.id = o.check_id WHERE o.tenant_id = $1 AND (c.business_id = $2 OR c.customer_id = $2) ORDER BY c.type, o.action`,
		`SELECT json_build_object('type', e.type, 'kind', e.subject_kind, 'subject', e.subject_id, 'data', e.data)::text
			FROM events e WHERE e.tenant_id = $1 AND e.subject_id = $2 ORDER BY e.seq`,
	} {
		var rows []string
		if err := admin.DB().Select(&rows, q, tenant, id.subject); err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			out = append(out, normalize(t, r, tenant, id))
		}
	}
	return strings.Join(out, "\n")
}
