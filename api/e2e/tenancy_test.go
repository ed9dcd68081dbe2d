package e2e

import (
	"net/http"
	"testing"
	"time"
)

func TestTenantIsolation(t *testing.T) {
	biz := createBusiness(t, env.a, "NL91ABNA0417164300", map[string]bool{"coc": false, "vat": false, "iban": true}).body["id"].(string)
	chk := waitCheck(t, env.a, "/api/v1/businesses/"+biz, "iban", 5*time.Second)
	path := "/api/v1/businesses/" + biz

	// B's key on A's host, no key, a wrong scheme: 401.
	requestWith(t, http.MethodGet, path, env.a.host, "Bearer "+env.b.key, "", nil).want(t, http.StatusUnauthorized)
	requestWith(t, http.MethodGet, path, env.a.host, "", "", nil).want(t, http.StatusUnauthorized)
	requestWith(t, http.MethodGet, path, env.a.host, "Basic "+env.a.key, "", nil).want(t, http.StatusUnauthorized)
	r := requestWith(t, http.MethodGet, path, env.a.host, "Bearer kyc_live_00000000000000000000000000000000", "", nil).want(t, http.StatusUnauthorized)
	if r.body["message"] != "Unauthenticated." {
		t.Fatalf("401 body %s", r.raw)
	}
	// An unknown host: 404 Unknown tenant, whatever the key.
	r = requestWith(t, http.MethodGet, path, "nobody.test", "Bearer "+env.a.key, "", nil).want(t, http.StatusNotFound)
	if r.body["message"] != "Unknown tenant." {
		t.Fatalf("unknown host body %s", r.raw)
	}
	// The host's port does not matter.
	requestWith(t, http.MethodGet, path, env.a.host+":8443", "Bearer "+env.a.key, "", nil).want(t, http.StatusOK)

	// B, properly authenticated, cannot see or touch A's records.
	request(t, env.b, http.MethodGet, path, nil).want(t, http.StatusNotFound)
	request(t, env.b, http.MethodPost, path+"/check", map[string]any{"type": []string{"iban"}}).want(t, http.StatusNotFound)
	request(t, env.b, http.MethodDelete, path+"/delete", nil).want(t, http.StatusNotFound)
	request(t, env.b, http.MethodPost, "/api/v1/checks/"+chk["id"].(string)+"/retry", nil).want(t, http.StatusNotFound)
	for _, list := range []string{"/api/v1/businesses?per_page=100", "/api/v1/customers?per_page=100&business_id=" + biz} {
		for _, it := range request(t, env.b, http.MethodGet, list, nil).body["data"].([]any) {
			if obj(it)["id"] == biz {
				t.Fatalf("%s shows tenant A's business to tenant B", list)
			}
		}
	}
	r = request(t, env.b, http.MethodPost, "/api/v1/customers/create", map[string]any{
		"name": "X", "email": "x@example.com", "country_code": "NLD", "business_id": biz,
		"checks": map[string]bool{"idin": false, "idscan": false, "iban": false},
	}).want(t, http.StatusUnprocessableEntity)
	if obj(r.body["errors"])["business_id"] == nil {
		t.Fatalf("cross-tenant business_id: %s", r.raw)
	}
	// A still sees its business, unchanged.
	request(t, env.a, http.MethodGet, path, nil).want(t, http.StatusOK)
}

func TestRevokedAndRotatedKeys(t *testing.T) {
	ctx := t.Context()
	tn, err := newTenant(ctx, "Rotation", "rotation.test")
	if err != nil {
		t.Fatal(err)
	}
	request(t, tn, http.MethodGet, "/api/v1/businesses", nil).want(t, http.StatusOK)
	newKey, _, err := env.admin.CreateKey(ctx, mustUUID(t, tn.id))
	if err != nil {
		t.Fatal(err)
	}
	if err := env.admin.RevokeKey(ctx, mustUUID(t, tn.id), tn.key[:13]); err != nil {
		t.Fatal(err)
	}
	// The api caches authentications; a revocation reaches it within a
	// second (normally milliseconds): no request sent later may pass.
	revoked := time.Now()
	for {
		sent := time.Now()
		r := request(t, tn, http.MethodGet, "/api/v1/businesses", nil)
		if r.status == http.StatusUnauthorized {
			break
		}
		if r.status != http.StatusOK || sent.Sub(revoked) >= time.Second {
			t.Fatalf("%v after the revocation: %d, want 401", sent.Sub(revoked), r.status)
		}
		time.Sleep(10 * time.Millisecond)
	}
	tn.key = newKey
	request(t, tn, http.MethodGet, "/api/v1/businesses", nil).want(t, http.StatusOK)
}
