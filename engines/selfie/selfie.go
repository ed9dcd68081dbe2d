// Package selfie decides what a selfie shows: that one live person is in
// front of the camera — one face in every frame, the same face throughout,
// the head moving as a challenge chosen for this attempt asked, not a still
// image held up or slid across — and whether that person is the one in the
// document's portrait. It decides on faces the face engine found; it keeps
// nothing, and what it returns holds no descriptor.
package selfie

import (
	"context"
	"image"

	"github.com/kycflow/kycflow/engines/face"
)

// Result is the outcome of one selfie attempt. A Retake is a selfie the
// person can take again (no face, too far, too dark): the other fields are
// then unset. Otherwise FaceDetected and Liveness are decided, and Match
// is when the document's portrait was found.
type Result struct {
	Retake       Reason
	FaceDetected Verdict
	Liveness     Verdict
	Match        *Match
}

// Verdict is a sub-check's outcome: Clear, Consider or Fail, and why.
type Verdict struct {
	Outcome Outcome
	Reason  Reason
}

// Outcome is a sub-check's result.
type Outcome string

const (
	Clear    Outcome = "clear"
	Consider Outcome = "consider"
	Fail     Outcome = "fail"
)

// Reason says why a selfie is sent back or a sub-check is not clear.
type Reason string

// Retakes: what the person can do something about.
const (
	NoFace   Reason = "face_not_found" // a frame without a face: out of the frame, or turned too far
	TooSmall Reason = "face_too_small" // the face too far from the camera
	TooDark  Reason = "face_too_dark"
	TooFew   Reason = "too_few_frames" // fewer frames than the challenge has steps, and one more
)

// NoPortrait is face_detected's reason when the document's portrait is not
// found: the selfie cannot be compared, and a person looks.
const NoPortrait Reason = "portrait_not_found"

// Liveness failures, and the match's.
const (
	StillImage    Reason = "still_image"            // the frames are one picture, repeated or moved
	NotFollowed   Reason = "challenge_not_followed" // the head did not move as asked
	SeveralFaces  Reason = "several_faces"
	FaceChanged   Reason = "face_changed"      // not the same person in every frame
	MatchReview   Reason = "face_match_review" // between the thresholds: a person decides
	MatchMismatch Reason = "face_mismatch"
)

// Match is the selfie compared with the document's portrait.
type Match struct {
	Verdict
	// Similarity is 1 less the descriptors' distance, 0–1; Clear and Fail
	// are the thresholds it was judged by: at or above Clear it is clear,
	// under Fail it fails, in between a person decides.
	Similarity  float64
	Clear, Fail float64
}

// Thresholds are a tenant's face-match thresholds, as similarities.
type Thresholds struct {
	Clear, Fail float64
}

// DefaultThresholds: a distance under 0.5 accepts almost no impostor on
// the photos measured (BENCHMARKS.md, "Face matching"); over 0.6, dlib's
// own threshold, is another person; between, a person looks.
var DefaultThresholds = Thresholds{Clear: 0.5, Fail: 0.4}

// The limits the decisions are made with.
const (
	// minFaceShare is the face's width as a share of the frame's below
	// which the person is asked to come closer.
	minFaceShare = 0.15
	// minBrightness is the face's mean grey level below which it is too
	// dark to tell.
	minBrightness = 45
	// otherFace is the area, as a share of the main face's, from which a
	// second face counts (a face far in the background does not).
	otherFace = 0.2
	// sameFace is the distance within which two frames' faces are one
	// person: dlib's own threshold.
	sameFace = 0.6
	// flat is the flatness (rigid.go) under which every frame is the first
	// frame's picture moved: above what a photo slid and recompressed
	// measured, under what a turning head does.
	flat = 0.03
	// minPortraitScore is the detector's confidence a document's portrait
	// needs: printed small and behind security printing, it scores lower
	// than a selfie's face.
	minPortraitScore = 0.3
)

// Decide judges a selfie attempt: the frames as the camera took them (not
// mirrored), the first looking straight at it, and the challenge's steps;
// documents are the photos of the document (a card's back and front)
// whose portrait is compared. Each image takes a detector's pass: ctx
// ending stops it between two, with ctx's error.
func Decide(ctx context.Context, e *face.Engine, documents []image.Image, frames []image.Image, steps []Step, t Thresholds) (Result, error) {
	if len(frames) < len(steps)+1 {
		return Result{Retake: TooFew}, nil
	}
	seen := make([]seenFace, len(frames))
	several := false
	for i, im := range frames {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		main, others, ok := e.Largest(im, face.DefaultMinScore)
		retake, more := inspect(im, main, others, ok)
		if retake != "" {
			return Result{Retake: retake}, nil
		}
		several = several || more
		seen[i] = seenFace{face: main, pose: main.Pose()}
	}
	r := Result{FaceDetected: Verdict{Outcome: Clear}, Liveness: liveness(seen, steps, several)}
	// The portrait: the face the detector is surest of on any of the
	// document's photos.
	var portrait *face.Face
	for _, d := range documents {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		if p, ok := Portrait(e, d); ok && (portrait == nil || p.Score > portrait.Score) {
			portrait = &p
		}
	}
	if portrait != nil {
		m := match(seen[0].face, *portrait, t)
		r.Match = &m
	} else {
		r.FaceDetected = Verdict{Consider, NoPortrait}
	}
	return r, nil
}

// Portrait is the face on a photo of a document that Decide compares a
// selfie with: the one the detector is surest of.
func Portrait(e *face.Engine, document image.Image) (face.Face, bool) {
	p, _, ok := e.Strongest(document, minPortraitScore)
	return p, ok
}

// inspect is what a frame's faces say before any decision: a retake (no
// face, too small, too dark), or whether another face is large enough to
// count. The live view's guidance (Look) and Decide judge frames by it
// alike.
func inspect(im image.Image, main face.Face, others []face.Detection, found bool) (retake Reason, several bool) {
	switch {
	case !found:
		return NoFace, false
	case main.Box.W < minFaceShare*float64(im.Bounds().Dx()):
		return TooSmall, false
	case brightness(im, main.Aligned) < minBrightness:
		return TooDark, false
	}
	for _, o := range others {
		several = several || o.Box.Area() >= otherFace*main.Box.Area()
	}
	return "", several
}

type seenFace struct {
	face face.Face
	pose face.Pose
}

// liveness is the liveness verdict on the frames' faces.
func liveness(seen []seenFace, steps []Step, several bool) Verdict {
	if several {
		return Verdict{Fail, SeveralFaces}
	}
	for _, s := range seen[1:] {
		if face.Distance(s.face.Descriptor, seen[0].face.Descriptor) > sameFace {
			return Verdict{Fail, FaceChanged}
		}
	}
	still := true
	for _, s := range seen[1:] {
		if flatness(&seen[0].face.Landmarks, &s.face.Landmarks) >= flat {
			still = false
		}
	}
	if still {
		return Verdict{Fail, StillImage}
	}
	if !followed(seen, steps) {
		return Verdict{Fail, NotFollowed}
	}
	return Verdict{Outcome: Clear}
}

// followed reports whether the frames after the first show the steps in
// their order, each against the first frame's pose.
func followed(seen []seenFace, steps []Step) bool {
	ref := seen[0].pose
	next := 1
	for _, st := range steps {
		for next < len(seen) && !st.shown(ref, seen[next].pose) {
			next++
		}
		if next == len(seen) {
			return false
		}
		next++
	}
	return true
}

// match compares the selfie's face with the portrait.
func match(selfie, portrait face.Face, t Thresholds) Match {
	sim := max(0, 1-face.Distance(selfie.Descriptor, portrait.Descriptor))
	m := Match{Similarity: sim, Clear: t.Clear, Fail: t.Fail}
	switch {
	case sim >= t.Clear:
		m.Outcome = Clear
	case sim < t.Fail:
		m.Outcome, m.Reason = Fail, MatchMismatch
	default:
		m.Outcome, m.Reason = Consider, MatchReview
	}
	return m
}
