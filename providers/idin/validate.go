package idin

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// issuerIDPattern is CM's documented issuer_id pattern (a BIC8 or BIC11).
var issuerIDPattern = regexp.MustCompile(`^[A-Z]{6}[A-Z2-9][A-NP-Z0-9]([A-Z0-9]{3})?$`)

// entranceCodePattern is CM's rule: at most 40 of a-z, A-Z, 0-9.
var entranceCodePattern = regexp.MustCompile(`^[A-Za-z0-9]{1,40}$`)

// referencePattern is our own limit for StartRequest.MerchantReference;
// CM's docs show a GUID and state no rule, so this admits GUIDs and ids.
var referencePattern = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,64}$`)

// maxReturnURL caps ReturnURL; CM documents no limit, but iDx (the
// protocol behind iDIN) carries the merchant return URL in at most 512
// characters, so a longer one could be cut off at the bank.
const maxReturnURL = 512

// Validate reports every problem with r, as an *Error that unwraps to
// ErrInvalidRequest, or nil. Start calls it before anything is sent.
func (r StartRequest) Validate() error {
	var problems []string
	if !issuerIDPattern.MatchString(r.IssuerID) {
		problems = append(problems, fmt.Sprintf("issuer id %q is not a bank identifier (BIC) from the directory", r.IssuerID))
	}
	if !entranceCodePattern.MatchString(r.EntranceCode) {
		problems = append(problems, "entrance code must be 1 to 40 characters, only A-Z, a-z and 0-9")
	}
	if r.MerchantReference != "" && !referencePattern.MatchString(r.MerchantReference) {
		problems = append(problems, "merchant reference must be at most 64 characters of A-Z, a-z, 0-9 and . _ : -")
	}
	if p := returnURLProblem(r.ReturnURL); p != "" {
		problems = append(problems, p)
	}
	if r.Language != "" && r.Language != "nl" && r.Language != "en" {
		problems = append(problems, fmt.Sprintf("language %q is not \"nl\" or \"en\"", r.Language))
	}
	if !r.Attributes.anySet() {
		problems = append(problems, "request at least one attribute group")
	}
	if len(problems) == 0 {
		return nil
	}
	return invalid("transaction", strings.Join(problems, "; "))
}

// returnURLProblem describes what is wrong with a return URL, or "".
func returnURLProblem(raw string) string {
	if raw == "" {
		return "return URL is required"
	}
	if len(raw) > maxReturnURL {
		return fmt.Sprintf("return URL is longer than %d characters", maxReturnURL)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "return URL must be an absolute http or https URL"
	}
	if u.User != nil {
		return "return URL must not contain credentials"
	}
	// The bank appends trxid and ec; a second copy would make the return
	// page read whichever comes first.
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return "return URL has a malformed query"
	}
	if q.Has("trxid") || q.Has("ec") {
		return "return URL must not already contain the trxid or ec query parameters"
	}
	return ""
}

// validTransactionID is what Status accepts before calling: CM's ids are
// digit strings, but any short printable token is let through so that a
// format change at CM does not break status calls.
func validTransactionID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := range len(id) {
		if id[i] <= ' ' || id[i] > '~' {
			return false
		}
	}
	return true
}
