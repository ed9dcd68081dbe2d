package verify

import (
	"errors"
	"net/http"
	"time"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
)

// uploadCall is what the document's and the selfie's uploads share: the
// open idscan link they are sent to, and how they answer — the page again
// for a browser's form post (in the person's language), JSON for an app
// or the page's script (in English).
type uploadCall struct {
	h    *Handler
	w    http.ResponseWriter
	r    *http.Request
	lv   store.LinkView
	lang string
	html bool
}

// beginUpload finds the upload's link; false when it answered (unknown,
// not idscan, closed, or uploads off here).
func (h *Handler) beginUpload(w http.ResponseWriter, r *http.Request, field string) (*uploadCall, bool) {
	html := wantsHTML(r)
	lv, err := h.Store.LinkByToken(r.Context(), r.PathValue("token"))
	if errors.Is(err, store.ErrNotFound) && html {
		h.lookup(w, r)
		return nil, false
	}
	if !h.idscanLinkJSON(w, lv, err) {
		return nil, false
	}
	c := &uploadCall{h: h, w: w, r: r, lv: lv, lang: language(r, &lv.Customer), html: html}
	if st := lv.State(lv.Check.Status, time.Now()); st != store.LinkOpen {
		c.closed(st)
		return nil, false
	}
	if h.Images == nil {
		c.fail(http.StatusServiceUnavailable, field, func(t texts) string { return t.UploadOff })
		return nil, false
	}
	return c, true
}

// ref is the link's check.
func (c *uploadCall) ref() check.Ref {
	return check.Ref{TenantID: c.lv.TenantID, CheckID: c.lv.CheckID}
}

// fail refuses the upload with status, msg naming field.
func (c *uploadCall) fail(status int, field string, msg func(texts) string) {
	if c.html {
		t := c.h.newView(c.r, c.lang).T
		c.h.idscanPage(c.w, c.r, status, c.lang, c.lv, func(v *view) { v.UploadError = msg(t) })
		return
	}
	replyJSON(c.w, status, map[string]any{"message": msg(english), "errors": map[string][]string{field: {msg(english)}}})
}

// closed answers an upload to a link that closed.
func (c *uploadCall) closed(st store.LinkState) {
	if c.html {
		c.h.closed(c.w, c.r, c.lang, st, c.lv.TenantName)
		return
	}
	replyJSON(c.w, http.StatusGone, gone(st))
}

// stored answers an upload the store refused (err not nil: closed, or an
// outage), or taken: a form post back to the page, which shows it being
// read; an app 202 with the status to poll.
func (c *uploadCall) stored(err error, field, what, status string, attempt int) {
	var closed *store.LinkClosedError
	switch {
	case errors.As(err, &closed):
		c.closed(closed.State)
	case err != nil:
		c.h.Log.Error(what, "error", err)
		c.fail(http.StatusServiceUnavailable, field, func(texts) string { return "Service temporarily unavailable; please try again in a minute." })
	case c.html:
		http.Redirect(c.w, c.r, "/verify/"+c.r.PathValue("token")+"?lang="+c.lang, http.StatusSeeOther)
	default:
		replyJSON(c.w, http.StatusAccepted, map[string]any{"status": status, "attempt": attempt,
			"status_url": "/verify/" + c.r.PathValue("token") + "/status"})
	}
}
