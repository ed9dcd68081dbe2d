package activities

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
)

// A remembered false positive keeps its hit from alerting only while the
// entity's listed data and the customer's screened data are unchanged; a
// true match always alerts again.
func TestRemember(t *testing.T) {
	q := check.AMLQuery{Name: "Pavel Volkov", BirthDate: ptr("1970-05-17")}
	moved := q
	moved.Nationality = ptr("nl")
	past := func(entity, hash string, dec check.Decision, query check.AMLQuery) store.AMLReview {
		return store.AMLReview{CheckID: uuid.New(), EntityID: entity, EntityHash: hash, QueryHash: query.Hash(),
			Decided: store.Decided{Decision: dec, Reviewer: "A. Officer", Note: ptr("Not the listed person."), DecidedAt: time.Now()}}
	}
	hits := func() []check.AMLHit {
		return []check.AMLHit{
			{EntityID: "e1", EntityHash: "h1", AboveThreshold: true, Score: 0.95},
			{EntityID: "e2", EntityHash: "h2", AboveThreshold: true, Score: 0.9},
			{EntityID: "e3", EntityHash: "h3", Score: 0.7},
		}
	}
	for _, tc := range []struct {
		name     string
		memory   []store.AMLReview
		query    check.AMLQuery
		alerting []string
		reviewed []bool
	}{
		{"nothing remembered", nil, q, []string{"e1", "e2"}, []bool{false, false, false}},
		{"false positive remembered", []store.AMLReview{past("e1", "h1", check.FalsePositive, q)}, q, []string{"e2"}, []bool{true, false, false}},
		{"both remembered", []store.AMLReview{past("e1", "h1", check.FalsePositive, q), past("e2", "h2", check.FalsePositive, q)}, q, nil, []bool{true, true, false}},
		{"listed data changed", []store.AMLReview{past("e1", "old", check.FalsePositive, q)}, q, []string{"e1", "e2"}, []bool{false, false, false}},
		{"customer data changed", []store.AMLReview{past("e1", "h1", check.FalsePositive, q)}, moved, []string{"e1", "e2"}, []bool{false, false, false}},
		{"true match alerts again", []store.AMLReview{past("e1", "h1", check.TrueMatch, q)}, q, []string{"e1", "e2"}, []bool{false, false, false}},
		{"below the threshold", []store.AMLReview{past("e3", "h3", check.FalsePositive, q)}, q, []string{"e1", "e2"}, []bool{false, false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := check.AMLData{Query: tc.query, Hits: hits()}
			remember(&d, tc.memory)
			if got := d.Alerting(); len(got) != len(tc.alerting) || (len(got) > 0 && got[0] != tc.alerting[0]) {
				t.Fatalf("alerting %v, want %v", got, tc.alerting)
			}
			for i, h := range d.Hits {
				if (h.Review != nil) != tc.reviewed[i] {
					t.Fatalf("hit %s review %+v, want reviewed %v", h.EntityID, h.Review, tc.reviewed[i])
				}
			}
			if (d.Reason != nil) != (len(tc.alerting) > 0) {
				t.Fatalf("reason %v with alerting %v", d.Reason, tc.alerting)
			}
		})
	}
}
