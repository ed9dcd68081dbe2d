package check

import (
	"strings"
	"testing"

	"github.com/google/uuid"
)

// A review's decisions are its check's kind: an aml hit's on an aml check,
// a face match's on an idscan check, either before the check is known;
// clearing — a false positive, the same person — needs a note.
func TestReviewDecisionsByType(t *testing.T) {
	req := func(d Decision, note string) ReviewRequest {
		return ReviewRequest{Reviewer: "A. Officer", Decisions: []ReviewDecision{{EntityID: FaceMatchEntity, Decision: d, Note: note}}}
	}
	fields := func(ps ReviewProblems) string {
		var f []string
		for _, p := range ps {
			f = append(f, p.Field)
		}
		return strings.Join(f, ",")
	}
	for _, c := range []struct {
		typ  Type
		req  ReviewRequest
		want string
	}{
		{IDScan, req(SamePerson, "Same ears and hairline."), ""},
		{IDScan, req(SamePerson, ""), "decisions.0.note"},
		{IDScan, req(DifferentPerson, ""), ""},
		{IDScan, req(FalsePositive, "Born twenty years apart."), "decisions.0.decision"},
		{AML, req(SamePerson, "Same ears and hairline."), "decisions.0.decision"},
		{AML, req(TrueMatch, ""), ""},
		{"", req(DifferentPerson, ""), ""},
		{"", req("maybe", ""), "decisions.0.decision"},
	} {
		if got := fields(c.req.Problems(c.typ)); got != c.want {
			t.Errorf("%s %s: problems on %q, want %q", c.typ, c.req.Decisions[0].Decision, got, c.want)
		}
	}
	key := uuid.New()
	u := ReviewUpdate{Submission: uuid.New(), By: Reviewer{KeyID: &key}, Decisions: []HitDecision{{EntityID: FaceMatchEntity, Decision: SamePerson}}}
	if ps := u.Problems(IDScan, false); len(ps) != 0 {
		t.Errorf("a face decision on an idscan check: %v", ps)
	}
	if ps := u.Problems(AML, false); len(ps) != 1 {
		t.Errorf("a face decision on an aml check: %v", ps)
	}
}
