package console

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
)

// field is one of a record's fields as a case page lists it.
type field struct{ Name, Value string }

// checkView is one check on a case page.
type checkView struct {
	ID, Type, Status, Validated string
	Created, Updated            time.Time
	Error                       *check.Error
	Data                        string // indented JSON
	Reason                      string
	Images                      []store.DocumentImage
	KeptUntil                   *time.Time
	Failed                      bool
}

// auditView is one audit row as a page shows it.
type auditView struct {
	At                 time.Time
	Action, Kind, Who  string
	RecordID, KeyID    string
	StaffID, StaffMail string
}

// caseData is a case page.
type caseData struct {
	Kind, ID, Name string
	Fields         []field
	Checks         []checkView
	Events         []store.Event
	Audit          []auditView
	CanRetry       bool
	Types          []check.Type
	Notice         string
}

// caseLimit bounds what a case page lists of each kind (checks, events,
// audit rows), newest first.
const caseLimit = 50

// casePage is a customer's or business's case: its fields, every check
// with its result and sub-checks (the idscan photos while kept), its
// events and the audit trail of what was done to it.
func (h *Handler) casePage(kind check.Kind) func(http.ResponseWriter, *http.Request, *request) {
	return func(w http.ResponseWriter, r *http.Request, rq *request) {
		id, ok := h.pathID(w, r, rq)
		if !ok {
			return
		}
		data, err := h.caseData(r.Context(), rq, kind, id)
		if h.failed(w, rq, err) {
			return
		}
		data.Notice = notice(rq, r)
		v := h.page(rq, data.Name)
		v.Data = data
		h.render(w, http.StatusOK, "case", v)
	}
}

// find opens the case of a customer or business by its id.
func (h *Handler) find(w http.ResponseWriter, r *http.Request, rq *request) {
	id, err := uuid.Parse(strings.TrimSpace(r.URL.Query().Get("id")))
	if err != nil {
		h.notFound(w, rq)
		return
	}
	for kind, get := range map[check.Kind]func() error{
		check.Customer: func() error { _, err := h.store.GetCustomer(r.Context(), rq.tenant, id); return err },
		check.Business: func() error { _, err := h.store.GetBusiness(r.Context(), rq.tenant, id); return err },
	} {
		switch err := get(); {
		case err == nil:
			http.Redirect(w, r, "/console/"+casePath(kind)+"/"+id.String(), http.StatusSeeOther)
			return
		case !errors.Is(err, store.ErrNotFound):
			h.fail(w, rq, err)
			return
		}
	}
	h.notFound(w, rq)
}

func (h *Handler) caseData(ctx context.Context, rq *request, kind check.Kind, id uuid.UUID) (caseData, error) {
	out := caseData{Kind: string(kind), ID: id.String(), CanRetry: rq.session.Staff.Role.Can(check.ActionRetry), Types: check.Types(kind)}
	if kind == check.Customer {
		c, err := h.store.GetCustomer(ctx, rq.tenant, id)
		if err != nil {
			return out, err
		}
		out.Name, out.Fields = c.Name, customerFields(c.Customer)
	} else {
		b, err := h.store.GetBusiness(ctx, rq.tenant, id)
		if err != nil {
			return out, err
		}
		out.Name, out.Fields = b.Name, businessFields(b.Business)
	}
	checks, err := h.store.SubjectChecks(ctx, rq.tenant, kind, id, caseLimit)
	if err != nil {
		return out, err
	}
	records := []uuid.UUID{id}
	for _, c := range checks {
		records = append(records, c.ID)
		cv := checkView{ID: c.ID.String(), Type: string(c.Type), Status: string(c.Status), Created: c.CreatedAt, Updated: c.UpdatedAt,
			Data: pretty(c.Data), Failed: c.Status == check.Failed}
		if c.Validated != nil {
			cv.Validated = strconv.FormatBool(*c.Validated)
		}
		if len(c.Error) > 0 && string(c.Error) != "null" {
			var e check.Error
			if json.Unmarshal(c.Error, &e) == nil {
				cv.Error = &e
			}
		}
		var head struct {
			Reason *string `json:"reason"`
		}
		if json.Unmarshal(c.Data, &head) == nil && head.Reason != nil {
			cv.Reason = *head.Reason
		}
		if c.Type == check.IDScan {
			if cv.Images, cv.KeptUntil, err = h.store.CheckImages(ctx, actor(rq), c.ID); err != nil {
				return out, err
			}
		}
		out.Checks = append(out.Checks, cv)
	}
	evs, err := h.store.ListEvents(ctx, rq.tenant, store.EventQuery{PageQuery: store.PageQuery{Limit: caseLimit}, SubjectID: &id})
	if err != nil {
		return out, err
	}
	out.Events = evs.Items
	trail, err := h.store.AuditTrail(ctx, rq.tenant, records, caseLimit)
	if err != nil {
		return out, err
	}
	out.Audit = auditViews(trail)
	return out, nil
}

func auditViews(rows []store.AuditEntry) []auditView {
	out := make([]auditView, 0, len(rows))
	for _, a := range rows {
		av := auditView{At: a.CreatedAt, Action: a.Action, Kind: a.RecordKind, RecordID: a.RecordID.String()}
		switch {
		case a.StaffID != nil:
			av.StaffID = a.StaffID.String()
			if a.StaffEmail != nil {
				av.StaffMail = *a.StaffEmail
			}
		case a.KeyID != nil:
			av.KeyID = a.KeyID.String()
		}
		out = append(out, av)
	}
	return out
}

func add(fs []field, name string, v *string) []field {
	if v != nil && *v != "" {
		fs = append(fs, field{name, *v})
	}
	return fs
}

func day(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.Format(time.DateOnly)
	return &s
}

func num(n *int) *string {
	if n == nil {
		return nil
	}
	s := strconv.Itoa(*n)
	return &s
}

// customerFields are a customer's fields, named as the API names them.
func customerFields(c store.Customer) []field {
	fs := []field{{"id", c.ID.String()}, {"name", c.Name}, {"email", c.Email}}
	fs = add(fs, "initials", c.Initials)
	fs = add(fs, "firstname", c.FirstName)
	fs = add(fs, "lastname", c.LastName)
	fs = add(fs, "gender", c.Gender)
	fs = add(fs, "birthdate", day(c.Birthdate))
	fs = add(fs, "nationality_id", num(c.NationalityID))
	fs = add(fs, "document_type", num(c.DocumentType))
	fs = add(fs, "document_number", c.DocumentNumber)
	fs = add(fs, "document_expiration", day(c.DocumentExpiration))
	fs = add(fs, "phone", c.Phone)
	fs = add(fs, "street", c.Street)
	fs = add(fs, "housenumber", c.HouseNumber)
	fs = add(fs, "addition", c.Addition)
	fs = add(fs, "postalcode", c.PostalCode)
	fs = add(fs, "city", c.City)
	fs = add(fs, "country_id", num(&c.CountryID))
	fs = add(fs, "iban_number", c.IBAN)
	if c.BusinessID != nil {
		fs = append(fs, field{"business_id", c.BusinessID.String()})
	}
	return fs
}

// businessFields are a business's fields, named as the API names them.
func businessFields(b store.Business) []field {
	fs := []field{{"id", b.ID.String()}, {"name", b.Name}, {"coc_number", b.CoCNumber}}
	fs = add(fs, "vat_number", b.VATNumber)
	fs = add(fs, "street", b.Street)
	fs = add(fs, "housenumber", b.HouseNumber)
	fs = add(fs, "addition", b.Addition)
	fs = add(fs, "postalcode", b.PostalCode)
	fs = add(fs, "city", b.City)
	fs = add(fs, "country_id", num(&b.CountryID))
	fs = add(fs, "iban_number", b.IBAN)
	return append(fs, field{"is_active", strconv.FormatBool(b.IsActive)})
}

// queue queues checks of the types ticked on a case page.
func (h *Handler) queue(kind check.Kind) func(http.ResponseWriter, *http.Request, *request) {
	return func(w http.ResponseWriter, r *http.Request, rq *request) {
		id, ok := h.pathID(w, r, rq)
		if !ok || !h.allowed(w, rq, check.ActionRetry) {
			return
		}
		if err := r.ParseForm(); err != nil {
			h.message(w, http.StatusBadRequest, rq.lang, words[rq.lang]["queueTitle"], words[rq.lang]["queueNone"])
			return
		}
		var types []check.Type
		for _, v := range r.PostForm["type"] {
			t, ok := check.Parse(v)
			if !ok || !t.AppliesTo(kind) {
				h.message(w, http.StatusUnprocessableEntity, rq.lang, words[rq.lang]["queueTitle"], words[rq.lang]["queueNone"])
				return
			}
			types = append(types, t)
		}
		if len(types) == 0 {
			h.message(w, http.StatusUnprocessableEntity, rq.lang, words[rq.lang]["queueTitle"], words[rq.lang]["queueNone"])
			return
		}
		checks, _, err := h.store.QueueChecks(r.Context(), rq.tenant, kind, id, types)
		if h.failed(w, rq, err) {
			return
		}
		for _, c := range checks {
			if err := h.store.Audit(r.Context(), actor(rq), "check.queued", "check", c.ID, nil); err != nil {
				h.fail(w, rq, err)
				return
			}
		}
		back(w, r, "/console/"+casePath(kind)+"/"+id.String(), "queued")
	}
}

func casePath(kind check.Kind) string {
	if kind == check.Customer {
		return "customers"
	}
	return "businesses"
}

// retry puts failed checks (one or many, ticked) back in the queue.
func (h *Handler) retry(w http.ResponseWriter, r *http.Request, rq *request) {
	if !h.allowed(w, rq, check.ActionRetry) {
		return
	}
	if err := r.ParseForm(); err != nil || len(r.PostForm["check"]) == 0 || len(r.PostForm["check"]) > 100 {
		h.message(w, http.StatusUnprocessableEntity, rq.lang, words[rq.lang]["retryTitle"], words[rq.lang]["retryNone"])
		return
	}
	retried, skipped := 0, 0
	for _, v := range r.PostForm["check"] {
		id, err := uuid.Parse(v)
		if err != nil {
			skipped++
			continue
		}
		_, err = h.store.RequestRetry(r.Context(), rq.tenant, id)
		switch {
		case errors.Is(err, store.ErrConflict), errors.Is(err, store.ErrNotFound):
			skipped++
			continue
		case err != nil:
			h.fail(w, rq, err)
			return
		}
		if err := h.store.Audit(r.Context(), actor(rq), "check.retried", "check", id, nil); err != nil {
			h.fail(w, rq, err)
			return
		}
		retried++
	}
	target := r.PostFormValue("back")
	if !safeBack(target) {
		target = "/console/support"
	}
	code := "retried"
	if skipped > 0 {
		code = "retriedSome"
	}
	if retried == 0 {
		code = "retriedNone"
	}
	back(w, r, target, code)
}

// safeBack reports whether a form's return path is one of the console's
// own pages (never another site).
func safeBack(p string) bool {
	return strings.HasPrefix(p, "/console/") && !strings.HasPrefix(p, "/console//") && !strings.ContainsAny(p, "\\\r\n?#")
}

// imageRef reads a photo's check id and number off its path.
func (h *Handler) imageRef(w http.ResponseWriter, r *http.Request, rq *request) (uuid.UUID, int, bool) {
	id, ok := h.pathID(w, r, rq)
	if !ok {
		return id, 0, false
	}
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 1 || n > 1000 {
		h.notFound(w, rq)
		return id, 0, false
	}
	return id, n, true
}

// imagePage shows one idscan photo, zoomed and rotated as asked (links,
// no script: the page is usable with none).
func (h *Handler) imagePage(w http.ResponseWriter, r *http.Request, rq *request) {
	id, n, ok := h.imageRef(w, r, rq)
	if !ok {
		return
	}
	c, err := h.store.GetCheck(r.Context(), rq.tenant, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && c.Type != check.IDScan) {
		h.notFound(w, rq)
		return
	}
	if err != nil {
		h.fail(w, rq, err)
		return
	}
	rot, _ := strconv.Atoi(r.URL.Query().Get("rotate"))
	zoom, _ := strconv.Atoi(r.URL.Query().Get("zoom"))
	rot, zoom = ((rot%360)+360)%360/90*90, min(max(zoom, 1), 3)
	base := "/console/checks/" + id.String() + "/images/" + strconv.Itoa(n)
	link := func(rot, zoom int) string {
		return base + "?rotate=" + strconv.Itoa(rot) + "&zoom=" + strconv.Itoa(zoom)
	}
	data := map[string]any{"Src": base + "/photo", "Rotate": rot, "Zoom": zoom,
		"Left": link((rot+270)%360, zoom), "Right": link((rot+90)%360, zoom),
		"In": link(rot, min(zoom+1, 3)), "Out": link(rot, max(zoom-1, 1)), "N": n}
	if c.CustomerID != nil {
		data["Case"] = "/console/customers/" + c.CustomerID.String()
	}
	v := h.page(rq, words[rq.lang]["imageTitle"])
	v.Data = data
	h.render(w, http.StatusOK, "image", v)
}

// photo sends one idscan photo's bytes; every view is an audit row
// (image.viewed, the staff member named).
func (h *Handler) photo(w http.ResponseWriter, r *http.Request, rq *request) {
	id, n, ok := h.imageRef(w, r, rq)
	if !ok {
		return
	}
	if h.cfg.Images == nil {
		h.message(w, http.StatusServiceUnavailable, rq.lang, words[rq.lang]["imageTitle"], words[rq.lang]["imagesOff"])
		return
	}
	row, err := h.store.CheckImage(r.Context(), actor(rq), id, n)
	if h.failed(w, rq, err) {
		return
	}
	h.sendImage(w, rq, id, row)
}

// sendImage opens a stored image of check id and sends its bytes.
func (h *Handler) sendImage(w http.ResponseWriter, rq *request, id uuid.UUID, row store.DocumentImage) {
	im, err := h.cfg.Images.OpenImage(check.Ref{TenantID: rq.tenant, CheckID: id}, row)
	if err != nil {
		h.fail(w, rq, err)
		return
	}
	w.Header().Set("Content-Type", row.ContentType)
	w.Header().Set("Content-Disposition", "inline")
	w.Write(im.Bytes)
}

// selfieFrame sends one frame of a selfie attempt; every view is an
// audit row, as a document photo's is.
func (h *Handler) selfieFrame(w http.ResponseWriter, r *http.Request, rq *request) {
	id, n, ok := h.imageRef(w, r, rq)
	if !ok {
		return
	}
	a, err := strconv.Atoi(r.PathValue("a"))
	if err != nil || a < 1 || a > 1000 {
		h.notFound(w, rq)
		return
	}
	if h.cfg.Images == nil {
		h.message(w, http.StatusServiceUnavailable, rq.lang, words[rq.lang]["imageTitle"], words[rq.lang]["imagesOff"])
		return
	}
	row, err := h.store.SelfieFrame(r.Context(), actor(rq), id, a, n)
	if h.failed(w, rq, err) {
		return
	}
	h.sendImage(w, rq, id, row)
}
