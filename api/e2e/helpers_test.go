package e2e

import (
	"encoding/json"
	"testing"

	"github.com/google/uuid"
)

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustUUID(t *testing.T, s string) uuid.UUID {
	t.Helper()
	id, err := uuid.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// field returns the raw JSON of an object's field, keeping its key order.
func field(t *testing.T, raw []byte, key string) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m[key]
}

// index returns the raw JSON of an array's element.
func index(t *testing.T, raw []byte, i int) []byte {
	t.Helper()
	var a []json.RawMessage
	if err := json.Unmarshal(raw, &a); err != nil || i >= len(a) {
		t.Fatalf("no element %d in %s", i, raw)
	}
	return a[i]
}
