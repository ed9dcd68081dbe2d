package verify

import (
	"net/http"
	"strconv"
	"time"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/engines/docimage"
	"github.com/kycflow/kycflow/engines/face"
	"github.com/kycflow/kycflow/engines/selfie"
	"github.com/kycflow/kycflow/store"
)

// A look's frame is one frame of the live view, small: the whole body
// stays under a megabyte.
const maxLookBytes = 1 << 20

// lookFields are the look's text fields: the challenge's nonce, the step
// being shown, and the first frame's pose as an earlier look answered it.
var lookFields = []string{nonceField, "step", "ref_yaw", "ref_pitch", "ref_eyes"}

// lookReply is what POST /verify/{token}/selfie/look answers.
type lookReply struct {
	// Hint is what the person can do about the frame: "ok", or
	// face_not_found, face_too_small, face_too_dark, face_off_centre,
	// several_faces; Message says it in the page's words.
	Hint    string `json:"hint"`
	Message string `json:"message"`
	// Pose is the face's, when one is found: what to send back as ref_*
	// with later frames.
	Pose *lookPose `json:"pose,omitempty"`
	// Shown: with step and ref_*, whether the frame shows the step as the
	// selfie's judge will tell it.
	Shown bool `json:"shown"`
}

// lookPose is face.Pose on the wire.
type lookPose struct {
	Yaw   float64 `json:"yaw"`
	Pitch float64 `json:"pitch"`
	Eyes  float64 `json:"eyes"`
}

// look is POST /verify/{token}/selfie/look, the live view's guidance: one
// frame (a multipart part named frame) and the current challenge's nonce;
// optionally step and ref_yaw, ref_pitch, ref_eyes. The frame is judged in
// memory by the limits the selfie is judged by, and dropped: it is never
// stored or logged, and nothing of who is in it is computed (landmarks,
// no descriptor). 409 without the current challenge's nonce, 503 when the
// face models are not on this server (the person then takes each frame by
// hand) or, with Retry-After, every look slot is busy.
func (h *Handler) look(w http.ResponseWriter, r *http.Request) {
	t := english
	if language(r, nil) == "nl" {
		t = dutch
	}
	fail := func(status int, field, msg string) {
		replyJSON(w, status, map[string]any{"message": msg, "errors": map[string][]string{field: {msg}}})
	}
	lv, err := h.Store.LinkByToken(r.Context(), r.PathValue("token"))
	if !h.idscanLinkJSON(w, lv, err) {
		return
	}
	if st := lv.State(lv.Check.Status, time.Now()); st != store.LinkOpen {
		replyJSON(w, http.StatusGone, gone(st))
		return
	}
	frames, values, bad := readParts(w, r, frameField, 1, maxLookBytes, lookFields, func(t texts) string { return t.LookOneFrame })
	if bad != nil {
		fail(bad.status, frameField, bad.msg(t))
		return
	}
	ref := check.Ref{TenantID: lv.TenantID, CheckID: lv.CheckID}
	as, err := h.Store.SelfieAttempts(r.Context(), ref)
	if err != nil {
		h.Log.Error("selfie look", "error", err)
		fail(http.StatusServiceUnavailable, frameField, "Service temporarily unavailable.")
		return
	}
	if len(as) == 0 || as[len(as)-1].Status != check.SelfieAwaiting ||
		!sameSecret(as[len(as)-1].Nonce, values[nonceField]) {
		fail(http.StatusConflict, nonceField, t.SelfieWrongNonce)
		return
	}
	engine := h.faces()
	if engine == nil {
		fail(http.StatusServiceUnavailable, frameField, t.LookOff)
		return
	}
	select {
	case h.looks <- struct{}{}:
		defer func() { <-h.looks }()
	default:
		w.Header().Set("Retry-After", "1")
		fail(http.StatusServiceUnavailable, frameField, t.LookOff)
		return
	}
	im, err := docimage.DecodeGray(frames[0].Bytes, frames[0].Info)
	if err != nil {
		fail(http.StatusUnprocessableEntity, frameField, t.UploadDamaged)
		return
	}
	g := selfie.Look(engine, im)
	out := lookReply{Hint: "ok", Message: t.LookOK}
	if g.Hint != "" {
		out.Hint, out.Message = string(g.Hint), t.lookHints[string(g.Hint)]
	}
	if g.Found {
		out.Pose = &lookPose{Yaw: g.Pose.Yaw, Pitch: g.Pose.Pitch, Eyes: g.Pose.Eyes}
	}
	if refPose, ok := poseFrom(values); ok {
		out.Shown = g.Shows(selfie.Step(values["step"]), refPose)
	}
	replyJSON(w, http.StatusOK, out)
}

// poseFrom reads ref_yaw, ref_pitch and ref_eyes; ok when all three are numbers.
func poseFrom(values map[string]string) (face.Pose, bool) {
	var p face.Pose
	for _, f := range []struct {
		name string
		to   *float64
	}{{"ref_yaw", &p.Yaw}, {"ref_pitch", &p.Pitch}, {"ref_eyes", &p.Eyes}} {
		v, err := strconv.ParseFloat(values[f.name], 64)
		if err != nil {
			return face.Pose{}, false
		}
		*f.to = v
	}
	return p, true
}

// faces is the face engine, loaded when first asked; nil when the models
// are not configured or do not load.
func (h *Handler) faces() *face.Engine {
	if h.Faces == nil {
		return nil
	}
	e, err := h.Faces()
	if err != nil {
		h.facesOnce.Do(func() { h.Log.Warn("selfie guidance off: the face models do not load", "error", err) })
		return nil
	}
	return e
}
