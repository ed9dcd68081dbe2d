// Package faceeval measures the face matcher on a folder of labelled face
// photos it was not made with: every two photos of one person a genuine
// pair, every two of different people an impostor pair, and the error
// rates at each threshold.
package faceeval

import (
	"bufio"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	_ "image/jpeg" // the folders hold JPEG and PNG photos
	_ "image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kycflow/kycflow/engines/face"
)

// LabelsFile names each photo's person: a tab-separated file with a header,
// the photo's file name first and the person second. A folder without one
// holds a folder per person (as the ORL faces do: s1/1.pgm …).
const LabelsFile = "labels.tsv"

// Photo is one labelled photo.
type Photo struct {
	File, Person string
}

// ReadLabels reads dir's labels, or its folders'.
func ReadLabels(dir string) ([]Photo, error) {
	f, err := os.Open(filepath.Join(dir, LabelsFile))
	if errors.Is(err, os.ErrNotExist) {
		return byFolder(dir)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var photos []Photo
	s := bufio.NewScanner(f)
	for n := 0; s.Scan(); n++ {
		cols := strings.Split(s.Text(), "\t")
		if n == 0 || len(cols) < 2 {
			continue
		}
		photos = append(photos, Photo{File: cols[0], Person: cols[1]})
	}
	return photos, s.Err()
}

// byFolder labels each image in a folder of dir by that folder's name.
func byFolder(dir string) ([]Photo, error) {
	people, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var photos []Photo
	for _, p := range people {
		if !p.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(dir, p.Name()))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			switch strings.ToLower(filepath.Ext(f.Name())) {
			case ".pgm", ".png", ".jpg", ".jpeg":
				photos = append(photos, Photo{File: filepath.Join(p.Name(), f.Name()), Person: p.Name()})
			}
		}
	}
	if len(photos) == 0 {
		return nil, fmt.Errorf("%s: no %s and no folder of photos", dir, LabelsFile)
	}
	return photos, nil
}

// Mode is how a photo's face is found: by the detector in the photo as it
// is; by the detector in the photo centred on a grey canvas twice its size
// (a tight crop framed as a selfie frames a face); or the photo taken as
// the face, no detector run.
type Mode string

const (
	Detected Mode = "detected"
	Framed   Mode = "framed"
	Cropped  Mode = "cropped"
	// Printed is a document's printed portrait against a selfie's face
	// (printed.go).
	Printed Mode = "printed"
)

// Report is one mode's figures.
type Report struct {
	Mode              Mode
	Photos, NoFace    int
	Genuine, Impostor []float64 // the pairs' distances
	EER, EERThreshold float64
	PerFace           []time.Duration
}

// Evaluate describes every photo in both modes and scores the pairs.
func Evaluate(e *face.Engine, dir string, photos []Photo) ([]Report, error) {
	var reports []Report
	for _, mode := range []Mode{Detected, Framed, Cropped} {
		r := Report{Mode: mode}
		descs := make([][]float32, len(photos))
		for i, p := range photos {
			im, err := decode(filepath.Join(dir, p.File))
			if err != nil {
				return nil, err
			}
			r.Photos++
			start := time.Now()
			if mode == Framed {
				im = framed(im)
			}
			if mode == Cropped {
				descs[i] = e.Crop(im).Descriptor
			} else if faces := e.Faces(im, face.DefaultMinScore); len(faces) > 0 {
				descs[i] = faces[0].Descriptor
			} else {
				r.NoFace++
			}
			r.PerFace = append(r.PerFace, time.Since(start))
		}
		for i := range photos {
			for j := i + 1; j < len(photos); j++ {
				r.pair(photos[i].Person == photos[j].Person, descs[i], descs[j])
			}
		}
		r.EER, r.EERThreshold = equalError(r.Genuine, r.Impostor)
		reports = append(reports, r)
	}
	return reports, nil
}

// pair scores two faces' descriptors (nil: not found, no pair) as one
// person's, a genuine pair, or two people's.
func (r *Report) pair(same bool, a, b []float32) {
	if a == nil || b == nil {
		return
	}
	if d := face.Distance(a, b); same {
		r.Genuine = append(r.Genuine, d)
	} else {
		r.Impostor = append(r.Impostor, d)
	}
}

// framed is im centred on a mid-grey canvas of twice its sides.
func framed(im image.Image) image.Image {
	b := im.Bounds()
	c := image.NewRGBA(image.Rect(0, 0, 2*b.Dx(), 2*b.Dy()))
	draw.Draw(c, c.Bounds(), image.NewUniform(color.Gray{Y: 128}), image.Point{}, draw.Src)
	draw.Draw(c, b.Sub(b.Min).Add(image.Pt(b.Dx()/2, b.Dy()/2)), im, b.Min, draw.Src)
	return c
}

func decode(path string) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	im, _, err := image.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return im, nil
}

// Rates are the share of genuine pairs refused (false non-match) and of
// impostor pairs accepted (false match) at threshold t: a pair matches
// when its distance is under t.
func Rates(genuine, impostor []float64, t float64) (fnmr, fmr float64) {
	for _, d := range genuine {
		if d >= t {
			fnmr++
		}
	}
	for _, d := range impostor {
		if d < t {
			fmr++
		}
	}
	return fnmr / float64(max(len(genuine), 1)), fmr / float64(max(len(impostor), 1))
}

// equalError is the error rate where false matches and false non-matches
// cross, and the threshold there, over every distance seen.
func equalError(genuine, impostor []float64) (rate, threshold float64) {
	ts := slices.Concat(genuine, impostor)
	slices.Sort(ts)
	best := 2.0
	for _, t := range ts {
		fnmr, fmr := Rates(genuine, impostor, t)
		if gap := math.Abs(fnmr - fmr); gap < best {
			best, rate, threshold = gap, (fnmr+fmr)/2, t
		}
	}
	return rate, threshold
}

// Print writes the reports.
func Print(w io.Writer, reports []Report, thresholds []float64) {
	for _, r := range reports {
		times := slices.Clone(r.PerFace)
		slices.Sort(times)
		var p50, p99 time.Duration
		if len(times) > 0 {
			p50, p99 = times[len(times)/2], times[(len(times)*99)/100]
		}
		fmt.Fprintf(w, "%s: %d photos, no face found in %d; %d genuine and %d impostor pairs; per photo p50 %v, p99 %v\n",
			r.Mode, r.Photos, r.NoFace, len(r.Genuine), len(r.Impostor), p50.Round(time.Millisecond), p99.Round(time.Millisecond))
		if len(r.Genuine) == 0 || len(r.Impostor) == 0 {
			continue
		}
		fmt.Fprintf(w, "  equal error rate %.1f %% at %.3f\n", 100*r.EER, r.EERThreshold)
		for _, t := range thresholds {
			fnmr, fmr := Rates(r.Genuine, r.Impostor, t)
			fmt.Fprintf(w, "  at %.2f: false non-match %.1f %%, false match %.2f %%\n", t, 100*fnmr, 100*fmr)
		}
		g, i := slices.Clone(r.Genuine), slices.Clone(r.Impostor)
		slices.Sort(g)
		slices.Sort(i)
		fmt.Fprintf(w, "  genuine %.3f–%.3f (median %.3f), impostor %.3f–%.3f (median %.3f)\n", g[0], g[len(g)-1], g[len(g)/2], i[0], i[len(i)-1], i[len(i)/2])
	}
}
