package check

import (
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The review of aml hits: an aml check whose hits alert waits in
// awaiting_review until a compliance officer has decided each alerting hit.

// Decision is an officer's verdict on one hit.
type Decision string

// The decisions.
const (
	FalsePositive Decision = "false_positive" // not the listed entity; remembered, so it does not alert again
	TrueMatch     Decision = "true_match"     // the listed entity; the check ends validated false
)

// Review limits.
const (
	MinNoteLength     = 10   // a false positive's note: why it is not the listed entity
	MaxNoteLength     = 2000 // characters
	MaxReviewerLength = 200
	// MaxDecisions bounds one review: a check keeps at most this many hits.
	MaxDecisions = 10
)

// DefaultReviewWindow is how long a check waits for its review unless the
// tenant sets another; then it expires with its hits kept.
const DefaultReviewWindow = 30 * 24 * time.Hour

// HitReview is the decision on a hit (data.hits[*].review): made on this
// check, or remembered from an earlier one (CheckID says which).
type HitReview struct {
	Decision  Decision `json:"decision"`
	Reviewer  string   `json:"reviewer"`
	Note      *string  `json:"note"`
	DecidedAt string   `json:"decided_at"`
	CheckID   string   `json:"check_id"`
	// Four eyes (the tenant's setting): a decision awaiting a second
	// reviewer's approval is Pending; once approved, ApprovedBy and
	// ApprovedAt say by whom and when.
	Pending    bool    `json:"pending,omitempty"`
	ApprovedBy *string `json:"approved_by,omitempty"`
	ApprovedAt *string `json:"approved_at,omitempty"`
}

// Final reports whether a hit's review is a decision in force, not one
// awaiting approval.
func (r *HitReview) Final() bool { return r != nil && !r.Pending }

// SameReviewer reports whether two reviewers' names are one person's
// (case and surrounding space aside): an approver must not be.
func SameReviewer(a, b string) bool {
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}

// Proposal is a decision on a hit awaiting a second reviewer (four eyes).
type Proposal struct {
	Decision Decision
	Reviewer string
}

// ReviewRequest is a review: the body of POST /api/v1/checks/{id}/review,
// the payload of the workflow's review update and of the review signal the
// Temporal UI sends.
type ReviewRequest struct {
	Reviewer  string           `json:"reviewer"`
	Decisions []ReviewDecision `json:"decisions"`
}

// ReviewDecision decides one alerting hit.
type ReviewDecision struct {
	EntityID string   `json:"entity_id"`
	Decision Decision `json:"decision"`
	Note     string   `json:"note,omitempty"`
}

// ReviewProblem is why a review cannot be applied: an invalid field (422),
// or a conflict with the check's state (409: decided already, not awaiting
// review).
type ReviewProblem struct {
	Conflict bool   `json:"conflict,omitempty"`
	Field    string `json:"field,omitempty"`
	Message  string `json:"message"`
}

func (p ReviewProblem) Error() string { return p.Message }

// ReviewProblems is a review's problems, all of them.
type ReviewProblems []ReviewProblem

func (ps ReviewProblems) Error() string {
	if len(ps) == 0 {
		return "no problem"
	}
	return ps[0].Message
}

// Conflict reports whether the review conflicts with the check's state
// rather than being malformed.
func (ps ReviewProblems) Conflict() bool {
	for _, p := range ps {
		if !p.Conflict {
			return false
		}
	}
	return len(ps) > 0
}

func fieldProblem(field, rest string) ReviewProblem {
	return ReviewProblem{Field: field, Message: "The " + strings.ReplaceAll(field, "_", " ") + " field " + rest}
}

// Problems checks the review's own rules (not the check's state): a
// reviewer, one to MaxDecisions decisions each naming an entity once, a
// known decision, and a note of MinNoteLength characters for a false
// positive.
func (r ReviewRequest) Problems() ReviewProblems {
	var ps ReviewProblems
	switch n := utf8.RuneCountInString(r.Reviewer); {
	case blank(r.Reviewer):
		ps = append(ps, fieldProblem("reviewer", "is required."))
	case n > MaxReviewerLength:
		ps = append(ps, fieldProblem("reviewer", "must not be greater than "+strconv.Itoa(MaxReviewerLength)+" characters."))
	}
	switch {
	case len(r.Decisions) == 0:
		ps = append(ps, fieldProblem("decisions", "is required."))
	case len(r.Decisions) > MaxDecisions:
		ps = append(ps, fieldProblem("decisions", "must not have more than "+strconv.Itoa(MaxDecisions)+" items."))
	}
	seen := map[string]bool{}
	for i, d := range r.Decisions {
		at := "decisions." + strconv.Itoa(i) + "."
		switch {
		case blank(d.EntityID):
			ps = append(ps, fieldProblem(at+"entity_id", "is required."))
		case seen[d.EntityID]:
			ps = append(ps, fieldProblem(at+"entity_id", "names an entity decided earlier in this review."))
		}
		seen[d.EntityID] = true
		switch d.Decision {
		case FalsePositive, TrueMatch:
		case "":
			ps = append(ps, fieldProblem(at+"decision", "is required."))
		default:
			ps = append(ps, fieldProblem(at+"decision", "must be false_positive or true_match."))
		}
		switch n := utf8.RuneCountInString(d.Note); {
		case n > MaxNoteLength:
			ps = append(ps, fieldProblem(at+"note", "must not be greater than "+strconv.Itoa(MaxNoteLength)+" characters."))
		case d.Decision == FalsePositive && (blank(d.Note) || n < MinNoteLength):
			ps = append(ps, fieldProblem(at+"note", "must be at least "+strconv.Itoa(MinNoteLength)+" characters for a false positive: say why it is not the listed entity."))
		}
	}
	return ps
}

// Against checks the review against the check's state: each decision must
// name a hit that alerts and is not decided yet, and under four eyes not
// one whose pending decision is this reviewer's own (an approver is never
// the one who decided). alerting are the entity ids of the check's
// alerting hits, decided those already decided, proposed the pending
// decisions by entity id.
func (r ReviewRequest) Against(awaiting bool, alerting, decided []string, proposed map[string]Proposal) ReviewProblems {
	if !awaiting {
		return ReviewProblems{{Conflict: true, Message: "The check is not awaiting review."}}
	}
	var ps ReviewProblems
	for i, d := range r.Decisions {
		field := "decisions." + strconv.Itoa(i) + ".entity_id"
		switch {
		case slices.Contains(decided, d.EntityID):
			ps = append(ps, ReviewProblem{Conflict: true, Field: field, Message: "The hit on " + d.EntityID + " has been decided already."})
		case !slices.Contains(alerting, d.EntityID):
			ps = append(ps, fieldProblem(field, "names no alerting hit of this check."))
		case SameReviewer(proposed[d.EntityID].Reviewer, r.Reviewer):
			ps = append(ps, ReviewProblem{Conflict: true, Field: field, Message: "The decision on " + d.EntityID +
				" is yours and awaits another reviewer's approval (four eyes): the approver cannot be the reviewer who decided."})
		}
	}
	return ps
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }

// ReviewState is where an aml check's review stands: its alerting hits,
// how many are decided (in force) and how many await approval (four
// eyes), the top score, and when the screening put it in review.
type ReviewState struct {
	Alerting, Decided, Pending int
	TopScore                   float64
	Since                      time.Time // zero when the data does not say
}

// ReviewState reads where the review of d stands.
func (d AMLData) ReviewState() ReviewState {
	var r ReviewState
	if t, err := time.Parse(time.RFC3339, d.ScreenedAt); err == nil {
		r.Since = t
	}
	for _, h := range d.Hits {
		if !h.Alerting {
			continue
		}
		r.Alerting++
		switch {
		case h.Review.Final():
			r.Decided++
		case h.Review != nil:
			r.Pending++
		}
		r.TopScore = max(r.TopScore, h.Score)
	}
	return r
}
