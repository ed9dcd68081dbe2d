package loadtest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kycflow/kycflow/engines/screeneval"
)

// The comparison asks watchman what its /v2/search takes, and counts a
// case found only for the entity it names at the minimum match or more
// (any person, for a case that names no one).
func TestWatchmanFinds(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		got = append(got, r.URL.Path+" "+q.Get("name")+" "+q.Get("type")+" "+q.Get("limit")+" "+q.Get("minMatch"))
		// As watchman v0.60 answers, trimmed to what is read.
		w.Write([]byte(`{"query":{"name":"Abu Zubaydah","type":"person"},"entities":[
			{"name":"ABU ZUBAYDAH","entityType":"person","sourceList":"us_ofac","sourceID":"6366","match":0.91},
			{"name":"ZUBAYDAH, Abu","entityType":"person","sourceList":"us_ofac","sourceID":"7001","match":0.62}]}`))
	}))
	defer srv.Close()
	w := &watchman{base: srv.URL, min: 0.65, http: srv.Client()}
	for _, c := range []struct {
		id   string
		want bool
	}{{"ofac-6366", true}, {"ofac-7001", false}, {"ofac-1", false}, {"un-6366", false}, {"", true}} {
		found, err := w.finds(context.Background(), screeneval.Case{Name: "Abu Zubaydah", WantID: c.id})
		if err != nil {
			t.Fatal(err)
		}
		if found != c.want {
			t.Errorf("%s: found %v, want %v", c.id, found, c.want)
		}
	}
	if want := "/v2/search Abu Zubaydah person 10 0.65"; got[0] != want {
		t.Errorf("asked %q, want %q", got[0], want)
	}
}
