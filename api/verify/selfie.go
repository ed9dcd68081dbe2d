package verify

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
)

// The selfie upload's fields and limits: the frames are small (a phone's
// front camera), so the body is held far under the document's.
const (
	frameField     = "frame"
	nonceField     = "nonce"
	consentField   = "consent"
	maxSelfieBytes = 24 << 20
)

// selfieStatus is the selfie's part of GET /verify/{token}/status, once
// the document is read and the tenant asks for a selfie: the challenge to
// answer (its steps, in order, after a first frame looking straight at
// the camera; the nonce to send with the frames), and how the last
// attempt ended.
type selfieStatus struct {
	State       string   `json:"state"` // awaiting (frames wanted), reading; once the check ended done, or retake (the last attempt allowed)
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
	case check.SelfieRetake: // the last attempt allowed: the check ended
		st.Reason, st.Message = last.Reason, t.SelfieNotUsedTitle
		if last.Reason != nil {
			st.Message = t.selfieRetakes[*last.Reason]
		}
	case check.SelfieDone:
		st.Message = t.PhotoDone
	}
	return st
}

// selfieUpload is POST /verify/{token}/selfie: the frames of a selfie
// (JPEG or PNG, multipart parts named frame, in the order taken: first
// looking straight at the camera, then one or more for each step) and the
// challenge's nonce (a field named nonce). 202 and the status to poll;
// refused: 409 when no selfie is awaited or the nonce is another
// challenge's, 413, 415, 422 (too many frames, none, damaged), 410, 404,
// 503 as document uploads are. From the hosted page (a browser: Origin or
// Referer, which the handler checks are ours) the person's consent is
// required too (consent=yes); a form post without JavaScript is sent
// back to the page, which shows the selfie being checked.
func (h *Handler) selfieUpload(w http.ResponseWriter, r *http.Request) {
	c, ok := h.beginUpload(w, r, frameField)
	if !ok {
		return
	}
	frames, values, bad := readParts(w, r, frameField, store.MaxSelfieFrames, maxSelfieBytes, []string{nonceField, consentField}, func(t texts) string { return t.SelfieTooMany })
	switch {
	case bad != nil:
		c.fail(bad.status, frameField, bad.msg)
		return
	case !fromApp(r) && values[consentField] != "yes":
		c.fail(http.StatusUnprocessableEntity, consentField, func(t texts) string { return t.SelfieConsentNeeded })
		return
	case values[nonceField] == "":
		c.fail(http.StatusUnprocessableEntity, nonceField, func(texts) string { return "The nonce field is required: the challenge's, from the status." })
		return
	}
	rows := make([]store.DocumentImage, len(frames))
	for i, im := range frames {
		rows[i] = h.Images.SealImage(c.ref(), im)
	}
	att, err := h.Store.AddSelfie(r.Context(), c.ref(), values[nonceField], rows)
	switch {
	case errors.Is(err, store.ErrNoChallenge):
		c.fail(http.StatusConflict, nonceField, func(t texts) string { return t.SelfieNoChallenge })
	case errors.Is(err, store.ErrWrongNonce):
		c.fail(http.StatusConflict, nonceField, func(t texts) string { return t.SelfieWrongNonce })
	default:
		c.stored(err, frameField, "selfie upload", check.SelfieReading, att.N)
	}
}

// selfieStep is one frame the selfie's page asks for: the step's name
// ("" for the first, looking straight) and what the person does.
type selfieStep struct {
	Name, Text, Label string
}

// selfieView fills the selfie's part of the idscan page: the consent's
// words in the tenant's name, the frames to take, and the live view's
// endpoints.
func selfieView(v *view, ps photoStatus, tenant, token string) {
	sf := ps.Selfie
	v.Title, v.Intro = v.T.SelfieTitle, sprintf(v.T.SelfieIntro, tenant)
	v.SelfieWhat, v.SelfieConsent = sprintf(v.T.SelfieWhat, tenant), sprintf(v.T.SelfieConsent, tenant)
	v.SelfieKept = v.T.SelfieKeptNone
	if ps.retention > 0 {
		v.SelfieKept = fmt.Sprintf(v.T.SelfieKept, v.T.duration(ps.retention))
	}
	v.SelfieSteps = []selfieStep{{Text: v.T.SelfieStraight}}
	for _, st := range sf.Steps {
		v.SelfieSteps = append(v.SelfieSteps, selfieStep{Name: st, Text: v.T.selfieSteps[st]})
	}
	for i := range v.SelfieSteps {
		v.SelfieSteps[i].Label = fmt.Sprintf(v.T.SelfieFrameLabel, i+1, v.SelfieSteps[i].Text)
	}
	v.SelfieAction, v.LookURL = "/verify/"+token+"/selfie?lang="+v.Lang, "/verify/"+token+"/selfie/look?lang="+v.Lang
	if sf.Attempts > 1 {
		v.AttemptText = fmt.Sprintf(v.T.SelfieAttemptOf, sf.Attempts, sf.MaxAttempts)
	}
	v.Refresh = sf.State == check.SelfieReading
	v.Scripts = []string{captureScript, selfieScript}
}
