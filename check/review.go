package check

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// The review of aml hits: an aml check whose hits alert waits in
// awaiting_review until a compliance officer has decided each alerting hit.

// Decision is an officer's verdict on one hit.
type Decision string

// The decisions on an aml hit.
const (
	FalsePositive Decision = "false_positive" // not the listed entity; remembered, so it does not alert again
	TrueMatch     Decision = "true_match"     // the listed entity; the check ends validated false
)

// The decisions on an idscan check's face match (its entity is
// FaceMatchEntity): the selfie shows the document's holder, or not.
const (
	SamePerson      Decision = "same_person"      // the check ends validated, as the document's result says
	DifferentPerson Decision = "different_person" // the check ends validated false, face_mismatch
)

// FaceMatchEntity is what a decision on an idscan check's face match
// names in place of an aml hit's entity: the sub-check decided.
const FaceMatchEntity = "face_match"

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
	// ApprovalNote is the approver's note.
	ApprovalNote *string `json:"approval_note,omitempty"`
	// What authenticated the decider (By) and the approver (ApprovedVia):
	// a staff member's console session, or an API key — the names above
	// are theirs (a staff member's address) or what the key's holder
	// claimed. Absent on decisions recorded before reviews were by id.
	By          *Reviewer `json:"by,omitempty"`
	ApprovedVia *Reviewer `json:"approved_via,omitempty"`
}

// Final reports whether a hit's review is a decision in force, not one
// awaiting approval.
func (r *HitReview) Final() bool { return r != nil && !r.Pending }

// Reviewer is who a review is by, in ids — what authenticated it and the
// person it names, never a name or an address (the check's workflow keeps
// it in its history): a staff member signed in to the console (StaffID);
// or an API key (KeyID) and the name its holder claimed (NameID, the
// tenant's id for that name as NameKey reads it).
type Reviewer struct {
	StaffID *uuid.UUID `json:"staff_id,omitempty"`
	KeyID   *uuid.UUID `json:"key_id,omitempty"`
	NameID  *uuid.UUID `json:"name_id,omitempty"`
}

// Known reports whether r names anyone.
func (r Reviewer) Known() bool { return r.StaffID != nil || r.KeyID != nil || r.NameID != nil }

// Same reports whether two reviews may be one person's, so that one may
// not approve the other: the same staff member, the same API key (whatever
// names its holder claims), or the same claimed name (whichever key claims
// it).
func (r Reviewer) Same(o Reviewer) bool {
	eq := func(a, b *uuid.UUID) bool { return a != nil && b != nil && *a == *b }
	return eq(r.StaffID, o.StaffID) || eq(r.KeyID, o.KeyID) || eq(r.NameID, o.NameID)
}

// SameReviewer reports whether two names are one (NameKey): how reviews
// recorded before they were by id are compared.
func SameReviewer(a, b string) bool { return NameKey(a) == NameKey(b) }

// ReviewerName is a claimed name as kept and shown: in Unicode's
// compatibility form (NFKC), without the characters that show nothing
// (zero-width spaces and joiners, a byte-order mark, bidirectional
// controls, soft hyphens, variation selectors, control characters), its
// runs of spaces one space, trimmed.
func ReviewerName(s string) string {
	s = norm.NFKC.String(s)
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r) || unicode.Is(unicode.Zs, r):
			space = b.Len() > 0
			continue
		case invisible(r):
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// invisible: a character that shows nothing where it stands.
func invisible(r rune) bool {
	return unicode.In(r, unicode.Cf, unicode.Cc, unicode.Co, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point) || r == utf8.RuneError
}

// NameKey is the form two names are compared in: ReviewerName, case
// folded.
func NameKey(s string) string { return cases.Fold().String(ReviewerName(s)) }

// Proposal is a decision on a hit awaiting a second reviewer (four eyes):
// by whom (Legacy: the name of one recorded before reviews were by id).
type Proposal struct {
	Decision Decision
	By       Reviewer
	Legacy   string
}

// mine reports whether a review by (or, recorded before reviews were by
// id, named legacy) is the proposal's own.
func (p Proposal) mine(by Reviewer, legacy string) bool {
	if p.By.Known() && by.Known() {
		return p.By.Same(by)
	}
	return p.Legacy != "" && legacy != "" && SameReviewer(p.Legacy, legacy)
}

// ReviewRequest is a review as a reviewer sends it: the body of POST
// /api/v1/checks/{id}/review, the console's form, `kycflow check review`.
// It is kept as a submission (store.ReviewSubmission); the check's
// workflow is sent a ReviewUpdate naming it.
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
// decision of a check of type t ("": of any check, for a review read
// before its check is), and a note of MinNoteLength characters for a
// decision that clears (a false positive, the same person).
func (r ReviewRequest) Problems(t Type) ReviewProblems {
	kinds := append(DecisionsOf(AML), DecisionsOf(IDScan)...)
	if t != "" {
		kinds = DecisionsOf(t)
	}
	words := make([]string, len(kinds))
	for i, k := range kinds {
		words[i] = string(k)
	}
	want := strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
	var ps ReviewProblems
	switch n := utf8.RuneCountInString(ReviewerName(r.Reviewer)); {
	case n == 0:
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
		switch {
		case d.Decision == "":
			ps = append(ps, fieldProblem(at+"decision", "is required."))
		case !slices.Contains(kinds, d.Decision):
			ps = append(ps, fieldProblem(at+"decision", "must be "+want+"."))
		}
		switch n := utf8.RuneCountInString(d.Note); {
		case n > MaxNoteLength:
			ps = append(ps, fieldProblem(at+"note", "must not be greater than "+strconv.Itoa(MaxNoteLength)+" characters."))
		case d.Decision == FalsePositive && (blank(d.Note) || n < MinNoteLength):
			ps = append(ps, fieldProblem(at+"note", "must be at least "+strconv.Itoa(MinNoteLength)+" characters for a false positive: say why it is not the listed entity."))
		case d.Decision == SamePerson && (blank(d.Note) || n < MinNoteLength):
			ps = append(ps, fieldProblem(at+"note", "must be at least "+strconv.Itoa(MinNoteLength)+" characters for the same person: say why the selfie shows the document's holder."))
		}
	}
	return ps
}

// ReviewUpdate is a review as the check's workflow is sent it (the
// payload of its review update, and of the review signal): the submission
// kept in PostgreSQL with its notes and names, who it is by and its
// decisions — ids only.
type ReviewUpdate struct {
	Submission uuid.UUID     `json:"submission_id"`
	By         Reviewer      `json:"by"`
	Decisions  []HitDecision `json:"decisions"`
	// Legacy is the name a review was sent with before reviews were by id
	// (in histories recorded then); never sent now.
	Legacy string `json:"reviewer,omitempty"`
}

// HitDecision is one decision of a ReviewUpdate.
type HitDecision struct {
	EntityID string   `json:"entity_id"`
	Decision Decision `json:"decision"`
}

// Update is the ReviewUpdate of r, kept as submission by by.
func (r ReviewRequest) Update(submission uuid.UUID, by Reviewer) ReviewUpdate {
	u := ReviewUpdate{Submission: submission, By: by}
	for _, d := range r.Decisions {
		u.Decisions = append(u.Decisions, HitDecision{EntityID: d.EntityID, Decision: d.Decision})
	}
	return u
}

// DecisionsOf are the decisions a review of a check of type t makes.
func DecisionsOf(t Type) []Decision {
	if t == IDScan {
		return []Decision{SamePerson, DifferentPerson}
	}
	return []Decision{FalsePositive, TrueMatch}
}

// Problems checks the update's own rules: a submission and a reviewer
// (unless legacy, a review of before they were by id), and one to
// MaxDecisions decisions of a check of type t, each naming an entity once.
func (u ReviewUpdate) Problems(t Type, legacy bool) ReviewProblems {
	var ps ReviewProblems
	if !legacy && (u.Submission == uuid.Nil || !u.By.Known()) {
		ps = append(ps, ReviewProblem{Field: "reviewer", Message: "A review names its submission and its reviewer."})
	}
	if len(u.Decisions) == 0 || len(u.Decisions) > MaxDecisions {
		ps = append(ps, fieldProblem("decisions", "must have 1 to "+strconv.Itoa(MaxDecisions)+" items."))
	}
	seen := map[string]bool{}
	for i, d := range u.Decisions {
		if blank(d.EntityID) || seen[d.EntityID] || !slices.Contains(DecisionsOf(t), d.Decision) {
			ps = append(ps, fieldProblem("decisions."+strconv.Itoa(i), "is not a decision on an entity named once."))
		}
		seen[d.EntityID] = true
	}
	return ps
}

// Against checks the review against the check's state: each decision must
// name a hit that alerts and is not decided yet, and under four eyes not
// one whose pending decision is this reviewer's own (an approver is never
// the one who decided: Reviewer.Same). alerting are the entity ids of the
// check's alerting hits, decided those already decided, proposed the
// pending decisions by entity id.
func (r ReviewUpdate) Against(awaiting bool, alerting, decided []string, proposed map[string]Proposal) ReviewProblems {
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
		case proposed[d.EntityID].mine(r.By, r.Legacy):
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

// ReviewState of an idscan check in review: its face match, the one thing
// to decide, scored by its similarity (Since is left to the check's last
// change).
func (d IDScanData) ReviewState() ReviewState {
	var r ReviewState
	if fm := d.Checks.FaceMatch; fm != nil {
		r.Alerting = 1
		switch {
		case fm.Review.Final():
			r.Decided = 1
		case fm.Review != nil:
			r.Pending = 1
		}
		if fm.Face != nil {
			r.TopScore = fm.Face.Similarity
		}
	}
	return r
}

// ReviewStateOf is the review state of a check of type t with data.
func ReviewStateOf(t Type, data []byte) (ReviewState, error) {
	if t == IDScan {
		var d IDScanData
		err := json.Unmarshal(data, &d)
		return d.ReviewState(), err
	}
	var d AMLData
	err := json.Unmarshal(data, &d)
	return d.ReviewState(), err
}

// ReviewOutcome is what a review did once recorded: the check afterwards,
// and the entities whose pending decision it approved (four eyes).
type ReviewOutcome struct {
	Status    Status
	Validated *bool
	Approved  []string
}
