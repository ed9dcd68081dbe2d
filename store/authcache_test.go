package store_test

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/store"
)

// cachedApp is the api's store with its authentication cache running, and
// a key of a fresh tenant that has authenticated once (so it is cached).
func cachedApp(t *testing.T, host string) (app, admin *store.Store, tenant store.Tenant, key string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	admin = open(t, ownerDSN)
	tenant, key, err := admin.CreateTenant(ctx, "Cache "+host, []string{host}, false)
	if err != nil {
		t.Fatal(err)
	}
	app = open(t, appDSN)
	app.CacheAuthentications(ctx, func(err error) { t.Logf("listener: %v", err) })
	// The cache is trusted once its listener has answered a ping.
	deadline := time.Now().Add(10 * time.Second)
	for !app.AuthenticationCached(store.NormalizeHost(host), store.HashKey(key)) {
		if time.Now().After(deadline) {
			t.Fatal("the authentication cache never took the key")
		}
		if _, err := app.Authenticate(ctx, host, store.HashKey(key)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return app, admin, tenant, key
}

// revokeUnannounced revokes the tenant's keys with the triggers off for
// that transaction: no notification tells the caches.
func revokeUnannounced(t *testing.T, admin *store.Store, tenantID uuid.UUID) {
	t.Helper()
	ctx := context.Background()
	tx, err := admin.DB().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback() //nolint:errcheck
	if _, err := tx.ExecContext(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE api_keys SET revoked_at = now() WHERE tenant_id = $1`, tenantID); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// A revoked key fails on an api process within a second of the revocation's
// commit, though its authentication was cached: every request that starts
// later than that is refused.
func TestRevokedKeyFailsDespiteCache(t *testing.T) {
	ctx := context.Background()
	app, admin, tn, key := cachedApp(t, "revoke-cache.example")
	if err := admin.RevokeKey(ctx, tn.ID, key[:13]); err != nil {
		t.Fatal(err)
	}
	revoked := time.Now()
	var refusedAfter time.Duration
	for {
		start := time.Now()
		_, err := app.Authenticate(ctx, "revoke-cache.example", store.HashKey(key))
		if errors.Is(err, store.ErrUnauthenticated) {
			refusedAfter = start.Sub(revoked)
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if start.Sub(revoked) >= time.Second {
			t.Fatalf("a request %v after the revocation still authenticated", start.Sub(revoked))
		}
		time.Sleep(time.Millisecond)
	}
	t.Logf("refused %v after the revocation committed", refusedAfter)
	// Refused for good: a failure is never cached as a success.
	for range 3 {
		if _, err := app.Authenticate(ctx, "revoke-cache.example", store.HashKey(key)); !errors.Is(err, store.ErrUnauthenticated) {
			t.Fatalf("revoked key: %v", err)
		}
	}
}

// The cache does answer repeats: a revocation that notifies no one (the
// triggers off for the admin's session) goes unseen until something
// notifies the channel, which forgets everything. Also a host moved to
// another tenant is forgotten.
func TestAuthenticationCacheForgetsOnNotify(t *testing.T) {
	ctx := context.Background()
	app, admin, tn, key := cachedApp(t, "notify-cache.example")
	revokeUnannounced(t, admin, tn.ID)
	time.Sleep(100 * time.Millisecond)
	if _, err := app.Authenticate(ctx, "notify-cache.example", store.HashKey(key)); err != nil {
		t.Fatalf("unnotified revocation: %v, want the cached authentication", err)
	}
	if _, err := admin.DB().ExecContext(ctx, `SELECT pg_notify($1, '')`, store.AuthNotifyChannel); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Second)
	for {
		_, err := app.Authenticate(ctx, "notify-cache.example", store.HashKey(key))
		if errors.Is(err, store.ErrUnauthenticated) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the notification: %v, want unauthenticated", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Changes that matter notify; a key's recorded use (authenticate() writes
// it once a minute) does not, or every cache would empty each minute.
func TestAuthNotifications(t *testing.T) {
	ctx := context.Background()
	admin := open(t, ownerDSN)
	tn, key, err := admin.CreateTenant(ctx, "Notifies", []string{"notifies.example"}, false)
	if err != nil {
		t.Fatal(err)
	}
	l := admin.ListenForTest(t, store.AuthNotifyChannel)
	notified := func(what string, want bool) {
		t.Helper()
		select {
		case <-l:
			if !want {
				t.Errorf("%s notified", what)
			}
		case <-time.After(300 * time.Millisecond):
			if want {
				t.Errorf("%s did not notify", what)
			}
		}
	}
	if _, err := admin.DB().ExecContext(ctx, `UPDATE api_keys SET last_used_at = now() WHERE tenant_id = $1`, tn.ID); err != nil {
		t.Fatal(err)
	}
	notified("recording a key's use", false)
	if _, err := admin.DB().ExecContext(ctx, `UPDATE tenant_hosts SET host = 'notifies2.example' WHERE host = 'notifies.example'`); err != nil {
		t.Fatal(err)
	}
	notified("moving a host", true)
	if err := admin.RevokeKey(ctx, tn.ID, key[:13]); err != nil {
		t.Fatal(err)
	}
	notified("revoking a key", true)
	if _, err := admin.DB().ExecContext(ctx, `DELETE FROM api_keys WHERE tenant_id = $1`, tn.ID); err != nil {
		t.Fatal(err)
	}
	notified("deleting keys", true)
}

// A listener that stops answering (its backend stopped with SIGSTOP, so
// notifications cannot arrive) makes the cache untrusted within a second:
// a revocation that no notification announces still fails every request
// that starts a second after the listener went quiet.
func TestStalledListenerStopsTheCache(t *testing.T) {
	ctx := context.Background()
	app, admin, tn, key := cachedApp(t, "stalled-cache.example")
	var pid int
	if err := admin.DB().GetContext(ctx, &pid, `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND usename = $2`,
		store.AuthListenerName, store.AppRole); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	defer syscall.Kill(pid, syscall.SIGCONT) //nolint:errcheck
	revokeUnannounced(t, admin, tn.ID)
	for {
		start := time.Now()
		_, err := app.Authenticate(ctx, "stalled-cache.example", store.HashKey(key))
		if errors.Is(err, store.ErrUnauthenticated) {
			t.Logf("refused %v after the listener stalled", start.Sub(stopped))
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if start.Sub(stopped) >= time.Second {
			t.Fatalf("a request %v after the listener stalled was answered from the cache", start.Sub(stopped))
		}
		time.Sleep(5 * time.Millisecond)
	}
}
