package selfie

import (
	"image"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/kycflow/kycflow/engines/face"
)

// head is a face's 68 landmarks seen from the front after the head turned
// yaw radians to the person's left, looked pitch radians up, with its eyes
// open to the share eyes: points of a rough head in three dimensions
// (x to the photo's right, y down, z towards the camera), turned, then
// seen straight on. No person's face: a geometry to test the pose rules on.
func head(yaw, pitch, eyes float64) [68]face.Point {
	var p [68][3]float64
	for i := range 17 { // the jaw, ear to ear under the chin
		phi := -math.Pi/2 + math.Pi*float64(i)/16
		p[i] = [3]float64{65 * math.Sin(phi), 70 * math.Cos(phi), -50 + 50*math.Cos(phi)}
	}
	for i := range 5 { // the brows
		p[17+i] = [3]float64{-50 + 10*float64(i), -30, 10}
		p[22+i] = [3]float64{10 + 10*float64(i), -30, 10}
	}
	for i := range 4 { // the nose's bridge down to its tip
		p[27+i] = [3]float64{0, -20 + 15*float64(i), 15 + 8*float64(i)}
	}
	for i := range 5 {
		p[31+i] = [3]float64{-15 + 7.5*float64(i), 30, 25}
	}
	eye := [6][2]float64{{-12, 0}, {-4, -5}, {4, -5}, {12, 0}, {4, 5}, {-4, 5}}
	for i, e := range eye {
		p[36+i] = [3]float64{-30 + e[0], -15 + e[1]*eyes, 5}
		p[42+i] = [3]float64{30 + e[0], -15 + e[1]*eyes, 5}
	}
	for i := range 20 {
		a := 2 * math.Pi * float64(i) / 20
		p[48+i] = [3]float64{25 * math.Cos(a), 50 + 8*math.Sin(a), 20}
	}
	var out [68]face.Point
	for i, v := range p {
		x := v[0]*math.Cos(yaw) + v[2]*math.Sin(yaw)
		z := -v[0]*math.Sin(yaw) + v[2]*math.Cos(yaw)
		y := v[1]*math.Cos(pitch) - z*math.Sin(pitch)
		out[i] = face.Point{X: 300 + x, Y: 200 + y}
	}
	return out
}

// frame is a seen face with the landmarks lm and a descriptor d.
func frame(lm [68]face.Point, d []float32) seenFace {
	f := face.Face{Landmarks: lm, Descriptor: d}
	return seenFace{face: f, pose: f.Pose()}
}

// moved is lm carried by an affine map: a picture slid, scaled, sheared.
func moved(lm [68]face.Point, a, b, c, d, e, f float64) [68]face.Point {
	for i, p := range lm {
		lm[i] = face.Point{X: a*p.X + b*p.Y + c, Y: d*p.X + e*p.Y + f}
	}
	return lm
}

var person = make([]float32, face.DescriptorSize)

func TestLiveness(t *testing.T) {
	other := slices.Clone(person)
	other[0] = 0.9
	still := head(0, 0, 1)
	for _, c := range []struct {
		name   string
		frames []seenFace
		steps  []Step
		want   Verdict
	}{
		{"turned left, then blinked", []seenFace{frame(head(0, 0, 1), person), frame(head(0.35, 0, 1), person), frame(head(0, 0, 0.3), person)}, []Step{TurnLeft, Blink}, Verdict{Outcome: Clear}},
		{"looked up, then turned right", []seenFace{frame(head(0, 0, 1), person), frame(head(0, 0.25, 1), person), frame(head(-0.35, 0, 1), person)}, []Step{LookUp, TurnRight}, Verdict{Outcome: Clear}},
		{"turned right when left was asked", []seenFace{frame(head(0, 0, 1), person), frame(head(-0.35, 0, 1), person), frame(head(0, 0, 0.3), person)}, []Step{TurnLeft, Blink}, Verdict{Fail, NotFollowed}},
		{"the steps in the other order", []seenFace{frame(head(0, 0, 1), person), frame(head(0, 0, 0.3), person), frame(head(0.35, 0, 1), person)}, []Step{TurnLeft, Blink}, Verdict{Fail, NotFollowed}},
		{"turned too little", []seenFace{frame(head(0, 0, 1), person), frame(head(0.1, 0, 1), person), frame(head(0, 0, 0.3), person)}, []Step{TurnLeft, Blink}, Verdict{Fail, NotFollowed}},
		{"one photo slid and scaled", []seenFace{frame(still, person), frame(moved(still, 1.1, 0, 20, 0, 1.1, -15), person), frame(moved(still, 0.9, 0, -30, 0, 0.9, 10), person)}, []Step{TurnLeft, Blink}, Verdict{Fail, StillImage}},
		{"one photo tilted and turned in the hand", []seenFace{frame(still, person), frame(moved(still, 0.8, 0.05, 40, -0.03, 1, 0), person), frame(moved(still, math.Cos(0.2), -math.Sin(0.2), 0, math.Sin(0.2), math.Cos(0.2), 0), person)}, []Step{TurnLeft, Blink}, Verdict{Fail, StillImage}},
		{"another person in a frame", []seenFace{frame(head(0, 0, 1), person), frame(head(0.35, 0, 1), other), frame(head(0, 0, 0.3), person)}, []Step{TurnLeft, Blink}, Verdict{Fail, FaceChanged}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := liveness(c.frames, c.steps, false); got != c.want {
				t.Errorf("%+v, want %+v", got, c.want)
			}
		})
	}
	if got := liveness([]seenFace{frame(head(0, 0, 1), person), frame(head(0.35, 0, 1), person)}, []Step{TurnLeft}, true); got != (Verdict{Fail, SeveralFaces}) {
		t.Errorf("two faces: %+v", got)
	}
}

func TestNewChallenge(t *testing.T) {
	seen := map[string]bool{}
	for seed := range uint64(200) {
		if two := NewChallenge(rand.New(rand.NewPCG(seed, 1)), 1); len(two) != 2 || !slices.ContainsFunc(two, func(s Step) bool { return s != Blink }) {
			t.Fatalf("seed %d: asked for one step, got %v; want two, one a move of the head", seed, two)
		}
		steps := NewChallenge(rand.New(rand.NewPCG(seed, 0)), 3)
		if len(steps) != 3 || len(slices.Compact(slices.Sorted(slices.Values(steps)))) != 3 {
			t.Fatalf("seed %d: %v, want three different steps", seed, steps)
		}
		if slices.Contains(steps, TurnLeft) && slices.Contains(steps, TurnRight) {
			t.Fatalf("seed %d: %v asks left and right", seed, steps)
		}
		for _, s := range steps {
			if !s.Valid() {
				t.Fatalf("seed %d: %q is no step", seed, s)
			}
		}
		seen[string(steps[0])+string(steps[1])+string(steps[2])] = true
	}
	if len(seen) < 10 {
		t.Errorf("200 challenges, only %d different", len(seen))
	}
}

func TestMatchThresholds(t *testing.T) {
	a := make([]float32, face.DescriptorSize)
	at := func(d float32) face.Face {
		b := slices.Clone(a)
		b[0] = d
		return face.Face{Descriptor: b}
	}
	for _, c := range []struct {
		distance float32
		want     Verdict
	}{
		{0.3, Verdict{Outcome: Clear}},
		{0.55, Verdict{Consider, MatchReview}},
		{0.7, Verdict{Fail, MatchMismatch}},
	} {
		m := match(face.Face{Descriptor: a}, at(c.distance), DefaultThresholds)
		if m.Verdict != c.want || math.Abs(m.Similarity-(1-float64(c.distance))) > 1e-6 || m.Clear != 0.5 || m.Fail != 0.4 {
			t.Errorf("distance %.2f: %+v, want %+v", c.distance, m, c.want)
		}
	}
}

// engine is the face engine on the installed models.
func engine(t *testing.T) *face.Engine {
	t.Helper()
	dir := os.Getenv("FACE_MODELS")
	if dir == "" {
		dir = face.DefaultDir()
	}
	e, err := face.Load(dir)
	if err != nil {
		t.Fatalf("%v (make face-models installs them)", err)
	}
	return e
}

// TestDecideRetakes: frames the engine finds no face in are sent back,
// as are too few frames for the challenge.
func TestDecideRetakes(t *testing.T) {
	e := engine(t)
	blank := image.NewGray(image.Rect(0, 0, 640, 480))
	steps := []Step{TurnLeft, Blink}
	if r, err := Decide(t.Context(), e, nil, []image.Image{blank, blank}, steps, DefaultThresholds); err != nil || r.Retake != TooFew {
		t.Errorf("two frames for two steps: %+v", r)
	}
	if r, err := Decide(t.Context(), e, nil, []image.Image{blank, blank, blank}, steps, DefaultThresholds); err != nil || r.Retake != NoFace {
		t.Errorf("blank frames: %+v", r)
	}
}

// The live view takes a step's frame when Decide would see the step in
// it: a face off centre too (a turning head moves its box), not a frame
// Decide sends back or one with no face.
func TestGlanceShows(t *testing.T) {
	ref := frame(head(0, 0, 1), person).pose
	turned := frame(head(0.6, 0, 1), person).pose
	for _, tc := range []struct {
		g    Glance
		want bool
	}{
		{Glance{Found: true, Pose: turned}, true},
		{Glance{Found: true, Hint: OffCentre, Pose: turned}, true},
		{Glance{Found: true, Hint: TooSmall, Pose: turned}, false},
		{Glance{Found: true, Hint: SeveralFaces, Pose: turned}, false},
		{Glance{Found: true, Pose: ref}, false},
		{Glance{Pose: turned}, false},
	} {
		if got := tc.g.Shows(TurnLeft, ref); got != tc.want {
			t.Errorf("%+v shows turn_left: %v, want %v", tc.g, got, tc.want)
		}
	}
	if (Glance{Found: true, Pose: turned}).Shows("wave", ref) {
		t.Error("a step that is none was shown")
	}
}
