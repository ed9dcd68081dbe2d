package activities

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/engines/namematch"
	"github.com/kycflow/kycflow/providers/idin"
	"github.com/kycflow/kycflow/store"
)

// check.ProviderIDIN names the iDIN broker in recorded errors.

// IDINVerify asks the broker how the person's bank transaction ended and
// decides the check: validated when the bank-confirmed name (and birthdate,
// when the record has one) is the customer's. The confirmed gender,
// birthdate and address go onto the customer. A regular activity: the
// broker is a network provider.
func (a *Activities) IDINVerify(ctx context.Context, in LinkInput) (_ CheckResult, err error) {
	defer lastAnswer(ctx, check.ProviderIDIN, &err)
	if a.IDIN == nil {
		return CheckResult{}, NotConfigured("iDIN", check.IDIN)
	}
	cs, done, err := a.loadOpen(ctx, in.Check)
	if err != nil || done {
		return recorded(cs), err
	}
	l, err := a.Store.GetLink(ctx, in.Check)
	if err != nil {
		return CheckResult{}, wrap(err, "load link")
	}
	var sub check.IDINSubmission
	if l.Submission != nil {
		if err := json.Unmarshal(l.Submission, &sub); err != nil {
			return CheckResult{}, wrap(err, "read submission")
		}
	}
	var res idin.Result
	if sub.Result != nil {
		if err := json.Unmarshal(sub.Result, &res); err != nil {
			return CheckResult{}, wrap(err, "read bank result")
		}
	} else {
		defer heartbeat(ctx)()
		res, err = a.IDIN.Status(ctx, sub.TransactionID)
		if err != nil {
			return CheckResult{}, idinError(ctx, err)
		}
		if !res.Status.Final() {
			// The person is back but the bank has not settled yet: ask again.
			return CheckResult{}, ProviderError(check.ProviderIDIN, "PENDING", "The bank has not confirmed the transaction yet.", false, 2*time.Second, nil)
		}
		if sub.Result, err = json.Marshal(res); err != nil {
			return CheckResult{}, err
		}
		raw, err := json.Marshal(sub)
		if err != nil {
			return CheckResult{}, err
		}
		// Kept before anything else can fail: the broker will not tell twice.
		if err := a.Store.SetLinkSubmission(ctx, in.Check, raw); err != nil {
			return CheckResult{}, wrap(err, "keep bank result")
		}
	}
	d, id, addr := decideIDIN(res, cs.Customer)
	validated := d.Reason == nil
	return a.completeWith(ctx, in.Check, &validated, d, addr, id)
}

// decideIDIN turns the bank's answer into the check's verdict and what goes
// onto the customer (only when validated).
func decideIDIN(res idin.Result, c *store.Customer) (check.IDINData, *store.Identity, *store.Address) {
	d := check.IDINData{Outcome: check.OutcomeChecked, Status: string(res.Status), TransactionID: res.TransactionID, IssuerID: nonEmpty(res.IssuerID)}
	fail := func(reason, msg string) {
		if d.Reason == nil {
			d.Reason, d.Message = &reason, &msg
		}
	}
	switch res.Status {
	case idin.StatusCancelled:
		fail(check.ReasonBankCancelled, "The person cancelled the identification at their bank.")
	case idin.StatusExpired:
		fail(check.ReasonBankExpired, "The bank session expired before the person finished.")
	case idin.StatusSuccess:
		if res.Attributes == nil {
			fail(check.ReasonBankFailure, "The bank confirmed the transaction but disclosed no identity.")
		}
	default:
		fail(check.ReasonBankFailure, "The bank or broker reported a failure.")
	}
	if d.Reason != nil {
		return d, nil, nil
	}
	at := res.Attributes
	d.BIN, d.Initials, d.LastName, d.LastNamePrefix = nonEmpty(at.BIN), nonEmpty(at.Initials), nonEmpty(at.LegalLastName), nonEmpty(at.LegalLastNamePrefix)
	d.DateOfBirth, d.Gender, d.Is18OrOlder = nonEmpty(at.DateOfBirth), idinGender(at.Gender), at.Is18OrOlder
	if at.Street != "" || at.PostalCode != "" || at.City != "" {
		d.Address = &check.IDINAddress{Street: nonEmpty(at.Street), HouseNumber: nonEmpty(at.HouseNumber), Addition: nonEmpty(at.HouseNumberSuffix),
			PostalCode: nonEmpty(at.PostalCode), City: nonEmpty(at.City), CountryCode: nonEmpty(at.CountryCode)}
	}

	score := bankNameScore(c, at.Initials, strings.TrimSpace(at.LegalLastNamePrefix+" "+at.LegalLastName))
	d.NameMatchScore = &score
	if score < namematch.Threshold {
		fail(check.ReasonNameMismatch, "The name the bank confirmed does not match the customer's name.")
	}
	birth, full := time.Parse(time.DateOnly, at.DateOfBirth)
	if c.Birthdate != nil && full == nil {
		same := c.Birthdate.Format(time.DateOnly) == at.DateOfBirth
		d.BirthdateMatch = &same
		if !same {
			fail(check.ReasonBirthdateMismatch, "The date of birth the bank confirmed is not the customer's.")
		}
	}
	if d.Reason != nil {
		return d, nil, nil
	}
	id := &store.Identity{Gender: d.Gender}
	if full == nil {
		id.Birthdate = &birth
	}
	var addr *store.Address
	if d.Address != nil {
		line := strings.TrimSpace(strings.Join([]string{at.Street, at.HouseNumber + at.HouseNumberSuffix}, " "))
		addr = &store.Address{Address: nonEmpty(line), Street: d.Address.Street, HouseNumber: d.Address.HouseNumber,
			Addition: d.Address.Addition, PostalCode: d.Address.PostalCode, City: d.Address.City}
	}
	return d, id, addr
}

// idinGender maps iDIN's gender to the record's values.
func idinGender(g string) *string {
	switch g {
	case idin.GenderMale:
		return ptr("male")
	case idin.GenderFemale:
		return ptr("female")
	case "":
		return nil
	}
	return ptr("unspecified")
}

// bankNameScore compares the bank's legal last name (with its prefix) and
// initials with the customer's: the last name must match (accents, case and
// spaces aside; the record's lastname, else its name without the first
// word), and the first initial must agree with the record's first name or
// initials when it has them.
func bankNameScore(c *store.Customer, initials, lastName string) float64 {
	recordLast := c.Name
	if c.LastName != nil {
		recordLast = *c.LastName
	} else if _, rest, ok := strings.Cut(strings.TrimSpace(c.Name), " "); ok {
		recordLast = rest
	}
	score := check.RoundScore(namematch.JaroWinkler(compact(recordLast), compact(lastName)))
	first := ""
	switch {
	case c.FirstName != nil:
		first = compact(*c.FirstName)
	case c.Initials != nil:
		first = compact(*c.Initials)
	case c.LastName == nil:
		first = compact(strings.Fields(c.Name + " ")[0])
	}
	if in := compact(initials); first != "" && in != "" && first[0] != in[0] {
		return 0
	}
	return score
}

// idinError turns a failed broker call into a provider error.
func idinError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return err
	}
	var ie *idin.Error
	if !errors.As(err, &ie) {
		return ProviderError(check.ProviderIDIN, "UNKNOWN", "The iDIN broker call failed.", false, 0, err)
	}
	msg := "The iDIN broker could not be reached or gave an unusable answer."
	if !ie.Retryable {
		msg = "The iDIN broker refused the status request."
	}
	code := ie.Code
	if code == "" {
		code = "HTTP_" + strconv.Itoa(ie.Status)
	}
	return ProviderError(check.ProviderIDIN, code, msg, !ie.Retryable, ie.RetryAfter, err)
}
