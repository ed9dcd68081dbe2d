package console

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	qrcode "github.com/skip2/go-qrcode"

	"github.com/kycflow/kycflow/signin"
	"github.com/kycflow/kycflow/store"
)

// open unseals a staff member's second-factor secret.
func (h *Handler) open(id uuid.UUID, keyID *string, sealed []byte) ([]byte, error) {
	if keyID == nil || *keyID != h.key.ID() || len(sealed) < h.seal.NonceSize() {
		return nil, errors.New("console: the second factor is sealed under another key than STAFF_KEY")
	}
	n := h.seal.NonceSize()
	return h.seal.Open(nil, sealed[:n], sealed[n:], []byte(id.String()))
}

// sealSecret seals a second-factor secret for st (its id bound in, so a
// sealed secret copied to another account does not open).
func (h *Handler) sealSecret(st store.Staff, secret []byte) ([]byte, error) {
	nonce := make([]byte, h.seal.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return h.seal.Seal(nonce, nonce, secret, []byte(st.ID.String())), nil
}

func (h *Handler) invitePage(w http.ResponseWriter, r *http.Request) {
	rq := fromContext(r.Context())
	st, hash, ok := h.invitation(w, r, rq)
	if !ok {
		return
	}
	h.renderInvite(w, r, rq, st, hash, http.StatusOK, nil)
}

// invitation finds the invitation in the path, or answers that it is not
// (or no longer) good.
func (h *Handler) invitation(w http.ResponseWriter, r *http.Request, rq *request) (store.Staff, []byte, bool) {
	hash := h.key.HashToken(r.PathValue("token"))
	st, err := h.store.Invitation(r.Context(), rq.tenant, hash)
	if errors.Is(err, store.ErrNotFound) {
		h.message(w, http.StatusNotFound, rq.lang, texts[rq.lang].InviteGoneTitle, texts[rq.lang].InviteGoneBody)
		return st, nil, false
	}
	if err != nil {
		h.fail(w, rq, err)
		return st, nil, false
	}
	return st, hash, true
}

func (h *Handler) renderInvite(w http.ResponseWriter, r *http.Request, rq *request, st store.Staff, hash []byte, status int, errs []string) {
	secret := h.key.InvitationSecret(hash)
	png, err := qrcode.Encode(signin.TOTPURI(secret, "kycflow "+store.NormalizeHost(r.Host), st.Email), qrcode.Medium, 256)
	if err != nil {
		h.fail(w, rq, err)
		return
	}
	h.render(w, status, "invite", view{Lang: rq.lang, T: texts[rq.lang], Title: texts[rq.lang].InviteTitle, CSRF: formToken(w, r), Email: st.Email,
		Role: string(st.Role), Errors: errs, Secret: template.URL(spaced(signin.SecretText(secret))),
		QR: template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(png)), Path: r.URL.Path})
}

// spaced groups a secret in fours, as people copy it.
func spaced(s string) string {
	var b strings.Builder
	for i, c := range s {
		if i > 0 && i%4 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// acceptInvite sets the password and the second factor (proved by a code
// from the app), uses the invitation and signs the new member in.
func (h *Handler) acceptInvite(w http.ResponseWriter, r *http.Request) {
	rq := fromContext(r.Context())
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil || !formTokenOK(r) {
		h.message(w, http.StatusForbidden, rq.lang, texts[rq.lang].ForeignTitle, texts[rq.lang].ForeignBody)
		return
	}
	st, hash, ok := h.invitation(w, r, rq)
	if !ok {
		return
	}
	t := texts[rq.lang]
	pw := r.PostFormValue("password")
	var errs []string
	if signin.CheckPassword(pw) != nil {
		errs = append(errs, t.PasswordRule)
	} else if pw != r.PostFormValue("confirm") {
		errs = append(errs, t.PasswordsDiffer)
	}
	secret := h.key.InvitationSecret(hash)
	step, codeOK := signin.VerifyTOTP(secret, strings.TrimSpace(r.PostFormValue("code")), time.Now(), 0)
	if !codeOK {
		errs = append(errs, t.CodeWrong)
	}
	if len(errs) > 0 {
		h.renderInvite(w, r, rq, st, hash, http.StatusUnprocessableEntity, errs)
		return
	}
	pwHash, err := h.key.HashPassword(r.Context(), pw)
	if h.busy(w, rq, err) {
		return
	}
	sealed, err := h.sealSecret(st, secret)
	if err != nil {
		h.fail(w, rq, err)
		return
	}
	token, ses, err := h.newSession()
	if err != nil {
		h.fail(w, rq, err)
		return
	}
	st, err = h.store.AcceptInvitation(r.Context(), rq.tenant, hash, store.Enrolment{PasswordHash: pwHash, TOTPKeyID: h.key.ID(), TOTPSealed: sealed, TOTPStep: step, Session: ses})
	if errors.Is(err, store.ErrNotFound) { // used meanwhile
		h.message(w, http.StatusNotFound, rq.lang, t.InviteGoneTitle, t.InviteGoneBody)
		return
	}
	if err != nil {
		h.fail(w, rq, err)
		return
	}
	h.audit(r, rq, st, "staff.enrolled")
	h.audit(r, rq, st, "staff.signed_in")
	h.signedIn(w, r, token)
}
