package activities

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/text/language"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/engines/sanctions"
	"github.com/kycflow/kycflow/screening"
	"github.com/kycflow/kycflow/store"
)

// AMLInput names the aml check to run.
type AMLInput struct {
	Check check.Ref
}

// AMLScreen screens the customer's name, birthdate and nationality against
// the loaded watchlists: validated when no hit alerts (reaches the
// tenant's threshold and is no remembered false positive); otherwise the
// check awaits review, and the result names the hits to decide. Runs as a
// local activity (the index is in this process).
func (a *Activities) AMLScreen(ctx context.Context, in AMLInput) (CheckResult, error) {
	cs, done, err := a.loadOpen(ctx, in.Check)
	if err != nil {
		return recorded(cs), err
	}
	if done {
		return a.inReview(ctx, cs)
	}
	set, err := a.Store.AMLSettings(ctx, in.Check.TenantID)
	if err != nil {
		return CheckResult{}, wrap(err, "load aml settings")
	}
	d, ok := a.screen(cs.Customer, set, time.Now())
	if !ok {
		// Lists imported but not in this worker's memory yet (it loads them
		// within WATCHLIST_REFRESH and a build, also after a restart): a
		// retry will find them. Only with no list at all is this final.
		vs, err := a.Store.LatestWatchlists(ctx)
		if err != nil {
			return CheckResult{}, wrap(err, "look for watchlists")
		}
		if len(vs) > 0 {
			return CheckResult{}, fmt.Errorf("%d watchlists imported but not loaded by this worker yet", len(vs))
		}
		return CheckResult{}, NotConfigured("A watchlist (kycflow watchlist import)", check.AML)
	}
	memory, err := a.Store.AMLMemory(ctx, in.Check.TenantID, in.Check.SubjectID)
	if err != nil {
		return CheckResult{}, wrap(err, "load reviews")
	}
	remember(&d, memory)
	alerting := d.Alerting()
	if len(alerting) == 0 {
		validated := true
		return a.complete(ctx, in.Check, &validated, d)
	}
	b, err := json.Marshal(d)
	if err != nil {
		return CheckResult{}, err
	}
	applied, status, err := a.update(ctx, in.Check, store.CheckUpdate{
		Status: check.AwaitingReview, From: []check.Status{check.Running}, Data: b})
	if err != nil {
		return CheckResult{}, wrap(err, "record hits")
	}
	res := CheckResult{Applied: applied, Status: status}
	if status == check.AwaitingReview {
		res.Alerting, res.ReviewWindow, res.FourEyes = alerting, set.ReviewWindow, set.FourEyes
	}
	return res, nil
}

// remember applies the customer's past decisions to a screening's hits: a
// hit above the threshold alerts unless a false positive was decided on
// the same entity, listed with the same data, screened with the same
// customer data; that hit shows the remembered review instead. A true
// match always alerts again.
func remember(d *check.AMLData, memory []store.AMLReview) {
	queryHash := d.Query.Hash()
	d.Reason, d.Message = nil, nil
	kept := 0
	for i := range d.Hits {
		h := &d.Hits[i]
		h.Alerting, h.Review = false, nil
		if !h.AboveThreshold {
			continue
		}
		if j := slices.IndexFunc(memory, func(m store.AMLReview) bool { return m.EntityID == h.EntityID }); j >= 0 {
			m := memory[j]
			if m.Decision == check.FalsePositive && m.EntityHash == h.EntityHash && m.QueryHash == queryHash {
				h.Review = m.HitReview()
				kept++
				continue
			}
		}
		h.Alerting = true
		if d.Reason == nil {
			d.Reason = ptr(check.ReasonWatchlistHit)
			d.Message = ptr("The customer resembles a listed entity (" + h.MatchedName + ", score " +
				strconv.FormatFloat(h.Score, 'f', -1, 64) + "); the hit awaits review.")
		}
	}
	if d.Reason == nil && kept > 0 {
		d.Message = ptr("Hits above the threshold were reviewed as false positives before; they do not alert again while the listed entity and the customer's screened data are unchanged.")
	}
}

// screen builds the check's data from the lists the tenant screens
// against; false when none of them is loaded.
func (a *Activities) screen(c *store.Customer, set store.AMLSettings, now time.Time) (check.AMLData, bool) {
	if a.Screener == nil {
		return check.AMLData{}, false
	}
	q := customerQuery(c)
	q.HardConflict = set.HardConflict
	hits, versions := a.Screener.Screen(q, screening.Limit, set.Lists)
	if len(versions) == 0 {
		return check.AMLData{}, false
	}
	return check.AMLData{Outcome: check.OutcomeChecked, ScreenedAt: now.UTC().Format(time.RFC3339), Threshold: set.Threshold,
		HardConflict: set.HardConflict, Lists: screening.ListsUsed(versions),
		Query: check.AMLQuery{Name: q.Name, BirthDate: nonEmpty(q.BirthDate), Nationality: nonEmpty(q.Nationality)},
		Hits:  screening.Hits(hits, set.Threshold)}, true
}

// customerQuery is what a customer is screened with.
func customerQuery(c *store.Customer) sanctions.Query {
	name := c.Name
	if c.FirstName != nil && c.LastName != nil {
		name = *c.FirstName + " " + *c.LastName
	}
	q := sanctions.Query{Name: strings.TrimSpace(name), Schema: "Person"}
	if c.Birthdate != nil {
		q.BirthDate = c.Birthdate.Format(time.DateOnly)
	}
	if c.NationalityID != nil {
		if r, err := language.EncodeM49(*c.NationalityID); err == nil {
			q.Nationality = strings.ToLower(r.String())
		}
	}
	return q
}
