package screeneval

import (
	"fmt"
	"slices"
	"strings"
)

// Hit is one result of the matcher measured: an entity and its score.
type Hit struct {
	ID    string
	Score float64
}

// Report is the outcome of Evaluate, per kind of case.
type Report struct {
	Threshold float64
	// Kinds counts, for a listed kind, the cases whose entity was among the
	// ten results (Found) and those where it alerted; for NotListed, the
	// cases with any alert (both Found and Alerted).
	Kinds map[string]*Tally
	order []string
}

// Evaluate screens every case with search (which answers the first ten
// results, from the matcher's minimum score, as a screening records them
// for review) and counts, per kind, recall@10 and recall at threshold, the
// score that fails a check; for people not listed, the alerts.
func Evaluate(cases []Case, search func(Case) []Hit, threshold float64) Report {
	r := Report{Threshold: threshold, Kinds: map[string]*Tally{}}
	for _, c := range cases {
		t := r.Kinds[c.Kind]
		if t == nil {
			t = &Tally{}
			r.Kinds[c.Kind] = t
			r.order = append(r.order, c.Kind)
		}
		hits := search(c)
		if c.WantID == "" {
			t.Cases++
			if len(hits) > 0 && hits[0].Score >= threshold {
				t.Found++
				t.Alerted++
			}
			continue
		}
		i := slices.IndexFunc(hits, func(h Hit) bool { return h.ID == c.WantID })
		score := 0.0
		if i >= 0 {
			score = hits[i].Score
		}
		t.Add(c, i, score, "", threshold)
	}
	return r
}

// Rate is the share of kind's cases found (for NotListed: alerting).
func (r Report) Rate(kind string) float64 {
	found, _ := r.tally(kind).Rates()
	return found
}

// AlertRate is the share of kind's cases alerting on their entity.
func (r Report) AlertRate(kind string) float64 {
	_, alerted := r.tally(kind).Rates()
	return alerted
}

// FalseAlertRate is the share of people not listed with an alert.
func (r Report) FalseAlertRate() float64 { return r.Rate(NotListed) }

func (r Report) tally(kind string) Tally {
	if t := r.Kinds[kind]; t != nil {
		return *t
	}
	return Tally{}
}

// String formats the report, one kind a line.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "alert threshold %.2f (results from the index's minimum score)\n", r.Threshold)
	for _, k := range r.order {
		t := r.Kinds[k]
		if k == NotListed {
			fmt.Fprintf(&b, "%-20s false alerts %4d/%-4d %6.2f%%\n", k, t.Alerted, t.Cases, 100*r.Rate(k))
		} else {
			fmt.Fprintf(&b, "%-20s recall@10    %4d/%-4d %6.2f%%   alerted %6.2f%%\n", k, t.Found, t.Cases, 100*r.Rate(k), 100*r.AlertRate(k))
		}
	}
	return b.String()
}
