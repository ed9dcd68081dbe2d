package sandbox

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func newSandbox(t *testing.T, tokens ...string) (*Server, *httptest.Server) {
	t.Helper()
	s := New(tokens...)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return s, srv
}

// call POSTs body as JSON to path and returns the status and decoded answer.
func call(t *testing.T, srv *httptest.Server, path string, body any) (int, map[string]any) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(srv.URL+path, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if len(raw) > 0 && raw[0] == '{' {
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s: %v\n%s", path, err, raw)
		}
	}
	return resp.StatusCode, out
}

// txBody is a valid transaction request; extra fields are merged in.
func txBody(extra map[string]any) map[string]any {
	b := map[string]any{
		"merchant_token": TestMerchantToken, "identity": true, "name": true, "gender": true, "address": true,
		"date_of_birth": true, "18y_or_older": true, "email_address": true, "telephone_number": true,
		"issuer_id": "BANKNL2Y", "entrance_code": "abcDEF123", "merchant_return_url": "https://merchant.example/return",
		"language": "nl", "transaction_reference": "ref-7",
	}
	for k, v := range extra {
		b[k] = v
	}
	return b
}

// startTx starts a transaction and returns CM's answer.
func startTx(t *testing.T, srv *httptest.Server, extra map[string]any) map[string]any {
	t.Helper()
	code, out := call(t, srv, BasePath+"/transaction", txBody(extra))
	if code != http.StatusOK {
		t.Fatalf("transaction: %d %v", code, out)
	}
	return out
}

func status(t *testing.T, srv *httptest.Server, id string) map[string]any {
	t.Helper()
	code, out := call(t, srv, BasePath+"/status", map[string]any{"merchant_token": TestMerchantToken, "transaction_id": id})
	if code != http.StatusOK {
		t.Fatalf("status: %d %v", code, out)
	}
	return out
}

func TestAPIPaths(t *testing.T) {
	s, srv := newSandbox(t)
	for _, prefix := range []string{"", "/idin/v1.0", BasePath} {
		resp, err := http.Post(srv.URL+prefix+"/directory", "application/json", strings.NewReader(`{"merchant_token":"`+TestMerchantToken+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		var groups []directoryGroup
		err = json.NewDecoder(resp.Body).Decode(&groups)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || err != nil || len(groups) != 2 || groups[0].Issuers[0].IssuerID != "BANKNL2Y" {
			t.Errorf("%q: %d %v %+v", prefix, resp.StatusCode, err, groups)
		}
	}
	if s.Calls() != 3 {
		t.Errorf("calls = %d", s.Calls())
	}
	resp, err := http.Get(srv.URL + BasePath + "/directory")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET directory: %d", resp.StatusCode)
	}
}

func TestAPIRefusesUnknownToken(t *testing.T) {
	_, srv := newSandbox(t)
	const wrong = "0badbad0-0000-4000-8000-000000000000"
	code, out := call(t, srv, BasePath+"/directory", map[string]any{"merchant_token": wrong})
	if code != http.StatusForbidden || out["status"] != float64(403) || out["code"] == nil || out["message"] == "" {
		t.Fatalf("%d %v", code, out)
	}
	if strings.Contains(out["message"].(string), wrong) {
		t.Error("error echoes the token")
	}
	code, _ = call(t, srv, BasePath+"/transaction", txBody(map[string]any{"merchant_token": ""}))
	if code != http.StatusForbidden {
		t.Errorf("no token: %d", code)
	}
}

func TestAPITransactionValidation(t *testing.T) {
	s, srv := newSandbox(t)
	tests := map[string]map[string]any{
		"issuer pattern":   {"issuer_id": "bank"},
		"unknown issuer":   {"issuer_id": "INGBNL2A"},
		"entrance code":    {"entrance_code": "has space"},
		"long code":        {"entrance_code": strings.Repeat("a", 41)},
		"return URL":       {"merchant_return_url": "/relative"},
		"language":         {"language": "de"},
		"nothing":          {"identity": false, "name": false, "gender": false, "address": false, "date_of_birth": false, "18y_or_older": false, "email_address": false, "telephone_number": false},
		"preset date":      {"sandbox_attributes": map[string]any{"age": map[string]any{"date_of_birth": "14-07-1985"}}},
		"preset gender":    {"sandbox_attributes": map[string]any{"name": map[string]any{"gender": "x"}}},
		"preset bin":       {"sandbox_attributes": map[string]any{"bin": "NL"}},
		"not a JSON shape": {"identity": "yes"},
	}
	for name, extra := range tests {
		code, out := call(t, srv, BasePath+"/transaction", txBody(extra))
		if code != http.StatusBadRequest || out["status"] != float64(400) {
			t.Errorf("%s: %d %v", name, code, out)
		}
	}
	s.mu.Lock()
	n := len(s.txs)
	s.mu.Unlock()
	if n != 0 {
		t.Errorf("%d transactions stored from invalid requests", n)
	}
}

func TestAPITransactionAnswer(t *testing.T) {
	s, srv := newSandbox(t)
	out := startTx(t, srv, nil)
	id, _ := out["transaction_id"].(string)
	if len(id) != 16 || strings.Trim(id, "0123456789") != "" || out["merchant_reference"] == "" {
		t.Errorf("answer: %v", out)
	}
	if out["issuer_authentication_url"] != srv.URL+"/bank/"+id {
		t.Errorf("issuer_authentication_url %v", out["issuer_authentication_url"])
	}
	s.SetPublicURL("https://sandbox.example:8443/idin/")
	out = startTx(t, srv, nil)
	if out["issuer_authentication_url"] != "https://sandbox.example:8443/idin/bank/"+out["transaction_id"].(string) {
		t.Errorf("with public URL: %v", out["issuer_authentication_url"])
	}
}

func TestAPIStatus(t *testing.T) {
	s, srv := newSandbox(t, TestMerchantToken, "other")
	tx := startTx(t, srv, nil)
	id := tx["transaction_id"].(string)
	st := status(t, srv, id)
	if st["status"] != "open" || st["transaction_id"] != id || st["issuer_id"] != "BANKNL2Y" || st["transaction_reference"] != "ref-7" || st["bin"] != nil {
		t.Errorf("open: %v", st)
	}
	for name, body := range map[string]map[string]any{
		"unknown id":      {"merchant_token": TestMerchantToken, "transaction_id": "1"},
		"wrong reference": {"merchant_token": TestMerchantToken, "transaction_id": id, "merchant_reference": "nope"},
		"other merchant":  {"merchant_token": "other", "transaction_id": id},
	} {
		if code, out := call(t, srv, BasePath+"/status", body); code != http.StatusNotFound {
			t.Errorf("%s: %d %v", name, code, out)
		}
	}
	code, _ := call(t, srv, BasePath+"/status", map[string]any{"merchant_token": TestMerchantToken, "transaction_id": id, "merchant_reference": tx["merchant_reference"]})
	if code != http.StatusOK {
		t.Errorf("right reference: %d", code)
	}

	complete(t, s, id, "success")
	first := status(t, srv, id)
	name, _ := first["name"].(map[string]any)
	address, _ := first["address"].(map[string]any)
	age, _ := first["age"].(map[string]any)
	if first["status"] != "success" || name["last_name"] != "Berg" || name["gender"] != "male" ||
		address["house_number"] != float64(42) || age["18y_or_older"] != true || first["notice"] != nil {
		t.Errorf("success: %v", first)
	}
	// Personal data once, as CM does.
	second := status(t, srv, id)
	if second["status"] != "success" || second["bin"] != nil || second["name"] != nil || second["notice"] == nil || second["notice_code"] != float64(noticeDelivered) {
		t.Errorf("second: %v", second)
	}
}

// Without the identity group the BIN is a throwaway, and unrequested
// groups are absent.
func TestAPIOnlyRequestedGroups(t *testing.T) {
	s, srv := newSandbox(t)
	only18 := map[string]any{"identity": false, "name": false, "gender": false, "address": false,
		"date_of_birth": false, "email_address": false, "telephone_number": false}
	id := startTx(t, srv, only18)["transaction_id"].(string)
	complete(t, s, id, "success")
	st := status(t, srv, id)
	age, _ := st["age"].(map[string]any)
	if age["18y_or_older"] != true || age["date_of_birth"] != nil || st["name"] != nil || st["address"] != nil ||
		st["email_address"] != nil || st["telephone_number"] != nil {
		t.Errorf("age only: %v", st)
	}
	s.mu.Lock()
	kept := s.txs[id].person.BIN
	s.mu.Unlock()
	if bin, _ := st["bin"].(string); bin == "" || bin == kept {
		t.Errorf("BIN without identity %q should be fresh (prefilled %q)", bin, kept)
	}
}

func TestOutageSwitch(t *testing.T) {
	s, srv := newSandbox(t)
	id := startTx(t, srv, nil)["transaction_id"].(string)
	resp, err := http.Post(srv.URL+"/sandbox/outage", "application/json", strings.NewReader(`{"status":503,"seconds":60}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("switch: %d", resp.StatusCode)
	}
	for _, path := range []string{"/directory", "/transaction", "/status"} {
		code, out := call(t, srv, BasePath+path, txBody(map[string]any{"transaction_id": id}))
		if code != http.StatusServiceUnavailable || out["status"] != float64(503) {
			t.Errorf("%s during outage: %d %v", path, code, out)
		}
	}
	// The bank page is not the API: it stays up.
	if resp, err := http.Get(srv.URL + "/bank/" + id); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("bank page during outage: %v %v", resp.StatusCode, err)
	} else {
		resp.Body.Close()
	}
	resp, err = http.Post(srv.URL+"/sandbox/outage", "application/json", strings.NewReader(`{"status":0,"seconds":0}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if code, _ := call(t, srv, BasePath+"/status", map[string]any{"merchant_token": TestMerchantToken, "transaction_id": id}); code != http.StatusOK {
		t.Errorf("after the outage: %d", code)
	}
	if s.Calls() != 5 {
		t.Errorf("calls = %d, want 5", s.Calls())
	}

	// Malformed switch requests are refused.
	for _, body := range []string{`{"status":200,"seconds":60}`, `{"status":503}`, `nonsense`} {
		resp, err := http.Post(srv.URL+"/sandbox/outage", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("switch %s: %d", body, resp.StatusCode)
		}
	}

	// An outage ends by itself when its time is up.
	s.Fail(http.StatusTooManyRequests, 300*time.Millisecond)
	if code, _ := call(t, srv, BasePath+"/directory", map[string]any{"merchant_token": TestMerchantToken}); code != http.StatusTooManyRequests {
		t.Errorf("during: %d", code)
	}
	time.Sleep(400 * time.Millisecond)
	if code, _ := call(t, srv, BasePath+"/directory", map[string]any{"merchant_token": TestMerchantToken}); code != http.StatusOK {
		t.Errorf("after: %d", code)
	}
}

func TestHouseNumberJSON(t *testing.T) {
	for in, want := range map[houseNumber]string{"42": `42`, "042": `"042"`, "12a": `"12a"`, "": `""`} {
		b, err := json.Marshal(in)
		if err != nil || string(b) != want {
			t.Errorf("%q → %s %v, want %s", in, b, err, want)
		}
	}
	var w wireAddress
	if err := json.Unmarshal([]byte(`{"house_number":7}`), &w); err != nil || w.HouseNumber != "7" {
		t.Errorf("number: %q %v", w.HouseNumber, err)
	}
	if err := json.Unmarshal([]byte(`{"house_number":"7b"}`), &w); err != nil || w.HouseNumber != "7b" {
		t.Errorf("string: %q %v", w.HouseNumber, err)
	}
}

func TestOldTransactionsForgotten(t *testing.T) {
	s, srv := newSandbox(t)
	old := startTx(t, srv, nil)["transaction_id"].(string)
	s.mu.Lock()
	s.txs[old].created = time.Now().Add(-keepFor - time.Minute)
	s.mu.Unlock()
	startTx(t, srv, nil)
	if code, _ := call(t, srv, BasePath+"/status", map[string]any{"merchant_token": TestMerchantToken, "transaction_id": old}); code != http.StatusNotFound {
		t.Errorf("a day-old transaction is still known: %d", code)
	}
}
