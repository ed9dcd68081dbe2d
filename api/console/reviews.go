package console

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
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
}

// reviews is the review inbox: the tenant's aml checks awaiting review,
// oldest first, each with its age against the tenant's review window.
func (h *Handler) reviews(w http.ResponseWriter, r *http.Request, rq *request) {
	q := store.PageQuery{Limit: inboxPage}
	if after, err := uuid.Parse(r.URL.Query().Get("after")); err == nil {
		q.After = &after
	}
	page, err := h.store.ReviewQueue(r.Context(), rq.tenant, q)
	if err != nil {
		h.fail(w, rq, err)
		return
	}
	set, err := h.store.AMLSettings(r.Context(), rq.tenant)
	if err != nil {
		h.fail(w, rq, err)
		return
	}
	t, now := texts[rq.lang], time.Now()
	rows := make([]inboxRow, 0, len(page.Items))
	for _, c := range page.Items {
		var d check.AMLData
		if err := json.Unmarshal(c.Data, &d); err != nil {
			h.fail(w, rq, err)
			return
		}
		st := d.ReviewState()
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
		rows = append(rows, row)
	}
	v := view{Lang: rq.lang, T: t, Title: t.InboxTitle, CSRF: rq.session.CSRF, Email: rq.session.Staff.Email, Role: string(rq.session.Staff.Role),
		Inbox: rows, Window: t.duration(set.ReviewWindow)}
	if page.HasNext && len(page.Items) > 0 {
		v.Next = "/console/reviews?after=" + page.Items[len(page.Items)-1].ID.String()
	}
	h.render(w, http.StatusOK, "reviews", v)
}
