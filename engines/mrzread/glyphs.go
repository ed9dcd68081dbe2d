package mrzread

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"strings"
	"sync"

	"github.com/kycflow/kycflow/engines/docimage"
	"github.com/kycflow/kycflow/engines/ocrb"
)

// OCR-B is the MRZ's typeface, monospaced and the same on every
// document, so each character cell can be matched against the typeface's
// own glyphs: a second reader, independent of Tesseract's, whose agreement
// a read needs (vote.go).

// The template size: a cell is compared at tw × th samples.
const tw, th = 20, 28

// glyphSet is the MRZ alphabet's templates, zero-mean and unit-norm.
type glyphSet struct {
	chars string
	t     [][tw * th]float64
	// apart[i][j] is half the squared distance of templates i and j: how
	// much more a perfect i correlates with i than with j.
	apart [][]float64
	// zero and oh are the indexes of 0 and O, which OCR-B tells apart by
	// width and height alone.
	zero, oh int
}

// glyphs renders the templates once per font.
// glyphs renders the templates once: sharp, and blurred as photos blur
// print (matchLines picks the set that fits a line best).
var glyphs = sync.OnceValues(func() ([]*glyphSet, error) {
	f, err := ocrb.Load()
	if err != nil {
		return nil, err
	}
	var sets []*glyphSet
	for _, sigma := range blurs {
		s, err := renderGlyphs(f, sigma)
		if err != nil {
			return nil, err
		}
		sets = append(sets, s)
	}
	return sets, nil
})

// blurs are the templates' blurs, Gaussian sigmas in samples (a sample is
// a 28th of the capitals' height).
var blurs = []float64{0, 0.9, 1.8}

// renderGlyphs draws each character as a document prints it — centred in
// its cell, a pitch wide — and samples it between the baseline and the
// cap height, as matchCells samples the band's cells between their lines'
// top and bottom of ink.
func renderGlyphs(f *ocrb.Font, sigma float64) (*glyphSet, error) {
	const capPx = 4 * th
	pitchPx := capPx * 2.54 / 2.3 // ICAO: 2.54 mm a character, OCR-B's capitals about 2.3 mm high
	w, h := int(pitchPx), 2*capPx
	base := float64(capPx) * 1.5
	top := int(base) - capPx
	set := &glyphSet{chars: ocrb.Alphabet, t: make([][tw * th]float64, len(ocrb.Alphabet)),
		zero: strings.IndexByte(ocrb.Alphabet, '0'), oh: strings.IndexByte(ocrb.Alphabet, 'O')}
	for i := range len(ocrb.Alphabet) {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		draw.Draw(img, img.Rect, image.White, image.Point{}, draw.Src)
		f.Draw(img, ocrb.Alphabet[i], 0, base, pitchPx, capPx, color.Black)
		var v [tw * th]float64
		for j := range th {
			for k := range tw {
				// The mean of the source pixels this sample covers.
				x0, x1 := k*w/tw, (k+1)*w/tw
				y0, y1 := top+j*capPx/th, top+(j+1)*capPx/th
				var s float64
				for y := y0; y < y1; y++ {
					for x := x0; x < x1; x++ {
						s += float64(img.Pix[y*img.Stride+4*x+1]) // green: the image is grey
					}
				}
				v[j*tw+k] = s / float64((x1-x0)*(y1-y0))
			}
		}
		set.t[i] = normalise(blurSamples(v, sigma))
	}
	set.apart = make([][]float64, len(set.t))
	for i := range set.t {
		set.apart[i] = make([]float64, len(set.t))
		for j := range set.t {
			set.apart[i][j] = max(1e-6, 1-dot(set.t[i][:], set.t[j][:]))
		}
	}
	if !glyphsDiffer(set) {
		return nil, fmt.Errorf("mrzread: the OCR-B glyphs of %s are not distinct", ocrb.Path())
	}
	return set, nil
}

// blurSamples is v blurred by a Gaussian of sigma samples (paper beyond
// the edges).
func blurSamples(v [tw * th]float64, sigma float64) [tw * th]float64 {
	if sigma <= 0 {
		return v
	}
	r := int(math.Ceil(2.5 * sigma))
	kernel := docimage.Gaussian(sigma, r)
	at := func(v *[tw * th]float64, x, y int) float64 {
		if x < 0 || y < 0 || x >= tw || y >= th {
			return 255
		}
		return v[y*tw+x]
	}
	var mid, out [tw * th]float64
	for y := range th {
		for x := range tw {
			for i, k := range kernel {
				mid[y*tw+x] += k * at(&v, x+i-r, y)
			}
		}
	}
	for y := range th {
		for x := range tw {
			for i, k := range kernel {
				out[y*tw+x] += k * at(&mid, x, y+i-r)
			}
		}
	}
	return out
}

// glyphsDiffer guards against a font whose glyphs failed to render (blank
// templates would all match alike).
func glyphsDiffer(s *glyphSet) bool {
	for i := range s.t {
		for j := i + 1; j < len(s.t); j++ {
			if dot(s.t[i][:], s.t[j][:]) > 0.98 {
				return false
			}
		}
	}
	return true
}

// normalise makes v zero-mean and unit-norm (all zero when flat).
func normalise(v [tw * th]float64) [tw * th]float64 {
	var m float64
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	var n float64
	for i := range v {
		v[i] -= m
		n += v[i] * v[i]
	}
	if n = math.Sqrt(n); n > 0 {
		for i := range v {
			v[i] /= n
		}
	}
	return v
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
