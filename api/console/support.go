package console

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
	"github.com/kycflow/kycflow/webhook"
)

// failedRow is a failed check on the support page, with the provider's
// last answer.
type failedRow struct {
	ID, Type, Case string
	Updated        any
	Error          check.Error
}

// supportData is the support page.
type supportData struct {
	Type, Code string
	Types      []check.Type
	Failed     []failedRow
	Next       string
	Endpoints  []store.Endpoint
	CanRetry   bool
	Notice     string
}

// supportPage is how many failed checks the support page lists at once.
const supportPage = 50

// support lists failed checks (by type and error code; retry one or
// many) and the webhook endpoints, failing ones first.
func (h *Handler) support(w http.ResponseWriter, r *http.Request, rq *request) {
	in := r.URL.Query()
	d := supportData{Type: in.Get("type"), Code: in.Get("code"), Types: check.AllTypes(), CanRetry: rq.session.Staff.Role.Can(check.ActionRetry), Notice: notice(rq, r)}
	q := store.FailedQuery{PageQuery: store.PageQuery{Limit: supportPage}, Code: d.Code}
	if t, ok := check.Parse(d.Type); ok {
		q.Type = t
	} else {
		d.Type = ""
	}
	if len(d.Code) > 64 {
		d.Code, q.Code = "", ""
	}
	if after, err := uuid.Parse(in.Get("after")); err == nil {
		q.After = &after
	}
	page, err := h.store.FailedChecks(r.Context(), rq.tenant, q)
	if err != nil {
		h.fail(w, rq, err)
		return
	}
	for _, c := range page.Items {
		row := failedRow{ID: c.ID.String(), Type: string(c.Type), Updated: c.UpdatedAt}
		_ = json.Unmarshal(c.Error, &row.Error)
		if c.CustomerID != nil {
			row.Case = "/console/customers/" + c.CustomerID.String()
		} else if c.BusinessID != nil {
			row.Case = "/console/businesses/" + c.BusinessID.String()
		}
		d.Failed = append(d.Failed, row)
	}
	if page.HasNext && len(page.Items) > 0 {
		d.Next = "/console/support?" + url.Values{"type": {d.Type}, "code": {d.Code}, "after": {page.Items[len(page.Items)-1].ID.String()}}.Encode()
	}
	eps, err := h.store.ListEndpoints(r.Context(), rq.tenant, store.PageQuery{Limit: 100})
	if err != nil {
		h.fail(w, rq, err)
		return
	}
	d.Endpoints = eps.Items
	slices.SortStableFunc(d.Endpoints, func(a, b store.Endpoint) int {
		return boolRank(a.FailingSince == nil) - boolRank(b.FailingSince == nil)
	})
	v := h.page(rq, words[rq.lang]["supportTitle"])
	v.Data = d
	h.render(w, http.StatusOK, "support", v)
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// deliveryRow is a delivery on an endpoint's page, with its last attempt.
type deliveryRow struct {
	store.Delivery
	Last       *store.Attempt
	Redeliver  bool
	LastAnswer string
}

// deliveries lists an endpoint's newest deliveries, each failed or
// retrying one with a redeliver button.
func (h *Handler) deliveries(w http.ResponseWriter, r *http.Request, rq *request) {
	id, ok := h.pathID(w, r, rq)
	if !ok {
		return
	}
	ep, err := h.store.GetEndpoint(r.Context(), rq.tenant, id)
	if h.failed(w, rq, err) {
		return
	}
	page, err := h.store.ListDeliveries(r.Context(), rq.tenant, id, store.PageQuery{Limit: supportPage})
	if err != nil {
		h.fail(w, rq, err)
		return
	}
	can := rq.session.Staff.Role.Can(check.ActionRedeliver)
	rows := make([]deliveryRow, 0, len(page.Items))
	for _, d := range page.Items {
		row := deliveryRow{Delivery: d, Redeliver: can && (d.Status == webhook.Failed || d.Status == webhook.Retrying || d.Status == webhook.Cancelled)}
		if n := len(d.Tries); n > 0 {
			row.Last = &d.Tries[n-1]
			row.LastAnswer = string(row.Last.Response)
		}
		rows = append(rows, row)
	}
	v := h.page(rq, words[rq.lang]["deliveriesTitle"])
	v.Data = map[string]any{"Endpoint": ep, "Rows": rows, "Notice": notice(rq, r)}
	h.render(w, http.StatusOK, "deliveries", v)
}

// redeliver queues a new delivery of an event to the endpoint.
func (h *Handler) redeliver(w http.ResponseWriter, r *http.Request, rq *request) {
	id, ok := h.pathID(w, r, rq)
	if !ok || !h.allowed(w, rq, check.ActionRedeliver) {
		return
	}
	ev, err := uuid.Parse(r.PostFormValue("event"))
	if err != nil {
		h.notFound(w, rq)
		return
	}
	ds, err := h.store.Redeliver(r.Context(), rq.tenant, ev, &id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		h.notFound(w, rq)
		return
	case errors.Is(err, store.ErrConflict):
		h.message(w, http.StatusConflict, rq.lang, words[rq.lang]["deliveriesTitle"], words[rq.lang]["redeliverOff"])
		return
	case err != nil:
		h.fail(w, rq, err)
		return
	}
	for _, d := range ds {
		if err := h.store.Audit(r.Context(), actor(rq), "webhook.redelivered", "delivery", d.ID, map[string]string{"event_id": ev.String()}); err != nil {
			h.fail(w, rq, err)
			return
		}
	}
	back(w, r, "/console/support/webhooks/"+id.String(), "redelivered")
}
