package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/signin"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/store/pgcluster"
)

// cli runs the binary's command line in process and returns its stdout.
func cli(t *testing.T, args ...string) (string, error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	done := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); done <- b }()
	err = run(context.Background(), args)
	w.Close()
	os.Stdout = stdout
	return string(<-done), err
}

// The admin commands against a real PostgreSQL: tenants, key rotation and
// revocation, and `check retry`.
func TestAdminCommands(t *testing.T) {
	ctx := context.Background()
	pg, err := pgcluster.StartTemp(ctx, nil)
	if err != nil {
		t.Fatalf("PostgreSQL did not start: %v", err)
	}
	defer pg.Stop()
	t.Setenv("DATABASE_ADMIN_URL", pg.DSN("postgres", "kycflow"))
	t.Setenv("DATABASE_URL", pg.DSN(store.AppRole, "kycflow"))

	if out, err := cli(t, "migrate"); err != nil || !strings.Contains(out, "schema up to date") {
		t.Fatalf("migrate: %q %v", out, err)
	}
	out, err := cli(t, "tenant", "create", "--name", "Acme", "--host", "api.acme.test", "--host", "ACME.test:443")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	key := lines[len(lines)-1]
	if !strings.HasPrefix(key, "kyc_live_") || len(key) != 41 {
		t.Fatalf("the last line is not the key: %q", out)
	}
	tenantID := strings.Fields(lines[0])[1]
	// The verification-link lifetime per tenant.
	if out, err := cli(t, "tenant", "update", "--tenant", tenantID, "--link-ttl", "72h"); err != nil || !strings.Contains(out, "72h0m0s") {
		t.Fatalf("tenant update: %q %v", out, err)
	}
	if out, err := cli(t, "tenant", "update", "--tenant", tenantID, "--aml-threshold", "0.85"); err != nil || !strings.Contains(out, "0.85") {
		t.Fatalf("tenant update threshold: %q %v", out, err)
	}
	if _, err := cli(t, "tenant", "update", "--tenant", tenantID, "--aml-threshold", "1.5"); err == nil {
		t.Fatal("a threshold above 1 was accepted")
	}
	if _, err := cli(t, "tenant", "update", "--tenant", tenantID, "--link-ttl", "1s"); err == nil {
		t.Fatal("a one-second link lifetime was accepted")
	}
	admin, err := store.Open(ctx, pg.DSN("postgres", "kycflow"), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var hours float64
	if err := admin.DB().Get(&hours, `SELECT extract(epoch FROM link_ttl) / 3600 FROM tenants WHERE id = $1`, tenantID); err != nil || hours != 72 {
		t.Fatalf("link_ttl %v h, %v", hours, err)
	}
	if out, _ := cli(t, "tenant", "list"); !strings.Contains(out, tenantID) || !strings.Contains(out, "acme.test,api.acme.test") {
		t.Fatalf("tenant list: %q", out)
	}

	app, err := store.Open(ctx, pg.DSN(store.AppRole, "kycflow"), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	if _, err := app.Authenticate(ctx, "acme.test", store.HashKey(key)); err != nil {
		t.Fatalf("new key: %v", err)
	}
	out, err = cli(t, "tenant", "key", "create", "--tenant", tenantID)
	if err != nil {
		t.Fatal(err)
	}
	key2 := strings.TrimSpace(out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:])
	if _, err := cli(t, "tenant", "key", "revoke", "--tenant", tenantID, key[:13]); err != nil {
		t.Fatal(err)
	}
	if _, err := app.Authenticate(ctx, "acme.test", store.HashKey(key)); err == nil {
		t.Fatal("revoked key still authenticates")
	}
	if _, err := app.Authenticate(ctx, "acme.test", store.HashKey(key2)); err != nil {
		t.Fatalf("rotated key: %v", err)
	}
	if out, _ := cli(t, "tenant", "key", "list", "--tenant", tenantID); strings.Count(out, "kyc_live_") != 2 {
		t.Fatalf("key list: %q", out)
	}

	// check retry: only a failed check, found by id or workflow id.
	tid := uuid.MustParse(tenantID)
	_, checks, err := app.CreateBusiness(ctx, tid, store.Business{Name: "B", CountryID: 528, CoCNumber: "12345678"}, []check.Type{check.CoC})
	if err != nil {
		t.Fatal(err)
	}
	ref := checks[0].Ref()
	if _, err := cli(t, "check", "retry", ref.CheckID.String()); err == nil || !strings.Contains(err.Error(), "only a failed check") {
		t.Fatalf("retry of a queued check: %v", err)
	}
	for _, u := range []store.CheckUpdate{{Status: check.Running, From: []check.Status{check.Queued}}, {Status: check.Failed, From: []check.Status{check.Running}}} {
		if _, _, err := app.UpdateCheck(ctx, ref, u); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := cli(t, "check", "retry", "check-"+ref.CheckID.String()); err != nil || !strings.Contains(out, "queued") {
		t.Fatalf("retry: %q %v", out, err)
	}
	// The app role cannot read the outbox; the owner can.
	var actions []string
	if err := admin.DB().Select(&actions, `SELECT action FROM outbox WHERE check_id = $1 ORDER BY id`, ref.CheckID); err != nil {
		t.Fatal(err)
	}
	if strings.Join(actions, ",") != "start,retry" {
		t.Fatalf("outbox actions %v", actions)
	}
	if _, err := cli(t, "check", "retry", uuid.NewString()); err == nil {
		t.Fatal("retry of an unknown check succeeded")
	}
	if _, err := cli(t, "nonsense"); err != errUsage {
		t.Fatalf("unknown command: %v", err)
	}

	// Console accounts: invited with a link on the tenant's own host (its
	// first, with PUBLIC_URL's scheme and port), listed, reinvited (the
	// old link dies), disabled.
	t.Setenv("PUBLIC_URL", "https://verify.example:8443")
	if out, err := cli(t, "staff", "create", "--tenant", tenantID, "--email", "ana@acme.test", "--role", "admin"); err == nil || !strings.Contains(err.Error(), "STAFF_KEY") {
		t.Fatalf("staff create without STAFF_KEY: %q %v", out, err)
	}
	raw := bytes.Repeat([]byte{0x42}, 32)
	t.Setenv("STAFF_KEY", hex.EncodeToString(raw))
	staffKey, _ := signin.NewKey(raw)
	out, err = cli(t, "staff", "create", "--tenant", tenantID, "--email", " Ana@Acme.test ", "--role", "admin")
	link := strings.TrimSpace(out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:])
	if err != nil || !strings.HasPrefix(link, "https://acme.test:8443/console/invite/") || !strings.Contains(out, "ana@acme.test") {
		t.Fatalf("staff create: %q %v", out, err)
	}
	for _, bad := range [][]string{{"--email", "ana@acme.test", "--role", "admin"}, {"--email", "not an address", "--role", "viewer"}, {"--email", "bo@acme.test", "--role", "root"}} {
		if out, err := cli(t, append([]string{"staff", "create", "--tenant", tenantID}, bad...)...); err == nil {
			t.Errorf("staff create %v: %q", bad, out)
		}
	}
	again, err := cli(t, "staff", "invite", "--tenant", tenantID, "--email", "ana@acme.test")
	if err != nil || !strings.Contains(again, "/console/invite/") || strings.Contains(again, link) {
		t.Fatalf("staff invite: %q %v", again, err)
	}
	token := link[strings.LastIndex(link, "/")+1:]
	if _, err := admin.Invitation(ctx, tid, staffKey.HashToken(token)); err == nil {
		t.Fatal("the first link works after a second")
	}
	second := strings.TrimSpace(again[strings.LastIndex(again, "/")+1:])
	if st, err := admin.Invitation(ctx, tid, staffKey.HashToken(second)); err != nil || st.Email != "ana@acme.test" {
		t.Fatalf("the second link, under STAFF_KEY: %+v %v", st, err)
	}
	if out, err := cli(t, "staff", "disable", "--tenant", tenantID, "--email", "ana@acme.test"); err != nil || !strings.Contains(out, "disabled") {
		t.Fatalf("staff disable: %q %v", out, err)
	}
	if out, err := cli(t, "staff", "list", "--tenant", tenantID); err != nil || !strings.Contains(out, "ana@acme.test  admin  disabled") {
		t.Fatalf("staff list: %q %v", out, err)
	}
}
