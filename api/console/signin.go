package console

import (
	"context"
	"crypto/hmac"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/signin"
	"github.com/kycflow/kycflow/store"
)

func withRequest(ctx context.Context, rq *request) context.Context {
	return context.WithValue(ctx, ctxKey{}, rq)
}

func fromContext(ctx context.Context) *request { return ctx.Value(ctxKey{}).(*request) }

// formToken is the CSRF token of a form shown before a session exists: a
// random value in a cookie of its own and in the form, which must agree
// (a site that forges the form cannot read or set the cookie).
func formToken(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(formCookie); err == nil && len(c.Value) == 43 {
		return c.Value
	}
	t, _, err := signin.NewToken()
	if err != nil {
		return ""
	}
	setCookie(w, formCookie, t, 0)
	return t
}

// formTokenOK reports whether a posted form carries its cookie's token.
func formTokenOK(r *http.Request) bool {
	c, err := r.Cookie(formCookie)
	return err == nil && c.Value != "" && hmac.Equal([]byte(c.Value), []byte(r.PostFormValue("csrf")))
}

func (h *Handler) signInPage(w http.ResponseWriter, r *http.Request) {
	rq := fromContext(r.Context())
	if rq.session != nil {
		http.Redirect(w, r, "/console", http.StatusSeeOther)
		return
	}
	h.render(w, http.StatusOK, "signin", view{Lang: rq.lang, T: texts[rq.lang], Title: texts[rq.lang].SignInTitle, CSRF: formToken(w, r)})
}

// maxForm bounds a form's body: a few fields.
const maxForm = 8 << 10

// signIn checks an address, a password and a code. Every failure answers
// alike ("not signed in") so that the answer tells no one which part was
// wrong or whether the address has an account; each counts against the
// account, which locks after store.MaxSignInFailures.
func (h *Handler) signIn(w http.ResponseWriter, r *http.Request) {
	rq := fromContext(r.Context())
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil || !formTokenOK(r) {
		h.message(w, http.StatusForbidden, rq.lang, texts[rq.lang].ForeignTitle, texts[rq.lang].ForeignBody)
		return
	}
	email, password, code := strings.TrimSpace(r.PostFormValue("email")), r.PostFormValue("password"), strings.TrimSpace(r.PostFormValue("code"))
	again := func(msg string) {
		h.render(w, http.StatusUnauthorized, "signin", view{Lang: rq.lang, T: texts[rq.lang], Title: texts[rq.lang].SignInTitle,
			CSRF: formToken(w, r), Errors: []string{msg}, Form: map[string]string{"email": email}})
	}
	addr, err := check.StaffEmail(email)
	if err != nil {
		signin.WasteTime(password)
		again(texts[rq.lang].SignInFailed)
		return
	}
	st, err := h.store.StaffByEmail(r.Context(), rq.tenant, addr)
	if errors.Is(err, store.ErrNotFound) || err == nil && (st.Status != check.StaffActive || st.PasswordHash == nil) {
		signin.WasteTime(password)
		again(texts[rq.lang].SignInFailed)
		return
	}
	if err != nil {
		h.fail(w, rq, err)
		return
	}
	now := time.Now()
	if st.LockedUntil != nil && st.LockedUntil.After(now) {
		signin.WasteTime(password)
		h.store.SignInFailed(r.Context(), rq.tenant, st.ID) //nolint:errcheck // locked either way
		again(texts[rq.lang].Locked)
		return
	}
	ok, err := signin.VerifyPassword(*st.PasswordHash, password)
	if err != nil {
		h.fail(w, rq, err)
		return
	}
	var step int64
	if ok {
		secret, err := h.open(st)
		if err != nil {
			h.fail(w, rq, err)
			return
		}
		step, ok = signin.VerifyTOTP(secret, code, now, st.TOTPStep)
	}
	if ok {
		ok = h.store.SignedIn(r.Context(), rq.tenant, st.ID, step) == nil // a code used once
	}
	if !ok {
		if err := h.store.SignInFailed(r.Context(), rq.tenant, st.ID); err != nil {
			h.fail(w, rq, err)
			return
		}
		h.audit(r, rq, st, "staff.sign_in_failed")
		again(texts[rq.lang].SignInFailed)
		return
	}
	h.begin(w, r, rq, st)
}

// begin starts a session for st and sends them to the console's home.
func (h *Handler) begin(w http.ResponseWriter, r *http.Request, rq *request, st store.Staff) {
	token, hash, err := signin.NewToken()
	if err != nil {
		h.fail(w, rq, err)
		return
	}
	csrf, _, err := signin.NewToken()
	if err != nil {
		h.fail(w, rq, err)
		return
	}
	if err := h.store.CreateSession(r.Context(), rq.tenant, st.ID, hash, csrf); err != nil {
		h.fail(w, rq, err)
		return
	}
	h.audit(r, rq, st, "staff.signed_in")
	setCookie(w, sessionCookie, token, 0)
	setCookie(w, formCookie, "", -1)
	http.Redirect(w, r, "/console", http.StatusSeeOther)
}

// signOut ends this session, or with everywhere=1 every session of the
// staff member.
func (h *Handler) signOut(w http.ResponseWriter, r *http.Request, rq *request) {
	var err error
	action := "staff.signed_out"
	if r.PostFormValue("everywhere") == "1" {
		err, action = h.store.EndSessions(r.Context(), rq.tenant, rq.session.StaffID), "staff.signed_out_everywhere"
	} else {
		err = h.store.EndSession(r.Context(), rq.tenant, rq.token)
	}
	if err != nil {
		h.fail(w, rq, err)
		return
	}
	h.audit(r, rq, rq.session.Staff, action)
	setCookie(w, sessionCookie, "", -1)
	http.Redirect(w, r, "/console/sign-in", http.StatusSeeOther)
}

func (h *Handler) home(w http.ResponseWriter, r *http.Request, rq *request) {
	h.render(w, http.StatusOK, "home", h.page(rq, texts[rq.lang].HomeTitle))
}

// audit records a staff member's action on their own account; a failure
// to record is logged, not shown (the action happened).
func (h *Handler) audit(r *http.Request, rq *request, st store.Staff, action string) {
	if err := h.store.Audit(r.Context(), store.Principal{TenantID: rq.tenant, StaffID: st.ID}, action, "staff", st.ID, nil); err != nil {
		h.log.Error("console: audit", "action", action, "error", err)
	}
}
