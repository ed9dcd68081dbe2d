package console

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
)

// TestWordsInBothLanguages: every key has its English and its Dutch.
func TestWordsInBothLanguages(t *testing.T) {
	en, nl := slices.Sorted(maps.Keys(words["en"])), slices.Sorted(maps.Keys(words["nl"]))
	if !slices.Equal(en, nl) {
		t.Fatalf("the languages' keys differ:\nen %v\nnl %v", en, nl)
	}
	for lang, ws := range words {
		for k, v := range ws {
			if strings.TrimSpace(v) == "" {
				t.Errorf("%s: %s is empty", lang, k)
			}
		}
	}
}

// TestPagesRender renders every work page, in both languages, with each
// of its branches' data: a template naming a word neither language has
// fails here, not in front of a reviewer.
func TestPagesRender(t *testing.T) {
	now := time.Now()
	note, by := "not the listed person", "b@acme.test"
	id := uuid.New()
	hits := []hitView{{EntityID: "e1", State: "open"}, {EntityID: "e2", State: "pending", Decision: "false_positive", Other: "true_match"},
		{EntityID: "e3", State: "pending", Mine: true}, {EntityID: "e4", State: "decided", ApprovedBy: by, ApprovalNote: note, Found: true, Names: []string{"A"}}}
	pagesData := map[string]any{
		"reviews": inboxFilters{Lists: []string{"ofac"}},
		"review": reviewData{CheckID: id.String(), Hits: hits, CanDecide: true, CanAssign: true, FourEyes: true, Notice: "x",
			Reviewers: []store.Staff{{ID: id, Email: by, Role: check.RoleReviewer}},
			Earlier:   []earlierRow{{EntityID: "e4", Note: note, ApprovedBy: by, ApprovalNote: note, DecidedAt: now}}},
		"case": caseData{Kind: "customer", ID: id.String(), Fields: []field{{"name", "A"}}, CanRetry: true, Types: check.Types(check.Customer),
			Checks: []checkView{{ID: id.String(), Type: "idscan", Status: "failed", Failed: true, Error: &check.Error{Code: "x", Provider: "p"},
				Images: []store.DocumentImage{{N: 1}}, KeptUntil: &now, Data: "{}"}},
			Events: []store.Event{{Type: "check.queued", CreatedAt: now}}, Audit: []auditView{{Action: "review.assigned", StaffID: id.String()}, {KeyID: id.String()}}},
		"image":      map[string]any{"Src": "/x", "Rotate": 90, "Zoom": 2, "Left": "/l", "Right": "/r", "In": "/i", "Out": "/o", "N": 1, "Case": "/c"},
		"support":    supportData{Types: check.AllTypes(), Failed: []failedRow{{ID: "x", Case: "/c", Updated: now}}, CanRetry: true, Next: "/n", Endpoints: []store.Endpoint{{URL: "https://h", FailingSince: &now}, {URL: "https://i"}}},
		"deliveries": map[string]any{"Endpoint": store.Endpoint{URL: "https://h"}, "Rows": []deliveryRow{{Redeliver: true, Last: &store.Attempt{}}}, "Notice": ""},
		"home":       nil,
		"staff":      staffData{Staff: []store.Staff{{ID: uuid.New(), Email: by, Role: check.RoleReviewer, Status: check.StaffInvited}}, Roles: check.Roles, Link: "https://l", Mailed: by, Form: map[string]string{}},
	}
	for _, lang := range []string{"en", "nl"} {
		for page, data := range pagesData {
			v := view{Lang: lang, T: texts[lang], W: words[lang], Title: "t", Role: "admin", Email: "a@acme.test", Data: data,
				Inbox: []inboxRow{{CheckID: "c"}, {CheckID: "d", Assignee: by}}}
			var b bytes.Buffer
			if err := pages[page].ExecuteTemplate(&b, "layout", v); err != nil {
				t.Errorf("%s in %s: %v", page, lang, err)
			}
			if strings.Contains(b.String(), "<no value>") {
				t.Errorf("%s in %s renders <no value>", page, lang)
			}
		}
		for i, fr := range []faceReviewData{ // a face match open, pending, decided; no portrait, no images
			{CheckID: id.String(), CanDecide: true, FourEyes: true, Similarity: "0.45", Clear: "0.50", Fail: "0.40", Liveness: "passed",
				Frames: []string{"/f"}, Documents: []string{"/d"}, Review: hitView{EntityID: check.FaceMatchEntity, State: "open"}, Notice: "x"},
			{CanDecide: true, Review: hitView{State: "pending", Decision: "same_person", Other: "different_person", Reviewer: by, Note: note}},
			{Review: hitView{State: "pending", Decision: "different_person", Mine: true}},
			{Review: hitView{State: "decided", Decision: "different_person", ApprovedBy: by, ApprovalNote: note}},
		} {
			v := view{Lang: lang, T: texts[lang], W: words[lang], Title: "t", Role: "admin", Email: "a@acme.test", Data: fr}
			var b bytes.Buffer
			if err := pages["facereview"].ExecuteTemplate(&b, "layout", v); err != nil {
				t.Errorf("facereview %d in %s: %v", i, lang, err)
			}
			if strings.Contains(b.String(), "<no value>") {
				t.Errorf("facereview %d in %s renders <no value>", i, lang)
			}
		}
	}
}

// A name that turns its text around, or hides a character, shows what it
// holds: isolated, the controls as code points, the rest escaped.
func TestShownText(t *testing.T) {
	got := string(shownText("Jan\u202Eevil\u202C <b>\u200bde Vries"))
	want := `<bdi>Jan<span class="cp">U+202E</span>evil<span class="cp">U+202C</span> &lt;b&gt;<span class="cp">U+200B</span>de Vries</bdi>`
	if got != want {
		t.Fatalf("got %s", got)
	}
}
