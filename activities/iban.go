package activities

import (
	"context"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/engines/iban"
)

// IBANInput names the check to run.
type IBANInput struct {
	Check check.Ref
}

// IBANCheck validates the subject's IBAN offline (ISO 13616 registry and
// mod-97) and records the result. Runs as a local activity.
func (a *Activities) IBANCheck(ctx context.Context, in IBANInput) (CheckResult, error) {
	cs, err := a.Store.LoadCheck(ctx, in.Check)
	if err != nil {
		return CheckResult{}, wrap(err, "load check")
	}
	var number string
	switch {
	case cs.Business != nil && cs.Business.IBAN != nil:
		number = *cs.Business.IBAN
	case cs.Customer != nil && cs.Customer.IBAN != nil:
		number = *cs.Customer.IBAN
	}
	r := iban.Validate(number)
	d := check.IBANData{
		IBANMasked: iban.Masked(number), SEPA: r.SEPA, Valid: r.Valid,
		CountryCode: nonEmpty(r.CountryCode), Country: nonEmpty(r.CountryName),
		BankCode: nonEmpty(r.BankCode), BranchCode: nonEmpty(r.BranchCode),
		Reason: nonEmpty(string(r.Reason)), Message: nonEmpty(r.Message),
	}
	return a.complete(ctx, in.Check, &r.Valid, d)
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
