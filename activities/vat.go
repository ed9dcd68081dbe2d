package activities

import (
	"context"
	"errors"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/engines/eu"
	"github.com/kycflow/kycflow/engines/namematch"
	"github.com/kycflow/kycflow/engines/vatnum"
	"github.com/kycflow/kycflow/providers/vies"
	"github.com/kycflow/kycflow/store"
)

// VATInput names the vat check to run.
type VATInput struct {
	Check check.Ref
}

// vatNumber splits the business's VAT number for VIES. test is true for
// VIES's test-service numbers on a sandbox tenant, which skip the offline
// check and go to VIES's test service.
func vatNumber(cs store.CheckWithSubject) (n vatnum.Number, test bool, err error) {
	b := cs.Business
	number, def := "", ""
	if b.VATNumber != nil {
		number = *b.VATNumber
	}
	if st, ok := eu.ByNumeric(b.CountryID); ok {
		def = st.VAT
	}
	if tn, ok := vatnum.TestServiceNumber(number, def); ok && cs.Sandbox {
		return tn, true, nil
	}
	n, err = vatnum.Normalize(number, def)
	if err == nil {
		err = vatnum.Check(n)
	}
	return n, false, err
}

// VATOffline finishes vat checks whose number fails the offline check
// (format and check digits, as python-stdnum defines them): validated false
// with data.reason, and VIES is not asked. A number of no EU member state
// completes with validated null (unsupported_country). Runs as a local
// activity.
func (a *Activities) VATOffline(ctx context.Context, in VATInput) (OfflineResult, error) {
	cs, done, err := a.loadOpen(ctx, in.Check)
	if err != nil || done {
		return OfflineResult{Done: done, Result: recorded(cs)}, err
	}
	n, _, err := vatNumber(cs)
	var ve *vatnum.ValidationError
	if !errors.As(err, &ve) {
		return OfflineResult{}, nil
	}
	r, err := a.vatRejected(ctx, in.Check, n, ve)
	return OfflineResult{Done: true, Result: r}, err
}

// vatRejected records an offline rejection.
func (a *Activities) vatRejected(ctx context.Context, ref check.Ref, n vatnum.Number, ve *vatnum.ValidationError) (CheckResult, error) {
	d := check.VATData{Outcome: check.OutcomeRejectedOffline, Reason: ptr(string(ve.Reason)), Message: &ve.Message,
		CountryCode: nonEmpty(n.CountryCode), VATNumber: nonEmpty(n.Number)}
	validated := &no
	if ve.Reason == vatnum.ReasonUnknownCountry {
		d.Outcome, d.Reason, validated = check.OutcomeUnsupportedCountry, nil, nil
	}
	return a.complete(ctx, ref, validated, d)
}

// VATCheck consults VIES: validated when VIES says the number is valid. The
// name VIES returns (many member states withhold it) is scored against the
// business name; it informs, it does not decide.
func (a *Activities) VATCheck(ctx context.Context, in VATInput) (_ CheckResult, err error) {
	defer lastAnswer(ctx, check.ProviderVIES, &err)
	if a.VIES == nil {
		return CheckResult{}, NotConfigured("VIES", check.VAT)
	}
	cs, done, err := a.loadOpen(ctx, in.Check)
	if err != nil || done {
		return recorded(cs), err
	}
	n, test, err := vatNumber(cs)
	var ve *vatnum.ValidationError
	if errors.As(err, &ve) { // VATOffline ran first; only a changed record gets here
		return a.vatRejected(ctx, in.Check, n, ve)
	}
	defer heartbeat(ctx)()
	release, err := a.Limits.VIES(ctx, n.CountryCode)
	if err != nil {
		return CheckResult{}, err
	}
	res, err := a.VIES.Consult(ctx, vies.Request{CountryCode: n.CountryCode, VATNumber: n.Number,
		Requester: a.VIESRequester, TestService: test})
	release()
	if err != nil {
		return CheckResult{}, viesError(ctx, err)
	}
	d := vatData(cs.Business.Name, n, test, res)
	return a.complete(ctx, in.Check, &res.Valid, d)
}

// vatData is a consultation's answer as the check's data: VIES's verdict
// and evidence, and how well the name VIES gives (when it gives one)
// matches the business; the name informs, it does not decide.
func vatData(name string, n vatnum.Number, test bool, res vies.Result) check.VATData {
	d := check.VATData{Outcome: check.OutcomeChecked, CountryCode: &n.CountryCode, VATNumber: &n.Number,
		Valid: &res.Valid, Name: nonEmpty(res.Name), Address: nonEmpty(res.Address),
		RequestDate: nonEmpty(res.RequestDate), RequestIdentifier: nonEmpty(res.RequestIdentifier), TestService: test}
	if res.Name != "" {
		_, score := namematch.Best(name, res.Name)
		score = check.RoundScore(score)
		d.NameMatchScore = &score
	}
	if !res.Valid {
		d.Reason = ptr(check.ReasonNotRegistered)
		d.Message = ptr("VIES reports this VAT number as not valid for intra-EU trade.")
	}
	return d
}

// viesMessages explain VIES's error codes to tenants.
var viesMessages = map[string]string{
	"INVALID_INPUT":                  "VIES rejected the country code or VAT number as input.",
	"INVALID_REQUESTER_INFO":         "VIES rejected the requester VAT number configured for consultations.",
	"SERVICE_UNAVAILABLE":            "VIES is unavailable.",
	"MS_UNAVAILABLE":                 "The member state's VAT service is unavailable to VIES.",
	"TIMEOUT":                        "The member state's VAT service did not answer VIES in time.",
	"VAT_BLOCKED":                    "This VAT number is blocked from consultation in VIES.",
	"IP_BLOCKED":                     "VIES blocks consultations from this service's address.",
	"GLOBAL_MAX_CONCURRENT_REQ":      "VIES is at its limit of concurrent requests.",
	"GLOBAL_MAX_CONCURRENT_REQ_TIME": "VIES is at its limit of concurrent requests.",
	"MS_MAX_CONCURRENT_REQ":          "The member state's VAT service is at its limit of concurrent requests.",
	"MS_MAX_CONCURRENT_REQ_TIME":     "The member state's VAT service is at its limit of concurrent requests.",
}

// viesError turns a failed consultation into a provider error with a plain
// message; the raw answer stays in the cause.
func viesError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return err
	}
	var ve *vies.Error
	if !errors.As(err, &ve) {
		return ProviderError(check.ProviderVIES, "UNKNOWN", "The VIES call failed.", false, 0, err)
	}
	msg, ok := viesMessages[ve.Code]
	if !ok {
		msg = "VIES could not be reached or gave an unusable answer (" + ve.Code + ")."
	}
	return ProviderError(check.ProviderVIES, ve.Code, msg, !ve.Retryable(), ve.RetryAfter, err)
}
