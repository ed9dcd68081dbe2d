package face

import "math"

// Pose is where a face looks and whether its eyes are open, measured on
// its landmarks: each a ratio of distances on the face, so that it does
// not depend on the face's size in the photo.
type Pose struct {
	// Yaw is the nose's place between the jaw's two ends, −1 at the
	// photo's left end, +1 at its right, about 0 facing the camera. A
	// person turning to their own left, before a camera that does not
	// mirror, moves it towards +1.
	Yaw float64
	// Pitch is the nose tip's height between the eyes (0) and the chin
	// (1): it falls as the person looks up.
	Pitch float64
	// Eyes is the eyes' openness, their height over their width (about
	// 0.25–0.35 open, under 0.15 closed), the mean of both.
	Eyes float64
}

// The iBUG 300-W points the pose reads.
const (
	jawLeft, jawRight, chin = 0, 16, 8
	noseTip                 = 30
	eyeRight, eyeLeft       = 36, 42 // each eye's six points from here, the photo's left eye first
)

// Pose measures the face's pose.
func (f Face) Pose() Pose {
	lm := f.Landmarks
	var p Pose
	l, r := lm[noseTip].X-lm[jawLeft].X, lm[jawRight].X-lm[noseTip].X
	if l+r > 0 {
		p.Yaw = (l - r) / (l + r)
	}
	var eyesY float64
	for i := eyeRight; i < eyeLeft+6; i++ {
		eyesY += lm[i].Y / 12
	}
	if d := lm[chin].Y - eyesY; d > 0 {
		p.Pitch = (lm[noseTip].Y - eyesY) / d
	}
	p.Eyes = (openness(lm[eyeRight:eyeRight+6]) + openness(lm[eyeLeft:eyeLeft+6])) / 2
	return p
}

// openness is one eye's height over its width: its six points run from
// the outer corner over the upper lid to the inner corner and back under.
func openness(e []Point) float64 {
	w := dist(e[0], e[3])
	if w == 0 {
		return 0
	}
	return (dist(e[1], e[5]) + dist(e[2], e[4])) / (2 * w)
}

func dist(a, b Point) float64 { return math.Hypot(a.X-b.X, a.Y-b.Y) }
