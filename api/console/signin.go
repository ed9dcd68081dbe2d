package console

import (
	"context"
	"crypto/hmac"
	"errors"
	"net/http"
	"strconv"
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
	t, err := signin.RandomToken()
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

// signIn checks an address, a password and a code. Every address takes
// the same path — an account or none, active, invited or disabled — and
// every failure answers alike ("not signed in"), so that neither the
// answer nor its time tells which part was wrong or whether the address
// has an account. The attempt is counted against its guard (the address
// and this client) before anything is verified: attempts sent together
// cannot outrun the lock-out, and a stranger who locks an address out
// locks only themselves.
func (h *Handler) signIn(w http.ResponseWriter, r *http.Request) {
	rq := fromContext(r.Context())
	ctx := r.Context()
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
		addr = strings.ToLower(email) // no account has it, but it is counted all the same
	}
	guard := h.key.Guard(rq.tenant.String(), addr, signin.Client(ctx).String())
	a, err := h.store.SignInBegin(ctx, rq.tenant, addr, guard)
	if err != nil {
		h.fail(w, rq, err)
		return
	}
	if a.Locked {
		again(texts[rq.lang].Locked)
		return
	}
	ok := false
	if a.StaffID != nil && a.PasswordHash != nil {
		ok, err = h.key.VerifyPassword(ctx, *a.PasswordHash, password)
	} else {
		err = h.key.WasteTime(ctx, password)
	}
	if err != nil && !errors.Is(err, signin.ErrBusy) && ctx.Err() == nil {
		// A hash this key cannot verify (made under another STAFF_KEY):
		// that account cannot sign in, and answers as any failure does.
		h.log.Warn("console: a password hash not verifiable under STAFF_KEY", "error", err)
		ok, err = false, nil
	}
	if h.busy(w, rq, err) {
		return
	}
	var step int64
	if ok {
		secret, err := h.open(*a.StaffID, a.TOTPKeyID, a.TOTPSealed)
		if err != nil {
			h.fail(w, rq, err)
			return
		}
		step, ok = signin.VerifyTOTP(secret, code, time.Now(), *a.TOTPStep)
	}
	if !ok {
		again(texts[rq.lang].SignInFailed)
		return
	}
	token, ses, err := h.newSession()
	if err != nil {
		h.fail(w, rq, err)
		return
	}
	switch err := h.store.SignedIn(ctx, rq.tenant, guard, a, step, ses); {
	case errors.Is(err, store.ErrNotFound): // the code spent meanwhile
		again(texts[rq.lang].SignInFailed)
	case err != nil:
		h.fail(w, rq, err)
	default:
		h.signedIn(w, r, token)
	}
}

// busy answers a hash refused for want of a slot (signin.ErrBusy: too
// many sign-ins at once) or failed otherwise; false when err is nil.
func (h *Handler) busy(w http.ResponseWriter, rq *request, err error) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, signin.ErrBusy):
		w.Header().Set("Retry-After", strconv.Itoa(int(signin.HashWait.Seconds())))
		h.message(w, http.StatusServiceUnavailable, rq.lang, texts[rq.lang].BusyTitle, texts[rq.lang].BusyBody)
	default:
		h.fail(w, rq, err)
	}
	return true
}

// newSession is a new session's cookie and what the store keeps of it.
func (h *Handler) newSession() (string, store.NewSession, error) {
	token, hash, err := h.key.NewToken()
	if err != nil {
		return "", store.NewSession{}, err
	}
	csrf, err := signin.RandomToken()
	return token, store.NewSession{TokenHash: hash, CSRF: csrf}, err
}

// signedIn gives the browser its session's cookie and sends it to the
// console's home.
func (h *Handler) signedIn(w http.ResponseWriter, r *http.Request, token string) {
	setCookie(w, sessionCookie, token, 0)
	setCookie(w, formCookie, "", -1)
	http.Redirect(w, r, "/console", http.StatusSeeOther)
}

// signOut ends this session, or with everywhere=1 every session of the
// staff member.
func (h *Handler) signOut(w http.ResponseWriter, r *http.Request, rq *request) {
	everywhere := r.PostFormValue("everywhere") == "1"
	action := "staff.signed_out"
	if everywhere {
		action = "staff.signed_out_everywhere"
	}
	if err := h.store.EndSession(r.Context(), rq.tenant, rq.token, everywhere); err != nil {
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
