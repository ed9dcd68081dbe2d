package check

import "time"

// A tenant's idscan_selfie setting: whether a selfie follows the document.
const (
	SelfieOff      = "off"      // no selfie
	SelfieOn       = "on"       // a selfie: the face match decides, liveness is a signal (consider)
	SelfieRequired = "required" // a selfie whose liveness must pass too
)

// SelfieSettings are the values of idscan_selfie.
var SelfieSettings = []string{SelfieOff, SelfieOn, SelfieRequired}

// Selfie attempt statuses: a challenge is drawn and waits for its frames;
// they are being read; they decided the check, or were sent back.
const (
	SelfieAwaiting = "awaiting"
	SelfieReading  = "reading"
	SelfieDone     = "done"
	SelfieRetake   = "retake"
)

// Selfie retake reasons, in words a person can act on.
const (
	SelfieNoFace   = "face_not_found"
	SelfieTooSmall = "face_too_small"
	SelfieTooDark  = "face_too_dark"
	SelfieTooFew   = "too_few_frames"
)

// Sub-check reasons of face_detected, liveness and face_match.
const (
	ReasonPortraitNotFound = "portrait_not_found"
	ReasonStillImage       = "still_image"
	ReasonNotFollowed      = "challenge_not_followed"
	ReasonSeveralFaces     = "several_faces"
	ReasonFaceChanged      = "face_changed"
	ReasonFaceReview       = "face_match_review" // also data.reason: a person decides
)

// Reasons a check with a selfie is not validated (data.reason), after the
// document's own.
const (
	ReasonFaceMismatch   = "face_mismatch"   // the selfie is not the portrait's person
	ReasonLivenessFailed = "liveness_failed" // the tenant requires liveness, and it failed
	ReasonSelfieMissing  = "selfie_unusable" // every selfie attempt allowed was sent back
)

// FaceMeasures are face_match's figures: the similarity of the selfie's
// face and the portrait's (1 less their descriptors' distance, 0–1) and
// the tenant's thresholds it was judged by.
type FaceMeasures struct {
	Similarity float64 `json:"similarity"`
	Clear      float64 `json:"clear_threshold"`
	Fail       float64 `json:"fail_threshold"`
}

// SelfieAttempt is one selfie attempt in data.selfie_attempts: its
// challenge and what became of it.
type SelfieAttempt struct {
	N          int        `json:"n"`
	Steps      []string   `json:"steps"`
	Status     string     `json:"status"`
	Reason     *string    `json:"reason"`
	Frames     int        `json:"frames"`
	UploadedAt *time.Time `json:"uploaded_at"`
	ReadAt     *time.Time `json:"read_at"`
}
