package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// Through the API, names asked the way they are built: a kunya by its
// first half and the nisba ("Abu al-Zawqari" for Abu Hafs al-Zawqari), a
// title and a rare name ("Haji Qandorzai" for Haji Bashir Qandorzai) —
// each alerts with an explanation a compliance officer can follow; a title
// and a common given name alerts on neither.
func TestScreenNameStructure(t *testing.T) {
	namedList(t, "structuretest",
		`{"id":"NK-struct-zawqari","schema":"Person","properties":{"name":["Abu Hafs al-Zawqari"],"topics":["sanction"]},"datasets":["structure"]}`,
		`{"id":"NK-struct-qandorzai","schema":"Person","properties":{"name":["Haji Bashir Qandorzai"],"topics":["sanction"]},"datasets":["structure"]}`)
	tn := hookTenant(t, false)
	r := request(t, tn, http.MethodPost, "/api/v1/screen", map[string]any{"queries": []map[string]any{
		{"name": "Abu al-Zawqari"}, {"name": "Haji Qandorzai"}, {"name": "Haji Bashir"},
	}}).want(t, http.StatusOK)
	results := r.body["results"].([]any)
	for i, want := range []struct{ entity, explained string }{
		{"NK-struct-zawqari", "kunya or compound name 'Abu Hafs' asked by its first half"},
		{"NK-struct-qandorzai", "the query is a title and one name few listed people have"},
	} {
		res := obj(results[i])
		hits, _ := res["hits"].([]any)
		if res["alerting"] != true || len(hits) == 0 || obj(hits[0])["entity_id"] != want.entity ||
			!strings.Contains(strings.Join(strs(obj(hits[0])["explanation"]), "\n"), want.explained) {
			t.Errorf("query %d: %v", i, res)
		}
	}
	for _, h := range obj(results[2])["hits"].([]any) {
		if obj(h)["alerting"] == true {
			t.Errorf("a title and a given name alerts: %v", h)
		}
	}
}

func strs(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}
