package docgen

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"

	"github.com/kycflow/kycflow/engines/docimage"
	"github.com/kycflow/kycflow/engines/ocrb"
	"golang.org/x/image/vector"
)

// press is how a document's printer (or laser engraver) puts the OCR-B
// outline on the page, never exactly as the font draws it: strokes spread
// or thin, one issuer's OCR-B is narrower than another's, characters sit
// a little off their nominal place, and edges are ragged. The reader's
// typeface matcher rasterizes the outline itself; printing the MRZ
// through a press keeps the generated photos from flattering it.
type press struct {
	weight float64 // each edge moved outward by this fraction of the cap height (negative: thinner)
	width  float64 // horizontal scale of the glyphs
	jitter float64 // standard deviation of a character's offset, fraction of the cap height
	rough  float64 // amplitude of the edges' raggedness, 0–1
}

// pressFor draws a document's press.
func pressFor(r *rand.Rand) press {
	return press{
		weight: -0.025 + 0.06*r.Float64(),
		width:  0.93 + 0.12*r.Float64(),
		jitter: 0.03 * r.Float64(),
		rough:  0.15 * r.Float64(),
	}
}

// print prints c centred in the cell of width pitch starting at x, on the
// baseline, cap height capPx, onto dst in ink. Each glyph is drawn at a
// higher resolution (a cap height of about 96 pixels), its edges moved by
// the press's weight (Gaussian blur, then a threshold off the middle), made
// ragged, and averaged back down.
func (p press) print(dst *image.RGBA, f *ocrb.Font, r *rand.Rand, c byte, x, baseline, pitch, capPx float64, ink color.RGBA) {
	ss := int(math.Min(6, math.Max(1, math.Ceil(96/capPx))))
	s := float64(ss)
	minX, minY, maxX, maxY, capH := f.Ink(c)
	k := capPx / capH
	jx, jy := r.NormFloat64()*p.jitter*capPx, r.NormFloat64()*p.jitter*capPx
	cx := x + pitch/2 + jx // the ink's centre, in dst pixels
	by := baseline + jy
	pad := math.Abs(p.weight)*capPx + 3
	x0 := int(math.Floor(cx - (maxX-minX)/2*k*p.width - pad))
	x1 := int(math.Ceil(cx + (maxX-minX)/2*k*p.width + pad))
	y0 := int(math.Floor(by - maxY*k - pad))
	y1 := int(math.Ceil(by - minY*k + pad))
	w, h := (x1-x0)*ss, (y1-y0)*ss
	if w <= 0 || h <= 0 {
		return
	}
	z := vector.NewRasterizer(w, h)
	kx, ky := k*p.width*s, k*s
	f.Outline(z, c, ocrb.Affine{kx, 0, (cx-float64(x0))*s - (minX+maxX)/2*kx, 0, -ky, (by - float64(y0)) * s})
	mask := image.NewAlpha(image.Rect(0, 0, w, h))
	z.Draw(mask, mask.Bounds(), image.Opaque, image.Point{})
	cov := make([]float64, w*h)
	for i, v := range mask.Pix {
		cov[i] = float64(v) / 255
	}
	// A straight edge blurred with sigma crosses level Φ(−d/σ) d pixels
	// outside where it was: thresholding there moves it by d.
	d := p.weight * capPx * s
	sigma := math.Max(1.2, math.Abs(d)/1.5)
	cov = blurField(cov, w, h, sigma)
	level := 0.5 * math.Erfc(d/sigma/math.Sqrt2)
	noise := newValueNoise(r, w, h, max(1, int(float64(max(w, h))/math.Max(2, capPx*s/12))))
	for i, v := range cov {
		v += p.rough * 0.25 * float64(noise.at(float32(i%w), float32(i/w)))
		cov[i] = smoothstep(level-0.06, level+0.06, v)
	}
	for y := y0; y < y1; y++ {
		if y < dst.Rect.Min.Y || y >= dst.Rect.Max.Y {
			continue
		}
		for x := x0; x < x1; x++ {
			if x < dst.Rect.Min.X || x >= dst.Rect.Max.X {
				continue
			}
			var a float64
			for yy := (y - y0) * ss; yy < (y-y0+1)*ss; yy++ {
				for xx := (x - x0) * ss; xx < (x-x0+1)*ss; xx++ {
					a += cov[yy*w+xx]
				}
			}
			a /= s * s
			if a <= 0 {
				continue
			}
			o := dst.PixOffset(x, y)
			px := dst.Pix[o : o+3 : o+3]
			px[0] = uint8(float64(px[0])*(1-a) + float64(ink.R)*a + 0.5)
			px[1] = uint8(float64(px[1])*(1-a) + float64(ink.G)*a + 0.5)
			px[2] = uint8(float64(px[2])*(1-a) + float64(ink.B)*a + 0.5)
		}
	}
}

func smoothstep(a, b, v float64) float64 {
	t := math.Min(1, math.Max(0, (v-a)/(b-a)))
	return t * t * (3 - 2*t)
}

// blurField blurs a w×h field with a separable Gaussian kernel.
func blurField(src []float64, w, h int, sigma float64) []float64 {
	rad := int(math.Ceil(3 * sigma))
	kern := docimage.Gaussian(sigma, rad)
	// One pass along rows (step 1, n w), one along columns (step w, n h).
	pass := func(src []float64, step, n, lines, lineStep int) []float64 {
		out := make([]float64, len(src))
		for l := range lines {
			base := l * lineStep
			for i := range n {
				var v float64
				for j, kv := range kern {
					v += src[base+min(n-1, max(0, i+j-rad))*step] * kv
				}
				out[base+i*step] = v
			}
		}
		return out
	}
	return pass(pass(src, 1, w, h, w), w, h, w, 1)
}
