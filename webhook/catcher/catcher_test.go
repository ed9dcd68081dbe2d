package catcher

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kycflow/kycflow/webhook"
)

func TestCatcher(t *testing.T) {
	c := New()
	secret := webhook.NewSecret()
	c.AddSecret("demo endpoint", secret)
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	post := func(path string, body []byte, sig string) int {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+path, bytes.NewReader(body))
		req.Header.Set(webhook.HeaderEventID, "ev1")
		req.Header.Set(webhook.HeaderEventType, "check.completed")
		req.Header.Set(webhook.HeaderSignature, sig)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	body := []byte(`{"id":"ev1","type":"check.completed"}`)
	if code := post("/hooks/demo", body, webhook.Sign(time.Now(), body, []byte(secret))); code != 200 {
		t.Fatalf("answered %d", code)
	}
	other := webhook.NewSecret()
	if code := post("/hooks/demo/status/503", body, webhook.Sign(time.Now(), body, []byte(other))); code != 503 {
		t.Fatalf("status path answered %d", code)
	}
	got := c.Received()
	if len(got) != 2 || got[1].Seq != 1 || !got[1].Verified || got[1].VerifiedWith != "demo endpoint" || got[1].EventType != "check.completed" {
		t.Fatalf("first: %+v", got)
	}
	if got[0].Verified || !strings.Contains(got[0].Problem, "no signature matches") || got[0].Answered != 503 {
		t.Fatalf("second: %+v", got[0])
	}
	// Teaching it the other secret verifies what comes next.
	resp, err := http.PostForm(srv.URL+"/secrets", url.Values{"secret": {other}, "label": {"mine"}})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("add secret: %v %v", resp, err)
	}
	resp.Body.Close()
	post("/hooks/mine", body, webhook.Sign(time.Now(), body, []byte(other)))
	if r := c.Received()[0]; !r.Verified || r.VerifiedWith != "mine" {
		t.Fatalf("after adding: %+v", r)
	}
	resp, err = http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"✓ verified", "✗ not verified", "check.completed", "demo endpoint, mine"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
