package selfie

import (
	"math/rand/v2"
	"slices"

	"github.com/kycflow/kycflow/engines/face"
)

// Step is one move of the liveness challenge.
type Step string

// The steps, as the person is asked: left and right are the person's own.
const (
	TurnLeft  Step = "turn_left"
	TurnRight Step = "turn_right"
	LookUp    Step = "look_up"
	Blink     Step = "blink"
)

// Steps are every step a challenge may ask.
var Steps = []Step{TurnLeft, TurnRight, LookUp, Blink}

// How far a pose must move from the first frame's to show a step.
const (
	minYaw   = 0.25 // of the yaw's −1 … +1
	minPitch = 0.05 // of the nose tip's place between the eyes and the chin
	shutEyes = 0.6  // the eyes' openness, as a share of the first frame's
)

// NewChallenge draws n different steps (two or three) from rng: chosen by
// the server for each attempt, so that a recording made for another
// cannot answer it. Left and right are never both asked; so every
// challenge moves the head (a blink alone would leave the face's
// landmarks where a held-up photo's are: still, as liveness sees it).
func NewChallenge(rng *rand.Rand, n int) []Step {
	n = min(max(n, 2), len(Steps)-1)
	for {
		perm := rng.Perm(len(Steps))
		out := make([]Step, n)
		for i := range out {
			out[i] = Steps[perm[i]]
		}
		if !(slices.Contains(out, TurnLeft) && slices.Contains(out, TurnRight)) {
			return out
		}
	}
}

// Valid reports whether s is a step.
func (s Step) Valid() bool { return slices.Contains(Steps, s) }

// shown reports whether pose, against the first frame's ref, shows the
// step. Frames are as the camera sees (not mirrored), so a person turning
// to their own left turns their nose to the photo's right: the yaw rises.
func (s Step) shown(ref, pose face.Pose) bool {
	switch s {
	case TurnLeft:
		return pose.Yaw-ref.Yaw >= minYaw
	case TurnRight:
		return ref.Yaw-pose.Yaw >= minYaw
	case LookUp:
		return ref.Pitch-pose.Pitch >= minPitch
	case Blink:
		return ref.Eyes > 0 && pose.Eyes <= shutEyes*ref.Eyes
	}
	return false
}
