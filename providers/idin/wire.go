package idin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// CM's JSON, field for field as documented at developers.cm.com (see the
// package comment); only what kycflow reads is declared.

type directoryRequest struct {
	MerchantToken string `json:"merchant_token"`
}

// directoryGroup is one element of the directory answer: banks by country.
type directoryGroup struct {
	Country string `json:"country"`
	Issuers []struct {
		IssuerID   string `json:"issuer_id"`
		IssuerName string `json:"issuer_name"`
	} `json:"issuers"`
}

// transactionRequest always sends every flag: CM's swagger marks them
// required (non-null), so false is spelled out.
type transactionRequest struct {
	MerchantToken        string `json:"merchant_token"`
	Identity             bool   `json:"identity"`
	Name                 bool   `json:"name"`
	Gender               bool   `json:"gender"`
	Address              bool   `json:"address"`
	DateOfBirth          bool   `json:"date_of_birth"`
	Over18               bool   `json:"18y_or_older"`
	EmailAddress         bool   `json:"email_address"`
	TelephoneNumber      bool   `json:"telephone_number"`
	IssuerID             string `json:"issuer_id"`
	EntranceCode         string `json:"entrance_code"`
	MerchantReturnURL    string `json:"merchant_return_url"`
	Language             string `json:"language"`
	TransactionReference string `json:"transaction_reference,omitempty"`
}

type transactionResponse struct {
	TransactionID           flexString `json:"transaction_id"`
	IssuerAuthenticationURL string     `json:"issuer_authentication_url"`
	MerchantReference       string     `json:"merchant_reference"`
}

// statusRequest: CM's current docs ask for merchant_reference too; CM's
// own swagger client sends only transaction_id, so it is left out when
// unknown.
type statusRequest struct {
	MerchantToken     string `json:"merchant_token"`
	TransactionID     string `json:"transaction_id"`
	MerchantReference string `json:"merchant_reference,omitempty"`
}

type statusResponse struct {
	Status               string     `json:"status"`
	TransactionID        flexString `json:"transaction_id"`
	TransactionReference string     `json:"transaction_reference"`
	IssuerID             string     `json:"issuer_id"`
	BIN                  string     `json:"bin"`
	Name                 *struct {
		Gender         flexString `json:"gender"`
		Initials       string     `json:"initials"`
		LastName       string     `json:"last_name"`
		LastNamePrefix string     `json:"last_name_prefix"`
		// Not in CM's docs; iDIN has a preferred last name and other
		// brokers name it so. Read if present, never required.
		PreferredLastName string `json:"preferred_last_name"`
	} `json:"name"`
	Address *struct {
		Street            string     `json:"street"`
		HouseNumber       flexString `json:"house_number"` // a number in CM's example, a string in its swagger
		HouseNumberSuffix string     `json:"house_number_suffix"`
		PostalCode        string     `json:"postal_code"`
		City              string     `json:"city"`
		Country           string     `json:"country"`
	} `json:"address"`
	Age *struct {
		DateOfBirth string `json:"date_of_birth"`
		Over18      *bool  `json:"18y_or_older"`
	} `json:"age"`
	TelephoneNumber string     `json:"telephone_number"`
	EmailAddress    string     `json:"email_address"`
	Notice          string     `json:"notice"`
	NoticeCode      flexString `json:"notice_code"`
}

// flexString reads a JSON string, number or boolean as text, and null as
// "": CM's examples and its swagger disagree on some types.
type flexString string

// UnmarshalJSON implements json.Unmarshaler.
func (f *flexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*f = ""
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexString(s)
	case bytes.Equal(b, []byte("true")), bytes.Equal(b, []byte("false")):
		*f = flexString(b)
	default:
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			return fmt.Errorf("want a string or number, got %s", b)
		}
		*f = flexString(n.String())
	}
	return nil
}

// parseStatus maps CM's status spellings; ok is false for one it does not know.
func parseStatus(s string) (Status, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "open":
		return StatusOpen, true
	case "pending":
		return StatusPending, true
	case "success":
		return StatusSuccess, true
	case "cancelled", "canceled":
		return StatusCancelled, true
	case "expired":
		return StatusExpired, true
	case "failure", "failed":
		return StatusFailure, true
	}
	return "", false
}

// parseGender maps iDIN's ISO 5218 codes and CM's words ("male", "female")
// to the Gender constants; "" stays "" (not delivered).
func parseGender(s string) string {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		return ""
	case "1", "male", "m":
		return GenderMale
	case "2", "female", "f", "v":
		return GenderFemale
	case "9", "not_applicable", "not applicable", "not_specified":
		return GenderNotApplicable
	}
	return GenderUnknown
}

// normalizeDate turns iDIN's YYYYMMDD into YYYY-MM-DD and cuts a time off
// an ISO date-time; anything else (a partial date such as "1970" or
// "1970-05") is kept as given, since guessing the missing parts would
// invent data.
func normalizeDate(s string) string {
	s = strings.TrimSpace(s)
	if len(s) == 8 && allDigits(s) {
		return s[:4] + "-" + s[4:6] + "-" + s[6:]
	}
	if len(s) > 10 && s[10] == 'T' && allDigits(s[:4]) && s[4] == '-' && s[7] == '-' {
		return s[:10]
	}
	return s
}

func allDigits(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// attributes extracts the person's data; nil when the answer carries none.
func (r *statusResponse) attributes() *Attributes {
	a := &Attributes{
		BIN:       strings.TrimSpace(r.BIN),
		Email:     strings.TrimSpace(r.EmailAddress),
		Telephone: strings.TrimSpace(r.TelephoneNumber),
	}
	if n := r.Name; n != nil {
		a.Initials = strings.TrimSpace(n.Initials)
		a.LegalLastName = strings.TrimSpace(n.LastName)
		a.LegalLastNamePrefix = strings.TrimSpace(n.LastNamePrefix)
		a.PreferredLastName = strings.TrimSpace(n.PreferredLastName)
		a.Gender = parseGender(string(n.Gender))
	}
	if ad := r.Address; ad != nil {
		a.Street = strings.TrimSpace(ad.Street)
		a.HouseNumber = strings.TrimSpace(string(ad.HouseNumber))
		a.HouseNumberSuffix = strings.TrimSpace(ad.HouseNumberSuffix)
		a.PostalCode = strings.TrimSpace(ad.PostalCode)
		a.City = strings.TrimSpace(ad.City)
		a.CountryCode = strings.ToUpper(strings.TrimSpace(ad.Country))
	}
	if ag := r.Age; ag != nil {
		a.DateOfBirth = normalizeDate(ag.DateOfBirth)
		if ag.Over18 != nil {
			v := *ag.Over18
			a.Is18OrOlder = &v
		}
	}
	if *a == (Attributes{}) {
		return nil
	}
	return a
}
