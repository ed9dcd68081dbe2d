package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/engines/watchlist"
	"github.com/kycflow/kycflow/store"
)

// inboxPage is how many reviews the inbox shows at once.
const inboxPage = 50

// inboxRow is one aml check awaiting review, as the inbox lists it.
type inboxRow struct {
	CheckID, CustomerID string
	Alerting, Decided   int
	Pending             int
	TopScore            string
	Age, Left           string
	Overdue             bool
	Assignee            string
}

// inboxFilters are the inbox's filters as the form sends them.
type inboxFilters struct {
	Assigned, List, Score, Age string
	Lists                      []string // the lists there are, to choose from
}

// inboxAges are the age filter's choices.
var inboxAges = map[string]time.Duration{"1h": time.Hour, "1d": 24 * time.Hour, "3d": 72 * time.Hour, "7d": 7 * 24 * time.Hour}

// reviews is the review inbox: the tenant's aml checks awaiting review,
// oldest first, filtered, each with its age against the tenant's review
// window and who has it in hand.
func (h *Handler) reviews(w http.ResponseWriter, r *http.Request, rq *request) {
	in := r.URL.Query()
	f := inboxFilters{Assigned: in.Get("assigned"), List: in.Get("list"), Score: in.Get("score"), Age: in.Get("age")}
	q := store.InboxQuery{Limit: inboxPage, Me: rq.session.Staff.ID, List: f.List, OlderThan: inboxAges[f.Age]}
	switch f.Assigned {
	case store.AssignedMe, store.AssignedNone:
		q.Assigned = f.Assigned
	default:
		f.Assigned = ""
	}
	if v, err := strconv.ParseFloat(f.Score, 64); err == nil && v > 0 && v <= 1 {
		q.MinScore = v
	} else {
		f.Score = ""
	}
	if after, err := uuid.Parse(in.Get("after")); err == nil {
		q.After = &after
	}
	page, err := h.store.ReviewInbox(r.Context(), rq.tenant, q)
	if err != nil {
		h.fail(w, rq, err)
		return
	}
	set, err := h.store.AMLSettings(r.Context(), rq.tenant)
	if err != nil {
		h.fail(w, rq, err)
		return
	}
	lists, err := h.store.LatestWatchlists(r.Context())
	if err != nil {
		h.fail(w, rq, err)
		return
	}
	for _, l := range lists {
		f.Lists = append(f.Lists, l.List)
	}
	t, now := texts[rq.lang], time.Now()
	rows := make([]inboxRow, 0, len(page.Items))
	for _, c := range page.Items {
		st, err := check.ReviewStateOf(c.Type, c.Data)
		if err != nil {
			h.fail(w, rq, err)
			return
		}
		since := c.UpdatedAt
		if !st.Since.IsZero() {
			since = st.Since
		}
		age := now.Sub(since)
		row := inboxRow{CheckID: c.ID.String(), Alerting: st.Alerting, Decided: st.Decided, Pending: st.Pending,
			TopScore: strconv.FormatFloat(st.TopScore, 'f', 2, 64), Age: t.duration(age), Left: t.duration(set.ReviewWindow - age), Overdue: age > set.ReviewWindow*4/5}
		if c.CustomerID != nil {
			row.CustomerID = c.CustomerID.String()
		}
		if c.Assignee != nil {
			row.Assignee = *c.Assignee
		}
		rows = append(rows, row)
	}
	v := h.page(rq, t.InboxTitle)
	v.Inbox, v.Window, v.Data = rows, t.duration(set.ReviewWindow), f
	if page.HasNext && len(page.Items) > 0 {
		next := url.Values{"assigned": {f.Assigned}, "list": {f.List}, "score": {f.Score}, "age": {f.Age}, "after": {page.Items[len(page.Items)-1].ID.String()}}
		v.Next = "/console/reviews?" + next.Encode()
	}
	h.render(w, http.StatusOK, "reviews", v)
}

// assign claims a review (to=me), gives it to a reviewer (to=their id)
// or releases it (to=none).
func (h *Handler) assign(w http.ResponseWriter, r *http.Request, rq *request) {
	id, ok := h.pathID(w, r, rq)
	if !ok || !h.allowed(w, rq, check.ActionAssign) {
		return
	}
	var to *uuid.UUID
	switch v := r.PostFormValue("to"); v {
	case "me":
		to = &rq.session.Staff.ID
	case "none":
	default:
		sid, err := uuid.Parse(v)
		if err != nil {
			h.message(w, http.StatusUnprocessableEntity, rq.lang, words[rq.lang]["assignTitle"], words[rq.lang]["assignBad"])
			return
		}
		to = &sid
	}
	err := h.store.AssignReview(r.Context(), actor(rq), id, to)
	switch {
	case errors.Is(err, store.ErrNotFound):
		h.notFound(w, rq)
	case errors.Is(err, store.ErrNotAssignable):
		h.message(w, http.StatusUnprocessableEntity, rq.lang, words[rq.lang]["assignTitle"], words[rq.lang]["assignBad"])
	case errors.Is(err, store.ErrNotInReview):
		h.message(w, http.StatusConflict, rq.lang, words[rq.lang]["assignTitle"], words[rq.lang]["notInReview"])
	case err != nil:
		h.fail(w, rq, err)
	default:
		target := "/console/reviews/" + id.String()
		if r.PostFormValue("from") == "inbox" {
			target = "/console/reviews"
		}
		back(w, r, target, "assigned")
	}
}

// hitView is an alerting hit as the review page shows it: the hit, the
// listed entity beside it, and where its decision stands.
type hitView struct {
	EntityID, List, MatchedName string
	Score, NameScore            string
	Schema                      string
	Topics, Programs            []string
	Explanation                 []string
	// The listed entity, from the list version the screening used.
	Names, BirthDates, Nationalities []string
	Version                          int64
	Found                            bool
	// State: "open", "pending" (awaits a second reviewer), "decided".
	// Reviewer and ApprovedBy say who and through what (an API key's
	// review: the name its holder claimed, and the key).
	State, Decision, Other, Reviewer, Note, DecidedAt, ApprovedBy string
	ApprovalNote                                                  string
	Mine                                                          bool
}

// earlierRow is an earlier decision on the customer, as the review page
// lists it.
type earlierRow struct {
	DecidedAt                                time.Time
	EntityID, Decision, Reviewer, ApprovedBy string
	Note, ApprovalNote                       string
}

// shown is a reviewer's name as the console shows it: a staff member's
// address as it is; the name an API review claimed, with the key it came
// through (what vouches for it).
func shown(W map[string]string, name string, by *check.Reviewer) string {
	if by != nil && by.KeyID != nil {
		return fmt.Sprintf(W["viaKey"], name, by.KeyID.String()[:8])
	}
	return name
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// reviewData is the review page.
type reviewData struct {
	CheckID, CustomerID, Status string
	// The customer's screened fields.
	Name, BirthDate, Nationality string
	Lists                        []check.AMLList
	Hits                         []hitView
	Earlier                      []earlierRow
	FourEyes, CanDecide          bool
	CanAssign, Mine              bool
	Assignee                     string
	Reviewers                    []store.Staff
	Notice                       string
}

// reviewPage shows one aml check's review: what was screened beside each
// alerting hit's listed entity, the matcher's explanation, earlier
// decisions on this customer, and a decision form per hit.
func (h *Handler) reviewPage(w http.ResponseWriter, r *http.Request, rq *request) {
	id, ok := h.pathID(w, r, rq)
	if !ok {
		return
	}
	page, data, err := h.reviewView(r.Context(), rq, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		h.notFound(w, rq)
		return
	case err != nil:
		h.fail(w, rq, err)
		return
	}
	h.renderReview(w, rq, http.StatusOK, page, data, notice(rq, r), nil)
}

// renderReview renders a review page (page: review or facereview) with
// its notice and the problems a decision met.
func (h *Handler) renderReview(w http.ResponseWriter, rq *request, status int, page string, data any, notice string, problems []string) {
	title := words[rq.lang]["reviewTitle"]
	switch d := data.(type) {
	case reviewData:
		d.Notice, data = notice, d
	case faceReviewData:
		d.Notice, data, title = notice, d, words[rq.lang]["faceTitle"]
	}
	v := h.page(rq, title)
	v.Data, v.Errors = data, problems
	h.render(w, status, page, v)
}

func (h *Handler) reviewData(ctx context.Context, rq *request, id uuid.UUID) (reviewData, int, error) {
	W := words[rq.lang]
	c, err := h.store.GetCheck(ctx, rq.tenant, id)
	if err != nil {
		return reviewData{}, 0, err
	}
	if c.Type != check.AML || c.CustomerID == nil {
		return reviewData{}, 0, store.ErrNotFound
	}
	var d check.AMLData
	if err := json.Unmarshal(c.Data, &d); err != nil {
		return reviewData{}, 0, err
	}
	set, err := h.store.AMLSettings(ctx, rq.tenant)
	if err != nil {
		return reviewData{}, 0, err
	}
	me := rq.session.Staff
	out := reviewData{CheckID: c.ID.String(), CustomerID: c.CustomerID.String(), Status: string(c.Status), Name: d.Query.Name, Lists: d.Lists,
		FourEyes: set.FourEyes, CanDecide: me.Role.Can(check.ActionDecide) && c.Status == check.AwaitingReview,
		CanAssign: me.Role.Can(check.ActionAssign) && c.Status == check.AwaitingReview}
	if d.Query.BirthDate != nil {
		out.BirthDate = *d.Query.BirthDate
	}
	if d.Query.Nationality != nil {
		out.Nationality = strings.ToUpper(*d.Query.Nationality)
	}
	var versions []int64
	for _, l := range d.Lists {
		versions = append(versions, l.Version)
	}
	var ids []string
	for _, hit := range d.Hits {
		if hit.Alerting {
			ids = append(ids, hit.EntityID)
		}
	}
	listed, err := h.store.ListedEntities(ctx, versions, ids)
	if err != nil {
		return reviewData{}, 0, err
	}
	for _, hit := range d.Hits {
		if !hit.Alerting {
			continue
		}
		hv := hitView{EntityID: hit.EntityID, List: hit.List, MatchedName: hit.MatchedName, Score: strconv.FormatFloat(hit.Score, 'f', 3, 64),
			NameScore: strconv.FormatFloat(hit.NameScore, 'f', 3, 64), Schema: hit.Schema, Topics: hit.Topics, Programs: hit.Programs,
			Explanation: hit.Explanation, State: "open"}
		for _, le := range listed {
			if le.EntityID != hit.EntityID || (hit.List != "" && le.List != hit.List) {
				continue
			}
			var e watchlist.Entity
			if json.Unmarshal(le.Data, &e) != nil {
				continue
			}
			hv.Found, hv.List, hv.Version = true, le.List, le.Version
			for _, n := range e.Names {
				hv.Names = append(hv.Names, n.Full)
			}
			hv.BirthDates, hv.Nationalities = e.BirthDates, e.Nationalities
			for i := range hv.Nationalities {
				hv.Nationalities[i] = strings.ToUpper(hv.Nationalities[i])
			}
		}
		if rv := hit.Review; rv != nil {
			hv.Decision, hv.Reviewer, hv.DecidedAt = string(rv.Decision), shown(W, rv.Reviewer, rv.By), rv.DecidedAt
			hv.Note, hv.ApprovalNote = deref(rv.Note), deref(rv.ApprovalNote)
			hv.State = "decided"
			if rv.Pending {
				hv.State, hv.Mine = "pending", rv.By != nil && rv.By.Same(check.Reviewer{StaffID: &me.ID}) || rv.By == nil && check.SameReviewer(rv.Reviewer, me.Email)
				hv.Other = string(check.TrueMatch)
				if rv.Decision == check.TrueMatch {
					hv.Other = string(check.FalsePositive)
				}
			}
			if rv.ApprovedBy != nil {
				hv.ApprovedBy = shown(W, *rv.ApprovedBy, rv.ApprovedVia)
			}
		}
		out.Hits = append(out.Hits, hv)
	}
	earlier, err := h.store.AMLMemory(ctx, rq.tenant, *c.CustomerID)
	if err != nil {
		return reviewData{}, 0, err
	}
	for _, e := range earlier {
		row := earlierRow{DecidedAt: e.DecidedAt, EntityID: e.EntityID, Decision: string(e.Decision), Reviewer: shown(W, e.Reviewer, (*check.Reviewer)(e.By)),
			Note: deref(e.Note), ApprovalNote: deref(e.ApprovalNote)}
		if e.ApprovedBy != nil {
			row.ApprovedBy = shown(W, *e.ApprovedBy, (*check.Reviewer)(e.ApprovedVia))
		}
		out.Earlier = append(out.Earlier, row)
	}
	a, err := h.store.ReviewAssignee(ctx, rq.tenant, id)
	if err != nil {
		return reviewData{}, 0, err
	}
	if a != nil {
		out.Assignee, out.Mine = a.Email, a.StaffID == me.ID
	}
	if out.CanAssign {
		all, err := h.store.ListStaff(ctx, rq.tenant)
		if err != nil {
			return reviewData{}, 0, err
		}
		for _, st := range all {
			if st.Status == check.StaffActive && st.Role.Can(check.ActionDecide) {
				out.Reviewers = append(out.Reviewers, st)
			}
		}
	}
	return out, http.StatusOK, nil
}

// decide records the signed-in reviewer's decision on one hit (or their
// approval of another's) through the check's workflow, which keeps four
// eyes: the page only offers what the workflow will take. A review in
// another's hands (claimed or assigned) is theirs to decide; approving a
// decision pending there is open to any reviewer but its decider.
func (h *Handler) decide(w http.ResponseWriter, r *http.Request, rq *request) {
	id, ok := h.pathID(w, r, rq)
	if !ok || !h.allowed(w, rq, check.ActionDecide) {
		return
	}
	ctx, W := r.Context(), words[rq.lang]
	me := rq.session.Staff
	dec := check.ReviewDecision{EntityID: r.PostFormValue("entity"), Decision: check.Decision(r.PostFormValue("decision")), Note: strings.TrimSpace(r.PostFormValue("note"))}
	req := check.ReviewRequest{Reviewer: me.Email, Decisions: []check.ReviewDecision{dec}}
	c, err := h.store.GetCheck(ctx, rq.tenant, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && c.Type != check.AML && c.Type != check.IDScan) {
		h.notFound(w, rq)
		return
	}
	if err != nil {
		h.fail(w, rq, err)
		return
	}
	var problems []string
	if len([]rune(dec.Note)) < check.MinNoteLength {
		problems = append(problems, W["noteRequired"])
	} else if ps := req.Problems(c.Type); len(ps) > 0 {
		problems = append(problems, W["decisionBad"])
	}
	status := http.StatusUnprocessableEntity
	if len(problems) == 0 {
		if h.cfg.Reviews == nil {
			h.message(w, http.StatusServiceUnavailable, rq.lang, texts[rq.lang].ErrorTitle, texts[rq.lang].ErrorBody)
			return
		}
		a, err := h.store.ReviewAssignee(ctx, rq.tenant, id)
		if err != nil {
			h.fail(w, rq, err)
			return
		}
		if a != nil && a.StaffID != me.ID && !approves(c, dec) {
			problems, status = append(problems, fmt.Sprintf(W["reviewInHand"], a.Email)), http.StatusConflict
		}
		if len(problems) == 0 {
			rctx, cancel := context.WithTimeout(ctx, reviewTimeout)
			out, err := h.cfg.Reviews.Review(rctx, actor(rq), id, req)
			cancel()
			var ps check.ReviewProblems
			switch {
			case err == nil:
				done := "decided"
				if len(out.Approved) > 0 {
					done = "approved"
				}
				back(w, r, "/console/reviews/"+id.String(), done)
				return
			case errors.As(err, &ps):
				for _, p := range ps {
					problems = append(problems, p.Message)
				}
				if ps.Conflict() {
					status = http.StatusConflict
				}
			case ctx.Err() == nil:
				h.log.Warn("console: review not recorded", "error", err)
				problems, status = append(problems, W["reviewLate"]), http.StatusServiceUnavailable
			default:
				return
			}
		}
	}
	page, data, err := h.reviewView(ctx, rq, id)
	if h.failed(w, rq, err) {
		return
	}
	h.renderReview(w, rq, status, page, data, "", problems)
}

// approves reports whether dec is the same decision as one pending on its
// hit (an approval, under four eyes).
func approves(c store.Check, dec check.ReviewDecision) bool {
	if c.Type == check.IDScan {
		var d check.IDScanData
		if json.Unmarshal(c.Data, &d) != nil || d.Checks.FaceMatch == nil {
			return false
		}
		rv := d.Checks.FaceMatch.Review
		return rv != nil && rv.Pending && rv.Decision == dec.Decision
	}
	var d check.AMLData
	if json.Unmarshal(c.Data, &d) != nil {
		return false
	}
	for _, hit := range d.Hits {
		if hit.EntityID == dec.EntityID && hit.Review != nil && hit.Review.Pending && hit.Review.Decision == dec.Decision {
			return true
		}
	}
	return false
}

// reviewTimeout bounds the wait for the workflow to record a decision
// (its worker may be down).
const reviewTimeout = 15 * time.Second
