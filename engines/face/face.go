// Package face finds faces in photos and tells whether two are of one
// person: a detector, 68 landmarks and dlib's 128-number descriptor, run
// in Go over weights the Makefile installs (models.go). It holds no
// photo and writes nothing: what it returns is for the decision at hand,
// and a descriptor is biometric data, never to be stored or logged.
package face

import (
	"fmt"
	"image"
	"slices"
)

// Engine holds the three models, loaded once; it is safe for concurrent
// use.
type Engine struct {
	det *detector
	lm  *landmarker
	rec *recogniser
}

// Load reads the models from dir, each file's SHA-256 checked.
func Load(dir string) (*Engine, error) {
	var e Engine
	for _, m := range []struct {
		name  string
		build func(*weights) error
	}{
		{detectorModel, func(w *weights) (err error) { e.det, err = newDetector(w); return }},
		{landmarksModel, func(w *weights) (err error) { e.lm, err = newLandmarker(w); return }},
		{recogniserModel, func(w *weights) (err error) { e.rec, err = newRecogniser(w); return }},
	} {
		w, err := loadWeights(dir, m.name)
		if err != nil {
			return nil, err
		}
		if err := m.build(w); err != nil {
			return nil, fmt.Errorf("face model %s: %w", m.name, err)
		}
	}
	return &e, nil
}

// Face is a face found in a photo: where, its landmarks, the box it was
// described in (the landmarks' bounds, padded) and its descriptor.
type Face struct {
	Detection
	Landmarks  [68]Point
	Aligned    Box
	Descriptor []float32
}

// DefaultMinScore is the detector's confidence below which a box is not a
// face.
const DefaultMinScore = 0.5

// Faces finds the faces in im scoring at least minScore, strongest first,
// each placed and described.
func (e *Engine) Faces(im image.Image, minScore float64) []Face {
	p := newPicture(im)
	var faces []Face
	for _, d := range e.found(p, minScore) {
		faces = append(faces, e.describe(p, d, p.clip(d.Box)))
	}
	return faces
}

// Largest finds the faces in im scoring at least minScore and places and
// describes the largest only (the person before a selfie camera); others
// are the rest, found but not described. ok is false when none is found.
func (e *Engine) Largest(im image.Image, minScore float64) (largest Face, others []Detection, ok bool) {
	return e.one(im, minScore, widest, true)
}

// Strongest is Largest for the face the detector is surest of: a
// document's portrait, where the page's print can pass for a larger face
// at a lower score.
func (e *Engine) Strongest(im image.Image, minScore float64) (strongest Face, others []Detection, ok bool) {
	return e.one(im, minScore, surest, true)
}

// Placed is Largest without the descriptor: where the largest face is and
// its landmarks, enough for its pose (a live view's guidance).
func (e *Engine) Placed(im image.Image, minScore float64) (largest Face, others []Detection, ok bool) {
	return e.one(im, minScore, widest, false)
}

// widest and surest choose one of the faces found: the largest box, or
// the highest score.
func widest(found []Detection) int {
	return best(found, func(d Detection) float64 { return d.Box.Area() })
}
func surest(found []Detection) int { return best(found, func(d Detection) float64 { return d.Score }) }

func best(found []Detection, by func(Detection) float64) int {
	i := 0
	for j, d := range found {
		if by(d) > by(found[i]) {
			i = j
		}
	}
	return i
}

// one places (and when described, describes) the face choose picks of
// those found in im.
func (e *Engine) one(im image.Image, minScore float64, choose func([]Detection) int, described bool) (Face, []Detection, bool) {
	p := newPicture(im)
	found := e.found(p, minScore)
	if len(found) == 0 {
		return Face{}, nil, false
	}
	i := choose(found)
	others := append(slices.Clone(found[:i]), found[i+1:]...)
	r := p.clip(found[i].Box)
	if !described {
		return e.place(p, found[i], r), others, true
	}
	return e.describe(p, found[i], r), others, true
}

// found is what the detector finds, less boxes too small to place
// landmarks in.
func (e *Engine) found(p *picture, minScore float64) []Detection {
	return slices.DeleteFunc(e.det.detect(p, minScore), func(d Detection) bool {
		r := p.clip(d.Box)
		return r.Dx() < 8 || r.Dy() < 8
	})
}

// Crop describes im taken as one face that fills it, as a document's
// portrait cut out or a face photo cropped tight; no detector runs.
func (e *Engine) Crop(im image.Image) Face {
	p := newPicture(im)
	whole := Box{W: float64(p.w), H: float64(p.h)}
	return e.describe(p, Detection{Box: whole, Score: 1}, p.clip(whole))
}

// describe places the face (place) and describes it in its aligned box,
// as the descriptor was trained on.
func (e *Engine) describe(p *picture, d Detection, r image.Rectangle) Face {
	f := e.place(p, d, r)
	a := p.clip(f.Aligned)
	if a.Dx() < 8 || a.Dy() < 8 {
		a = r
	}
	f.Descriptor = e.rec.describe(p, a)
	return f
}

// place places the landmarks in r, and the aligned box on their bounds
// padded by a fifth.
func (e *Engine) place(p *picture, d Detection, r image.Rectangle) Face {
	f := Face{Detection: d, Landmarks: e.lm.place(p, r)}
	minX, minY, maxX, maxY := f.Landmarks[0].X, f.Landmarks[0].Y, f.Landmarks[0].X, f.Landmarks[0].Y
	for _, pt := range f.Landmarks {
		minX, minY, maxX, maxY = min(minX, pt.X), min(minY, pt.Y), max(maxX, pt.X), max(maxY, pt.Y)
	}
	w, h := maxX-minX, maxY-minY
	f.Aligned = Box{X: minX - w*0.1, Y: minY - h*0.1, W: w * 1.2, H: h * 1.2}
	return f
}
