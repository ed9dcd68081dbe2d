package verify

import (
	"errors"
	"net/http"
	"time"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
)

// The selfie upload's fields and limits: the frames are small (a phone's
// front camera), so the body is held far under the document's.
const (
	frameField     = "frame"
	nonceField     = "nonce"
	maxSelfieBytes = 24 << 20
)

// selfieStatus is the selfie's part of GET /verify/{token}/status, once
// the document is read and the tenant asks for a selfie: the challenge to
// answer (its steps, in order, after a first frame looking straight at
// the camera; the nonce to send with the frames), and how the last
// attempt ended.
type selfieStatus struct {
	State       string   `json:"state"` // awaiting (frames wanted), reading
	Steps       []string `json:"steps"`
	Nonce       string   `json:"nonce,omitempty"`
	Attempts    int      `json:"attempts"`
	MaxAttempts int      `json:"max_attempts"`
	Reason      *string  `json:"reason"` // the last attempt's retake reason
	Message     string   `json:"message"`
}

// selfieState is the selfie's status from its attempts; nil when there
// are none (no selfie asked, or the document not read yet).
func selfieState(as []store.SelfieAttempt, maxAttempts int, t texts) *selfieStatus {
	if len(as) == 0 {
		return nil
	}
	last := as[len(as)-1]
	st := &selfieStatus{State: last.Status, Steps: last.Steps, Attempts: len(as), MaxAttempts: maxAttempts, Message: t.SelfieAwaiting}
	if st.Steps == nil {
		st.Steps = []string{}
	}
	switch last.Status {
	case check.SelfieAwaiting:
		st.Nonce = last.Nonce
		if len(as) > 1 {
			st.Reason = as[len(as)-2].Reason
			if st.Reason != nil {
				st.Message = t.selfieRetakes[*st.Reason]
			}
		}
	case check.SelfieReading:
		st.Message = t.SelfieReading
	}
	return st
}

// selfieUpload is POST /verify/{token}/selfie: the frames of a selfie
// (JPEG or PNG, multipart parts named frame, in the order taken: first
// looking straight at the camera, then one or more for each step) and the
// challenge's nonce (a field named nonce). 202 and the status to poll;
// refused: 409 when no selfie is awaited or the nonce is another
// challenge's, 413, 415, 422 (too many frames, none, damaged), 410, 404,
// 503 as document uploads are.
func (h *Handler) selfieUpload(w http.ResponseWriter, r *http.Request) {
	fail := func(status int, field string, msg func(texts) string) {
		replyJSON(w, status, map[string]any{"message": msg(english), "errors": map[string][]string{field: {msg(english)}}})
	}
	lv, err := h.Store.LinkByToken(r.Context(), r.PathValue("token"))
	if !h.idscanLinkJSON(w, lv, err) {
		return
	}
	if st := lv.State(lv.Check.Status, time.Now()); st != store.LinkOpen {
		replyJSON(w, http.StatusGone, gone(st))
		return
	}
	if h.Images == nil {
		fail(http.StatusServiceUnavailable, frameField, func(t texts) string { return t.UploadOff })
		return
	}
	frames, values, bad := readParts(w, r, frameField, store.MaxSelfieFrames, maxSelfieBytes, []string{nonceField}, func(t texts) string { return t.SelfieTooMany })
	if bad != nil {
		fail(bad.status, frameField, bad.msg)
		return
	}
	if values[nonceField] == "" {
		fail(http.StatusUnprocessableEntity, nonceField, func(texts) string { return "The nonce field is required: the challenge's, from the status." })
		return
	}
	ref := check.Ref{TenantID: lv.TenantID, CheckID: lv.CheckID}
	rows := make([]store.DocumentImage, len(frames))
	for i, im := range frames {
		rows[i] = h.Images.SealImage(ref, im)
	}
	att, err := h.Store.AddSelfie(r.Context(), ref, values[nonceField], rows)
	var closed *store.LinkClosedError
	switch {
	case err == nil:
	case errors.Is(err, store.ErrNoChallenge):
		fail(http.StatusConflict, nonceField, func(t texts) string { return t.SelfieNoChallenge })
		return
	case errors.Is(err, store.ErrWrongNonce):
		fail(http.StatusConflict, nonceField, func(t texts) string { return t.SelfieWrongNonce })
		return
	case errors.As(err, &closed):
		replyJSON(w, http.StatusGone, gone(closed.State))
		return
	default:
		h.Log.Error("selfie upload", "error", err)
		fail(http.StatusServiceUnavailable, frameField, func(texts) string { return "Service temporarily unavailable; please try again in a minute." })
		return
	}
	replyJSON(w, http.StatusAccepted, map[string]any{"status": check.SelfieReading, "attempt": att.N,
		"status_url": "/verify/" + r.PathValue("token") + "/status"})
}
