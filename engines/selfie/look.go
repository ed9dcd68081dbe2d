package selfie

import (
	"image"
	"math"

	"github.com/kycflow/kycflow/engines/face"
)

// OffCentre is the live view's hint for a face away from the frame's
// middle: not a retake (Decide takes such a frame), but a face at the
// edge leaves the frame when the head turns.
const OffCentre Reason = "face_off_centre"

// maxOffCentre is how far a face's centre may stand from the frame's, as a
// share of the frame's width or height, before the view says so.
const maxOffCentre = 0.2

// Glance is what the live view is told of one frame: a hint the person can
// act on ("" when the frame would do) and, with a face, its pose.
type Glance struct {
	Hint  Reason
	Found bool
	Pose  face.Pose
}

// Look judges one frame of the live view as Decide will judge it (the same
// limits), and where the face is: it places the face's landmarks but does
// not describe it, so nothing of who it is comes out.
func Look(e *face.Engine, im image.Image) Glance {
	main, others, ok := e.Placed(im, face.DefaultMinScore)
	retake, several := inspect(im, main, others, ok)
	g := Glance{Hint: retake, Found: ok}
	if ok {
		g.Pose = main.Pose()
	}
	b := im.Bounds()
	cx, cy := main.Box.X+main.Box.W/2, main.Box.Y+main.Box.H/2
	switch {
	case retake != "":
	case several:
		g.Hint = SeveralFaces // Decide fails liveness on it
	case math.Abs(cx/float64(b.Dx())-0.5) > maxOffCentre || math.Abs(cy/float64(b.Dy())-0.5) > maxOffCentre:
		g.Hint = OffCentre
	}
	return g
}

// Shows reports whether the frame shows the step against the first
// frame's pose ref, as Decide will tell it: a face Decide takes (one off
// centre too — a head turning moves its box) posed as the step asks.
func (g Glance) Shows(s Step, ref face.Pose) bool {
	return g.Found && (g.Hint == "" || g.Hint == OffCentre) && s.shown(ref, g.Pose)
}
