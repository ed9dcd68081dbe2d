package api

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
)

// Reviewer sends a review to the workflow of the check awaiting it, as
// the principal that authenticated it (reviews.Client), and returns once
// it is recorded; a review the workflow rejects is a check.ReviewProblems.
type Reviewer interface {
	Review(ctx context.Context, by store.Principal, checkID uuid.UUID, req check.ReviewRequest) (check.ReviewOutcome, error)
}

// reviewTimeout bounds the wait for the workflow to record a review (its
// worker may be down): past it the caller is told to try again.
const reviewTimeout = 15 * time.Second

// reviewCheck records decisions on an aml check's alerting hits, or on
// an idscan check's face match.
func (s *Server) reviewCheck(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	var fe fieldErrors
	req := readReview(body, &fe)
	if !fe.empty() {
		return validationError(&fe)
	}
	ctx := c.Request().Context()
	tenantID := principal(c).TenantID
	chk, err := s.store.GetCheck(ctx, tenantID, id)
	if err != nil {
		return err
	}
	if chk.Type != check.AML && chk.Type != check.IDScan || chk.Status != check.AwaitingReview {
		return newError(http.StatusConflict, "Only an aml or idscan check awaiting review can be reviewed; this check is "+string(chk.Type)+", "+string(chk.Status)+".")
	}
	for _, p := range req.Problems(chk.Type) { // its decisions are this check's kind
		fe.add(p.Field, p.Message)
	}
	if !fe.empty() {
		return validationError(&fe)
	}
	if s.reviews == nil {
		return errUnavailable
	}
	rctx, cancel := context.WithTimeout(ctx, reviewTimeout)
	defer cancel()
	if _, err := s.reviews.Review(rctx, principal(c), id, req); err != nil {
		var ps check.ReviewProblems
		switch {
		case errors.As(err, &ps) && ps.Conflict():
			return newError(http.StatusConflict, ps.Error())
		case errors.As(err, &ps):
			for _, p := range ps {
				fe.add(p.Field, p.Message)
			}
			return validationError(&fe)
		case ctx.Err() == nil && rctx.Err() != nil:
			s.log.Warn("review not recorded in time", "request_id", requestID(c), "error", err)
			return &apiError{status: http.StatusServiceUnavailable, message: "The review could not be recorded in time; send it again.", retryAfter: 5}
		}
		return err
	}
	if chk, err = s.store.GetCheck(ctx, tenantID, id); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, struct {
		Message string     `json:"message"`
		Check   *checkJSON `json:"check"`
	}{"Review recorded.", toCheck(chk)})
}

// readReview reads a review body; type errors and the review's own rules
// (check.ReviewRequest.Problems) go to fe, one message per field.
func readReview(body *object, fe *fieldErrors) check.ReviewRequest {
	var req check.ReviewRequest
	if r := body.str("reviewer", fe); r != nil {
		req.Reviewer = *r
	}
	items := body.objects("decisions", fe)
	for _, it := range items {
		var d check.ReviewDecision
		if it != nil {
			if v := it.str("entity_id", fe); v != nil {
				d.EntityID = *v
			}
			if v := it.str("decision", fe); v != nil {
				d.Decision = check.Decision(*v)
			}
			if v := it.str("note", fe); v != nil {
				d.Note = *v
			}
		}
		req.Decisions = append(req.Decisions, d)
	}
	if fe.has("decisions") {
		return req
	}
	for _, p := range req.Problems("") {
		if !fe.hasWithin(p.Field) {
			fe.add(p.Field, p.Message)
		}
	}
	return req
}

// reviewJSON is one check in the review queue.
type reviewJSON struct {
	CheckID    uuid.UUID `json:"check_id"`
	CustomerID uuid.UUID `json:"customer_id"`
	// AlertingHits are the hits awaiting a decision; DecidedHits those of
	// them decided so far.
	AlertingHits int     `json:"alerting_hits"`
	DecidedHits  int     `json:"decided_hits"`
	PendingHits  int     `json:"pending_hits"` // four eyes: awaiting approval
	TopScore     float64 `json:"top_score"`
	// AwaitingSince is when the screening put the check in review.
	AwaitingSince Time  `json:"awaiting_since"`
	AgeSeconds    int64 `json:"age_seconds"`
}

func toReview(now time.Time) func(store.Check) reviewJSON {
	return func(c store.Check) reviewJSON {
		r := reviewJSON{CheckID: c.ID, AwaitingSince: Time(c.UpdatedAt)}
		if c.CustomerID != nil {
			r.CustomerID = *c.CustomerID
		}
		if st, err := check.ReviewStateOf(c.Type, c.Data); err == nil {
			if !st.Since.IsZero() {
				r.AwaitingSince = Time(st.Since)
			}
			r.AlertingHits, r.DecidedHits, r.PendingHits, r.TopScore = st.Alerting, st.Decided, st.Pending, st.TopScore
		}
		r.AgeSeconds = int64(now.Sub(time.Time(r.AwaitingSince)).Seconds())
		return r
	}
}

// listReviews is the tenant's review queue: aml checks awaiting review,
// oldest first.
func (s *Server) listReviews(c echo.Context) error {
	var fe fieldErrors
	q := pageParams(c, &fe)
	fetch := func(pq store.PageQuery) (store.Page[store.Check], error) {
		return s.store.ReviewQueue(c.Request().Context(), principal(c).TenantID, pq)
	}
	return answerPage(c, q, &fe, fetch, toReview(time.Now()), func(ch store.Check) uuid.UUID { return ch.ID })
}
