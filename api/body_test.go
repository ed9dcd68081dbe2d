package api

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
)

func bodyRequest(body, contentType string) echo.Context {
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	if contentType != "" {
		req.Header.Set(echo.HeaderContentType, contentType)
	}
	return echo.New().NewContext(req, httptest.NewRecorder())
}

func TestReadBody(t *testing.T) {
	cases := []struct {
		name, body, ct string
		want           *apiError
	}{
		{"object", `{"a":1}`, "application/json", nil},
		{"charset", `{"a":1}`, "application/json; charset=utf-8", nil},
		{"vendor json", `{"a":1}`, "application/vnd.api+json", nil},
		{"empty is an empty object", ``, "", nil},
		{"array", `[1]`, "application/json", errMalformed},
		{"string", `"x"`, "application/json", errMalformed},
		{"truncated", `{"a":`, "application/json", errMalformed},
		{"trailing data", `{"a":1} {}`, "application/json", errMalformed},
		{"not json", `name=x`, "application/x-www-form-urlencoded", errMediaType},
		{"too large", `{"a":"` + strings.Repeat("x", maxBody) + `"}`, "application/json", errTooLarge},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := readBody(bodyRequest(c.body, c.ct))
			if c.want == nil && err != nil {
				t.Fatalf("unexpected %v", err)
			}
			if c.want != nil && !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
		})
	}
}

func TestCursor(t *testing.T) {
	id := uuid.Must(uuid.NewV7())
	for _, next := range []bool{true, false} {
		got, ok := decodeCursor(cursor{ID: id, Next: next}.encode())
		if !ok || got.ID != id || got.Next != next {
			t.Fatalf("round trip: %+v %v", got, ok)
		}
	}
	for _, bad := range []string{"x", "%%%", "eyJpZCI6MX0", "e30", "bnVsbA"} {
		if _, ok := decodeCursor(bad); ok {
			t.Errorf("accepted cursor %q", bad)
		}
	}
}
