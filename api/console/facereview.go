package console

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
)

// faceReviewData is the review page of an idscan check whose selfie's
// face match a person decides: the selfie's frames beside the document's
// photos, the similarity and the thresholds, liveness, and the decision.
type faceReviewData struct {
	CheckID, CustomerID, Status, Name string
	Similarity, Clear, Fail, Liveness string
	Frames, Documents                 []string // the images' addresses
	Review                            hitView  // its State, and the decision so far
	FourEyes, CanDecide               bool
	Notice                            string
}

func (h *Handler) faceReviewData(ctx context.Context, rq *request, c store.Check) (faceReviewData, error) {
	W := words[rq.lang]
	var d check.IDScanData
	if err := json.Unmarshal(c.Data, &d); err != nil {
		return faceReviewData{}, err
	}
	set, err := h.store.AMLSettings(ctx, rq.tenant)
	if err != nil {
		return faceReviewData{}, err
	}
	me := rq.session.Staff
	out := faceReviewData{CheckID: c.ID.String(), Status: string(c.Status), FourEyes: set.FourEyes,
		CanDecide: me.Role.Can(check.ActionDecide) && c.Status == check.AwaitingReview, Review: hitView{EntityID: check.FaceMatchEntity, State: "open"}}
	if c.CustomerID != nil {
		out.CustomerID = c.CustomerID.String()
	}
	out.Name = strings.TrimSpace(deref(d.GivenNames) + " " + deref(d.Surname))
	if lv := d.Checks.Liveness; lv != nil {
		out.Liveness = W["live_"+string(lv.Result)]
	}
	fm := d.Checks.FaceMatch
	if fm != nil && fm.Face != nil {
		f := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
		out.Similarity, out.Clear, out.Fail = f(fm.Face.Similarity), f(fm.Face.Clear), f(fm.Face.Fail)
	}
	if fm != nil && fm.Review != nil {
		rv := fm.Review
		out.Review.Decision, out.Review.Reviewer, out.Review.DecidedAt = string(rv.Decision), shown(W, rv.Reviewer, rv.By), rv.DecidedAt
		out.Review.Note, out.Review.ApprovalNote, out.Review.State = deref(rv.Note), deref(rv.ApprovalNote), "decided"
		if rv.Pending {
			out.Review.State, out.Review.Mine = "pending", rv.By != nil && rv.By.Same(check.Reviewer{StaffID: &me.ID})
			out.Review.Other = string(check.DifferentPerson)
			if rv.Decision == check.DifferentPerson {
				out.Review.Other = string(check.SamePerson)
			}
		}
		if rv.ApprovedBy != nil {
			out.Review.ApprovedBy = shown(W, *rv.ApprovedBy, rv.ApprovedVia)
		}
	}
	base := "/console/checks/" + c.ID.String()
	attempts, err := h.store.SelfieAttempts(ctx, check.Ref{TenantID: rq.tenant, CheckID: c.ID})
	if err != nil {
		return faceReviewData{}, err
	}
	if len(attempts) > 0 { // the attempt judged: the last
		last := attempts[len(attempts)-1]
		for n := 1; n <= last.Frames; n++ {
			out.Frames = append(out.Frames, base+"/selfies/"+strconv.Itoa(last.N)+"/"+strconv.Itoa(n)+"/photo")
		}
	}
	images, _, err := h.store.CheckImages(ctx, actor(rq), c.ID)
	if err != nil {
		return faceReviewData{}, err
	}
	for _, im := range images {
		out.Documents = append(out.Documents, base+"/images/"+strconv.Itoa(im.N)+"/photo")
	}
	return out, nil
}

// reviewView is a check's review page: an aml check's hits, or an idscan
// check's face match.
func (h *Handler) reviewView(ctx context.Context, rq *request, id uuid.UUID) (page string, data any, err error) {
	c, err := h.store.GetCheck(ctx, rq.tenant, id)
	if err != nil {
		return "", nil, err
	}
	switch {
	case c.CustomerID == nil:
		return "", nil, store.ErrNotFound
	case c.Type == check.IDScan:
		d, err := h.faceReviewData(ctx, rq, c)
		return "facereview", d, err
	}
	d, _, err := h.reviewData(ctx, rq, id)
	return "review", d, err
}
