// Package vies checks EU VAT numbers: offline (format and check digits per
// member state, vat.go) and online against the European Commission's VIES
// REST service (this file), whose consultation number is the legal evidence
// of a check.
package vies

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/kycflow/kycflow/providers/internal/httpfail"
)

// DefaultBaseURL is VIES's REST API; the sandbox speaks the same protocol.
const DefaultBaseURL = "https://ec.europa.eu/taxation_customs/vies/rest-api"

// Client calls VIES's `check-vat-number`.
type Client struct {
	BaseURL string
	HTTP    *http.Client // nil: a client with a 30s timeout
}

// Requester identifies the party asking; with it VIES returns a
// requestIdentifier (consultation number).
type Requester struct {
	MemberStateCode string
	Number          string
}

// Trader holds optional data VIES matches against its register.
type Trader struct {
	Name, Street, PostalCode, City, CompanyType string
}

// Request is one consultation.
type Request struct {
	CountryCode string // VIES prefix (EL for Greece, XI for Northern Ireland)
	VATNumber   string // national part, compact
	Requester   *Requester
	Trader      *Trader
	// TestService asks VIES's test service (check-vat-test-service), which
	// answers only its published test numbers (100, 200, 201–601).
	TestService bool
}

// Result is VIES's answer. Name and Address are "" where VIES gives "---".
type Result struct {
	CountryCode       string `json:"countryCode"`
	VATNumber         string `json:"vatNumber"`
	RequestDate       string `json:"requestDate"`
	Valid             bool   `json:"valid"`
	RequestIdentifier string `json:"requestIdentifier"`
	Name              string `json:"name"`
	Address           string `json:"address"`
	TraderNameMatch   string `json:"traderNameMatch,omitempty"`
	TraderStreetMatch string `json:"traderStreetMatch,omitempty"`
	TraderCityMatch   string `json:"traderCityMatch,omitempty"`
}

// Error is a VIES error code (`errorWrappers[].error`) or a transport failure.
type Error struct {
	Code    string // e.g. MS_UNAVAILABLE; HTTP_<status>, or TRANSPORT, TIMEOUT, TLS or CANCELED when VIES gave no answer
	Message string
	Status  int // HTTP status, 0 for transport failures
	// RetryAfter is VIES's Retry-After hint, 0 when it gave none.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	if e.Message == "" {
		return "vies: " + e.Code
	}
	return "vies: " + e.Code + ": " + e.Message
}

// retryable are VIES's codes for a temporary condition; retrying later may
// answer. Anything else VIES says (INVALID_INPUT, VAT_BLOCKED, ...) is final.
var retryable = map[string]bool{
	"SERVICE_UNAVAILABLE": true, "MS_UNAVAILABLE": true, "TIMEOUT": true,
	"GLOBAL_MAX_CONCURRENT_REQ": true, "GLOBAL_MAX_CONCURRENT_REQ_TIME": true,
	"MS_MAX_CONCURRENT_REQ": true, "MS_MAX_CONCURRENT_REQ_TIME": true,
}

// Retryable tells whether asking again later may succeed: VIES's temporary
// codes, the HTTP statuses and transport failures every provider client
// retries (providers/internal/httpfail); not a certificate that does not
// verify, nor a call its caller cancelled.
func (e *Error) Retryable() bool {
	return retryable[e.Code] || e.Code == "TRANSPORT" || httpfail.RetryableStatus(e.Status)
}

// IsRetryable reports whether err is a VIES error worth retrying.
func IsRetryable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Retryable()
}

type wireRequest struct {
	CountryCode              string `json:"countryCode"`
	VATNumber                string `json:"vatNumber"`
	RequesterMemberStateCode string `json:"requesterMemberStateCode,omitempty"`
	RequesterNumber          string `json:"requesterNumber,omitempty"`
	TraderName               string `json:"traderName,omitempty"`
	TraderStreet             string `json:"traderStreet,omitempty"`
	TraderPostalCode         string `json:"traderPostalCode,omitempty"`
	TraderCity               string `json:"traderCity,omitempty"`
	TraderCompanyType        string `json:"traderCompanyType,omitempty"`
}

type wireErrors struct {
	ActionSucceed *bool `json:"actionSucceed"`
	ErrorWrappers []struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	} `json:"errorWrappers"`
}

// Consult asks VIES about one number (a consultation).
func (c *Client) Consult(ctx context.Context, r Request) (Result, error) {
	w := wireRequest{CountryCode: r.CountryCode, VATNumber: r.VATNumber}
	if r.Requester != nil {
		w.RequesterMemberStateCode, w.RequesterNumber = r.Requester.MemberStateCode, r.Requester.Number
	}
	if r.Trader != nil {
		w.TraderName, w.TraderStreet, w.TraderPostalCode = r.Trader.Name, r.Trader.Street, r.Trader.PostalCode
		w.TraderCity, w.TraderCompanyType = r.Trader.City, r.Trader.CompanyType
	}
	body, err := json.Marshal(w)
	if err != nil {
		return Result{}, err
	}
	base := c.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	path := "/check-vat-number"
	if r.TestService {
		path = "/check-vat-test-service"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(base, "/")+path, bytes.NewReader(body))
	if err != nil {
		return Result{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := hc.Do(req)
	if err != nil {
		code, _ := httpfail.Transport(ctx.Err(), err)
		return Result{}, &Error{Code: code, Message: err.Error()}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		code, _ := httpfail.Transport(ctx.Err(), err)
		return Result{}, &Error{Code: code, Message: err.Error(), Status: resp.StatusCode}
	}
	retryAfter := httpfail.RetryAfter(resp.Header)
	// VIES reports its errors in an envelope, with HTTP 200 as often as not.
	var we wireErrors
	if json.Unmarshal(raw, &we) == nil && len(we.ErrorWrappers) > 0 {
		return Result{}, &Error{Code: we.ErrorWrappers[0].Error, Message: we.ErrorWrappers[0].Message, Status: resp.StatusCode, RetryAfter: retryAfter}
	}
	if resp.StatusCode != http.StatusOK {
		return Result{}, &Error{Code: fmt.Sprintf("HTTP_%d", resp.StatusCode), Message: snippet(raw), Status: resp.StatusCode, RetryAfter: retryAfter}
	}
	var out Result
	if err := json.Unmarshal(raw, &out); err != nil {
		return Result{}, &Error{Code: "TRANSPORT", Message: "undecodable answer: " + snippet(raw), Status: resp.StatusCode}
	}
	out.Name, out.Address = dashless(out.Name), dashless(out.Address)
	return out, nil
}

// dashless turns VIES's "---" (not disclosed) into "".
func dashless(s string) string {
	if strings.Trim(s, "- ") == "" {
		return ""
	}
	return strings.TrimSpace(s)
}

func snippet(b []byte) string {
	if len(b) > 200 {
		b = b[:200]
	}
	return string(b)
}
