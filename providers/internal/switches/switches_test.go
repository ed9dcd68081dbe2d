package switches

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestTimedAndHandler(t *testing.T) {
	var outage Timed[string]
	if _, on := outage.Get(); on {
		t.Fatal("zero value holds")
	}
	h := Handler("error", "MS_UNAVAILABLE", func(s string) bool { return s != "BAD" }, outage.Set)
	post := func(body string) int {
		w := httptest.NewRecorder()
		h(w, httptest.NewRequest(http.MethodPost, "/sandbox/outage", strings.NewReader(body)))
		return w.Code
	}
	if code := post(`{"error":"MS_UNAVAILABLE","seconds":60}`); code != http.StatusNoContent {
		t.Fatalf("set: %d", code)
	}
	if v, on := outage.Get(); !on || v != "MS_UNAVAILABLE" {
		t.Fatalf("after set: %q %v", v, on)
	}
	for _, bad := range []string{`{`, `{"error":1,"seconds":1}`, `{"error":"BAD","seconds":1}`, `{"error":"X"}`} {
		if code := post(bad); code != http.StatusBadRequest {
			t.Errorf("%s: %d", bad, code)
		}
	}
	outage.Set("", 0)
	if _, on := outage.Get(); on {
		t.Fatal("ended outage holds")
	}
	outage.Set("TIMEOUT", time.Millisecond)
	time.Sleep(5 * time.Millisecond)
	if _, on := outage.Get(); on {
		t.Fatal("expired value holds")
	}
}
