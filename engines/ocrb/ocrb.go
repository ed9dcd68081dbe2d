// Package ocrb draws the characters of a machine-readable zone in OCR-B,
// the MRZ's typeface (ISO 1073-2), from Debian's fonts-ocr-b: the
// document generator prints with it, and the MRZ reader matches each
// character it reads against it. The font is loaded from the system, not
// shipped with kycflow, because of its licence; golang.org/x/image cannot
// read the outlines of its '8' and '<' (they use CFF's flex operators), so
// the glyphs come from a small charstring reader of its own (cff.go).
package ocrb

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"os"
	"sync"

	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/vector"
)

// DefaultPath is where Debian's fonts-ocr-b installs OCR-B. The font is
// loaded from the system, not shipped with kycflow, because of its licence.
const DefaultPath = "/usr/share/fonts/opentype/ocr-b/OCRB.otf"

// PathEnv names the environment variable that overrides DefaultPath.
const PathEnv = "KYCFLOW_OCRB_FONT"

// ErrNoFont is wrapped by the error of everything that draws an MRZ when the
// OCR-B font cannot be read.
var ErrNoFont = errors.New("ocrb: OCR-B font unavailable")

// Alphabet is what an MRZ may hold: the glyphs a Font has.
const Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<"

// Font is the OCR-B font reduced to what drawing an MRZ needs.
type Font struct {
	capHeight float64 // font units
	glyphs    [128]*outline
}

var (
	ocrbMu    sync.Mutex
	ocrbCache = map[string]*Font{} // by path; failures are not cached
)

// Path is the OCR-B font file to use: PathEnv's, else DefaultPath.
func Path() string {
	if p := os.Getenv(PathEnv); p != "" {
		return p
	}
	return DefaultPath
}

// Load reads the OCR-B font at Path, once per path.
func Load() (*Font, error) {
	path := Path()
	ocrbMu.Lock()
	defer ocrbMu.Unlock()
	if f, ok := ocrbCache[path]; ok {
		return f, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v; install Debian's package fonts-ocr-b (apt-get install fonts-ocr-b) or set %s to an OCR-B .otf file", ErrNoFont, err, PathEnv)
	}
	f, err := parseOCRB(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v (want the OCR-B of Debian's fonts-ocr-b)", ErrNoFont, path, err)
	}
	ocrbCache[path] = f
	return f, nil
}

func parseOCRB(data []byte) (*Font, error) {
	sf, err := sfnt.Parse(data)
	if err != nil {
		return nil, err
	}
	cffData, err := otfTable(data, "CFF ")
	if err != nil {
		return nil, err
	}
	tab, err := parseCFF(cffData)
	if err != nil {
		return nil, err
	}
	f := &Font{}
	var buf sfnt.Buffer
	for _, c := range Alphabet {
		gid, err := sf.GlyphIndex(&buf, c)
		if err != nil || gid == 0 {
			return nil, fmt.Errorf("no glyph for %q", c)
		}
		o, err := tab.glyphOutline(int(gid))
		if err != nil {
			return nil, err
		}
		if len(o.segs) == 0 {
			return nil, fmt.Errorf("empty glyph for %q", c)
		}
		f.glyphs[c] = &o
	}
	// The cap height from the outline of H: the OS/2 value is not always set.
	f.capHeight = f.glyphs['H'].maxY
	return f, nil
}

// Draw draws c with its cap height capPx pixels, centred in the cell of
// width pitch starting at x, on the baseline y.
func (f *Font) Draw(dst *image.RGBA, c byte, x, baseline, pitch, capPx float64, ink color.Color) {
	o := f.glyphs[c&127]
	if o == nil {
		return
	}
	s := capPx / f.capHeight
	// Centre the ink, not the advance: the cell is the MRZ's fixed pitch.
	ox := x + pitch/2 - (o.minX+o.maxX)/2*s
	m := Affine{s, 0, ox, 0, -s, baseline}
	x0, y0 := int(math.Floor(ox+o.minX*s))-1, int(math.Floor(baseline-o.maxY*s))-1
	x1, y1 := int(math.Floor(ox+o.maxX*s))+2, int(math.Floor(baseline-o.minY*s))+2
	if x1 <= x0 || y1 <= y0 {
		return
	}
	z := vector.NewRasterizer(x1-x0, y1-y0)
	m[2], m[5] = m[2]-float64(x0), m[5]-float64(y0)
	f.Outline(z, c, m)
	FillRaster(dst, z, x0, y0, ink)
}

// Affine maps font units (y up) to pixels: x' = a·x + b·y + c,
// y' = d·x + e·y + f.
type Affine [6]float64

func (m Affine) apply(p [2]float64) (float32, float32) {
	return float32(m[0]*p[0] + m[1]*p[1] + m[2]), float32(m[3]*p[0] + m[4]*p[1] + m[5])
}

// Outline adds c's outline, mapped by m, to z (nothing for a character
// outside Alphabet).
func (f *Font) Outline(z *vector.Rasterizer, c byte, m Affine) {
	o := f.glyphs[c&127]
	if o == nil {
		return
	}
	for _, sg := range o.segs {
		switch sg.kind {
		case segMove:
			z.MoveTo(m.apply(sg.p[0]))
		case segLine:
			z.LineTo(m.apply(sg.p[0]))
		case segCube:
			ax, ay := m.apply(sg.p[0])
			bx, by := m.apply(sg.p[1])
			cx, cy := m.apply(sg.p[2])
			z.CubeTo(ax, ay, bx, by, cx, cy)
		case segClose:
			z.ClosePath()
		}
	}
}

// Polygons is c's outline mapped by m, its curves flattened into straight
// pieces of about step pixels: closed rings for a rasterizer of one's own
// (nil for a character outside Alphabet).
func (f *Font) Polygons(c byte, m Affine, step float64) [][][2]float64 {
	o := f.glyphs[c&127]
	if o == nil {
		return nil
	}
	at := func(p [2]float64) [2]float64 {
		x, y := m.apply(p)
		return [2]float64{float64(x), float64(y)}
	}
	var rings [][][2]float64
	var ring [][2]float64
	for _, sg := range o.segs {
		switch sg.kind {
		case segMove:
			if len(ring) > 2 {
				rings = append(rings, ring)
			}
			ring = [][2]float64{at(sg.p[0])}
		case segLine:
			ring = append(ring, at(sg.p[0]))
		case segCube:
			p0, p1, p2, p3 := ring[len(ring)-1], at(sg.p[0]), at(sg.p[1]), at(sg.p[2])
			n := int(math.Ceil((math.Hypot(p1[0]-p0[0], p1[1]-p0[1]) + math.Hypot(p2[0]-p1[0], p2[1]-p1[1]) + math.Hypot(p3[0]-p2[0], p3[1]-p2[1])) / step))
			n = min(max(n, 2), 256)
			for k := 1; k <= n; k++ {
				t := float64(k) / float64(n)
				u := 1 - t
				a, b, c, d := u*u*u, 3*u*u*t, 3*u*t*t, t*t*t
				ring = append(ring, [2]float64{a*p0[0] + b*p1[0] + c*p2[0] + d*p3[0], a*p0[1] + b*p1[1] + c*p2[1] + d*p3[1]})
			}
		case segClose:
			if len(ring) > 2 {
				rings = append(rings, ring)
			}
			ring = nil
		}
	}
	if len(ring) > 2 {
		rings = append(rings, ring)
	}
	return rings
}

// Ink is c's ink box in font units (y up), and the font's cap height:
// what placing a glyph needs.
func (f *Font) Ink(c byte) (minX, minY, maxX, maxY, capHeight float64) {
	o := f.glyphs[c&127]
	if o == nil {
		return 0, 0, 0, 0, f.capHeight
	}
	return o.minX, o.minY, o.maxX, o.maxY, f.capHeight
}

// FillRaster paints z's coverage at (x0, y0) in ink, clipped to dst (the
// rasterizer's own Draw does not clip).
func FillRaster(dst *image.RGBA, z *vector.Rasterizer, x0, y0 int, ink color.Color) {
	size := z.Size()
	mask := image.NewAlpha(image.Rect(0, 0, size.X, size.Y))
	z.Draw(mask, mask.Bounds(), image.Opaque, image.Point{})
	r := image.Rect(x0, y0, x0+size.X, y0+size.Y)
	draw.DrawMask(dst, r, image.NewUniform(ink), image.Point{}, mask, image.Point{}, draw.Over)
}
