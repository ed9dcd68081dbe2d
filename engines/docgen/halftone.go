package docgen

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/kycflow/kycflow/engines/ocrb"
)

// screen is the second way a document's MRZ is printed, one that shares
// nothing with the reader's glyph templates but the font's outline: the
// outline, flattened, is filled by a point-sampled scanline of its own on
// a plate finer than the page (not golang.org/x/image/vector's coverage,
// which the templates and the press use); the ink spreads into the paper
// or the plate is worn thin, by a disc; its edge is ragged; its tone is
// screened into clustered dots at an angle, as offset and laser printers
// print a grey; and the plate is averaged down to the page. Documents
// printed so, then photographed or scanned, are the reader's measure of
// what it was not made with (docs/IDSCAN.md).
type screen struct {
	spread float64 // each edge moved outward by this fraction of the cap height (negative: worn thin)
	width  float64 // horizontal scale of the glyphs
	slant  float64 // shear: x moves by slant × height above the baseline
	tone   float64 // the solid's ink coverage, 0.7–1: under 1, the screen's dots show
	cell   float64 // the screen's cell, a fraction of the cap height
	angle  float64 // the screen's angle, radians
	rough  float64 // the ragged edge: the share of edge pixels flipped, as paper fibres take the ink or not
	jitter float64 // standard deviation of a character's offset, fraction of the cap height
}

// screenFor draws a document's screen.
func screenFor(r *rand.Rand) screen {
	return screen{
		spread: -0.015 + 0.06*r.Float64(),
		width:  0.9 + 0.16*r.Float64(),
		slant:  -0.03 + 0.06*r.Float64(),
		tone:   0.8 + 0.2*r.Float64(),
		cell:   0.05 + 0.07*r.Float64(),
		angle:  (15 + 60*r.Float64()) * math.Pi / 180,
		rough:  0.4 * r.Float64(),
		jitter: 0.04 * r.Float64(),
	}
}

// plateCap is the cap height on the plate, plate pixels.
const plateCap = 72

// print prints c as press.print does (centred in its cell on the
// baseline, cap height capPx, onto dst in ink), through the screen.
func (s screen) print(dst *image.RGBA, f *ocrb.Font, r *rand.Rand, c byte, x, baseline, pitch, capPx float64, ink color.RGBA) {
	ss := max(1, int(math.Ceil(plateCap/capPx))) // plate pixels per page pixel
	k := float64(ss)
	minX, minY, maxX, maxY, capH := f.Ink(c)
	scale := capPx / capH * k // font units to plate pixels
	cx := (x + pitch/2 + r.NormFloat64()*s.jitter*capPx) * k
	by := (baseline + r.NormFloat64()*s.jitter*capPx) * k
	grow := s.spread * capPx * k
	pad := math.Abs(grow) + math.Abs(s.slant)*capPx*k + 3
	x0 := int(math.Floor((cx-(maxX-minX)/2*scale*s.width-pad)/k)) * ss
	x1 := int(math.Ceil((cx+(maxX-minX)/2*scale*s.width+pad)/k)) * ss
	y0 := int(math.Floor((by-maxY*scale-pad)/k)) * ss
	y1 := int(math.Ceil((by-minY*scale+pad)/k)) * ss
	w, h := x1-x0, y1-y0
	if w <= 0 || h <= 0 {
		return
	}
	// Font units (y up) to the plate's window: scaled, sheared, centred.
	ox := cx - float64(x0) - (minX+maxX)/2*scale*s.width
	m := ocrb.Affine{scale * s.width, s.slant * scale, ox, 0, -scale, by - float64(y0)}
	solid := fill(f.Polygons(c, m, 0.75), w, h)
	solid = grown(solid, w, h, grow)
	edge := make([]bool, len(solid))
	for y := range h {
		for x := range w {
			edge[y*w+x] = solid[y*w+x] != edgeOf(solid, w, h, x, y)
		}
	}
	for i, e := range edge {
		if e && r.Float64() < s.rough {
			solid[i] = !solid[i]
		}
	}
	// The screen: a clustered dot whose size is the tone.
	sin, cos := math.Sincos(s.angle)
	cell := s.cell * capPx * k
	for y := range h {
		for x := range w {
			if !solid[y*w+x] || s.tone >= 0.999 {
				continue
			}
			px, py := float64(x0+x), float64(y0+y)
			u, v := (px*cos+py*sin)/cell, (-px*sin+py*cos)/cell
			spot := (math.Cos(2*math.Pi*u) + math.Cos(2*math.Pi*v) + 2) / 4 // 1 at the dot's centre
			solid[y*w+x] = spot > 1-s.tone
		}
	}
	// Down to the page.
	for py := y0 / ss; py < y1/ss; py++ {
		if py < dst.Rect.Min.Y || py >= dst.Rect.Max.Y {
			continue
		}
		for px := x0 / ss; px < x1/ss; px++ {
			if px < dst.Rect.Min.X || px >= dst.Rect.Max.X {
				continue
			}
			n := 0
			for yy := py*ss - y0; yy < (py+1)*ss-y0; yy++ {
				for xx := px*ss - x0; xx < (px+1)*ss-x0; xx++ {
					if solid[yy*w+xx] {
						n++
					}
				}
			}
			if n == 0 {
				continue
			}
			a := float64(n) / (k * k)
			o := dst.PixOffset(px, py)
			p := dst.Pix[o : o+3 : o+3]
			p[0] = uint8(float64(p[0])*(1-a) + float64(ink.R)*a + 0.5)
			p[1] = uint8(float64(p[1])*(1-a) + float64(ink.G)*a + 0.5)
			p[2] = uint8(float64(p[2])*(1-a) + float64(ink.B)*a + 0.5)
		}
	}
}

// fill is the nonzero-winding fill of rings on a w×h plate, each pixel
// inked when its centre is inside: a scanline of crossings, no coverage.
func fill(rings [][][2]float64, w, h int) []bool {
	out := make([]bool, w*h)
	type crossing struct {
		x   float64
		dir int
	}
	var xs []crossing
	for y := range h {
		yc := float64(y) + 0.5
		xs = xs[:0]
		for _, ring := range rings {
			for i := range ring {
				a, b := ring[i], ring[(i+1)%len(ring)]
				if (a[1] <= yc) == (b[1] <= yc) {
					continue
				}
				dir := 1
				if b[1] < a[1] {
					dir = -1
				}
				xs = append(xs, crossing{a[0] + (yc-a[1])*(b[0]-a[0])/(b[1]-a[1]), dir})
			}
		}
		slices.SortFunc(xs, func(p, q crossing) int {
			switch {
			case p.x < q.x:
				return -1
			case p.x > q.x:
				return 1
			}
			return 0
		})
		wind := 0
		for i, c := range xs {
			wind += c.dir
			if wind == 0 || i+1 == len(xs) {
				continue
			}
			for x := max(0, int(math.Ceil(c.x-0.5))); x < min(w, int(math.Ceil(xs[i+1].x-0.5))); x++ {
				out[y*w+x] = true
			}
		}
	}
	return out
}

// grown moves the edges of m by d plate pixels: outward by a disc when d
// is positive (ink spread), inward when negative (a worn plate).
func grown(m []bool, w, h int, d float64) []bool {
	rad := int(math.Round(math.Abs(d)))
	if rad == 0 {
		return m
	}
	want := d > 0 // grow: a pixel is ink when any within the disc is
	out := make([]bool, len(m))
	for y := range h {
		for x := range w {
			v := !want
			for dy := -rad; dy <= rad && v != want; dy++ {
				for dx := -rad; dx <= rad; dx++ {
					if dx*dx+dy*dy > rad*rad {
						continue
					}
					xx, yy := x+dx, y+dy
					in := xx >= 0 && xx < w && yy >= 0 && yy < h && m[yy*w+xx]
					if in == want {
						v = want
						break
					}
				}
			}
			out[y*w+x] = v
		}
	}
	return out
}

// edgeOf is what a pixel of m would be were it not on an edge: its own
// value unless a 4-neighbour differs, then the neighbour's.
func edgeOf(m []bool, w, h, x, y int) bool {
	v := m[y*w+x]
	for _, d := range [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
		xx, yy := x+d[0], y+d[1]
		if xx >= 0 && xx < w && yy >= 0 && yy < h && m[yy*w+xx] != v {
			return !v
		}
	}
	return v
}
