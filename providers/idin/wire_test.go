package idin

import (
	"encoding/json"
	"testing"
)

// A status answer in the shape of CM's documented example (house_number
// as a number) decodes into Attributes.
func TestStatusResponseDecodes(t *testing.T) {
	const body = `{"status":"success","transaction_id":"1000200030004000","transaction_reference":"ref-1",
		"issuer_id":"RABONL2U","bin":"NLRABOabc123",
		"name":{"gender":"female","initials":"AB","last_name":"Dijk","last_name_prefix":"van"},
		"address":{"street":"Laan","house_number":12,"house_number_suffix":"a","postal_code":"1234AB","city":"Utrecht","country":"nl"},
		"age":{"date_of_birth":"19800229","18y_or_older":true},
		"telephone_number":"+31600000000","email_address":"a@example.com"}`
	var r statusResponse
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatal(err)
	}
	a := r.attributes()
	if a == nil {
		t.Fatal("no attributes")
	}
	if a.BIN != "NLRABOabc123" || a.Gender != GenderFemale || a.LegalLastName != "Dijk" || a.LegalLastNamePrefix != "van" ||
		a.HouseNumber != "12" || a.CountryCode != "NL" || a.DateOfBirth != "1980-02-29" || a.Is18OrOlder == nil || !*a.Is18OrOlder ||
		a.Telephone != "+31600000000" || a.Email != "a@example.com" {
		t.Errorf("attributes: %+v", a)
	}
}

func TestStatusResponseWithoutData(t *testing.T) {
	var r statusResponse
	if err := json.Unmarshal([]byte(`{"status":"success","transaction_id":1,"notice":"gone","notice_code":3}`), &r); err != nil {
		t.Fatal(err)
	}
	if a := r.attributes(); a != nil {
		t.Errorf("attributes from an answer without data: %+v", a)
	}
	if r.TransactionID != "1" || r.NoticeCode != "3" {
		t.Errorf("numbers as text: %q %q", r.TransactionID, r.NoticeCode)
	}
}

func TestParseGender(t *testing.T) {
	for in, want := range map[string]string{
		"1": GenderMale, "2": GenderFemale, "0": GenderUnknown, "9": GenderNotApplicable,
		"male": GenderMale, "Female": GenderFemale, "unknown": GenderUnknown, "not_applicable": GenderNotApplicable,
		"x": GenderUnknown, "": "",
	} {
		if got := parseGender(in); got != want {
			t.Errorf("parseGender(%q) = %q, want %q", in, got, want)
		}
	}
	// iDIN's code may arrive as a JSON number.
	var r statusResponse
	if err := json.Unmarshal([]byte(`{"status":"success","name":{"gender":9}}`), &r); err != nil {
		t.Fatal(err)
	}
	if a := r.attributes(); a == nil || a.Gender != GenderNotApplicable {
		t.Errorf("numeric gender: %+v", a)
	}
}

func TestNormalizeDate(t *testing.T) {
	for in, want := range map[string]string{
		"1970-01-01":          "1970-01-01",
		"19700101":            "1970-01-01",
		"19700000":            "1970-00-00", // partly unknown: zeros kept
		"1970-05":             "1970-05",    // partial: kept as given
		"1970":                "1970",
		"1970-01-01T00:00:00": "1970-01-01",
		" 1970-01-01 ":        "1970-01-01",
	} {
		if got := normalizeDate(in); got != want {
			t.Errorf("normalizeDate(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseStatus(t *testing.T) {
	for in, want := range map[string]Status{
		"open": StatusOpen, "pending": StatusPending, "success": StatusSuccess, "SUCCESS": StatusSuccess,
		"cancelled": StatusCancelled, "canceled": StatusCancelled, "expired": StatusExpired,
		"failure": StatusFailure, "failed": StatusFailure,
	} {
		if got, ok := parseStatus(in); !ok || got != want {
			t.Errorf("parseStatus(%q) = %q, %v", in, got, ok)
		}
	}
	if _, ok := parseStatus("done"); ok {
		t.Error("unknown status accepted")
	}
	if StatusOpen.Final() || StatusPending.Final() || !StatusExpired.Final() {
		t.Error("Final")
	}
}
