package verify

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/providers/idin"
	"github.com/kycflow/kycflow/store"
)

type issuerGroup struct {
	Country string
	Issuers []idin.Issuer
}

// idinForm renders the bank choice.
func (h *Handler) idinForm(w http.ResponseWriter, r *http.Request, lang string, lv store.LinkView) {
	v := h.newView(r, lang)
	if h.IDIN == nil {
		h.message(w, r, http.StatusServiceUnavailable, lang, "…", v.T.UnavailableTitle, v.T.UnavailableBody, lv.TenantName)
		return
	}
	issuers, err := h.issuers(r)
	if err != nil {
		h.Log.Warn("iDIN issuers", "error", err)
		h.message(w, r, http.StatusServiceUnavailable, lang, "…", v.T.UnavailableTitle, v.T.BanksUnavailable, lv.TenantName)
		return
	}
	var groups []issuerGroup
	for _, is := range issuers {
		if len(groups) == 0 || groups[len(groups)-1].Country != is.Country {
			groups = append(groups, issuerGroup{Country: is.Country})
		}
		groups[len(groups)-1].Issuers = append(groups[len(groups)-1].Issuers, is)
	}
	v.Title, v.Intro, v.IssuerGroups = v.T.IDINTitle, sprintf(v.T.IDINIntro, lv.TenantName), groups
	v.Action = "/verify/" + r.PathValue("token") + "/idin?lang=" + lang
	// The form's answer redirects to the person's bank, whichever origin
	// that is: form-action would block it (browsers apply it to redirects).
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'")
	h.render(w, http.StatusOK, string(check.IDIN), v)
}

// issuersTTL is how long the bank list is reused: it changes rarely, and
// iDIN brokers ask merchants to cache it rather than fetch it per visitor.
const issuersTTL = 10 * time.Minute

// issuers is the broker's bank list, cached for issuersTTL.
func (h *Handler) issuers(r *http.Request) ([]idin.Issuer, error) {
	h.issuerMu.Lock()
	defer h.issuerMu.Unlock()
	if h.issuerList != nil && time.Since(h.issuerAt) < issuersTTL {
		return h.issuerList, nil
	}
	list, err := h.IDIN.Issuers(r.Context())
	if err != nil {
		return nil, err
	}
	h.issuerList, h.issuerAt = list, time.Now()
	return list, nil
}

// startIDIN starts the bank transaction and sends the person to their bank.
func (h *Handler) startIDIN(w http.ResponseWriter, r *http.Request) {
	lv, ok := h.lookup(w, r)
	if !ok {
		return
	}
	lang := language(r, &lv.Customer)
	t := h.newView(r, lang).T
	if st := lv.State(lv.Check.Status, time.Now()); st != store.LinkOpen {
		h.closed(w, r, lang, st, lv.TenantName)
		return
	}
	if lv.Type != check.IDIN || h.IDIN == nil {
		h.message(w, r, http.StatusServiceUnavailable, lang, "…", t.UnavailableTitle, t.UnavailableBody, lv.TenantName)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	token := r.PathValue("token")
	ec, err := entranceCode()
	if err != nil {
		h.Log.Error("iDIN start", "error", err)
		h.message(w, r, http.StatusServiceUnavailable, lang, "…", t.UnavailableTitle, t.BanksUnavailable, lv.TenantName)
		return
	}
	trx, err := h.IDIN.Start(r.Context(), idin.StartRequest{
		IssuerID: r.PostFormValue("issuer"), EntranceCode: ec, MerchantReference: lv.CheckID.String(),
		ReturnURL: h.PublicURL + "/verify/" + token + "/return", Language: lang,
		Attributes: idin.AttributeGroups{Identity: true, Name: true, Gender: true, Address: true, DateOfBirth: true, Over18: true},
	})
	if errors.Is(err, idin.ErrInvalidRequest) {
		h.idinForm(w, r, lang, lv) // no bank chosen: show the choice again
		return
	}
	if err != nil {
		h.Log.Warn("iDIN start", "error", err)
		h.message(w, r, http.StatusServiceUnavailable, lang, "…", t.UnavailableTitle, t.BanksUnavailable, lv.TenantName)
		return
	}
	raw, _ := json.Marshal(check.IDINSubmission{TransactionID: trx.ID, EntranceCode: ec})
	if err := h.Store.SetLinkPending(r.Context(), token, raw); err != nil {
		h.submitFailed(w, r, lang, lv, err)
		return
	}
	http.Redirect(w, r, trx.RedirectURL, http.StatusSeeOther)
}

// idinReturn receives the person back from their bank (?trxid=&ec=) and
// hands the transaction to the check's workflow, which asks the broker.
func (h *Handler) idinReturn(w http.ResponseWriter, r *http.Request) {
	lv, ok := h.lookup(w, r)
	if !ok {
		return
	}
	lang := language(r, &lv.Customer)
	t := h.newView(r, lang).T
	var pending check.IDINSubmission
	if lv.Submission != nil {
		json.Unmarshal(lv.Submission, &pending)
	}
	if st := lv.State(lv.Check.Status, time.Now()); st != store.LinkOpen {
		if st == store.LinkUsed && pending.Returned {
			// A reload of the return page: the answer is on its way.
			h.message(w, r, http.StatusOK, lang, "✓", t.DoneTitle, t.IDINDoneBody, lv.TenantName)
			return
		}
		h.closed(w, r, lang, st, lv.TenantName)
		return
	}
	q := r.URL.Query()
	if !sameSecret(q.Get("trxid"), pending.TransactionID) || !sameSecret(q.Get("ec"), pending.EntranceCode) {
		h.message(w, r, http.StatusBadRequest, lang, "✕", t.UnknownTitle, t.ReturnMismatch, lv.TenantName)
		return
	}
	pending.Returned = true
	raw, _ := json.Marshal(pending)
	if err := h.Store.SubmitLink(r.Context(), r.PathValue("token"), raw); err != nil {
		h.submitFailed(w, r, lang, lv, err)
		return
	}
	h.message(w, r, http.StatusOK, lang, "✓", t.DoneTitle, t.IDINDoneBody, lv.TenantName)
}

// entranceCode is the unguessable state the bank hands back on return:
// 32 characters of [A-Za-z0-9] (iDIN allows up to 40), drawn without modulo
// bias (bytes of 248 and above are thrown away: 248 = 4 × 62).
func entranceCode() (string, error) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	out := make([]byte, 0, 32)
	var buf [48]byte
	for len(out) < cap(out) {
		if _, err := rand.Read(buf[:]); err != nil {
			return "", fmt.Errorf("entrance code: %w", err)
		}
		for _, b := range buf {
			if b < 248 && len(out) < cap(out) {
				out = append(out, alphabet[b%62])
			}
		}
	}
	return string(out), nil
}

// sameSecret compares a value from the request with the stored one in
// constant time, so response timing tells an attacker nothing about it.
func sameSecret(got, want string) bool {
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
