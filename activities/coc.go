package activities

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/engines/eu"
	"github.com/kycflow/kycflow/engines/namematch"
	"github.com/kycflow/kycflow/providers/kvk"
	"github.com/kycflow/kycflow/store"
)

// CoCInput names the coc check to run.
type CoCInput struct {
	Check check.Ref
}

// CoCOffline finishes coc checks that need no register call: a business
// outside the Netherlands (no register integrated: validated null) or a
// number that cannot be a KvK number. Runs as a local activity.
func (a *Activities) CoCOffline(ctx context.Context, in CoCInput) (OfflineResult, error) {
	cs, done, err := a.loadOpen(ctx, in.Check)
	if err != nil || done {
		return OfflineResult{Done: done, Result: recorded(cs)}, err
	}
	b := cs.Business
	if b.CountryID != eu.NetherlandsNumeric {
		name := fmt.Sprintf("country %d", b.CountryID)
		if st, ok := eu.ByNumeric(b.CountryID); ok {
			name = st.Name
		}
		r, err := a.complete(ctx, in.Check, nil, check.CoCData{Outcome: check.OutcomeUnsupportedCountry,
			Message: ptr("No company register is integrated for " + name + "; the registration was not verified.")})
		return OfflineResult{Done: true, Result: r}, err
	}
	if !kvk.ValidNumber(b.CoCNumber) {
		r, err := a.complete(ctx, in.Check, &no, check.CoCData{Outcome: check.OutcomeChecked, Reason: ptr(check.ReasonInvalidNumber),
			Message: ptr("A KvK number has 8 digits.")})
		return OfflineResult{Done: true, Result: r}, err
	}
	return OfflineResult{}, nil
}

// CoCCheck looks the business up in the KvK register: validated when it is
// registered, active and its statutory or a trade name matches the business
// name (namematch.Threshold). The register's address is written onto the
// business.
func (a *Activities) CoCCheck(ctx context.Context, in CoCInput) (_ CheckResult, err error) {
	defer lastAnswer(ctx, check.ProviderKvK, &err)
	if a.KvK == nil {
		return CheckResult{}, NotConfigured("KvK", check.CoC)
	}
	cs, done, err := a.loadOpen(ctx, in.Check)
	if err != nil || done {
		return recorded(cs), err
	}
	b := cs.Business
	defer heartbeat(ctx)()
	if err := a.Limits.KvK(ctx); err != nil {
		return CheckResult{}, err
	}
	p, err := a.KvK.Profile(ctx, b.CoCNumber)
	switch {
	case errors.Is(err, kvk.ErrNotFound):
		return a.complete(ctx, in.Check, &no, check.CoCData{Outcome: check.OutcomeChecked, KvKNumber: &b.CoCNumber,
			Reason: ptr(check.ReasonNotRegistered), Message: ptr("The KvK has no registration under this number.")})
	case errors.Is(err, kvk.ErrInvalidNumber):
		return a.complete(ctx, in.Check, &no, check.CoCData{Outcome: check.OutcomeChecked, KvKNumber: &b.CoCNumber,
			Reason: ptr(check.ReasonInvalidNumber), Message: ptr("The KvK does not accept this as a KvK number.")})
	case err != nil:
		return CheckResult{}, kvkError(ctx, err)
	}

	validated, d, onto := decideCoC(b.Name, p)
	return a.completeWith(ctx, in.Check, &validated, d, onto, nil)
}

// decideCoC maps a register profile to the check's verdict and data, and
// the address to copy onto the business (nil when the register shields it):
// validated when the registration is active and a registered name matches.
func decideCoC(name string, p kvk.Profile) (bool, check.CoCData, *store.Address) {
	d := check.CoCData{Outcome: check.OutcomeChecked, KvKNumber: &p.KvKNumber, RegisteredName: nonEmpty(p.Name),
		StatutoryName: nonEmpty(p.StatutoryName), TradeNames: p.TradeNames, LegalForm: nonEmpty(p.LegalForm),
		RegistrationDate: nonEmpty(p.RegistrationDate), Active: &p.Active, EndDate: nonEmpty(p.EndDate)}
	if d.TradeNames == nil {
		d.TradeNames = []string{}
	}
	candidates := append([]string{p.StatutoryName, p.Name}, p.TradeNames...)
	matched, score := namematch.Best(name, candidates...)
	score = check.RoundScore(score)
	d.NameMatchScore, d.MatchedName = &score, nonEmpty(matched)

	validated := true
	switch {
	case !p.Active:
		validated, d.Reason = false, ptr(check.ReasonInactive)
		d.Message = ptr("The registration has ended" + when(p.EndDate) + ".")
	case score < namematch.Threshold:
		validated, d.Reason = false, ptr(check.ReasonNameMismatch)
		d.Message = ptr(fmt.Sprintf("No registered name matches %q (best: %q, score %.3f, needs %.2f).", name, matched, score, namematch.Threshold))
	}
	var onto *store.Address
	if addr, ok := mainAddress(p.Addresses); ok {
		d.Address = &addr
		if !addr.Shielded {
			onto = &store.Address{Address: addr.Address, Street: addr.Street, HouseNumber: addr.HouseNumber,
				Addition: addr.Addition, PostalCode: addr.PostalCode, City: addr.City}
		}
	}
	return validated, d, onto
}

// mainAddress picks the visiting address, else the first one given.
func mainAddress(list []kvk.Address) (check.CoCAddress, bool) {
	if len(list) == 0 {
		return check.CoCAddress{}, false
	}
	ad := list[0]
	for _, x := range list {
		if x.Type == "bezoekadres" {
			ad = x
			break
		}
	}
	return check.CoCAddress{Type: ad.Type, Address: nonEmpty(ad.Full), Street: nonEmpty(ad.Street),
		HouseNumber: nonEmpty(ad.HouseNumber), Addition: nonEmpty(strings.TrimSpace(ad.HouseLetter + " " + ad.HouseNumberAddition)),
		PostalCode: nonEmpty(ad.PostalCode), City: nonEmpty(ad.City), Country: nonEmpty(ad.Country), Shielded: ad.Shielded}, true
}

// kvkError turns a failed KvK call into a provider error: KvK's own
// description when it gave one, else a plain sentence (never a URL or a Go
// error, which stay in the cause).
func kvkError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return err // cancelled: the workflow handles it
	}
	var ke *kvk.Error
	if !errors.As(err, &ke) {
		return ProviderError(check.ProviderKvK, "UNKNOWN", "The KvK call failed.", false, 0, err)
	}
	msg := ke.Message
	if !strings.HasPrefix(ke.Code, "IPD") {
		msg = "The KvK could not be reached or gave an unusable answer (" + ke.Code + ")."
	}
	return ProviderError(check.ProviderKvK, ke.Code, msg, !ke.Retryable, ke.RetryAfter, err)
}

var no = false

func when(date string) string {
	if date == "" {
		return ""
	}
	return " on " + date
}

func ptr[T any](v T) *T { return &v }
