package verify

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/documents"
	"github.com/kycflow/kycflow/engines/docimage"
	"github.com/kycflow/kycflow/store"
)

// Photo states, as GET /verify/{token}/status tells an app and the page
// shows a person.
const (
	stateAwaiting = "awaiting_photo" // nothing uploaded yet
	stateReading  = "reading"        // the last photo is being read
	stateRetake   = "retake"         // the last photo could not be read: upload another
	stateDone     = "done"           // a photo was read: the check has its result (not shown here)
	stateNotRead  = "not_read"       // the last attempt was a retake too: the check ended image_unreadable
	stateSelfie   = "selfie"         // the photo was read; the selfie is awaited or being checked (see selfie)
)

// photoStatus is what GET /verify/{token}/status answers.
type photoStatus struct {
	State       string  `json:"state"`
	Attempts    int     `json:"attempts"`
	MaxAttempts int     `json:"max_attempts"`
	Reason      *string `json:"reason"`
	Message     string  `json:"message"`
	// TypedAllowed says whether POST /verify/{token}/mrz is accepted.
	TypedAllowed bool `json:"typed_allowed"`
	// Selfie is the selfie's state once the document is read, when the
	// tenant asks for one.
	Selfie *selfieStatus `json:"selfie,omitempty"`
	// retention is how long the tenant keeps images after the check;
	// selfieAsked whether a selfie follows the document.
	retention   time.Duration
	selfieAsked bool
}

// photoState reads a link's photo state; closed is the link's state when
// it is not open (and not done by a photo).
func (h *Handler) photoState(r *http.Request, lv store.LinkView, t texts) (photoStatus, store.LinkState, error) {
	ref := check.Ref{TenantID: lv.TenantID, CheckID: lv.CheckID}
	settings, err := h.Store.IDScanSettings(r.Context(), lv.TenantID)
	if err != nil {
		return photoStatus{}, "", err
	}
	attempts, err := h.Store.DocumentAttempts(r.Context(), ref)
	if err != nil {
		return photoStatus{}, "", err
	}
	ps := photoStatus{State: stateAwaiting, Attempts: len(attempts), MaxAttempts: settings.MaxAttempts, TypedAllowed: settings.Typed, Message: t.PhotoAwaiting,
		retention: settings.Retention, selfieAsked: settings.Selfie != check.SelfieOff}
	st := lv.State(lv.Check.Status, time.Now())
	switch {
	case lv.UsedAt == nil && len(attempts) > 0 && (lv.Check.Status == check.Completed || lv.Check.Status == check.Failed):
		// Ended by a photo (a typed MRZ uses the link up): read, or the
		// last attempt sent back too.
		ps.State, ps.Message = stateDone, t.PhotoDone
		if last := attempts[len(attempts)-1]; last.Status == check.AttemptRetake {
			ps.State, ps.Reason, ps.Message = stateNotRead, last.Reason, sprintf(t.NotReadBody, lv.TenantName)
			return ps, "", nil
		}
		selfies, err := h.Store.SelfieAttempts(r.Context(), ref)
		if err != nil {
			return photoStatus{}, "", err
		}
		ps.Selfie = selfieState(selfies, settings.MaxAttempts, t)
		return ps, "", nil
	case st != store.LinkOpen:
		return ps, st, nil
	case len(attempts) == 0:
	case attempts[len(attempts)-1].Status == check.AttemptRetake:
		last := attempts[len(attempts)-1]
		ps.State, ps.Reason, ps.Message = stateRetake, last.Reason, t.retake(last.Reason)
	case attempts[len(attempts)-1].Status == check.AttemptRead:
		selfies, err := h.Store.SelfieAttempts(r.Context(), ref)
		if err != nil {
			return photoStatus{}, "", err
		}
		if ps.Selfie = selfieState(selfies, settings.MaxAttempts, t); ps.Selfie != nil {
			ps.State, ps.Message = stateSelfie, ps.Selfie.Message
		} else {
			ps.State, ps.Message = stateReading, t.PhotoReading
		}
	default:
		ps.State, ps.Message = stateReading, t.PhotoReading
	}
	return ps, "", nil
}

// status is GET /verify/{token}/status: the photo's state for an app
// (JSON), 404 for an unknown link, 410 for one that closed without a
// result.
func (h *Handler) status(w http.ResponseWriter, r *http.Request) {
	lv, err := h.Store.LinkByToken(r.Context(), r.PathValue("token"))
	if !h.idscanLinkJSON(w, lv, err) {
		return
	}
	ps, closed, err := h.photoState(r, lv, english)
	if err != nil {
		h.Log.Error("verification status", "error", err)
		replyJSON(w, http.StatusServiceUnavailable, map[string]string{"message": "Service temporarily unavailable."})
		return
	}
	if closed != "" {
		replyJSON(w, http.StatusGone, gone(closed))
		return
	}
	replyJSON(w, http.StatusOK, ps)
}

// idscanLinkJSON answers an app whose link lookup failed (404, 503) or
// found a link of another kind (409); true when lv is an idscan link.
func (h *Handler) idscanLinkJSON(w http.ResponseWriter, lv store.LinkView, err error) bool {
	switch {
	case errors.Is(err, store.ErrNotFound):
		replyJSON(w, http.StatusNotFound, map[string]string{"message": "Unknown verification link."})
	case err != nil:
		h.Log.Error("verification link lookup", "error", err)
		replyJSON(w, http.StatusServiceUnavailable, map[string]string{"message": "Service temporarily unavailable."})
	case lv.Type != check.IDScan:
		replyJSON(w, http.StatusConflict, map[string]string{"message": "This link is not for an identity document."})
	default:
		return true
	}
	return false
}

// gone is the 410 body of a link in state st (used, expired, revoked).
func gone(st store.LinkState) map[string]string {
	return map[string]string{"message": "This verification link is " + string(st) + ".", "state": string(st)}
}

func replyJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// uploadError is a refused upload: its status and what to say about the
// image field.
type uploadError struct {
	status int
	msg    func(texts) string
}

// The upload's limits: the image parts, and the whole body (the parts,
// their headers, a language field).
const (
	maxParts   = store.ImagesPerAttempt
	maxUpload  = maxParts*docimage.MaxBytes + 64<<10
	imageField = "image"
)

// readImages reads the multipart body's image parts (one or two), each
// within docimage.MaxBytes, and takes each in (documents.Take).
func readImages(w http.ResponseWriter, r *http.Request) ([]documents.Image, *uploadError) {
	images, _, bad := readParts(w, r, imageField, maxParts, maxUpload, nil, func(t texts) string { return t.UploadTooMany })
	return images, bad
}

// readParts reads a multipart body: up to most parts named field (more
// are refused with tooMany's words), each an image within
// docimage.MaxBytes taken in (documents.Take), the body within limit; and
// the short text fields named in values (their first 256 bytes). Other
// parts are skipped.
func readParts(w http.ResponseWriter, r *http.Request, field string, most int, limit int64, values []string, tooMany func(texts) string) ([]documents.Image, map[string]string, *uploadError) {
	got := map[string]string{}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return nil, nil, &uploadError{http.StatusUnsupportedMediaType, func(t texts) string { return t.UploadMultipart }}
	}
	if r.ContentLength > limit {
		return nil, nil, &uploadError{http.StatusRequestEntityTooLarge, func(t texts) string { return t.UploadTooLarge }}
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, nil, &uploadError{http.StatusBadRequest, func(t texts) string { return t.UploadBroken }}
	}
	var out []documents.Image
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return nil, nil, &uploadError{http.StatusRequestEntityTooLarge, func(t texts) string { return t.UploadTooLarge }}
			}
			return nil, nil, &uploadError{http.StatusBadRequest, func(t texts) string { return t.UploadBroken }}
		}
		if slices.Contains(values, part.FormName()) {
			v, _ := io.ReadAll(io.LimitReader(part, 256))
			part.Close()
			got[part.FormName()] = strings.TrimSpace(string(v))
			continue
		}
		if part.FormName() != field {
			part.Close()
			continue
		}
		if len(out) == most {
			return nil, nil, &uploadError{http.StatusUnprocessableEntity, tooMany}
		}
		b, err := io.ReadAll(io.LimitReader(part, docimage.MaxBytes+1))
		part.Close()
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe), len(b) > docimage.MaxBytes:
			return nil, nil, &uploadError{http.StatusRequestEntityTooLarge, func(t texts) string { return t.UploadTooLarge }}
		case err != nil:
			return nil, nil, &uploadError{http.StatusBadRequest, func(t texts) string { return t.UploadBroken }}
		case len(b) == 0:
			if part.FileName() == "" {
				continue // a form's file input left empty
			}
			return nil, nil, &uploadError{http.StatusUnprocessableEntity, func(t texts) string { return t.UploadEmpty }}
		}
		im, err := documents.Take(b)
		switch {
		case errors.Is(err, docimage.ErrFormat):
			return nil, nil, &uploadError{http.StatusUnsupportedMediaType, func(t texts) string { return t.UploadFormat }}
		case errors.Is(err, docimage.ErrPixels):
			return nil, nil, &uploadError{http.StatusUnprocessableEntity, func(t texts) string { return t.UploadPixels }}
		case err != nil:
			return nil, nil, &uploadError{http.StatusUnprocessableEntity, func(t texts) string { return t.UploadDamaged }}
		}
		out = append(out, im)
	}
	if len(out) == 0 {
		return nil, nil, &uploadError{http.StatusUnprocessableEntity, func(t texts) string { return t.UploadMissing }}
	}
	return out, got, nil
}

// wantsHTML: a browser's form post (the page without JavaScript) rather
// than an app or the page's script.
func wantsHTML(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "text/html")
}

// upload is POST /verify/{token}/document: one or two images (JPEG or
// PNG) as multipart/form-data parts named image. An app gets 202 and the
// status to poll; a browser's form post is sent back to the page, which
// shows the photo being read. Refused: 413 (over docimage.MaxBytes), 415
// (not JPEG or PNG, or not multipart), 422 (too many pixels, empty,
// damaged, no image part), 409 (every attempt used, or not an idscan
// link), 410 (closed), 404 (unknown), 503 (photos are off here).
func (h *Handler) upload(w http.ResponseWriter, r *http.Request) {
	c, ok := h.beginUpload(w, r, imageField)
	if !ok {
		return
	}
	images, bad := readImages(w, r)
	if bad != nil {
		c.fail(bad.status, imageField, bad.msg)
		return
	}
	rows := make([]store.DocumentImage, len(images))
	for i, im := range images {
		rows[i] = h.Images.SealImage(c.ref(), im)
	}
	att, err := h.Store.AddDocument(r.Context(), c.ref(), rows)
	if errors.Is(err, store.ErrAttemptsUsed) {
		c.fail(http.StatusConflict, imageField, func(t texts) string { return t.UploadAttemptsUsed })
		return
	}
	c.stored(err, imageField, "document upload", stateReading, att.N)
}
