package console

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
)

// Invitation is an invitation link to mail to a new staff member.
type Invitation struct {
	TenantID            uuid.UUID
	To, URL, Role, Lang string
	ExpiresAt           time.Time
}

// Inviter mails invitation links.
type Inviter interface {
	Invite(ctx context.Context, inv Invitation) error
}

// staffData is the staff page.
type staffData struct {
	Staff  []store.Staff
	Roles  []check.Role
	Me     uuid.UUID
	Link   string // an invitation link not mailed: shown once, to pass on
	Mailed string // the address an invitation was mailed to
	Notice string
	Form   map[string]string
}

// staffPage lists the tenant's staff for an admin, with the forms to
// invite, change and disable them.
func (h *Handler) staffPage(w http.ResponseWriter, r *http.Request, rq *request) {
	if !h.allowed(w, rq, check.ActionStaff) {
		return
	}
	h.renderStaff(w, r, rq, http.StatusOK, staffData{Notice: notice(rq, r)}, nil)
}

func (h *Handler) renderStaff(w http.ResponseWriter, r *http.Request, rq *request, status int, d staffData, problems []string) {
	all, err := h.store.ListStaff(r.Context(), rq.tenant)
	if err != nil {
		h.fail(w, rq, err)
		return
	}
	d.Staff, d.Roles, d.Me = all, check.Roles, rq.session.Staff.ID
	v := h.page(rq, words[rq.lang]["staffTitle"])
	v.Data, v.Errors = d, problems
	h.render(w, status, "staff", v)
}

// staffInvite adds a staff member, invited: the link is mailed when the
// console can mail, else shown once to the admin to pass on.
func (h *Handler) staffInvite(w http.ResponseWriter, r *http.Request, rq *request) {
	if !h.allowed(w, rq, check.ActionStaff) {
		return
	}
	W := words[rq.lang]
	form := map[string]string{"email": r.PostFormValue("email"), "role": r.PostFormValue("role")}
	var problems []string
	addr, err := check.StaffEmail(form["email"])
	if err != nil {
		problems = append(problems, W["emailBad"])
	}
	role := check.Role(form["role"])
	if !role.Valid() {
		problems = append(problems, W["roleBad"])
	}
	if problems != nil {
		h.renderStaff(w, r, rq, http.StatusUnprocessableEntity, staffData{Form: form}, problems)
		return
	}
	token, hash, err := h.key.NewToken()
	if err != nil {
		h.fail(w, rq, err)
		return
	}
	st, err := h.store.ChangeStaff(r.Context(), h.by(rq), store.StaffInvite, uuid.Nil, addr, role, hash)
	if errors.Is(err, store.ErrStaffExists) {
		h.renderStaff(w, r, rq, http.StatusConflict, staffData{Form: form}, []string{W["staffExists"]})
		return
	}
	if err != nil {
		h.fail(w, rq, err)
		return
	}
	if err := h.store.Audit(r.Context(), actor(rq), "staff.invited", "staff", st.ID, map[string]string{"role": string(role)}); err != nil {
		h.fail(w, rq, err)
		return
	}
	h.sendInvitation(w, r, rq, st, token)
}

// inviteTimeout bounds the wait for the mail server; past it the admin is
// shown the link to pass on.
const inviteTimeout = 10 * time.Second

// sendInvitation mails an invitation or shows its link.
func (h *Handler) sendInvitation(w http.ResponseWriter, r *http.Request, rq *request, st store.Staff, token string) {
	scheme := "https"
	if h.cfg.PublicURL != nil && h.cfg.PublicURL.Scheme != "" {
		scheme = h.cfg.PublicURL.Scheme
	}
	link := (&url.URL{Scheme: scheme, Host: r.Host, Path: "/console/invite/" + token}).String()
	d := staffData{}
	if h.cfg.Invitations == nil {
		d.Link = link
	} else {
		ctx, cancel := context.WithTimeout(r.Context(), inviteTimeout)
		err := h.cfg.Invitations.Invite(ctx, Invitation{TenantID: rq.tenant, To: st.Email, URL: link, Role: string(st.Role), Lang: rq.lang, ExpiresAt: time.Now().Add(store.InvitationTTL)})
		cancel()
		if err != nil {
			h.log.Warn("console: invitation not mailed", "staff_id", st.ID, "error", err)
			d.Link = link // the admin passes it on instead
		} else {
			d.Mailed = st.Email
		}
	}
	h.renderStaff(w, r, rq, http.StatusOK, d, nil)
}

// staffChange changes a staff member: a new role, a new invitation, or
// disabled for good. No one changes or disables themselves (a tenant
// never loses its last admin that way).
func (h *Handler) staffChange(w http.ResponseWriter, r *http.Request, rq *request) {
	id, ok := h.pathID(w, r, rq)
	if !ok || !h.allowed(w, rq, check.ActionStaff) {
		return
	}
	W := words[rq.lang]
	if id == rq.session.Staff.ID {
		h.renderStaff(w, r, rq, http.StatusConflict, staffData{}, []string{W["staffSelf"]})
		return
	}
	var target *store.Staff
	all, err := h.store.ListStaff(r.Context(), rq.tenant)
	if err != nil {
		h.fail(w, rq, err)
		return
	}
	for i := range all {
		if all[i].ID == id {
			target = &all[i]
		}
	}
	if target == nil {
		h.notFound(w, rq)
		return
	}
	switch r.PostFormValue("do") {
	case "role":
		role := check.Role(r.PostFormValue("role"))
		if !role.Valid() {
			h.renderStaff(w, r, rq, http.StatusUnprocessableEntity, staffData{}, []string{W["roleBad"]})
			return
		}
		if _, err := h.store.ChangeStaff(r.Context(), h.by(rq), store.StaffRole, id, "", role, nil); errors.Is(err, store.ErrConflict) {
			h.renderStaff(w, r, rq, http.StatusConflict, staffData{}, []string{W["staffGone"]})
			return
		} else if err != nil {
			h.fail(w, rq, err)
			return
		}
		if err := h.store.Audit(r.Context(), actor(rq), "staff.role_changed", "staff", id, map[string]string{"role": string(role)}); err != nil {
			h.fail(w, rq, err)
			return
		}
		back(w, r, "/console/staff", "roleChanged")
	case "disable":
		if _, err := h.store.ChangeStaff(r.Context(), h.by(rq), store.StaffDisable, id, "", "", nil); err != nil {
			h.fail(w, rq, err)
			return
		}
		if err := h.store.Audit(r.Context(), actor(rq), "staff.disabled", "staff", id, nil); err != nil {
			h.fail(w, rq, err)
			return
		}
		back(w, r, "/console/staff", "disabled")
	case "reinvite":
		token, hash, err := h.key.NewToken()
		if err != nil {
			h.fail(w, rq, err)
			return
		}
		st, err := h.store.ChangeStaff(r.Context(), h.by(rq), store.StaffReinvite, id, "", "", hash)
		if errors.Is(err, store.ErrConflict) {
			h.renderStaff(w, r, rq, http.StatusConflict, staffData{}, []string{W["staffNotInvited"]})
			return
		}
		if err != nil {
			h.fail(w, rq, err)
			return
		}
		if err := h.store.Audit(r.Context(), actor(rq), "staff.invited", "staff", id, map[string]string{"role": string(st.Role)}); err != nil {
			h.fail(w, rq, err)
			return
		}
		h.sendInvitation(w, r, rq, st, token)
	default:
		h.renderStaff(w, r, rq, http.StatusUnprocessableEntity, staffData{}, []string{W["staffDoBad"]})
	}
}

// by is the signed-in session as the store checks an admin's change.
func (h *Handler) by(rq *request) store.Actor {
	return store.Actor{TenantID: rq.tenant, Session: rq.token}
}
