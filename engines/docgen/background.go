package docgen

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"math/rand/v2"

	"golang.org/x/image/vector"

	"github.com/kycflow/kycflow/engines/ocrb"
)

// background draws the surface under the document for a w×h photo, at
// half its resolution: it is upsampled while compositing, which costs a
// quarter of the work and softens it like a phone's shallow focus. It is
// plain when cam.Background is 0, else a desk, wood or cloth texture with
// cam.Clutter objects, all drawn from the seed cam.Background.
func background(w, h int, cam Camera, r *rand.Rand) *image.RGBA {
	bw, bh := max(2, (w+1)/2), max(2, (h+1)/2)
	img := image.NewRGBA(image.Rect(0, 0, bw, bh))
	if cam.Lid {
		v := uint8(244 + r.IntN(9))
		mottle(img, color.RGBA{v, v, v - 2, 255}, 2, newValueNoise(r, bw, bh, 4))
		return img
	}
	if cam.Background == 0 {
		tones := []color.RGBA{{150, 148, 142, 255}, {214, 211, 204, 255}, {70, 68, 66, 255}, {172, 134, 96, 255}, {120, 130, 140, 255}}
		base := tones[r.IntN(len(tones))]
		mottle(img, base, 6, newValueNoise(r, bw, bh, 8))
		return img
	}
	br := rand.New(rand.NewPCG(uint64(cam.Background), 0x6261636b))
	switch br.IntN(3) {
	case 0:
		wood(img, br)
	case 1:
		desks := []color.RGBA{{196, 196, 190, 255}, {92, 96, 104, 255}, {232, 228, 220, 255}, {48, 50, 54, 255}, {140, 150, 120, 255}}
		mottle(img, desks[br.IntN(len(desks))], 10, newValueNoise(br, bw, bh, 6))
	default:
		cloth(img, br)
	}
	n := cam.Clutter
	if n == 0 {
		n = 4
	}
	for i := 0; i < n; i++ {
		clutter(img, br)
	}
	return img
}

// valueNoise is smooth random variation: random values on a coarse grid,
// interpolated.
type valueNoise struct {
	gw, gh int
	cell   float32
	v      []float32
}

func newValueNoise(r *rand.Rand, w, h, cells int) *valueNoise {
	cell := float32(max(w, h)) / float32(cells)
	gw, gh := int(float32(w)/cell)+2, int(float32(h)/cell)+2
	n := &valueNoise{gw: gw, gh: gh, cell: cell, v: make([]float32, gw*gh)}
	for i := range n.v {
		n.v[i] = float32(2*r.Float64() - 1)
	}
	return n
}

// at is the noise (−1..1) at pixel (x, y); the grid repeats, so any
// coordinates are fine.
func (n *valueNoise) at(x, y float32) float32 {
	fx, fy := x/n.cell, y/n.cell
	flx, fly := float32(math.Floor(float64(fx))), float32(math.Floor(float64(fy)))
	tx, ty := fx-flx, fy-fly
	ix, iy := int(flx)%n.gw, int(fly)%n.gh
	if ix < 0 {
		ix += n.gw
	}
	if iy < 0 {
		iy += n.gh
	}
	ix1, iy1 := (ix+1)%n.gw, (iy+1)%n.gh
	tx, ty = tx*tx*(3-2*tx), ty*ty*(3-2*ty)
	a := n.v[iy*n.gw+ix] + (n.v[iy*n.gw+ix1]-n.v[iy*n.gw+ix])*tx
	b := n.v[iy1*n.gw+ix] + (n.v[iy1*n.gw+ix1]-n.v[iy1*n.gw+ix])*tx
	return a + (b-a)*ty
}

// mottle fills img with base varied by ±amp along n.
func mottle(img *image.RGBA, base color.RGBA, amp float32, n *valueNoise) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	for y := 0; y < h; y++ {
		row := img.Pix[y*img.Stride:]
		for x := 0; x < w; x++ {
			d := amp * n.at(float32(x), float32(y))
			row[4*x] = clamp8(float32(base.R) + d)
			row[4*x+1] = clamp8(float32(base.G) + d)
			row[4*x+2] = clamp8(float32(base.B) + d)
			row[4*x+3] = 255
		}
	}
}

// wood draws planks: growth rings that wander along the grain, grain
// streaks, dark seams; from tables, cheap per pixel.
func wood(img *image.RGBA, r *rand.Rand) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	tones := []color.RGBA{{168, 116, 72, 255}, {120, 78, 48, 255}, {196, 156, 110, 255}, {90, 60, 40, 255}}
	base := tones[r.IntN(len(tones))]
	sin, cos := math.Sincos(r.Float64() * math.Pi)
	s := float32(min(w, h))
	ring := s / float32(3+r.IntN(6))
	plank := s / float32(2+r.IntN(4))
	// The rings wander slowly along the grain: a 1-D curve of the
	// coordinate along it.
	n := w + h + 2
	bend := newValueNoise(r, n, 1, 8)
	along := make([]float32, n)
	for i := range along {
		along[i] = 2.5 * bend.at(float32(i), 0)
	}
	var grain [4096]float32 // streaks: one random tone per unit across the grain
	for i := range grain {
		grain[i] = float32(2*r.Float64() - 1)
	}
	for y := 0; y < h; y++ {
		row := img.Pix[y*img.Stride:]
		fy := float32(y)
		for x := 0; x < w; x++ {
			across := -float32(x)*float32(sin) + fy*float32(cos)
			at := int(float32(x)*float32(cos)+fy*float32(sin)) + h // ≥ 0: sin ≥ 0
			// Each plank its own ring pattern: offset by the plank number.
			p := across / plank
			pn := float32(math.Floor(float64(p)))
			rings := lut(&sinLUT, across/ring+along[min(max(at, 0), n-1)]+pn*0.37)
			f := 0.86 + 0.07*rings + 0.06*grain[int32(across*1.5+pn*997)&4095]
			if p-pn < 0.006 || p-pn > 0.994 {
				f *= 0.55
			}
			row[4*x] = clamp8(float32(base.R) * f)
			row[4*x+1] = clamp8(float32(base.G) * f)
			row[4*x+2] = clamp8(float32(base.B) * f)
			row[4*x+3] = 255
		}
	}
}

// cloth draws a woven check (gingham) of two colours.
func cloth(img *image.RGBA, r *rand.Rand) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	pairs := [][2]color.RGBA{{{230, 226, 220, 255}, {170, 40, 40, 255}}, {{220, 224, 230, 255}, {40, 70, 140, 255}}, {{200, 200, 196, 255}, {60, 60, 60, 255}}}
	pc := pairs[r.IntN(len(pairs))]
	period := max(4, float32(min(w, h))/float32(12+r.IntN(20)))
	for y := 0; y < h; y++ {
		row := img.Pix[y*img.Stride:]
		by := int(float32(y)/period) & 1
		for x := 0; x < w; x++ {
			bx := int(float32(x)/period) & 1
			t := float32(bx+by) / 2 * 0.8 // 0, 0.4 or 0.8 of the stripe colour
			if (x+y)%3 == 0 {             // a hint of weave
				t *= 0.9
			}
			row[4*x] = clamp8(float32(pc[0].R) + (float32(pc[1].R)-float32(pc[0].R))*t)
			row[4*x+1] = clamp8(float32(pc[0].G) + (float32(pc[1].G)-float32(pc[0].G))*t)
			row[4*x+2] = clamp8(float32(pc[0].B) + (float32(pc[1].B)-float32(pc[0].B))*t)
			row[4*x+3] = 255
		}
	}
}

// polygon fills the polygon pts (pixels) in c.
func polygon(img *image.RGBA, c color.Color, pts ...[2]float64) {
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range pts {
		minX, maxX = min(minX, p[0]), max(maxX, p[0])
		minY, maxY = min(minY, p[1]), max(maxY, p[1])
	}
	b := img.Rect
	if maxX < 0 || maxY < 0 || minX > float64(b.Dx()) || minY > float64(b.Dy()) {
		return
	}
	// Clip the raster to the image: shapes may reach far outside it.
	minX, minY = math.Max(minX, -2), math.Max(minY, -2)
	maxX, maxY = math.Min(maxX, float64(b.Dx())+2), math.Min(maxY, float64(b.Dy())+2)
	x0, y0 := int(math.Floor(minX)), int(math.Floor(minY))
	x1, y1 := int(math.Ceil(maxX))+1, int(math.Ceil(maxY))+1
	if x1-x0 < 1 || y1-y0 < 1 {
		return
	}
	z := vector.NewRasterizer(x1-x0, y1-y0)
	for i, p := range pts {
		// Points may lie outside the raster: it skips rows outside it and
		// accumulates columns left of it into its first, which is right.
		px, py := float32(p[0]-float64(x0)), float32(p[1]-float64(y0))
		if i == 0 {
			z.MoveTo(px, py)
		} else {
			z.LineTo(px, py)
		}
	}
	z.ClosePath()
	ocrb.FillRaster(img, z, x0, y0, c)
}

// frame is a rotated rectangle: a centre, unit axes and half sizes.
type frame struct {
	cx, cy, ux, uy, hw, hh float64
}

// at maps local coordinates (from the top left corner) to the image.
func (f frame) at(a, b float64) [2]float64 {
	a -= f.hw
	b -= f.hh
	return [2]float64{f.cx + a*f.ux - b*f.uy, f.cy + a*f.uy + b*f.ux}
}

// rect fills the local rectangle (a0, b0)–(a1, b1).
func (f frame) rect(img *image.RGBA, c color.Color, a0, b0, a1, b1 float64) {
	polygon(img, c, f.at(a0, b0), f.at(a1, b0), f.at(a1, b1), f.at(a0, b1))
}

// disc approximates a circle by a polygon.
func disc(img *image.RGBA, c color.Color, cx, cy, rad float64) {
	pts := make([][2]float64, 48)
	for i := range pts {
		s, co := math.Sincos(float64(i) * 2 * math.Pi / 48)
		pts[i] = [2]float64{cx + rad*co, cy + rad*s}
	}
	polygon(img, c, pts...)
}

var words = []string{"INVOICE", "Total", "EUR", "receipt", "Amsterdam", "date", "12.50", "VAT 21%", "Thank you", "ORDER", "no.", "2024-03-11",
	"Dear Sir", "kind regards", "contract", "page 2 of 4", "Ref.", "NL91ABNA0417164300", "qty", "price", "TICKET", "gate B12", "seat 14C"}

// clutter draws one object where phones find documents: paper with text
// (as word blocks or as real text), a receipt, a pen, a coin, a mug's
// stain, a phone, a sticky note.
func clutter(img *image.RGBA, r *rand.Rand) {
	w, h := float64(img.Rect.Dx()), float64(img.Rect.Dy())
	s := math.Min(w, h)
	cx, cy := r.Float64()*w, r.Float64()*h
	ang := r.Float64() * 2 * math.Pi
	ux, uy := math.Cos(ang), math.Sin(ang)
	shadow := color.RGBA{0, 0, 0, 50}
	switch r.IntN(8) {
	case 0, 1: // a sheet of paper, its text as grey word blocks
		f := frame{cx, cy, ux, uy, s * (0.2 + 0.15*r.Float64()), 0}
		f.hh = f.hw * 1.41
		g := frame{cx + 0.01*s, cy + 0.015*s, ux, uy, f.hw, f.hh}
		g.rect(img, shadow, 0, 0, 2*g.hw, 2*g.hh)
		paper := uint8(228 + r.IntN(24))
		f.rect(img, color.RGBA{paper, paper, paper - uint8(r.IntN(10)), 255}, 0, 0, 2*f.hw, 2*f.hh)
		line := f.hw * 2 / 80 // a line of print, about 3 mm on A4
		ink := color.RGBA{120, 120, 130, 255}
		for b := 6 * line; b < 2*f.hh-6*line; b += line * 1.7 {
			if r.IntN(6) == 0 { // paragraph break
				continue
			}
			for a := 6 * line; a < 2*f.hw-6*line; {
				wl := line * (1 + 3*r.Float64())
				if a+wl > 2*f.hw-6*line {
					break
				}
				f.rect(img, ink, a, b, a+wl, b+line*0.55)
				a += wl + line*0.6
			}
		}
	case 2: // a receipt or letter with legible text, square to the frame
		px := math.Max(7, s*(0.012+0.012*r.Float64()))
		fc := face(r.IntN(3), px)
		lines := 6 + r.IntN(10)
		bw := px * 18
		x0, y0 := cx-bw/2, cy-float64(lines)*px*0.8
		polygon(img, shadow, [2]float64{x0 + 4, y0 + 6}, [2]float64{x0 + bw + 4, y0 + 6}, [2]float64{x0 + bw + 4, y0 + float64(lines+1)*px*1.5 + 6}, [2]float64{x0 + 4, y0 + float64(lines+1)*px*1.5 + 6})
		polygon(img, color.RGBA{246, 244, 238, 255}, [2]float64{x0, y0}, [2]float64{x0 + bw, y0}, [2]float64{x0 + bw, y0 + float64(lines+1)*px*1.5}, [2]float64{x0, y0 + float64(lines+1)*px*1.5})
		for i := 0; i < lines; i++ {
			txt := pick(r, words) + " " + pick(r, words)
			if r.IntN(3) == 0 {
				txt += fmt.Sprintf(" %d.%02d", r.IntN(200), r.IntN(100))
			}
			text(img, fc, x0+px, y0+float64(i+1)*px*1.5, color.RGBA{40, 40, 48, 255}, txt)
		}
	case 3: // a pen
		f := frame{cx, cy, ux, uy, s * (0.12 + 0.06*r.Float64()), s * 0.012}
		body := []color.RGBA{{20, 40, 140, 255}, {20, 20, 24, 255}, {180, 30, 30, 255}, {220, 220, 225, 255}}[r.IntN(4)]
		frame{cx + 0.008*s, cy + 0.01*s, ux, uy, f.hw, f.hh}.rect(img, shadow, 0, 0, 2*f.hw, 2*f.hh)
		f.rect(img, body, 0, 0, 2*f.hw, 2*f.hh)
		f.rect(img, color.RGBA{200, 200, 200, 255}, 0, 0.2*f.hh, 0.12*f.hw, 1.8*f.hh)
	case 4: // a coin
		rad := s * (0.025 + 0.015*r.Float64())
		tone := []color.RGBA{{190, 160, 80, 255}, {170, 170, 175, 255}, {150, 110, 70, 255}}[r.IntN(3)]
		disc(img, shadow, cx+0.004*s, cy+0.006*s, rad)
		disc(img, tone, cx, cy, rad)
		disc(img, color.RGBA{tone.R - 30, tone.G - 30, tone.B - 30, 255}, cx, cy, rad*0.8)
	case 5: // a mug's stain
		rad := s * (0.05 + 0.02*r.Float64())
		disc(img, color.NRGBA{80, 50, 28, 40}, cx, cy, rad)
		disc(img, color.NRGBA{80, 50, 28, 30}, cx, cy, rad*0.9)
	case 6: // a phone
		f := frame{cx, cy, ux, uy, s * 0.09, s * 0.19}
		frame{cx + 0.01*s, cy + 0.012*s, ux, uy, f.hw, f.hh}.rect(img, shadow, 0, 0, 2*f.hw, 2*f.hh)
		f.rect(img, color.RGBA{18, 18, 20, 255}, 0, 0, 2*f.hw, 2*f.hh)
		f.rect(img, color.RGBA{40, 44, 56, 255}, 0.08*f.hw, 0.08*f.hw, 1.92*f.hw, 2*f.hh-0.08*f.hw)
	default: // a sticky note
		f := frame{cx, cy, ux, uy, s * 0.07, s * 0.07}
		f.rect(img, color.RGBA{250, 234, 110, 255}, 0, 0, 2*f.hw, 2*f.hh)
		for b := 0.4 * f.hh; b < 1.6*f.hh; b += 0.3 * f.hh {
			f.rect(img, color.RGBA{40, 60, 150, 255}, 0.3*f.hw, b, (0.6+r.Float64())*f.hw, b+0.05*f.hh)
		}
	}
}
