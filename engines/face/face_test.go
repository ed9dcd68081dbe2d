package face

import (
	"context"
	"encoding/json"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// modelDir is where the tests find the models: FACE_MODELS, else where
// the Makefile installs them.
func modelDir() string {
	if d := os.Getenv("FACE_MODELS"); d != "" {
		return d
	}
	return DefaultDir()
}

func engine(t *testing.T) *Engine {
	t.Helper()
	e, err := Load(modelDir())
	if err != nil {
		t.Fatalf("%v (make face-models installs them)", err)
	}
	return e
}

// sketch is a photo-like test image with a face's layout — skin on a
// graded background, dark eyes and brows, a mouth — and noise, so that
// every layer carries signal; no person's face.
func sketch(w, h int, seed uint64) *image.RGBA {
	rng := rand.New(rand.NewPCG(seed, 1))
	im := image.NewRGBA(image.Rect(0, 0, w, h))
	cx, cy, rx, ry := float64(w)/2, float64(h)/2, float64(w)/5, float64(h)/3.6
	dark := func(x, y, px, py, sx, sy float64) bool {
		return math.Pow((x-px)/sx, 2)+math.Pow((y-py)/sy, 2) < 1
	}
	for y := range h {
		for x := range w {
			fx, fy := float64(x), float64(y)
			c := [3]float64{60 + 100*fy/float64(h), 90, 140 - 60*fx/float64(w)}
			if dark(fx, fy, cx, cy, rx, ry) {
				c = [3]float64{205, 160, 130}
				for _, side := range []float64{-1, 1} {
					ex, ey := cx+side*rx*0.42, cy-ry*0.2
					switch {
					case dark(fx, fy, ex, ey, rx*0.16, ry*0.06):
						c = [3]float64{40, 30, 30}
					case dark(fx, fy, ex, ey-ry*0.16, rx*0.22, ry*0.035):
						c = [3]float64{70, 50, 40}
					}
				}
				if dark(fx, fy, cx, cy+ry*0.45, rx*0.35, ry*0.06) {
					c = [3]float64{150, 70, 70}
				}
				if dark(fx, fy, cx, cy+ry*0.12, rx*0.08, ry*0.16) {
					c[0], c[1], c[2] = c[0]*0.85, c[1]*0.85, c[2]*0.85
				}
			}
			var px color.RGBA
			px.A = 255
			for i, v := range c {
				v += rng.NormFloat64() * 6
				b := uint8(math.Max(0, math.Min(255, v)))
				switch i {
				case 0:
					px.R = b
				case 1:
					px.G = b
				default:
					px.B = b
				}
			}
			im.SetRGBA(x, y, px)
		}
	}
	return im
}

// TestAgainstFaceAPI runs the three networks in Go and in the package they
// come from (its own code, on TensorFlow.js) on one image, and wants the
// same numbers: the detector's grid, the landmarks' outputs and the
// descriptor. The image is 416 pixels, the detector's size, so that the
// landmarker and recogniser resize it as each implementation does.
func TestAgainstFaceAPI(t *testing.T) {
	e := engine(t)
	const side = 416
	im := sketch(side, side, 7)
	p := newPicture(im)
	raw := filepath.Join(t.TempDir(), "image.rgb")
	if err := os.WriteFile(raw, p.rgb, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "testdata/faceapi.mjs", filepath.Dir(modelDir()), raw, "416", "416")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the reference (node, make face-models): %v", err)
	}
	var ref struct{ Detector, Landmarks, Descriptor []float64 }
	if err := json.Unmarshal(out, &ref); err != nil {
		t.Fatalf("the reference's output: %v", err)
	}
	whole := p.clip(Box{W: side, H: side})
	det := e.det.forward(p)
	got := make([]float64, len(det.d))
	for i, v := range det.d {
		got[i] = float64(v)
	}
	alike(t, "detector grid", got, ref.Detector, 1e-5)
	alike(t, "landmarks", e.lm.forward(p, whole), ref.Landmarks, 1e-5)
	desc := e.rec.describe(p, whole)
	got = make([]float64, len(desc))
	for i, v := range desc {
		got[i] = float64(v)
	}
	alike(t, "descriptor", got, ref.Descriptor, 1e-5)
}

// alike wants got and want of one length and within tol of each other,
// tol a share of want's largest magnitude.
func alike(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) || len(got) == 0 {
		t.Fatalf("%s: %d numbers, the reference %d", what, len(got), len(want))
	}
	var scale, worst float64
	for _, v := range want {
		scale = math.Max(scale, math.Abs(v))
	}
	at := 0
	for i := range got {
		if d := math.Abs(got[i] - want[i]); d > worst {
			worst, at = d, i
		}
	}
	t.Logf("%s: %d numbers, largest %.4g, worst difference %.3g at %d", what, len(got), scale, worst, at)
	if worst > tol*scale {
		t.Errorf("%s: number %d is %.6g, the reference's %.6g", what, at, got[at], want[at])
	}
}

// TestChangedModelRefused: a model file that is not the one pinned does
// not load, however small the change.
func TestChangedModelRefused(t *testing.T) {
	dir := t.TempDir()
	for _, m := range []string{detectorModel, landmarksModel, recogniserModel} {
		for _, f := range []string{m + "-weights_manifest.json", m + ".bin"} {
			b, err := os.ReadFile(filepath.Join(modelDir(), f))
			if err != nil {
				t.Fatalf("%v (make face-models installs them)", err)
			}
			if f == recogniserModel+".bin" {
				b[len(b)/2] ^= 1
			}
			if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	_, err := Load(dir)
	if err == nil || !strings.Contains(err.Error(), "face_recognition_model.bin is not the file") {
		t.Fatalf("a changed recogniser loaded: %v", err)
	}
}

// TestPose: the nose moving towards the photo's right turns the yaw
// positive; towards the eyes, the pitch falls.
func TestPose(t *testing.T) {
	var f Face
	for i := range f.Landmarks {
		f.Landmarks[i] = Point{50, 50}
	}
	f.Landmarks[jawLeft], f.Landmarks[jawRight], f.Landmarks[chin] = Point{0, 40}, Point{100, 40}, Point{50, 100}
	for i := range 12 {
		f.Landmarks[eyeRight+i] = Point{float64(20 + 5*i), 30}
	}
	f.Landmarks[noseTip] = Point{50, 60}
	front := f.Pose()
	f.Landmarks[noseTip] = Point{70, 60}
	turned := f.Pose()
	f.Landmarks[noseTip] = Point{50, 45}
	up := f.Pose()
	if math.Abs(front.Yaw) > 1e-9 || math.Abs(turned.Yaw-0.4) > 1e-9 || math.Abs(front.Pitch-3.0/7) > 1e-9 || math.Abs(up.Pitch-15.0/70) > 1e-9 {
		t.Errorf("front %+v, turned %+v, up %+v", front, turned, up)
	}
}

// TestEyesClosed: an eye's openness is its lids' gap over its width.
func TestEyesClosed(t *testing.T) {
	open := []Point{{0, 0}, {3, -2}, {7, -2}, {10, 0}, {7, 2}, {3, 2}}
	shut := []Point{{0, 0}, {3, -0.4}, {7, -0.4}, {10, 0}, {7, 0.4}, {3, 0.4}}
	if o, s := openness(open), openness(shut); math.Abs(o-0.4) > 1e-9 || math.Abs(s-0.08) > 1e-9 {
		t.Errorf("openness: open %.3f (want 0.4), shut %.3f (want 0.08)", o, s)
	}
}

func BenchmarkDetect(b *testing.B) {
	e, err := Load(modelDir())
	if err != nil {
		b.Fatal(err)
	}
	p := newPicture(sketch(640, 480, 1))
	for b.Loop() {
		e.det.detect(p, DefaultMinScore)
	}
}

// BenchmarkDescribe is the landmarks and descriptor of one face.
func BenchmarkDescribe(b *testing.B) {
	e, err := Load(modelDir())
	if err != nil {
		b.Fatal(err)
	}
	im := sketch(200, 200, 1)
	for b.Loop() {
		e.Crop(im)
	}
}

// The selfie's face is the largest found; a document's portrait the one
// the detector is surest of (a page's print can pass for a larger face at
// a lower score: measured on a generated passport with a photo printed).
func TestChoosingAFace(t *testing.T) {
	found := []Detection{
		{Box: Box{W: 200, H: 180}, Score: 0.76},
		{Box: Box{W: 660, H: 590}, Score: 0.34},
		{Box: Box{W: 80, H: 80}, Score: 0.55},
	}
	if got := widest(found); got != 1 {
		t.Errorf("widest: %d, want 1", got)
	}
	if got := surest(found); got != 0 {
		t.Errorf("surest: %d, want 0", got)
	}
}
