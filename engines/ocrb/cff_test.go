package ocrb

import (
	"encoding/binary"
	"image"
	"os"
	"testing"

	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// requireFont fails a test on a machine without OCR-B (make installs
// it); the message names the Debian package to install.
func requireFont(t testing.TB) *Font {
	t.Helper()
	f, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// rasterize draws segs (font units, y up) into a size×size mask.
func rasterize(segs []seg, scale float64, size int) *image.Alpha {
	z := vector.NewRasterizer(size, size)
	base := float64(size) * 0.85
	pt := func(p [2]float64) (float32, float32) { return float32(p[0]*scale + 4), float32(base - p[1]*scale) }
	for _, s := range segs {
		switch s.kind {
		case segMove:
			z.MoveTo(pt(s.p[0]))
		case segLine:
			z.LineTo(pt(s.p[0]))
		case segCube:
			ax, ay := pt(s.p[0])
			bx, by := pt(s.p[1])
			cx, cy := pt(s.p[2])
			z.CubeTo(ax, ay, bx, by, cx, cy)
		case segClose:
			z.ClosePath()
		}
	}
	m := image.NewAlpha(image.Rect(0, 0, size, size))
	z.Draw(m, m.Bounds(), image.Opaque, image.Point{})
	return m
}

// Our charstring reader draws every glyph sfnt can read exactly as sfnt
// does, so the glyphs sfnt cannot read (flex operators) come from code that
// is right where it can be compared.
func TestOutlinesMatchSfnt(t *testing.T) {
	requireFont(t)
	data, err := os.ReadFile(Path())
	if err != nil {
		t.Fatal(err)
	}
	sf, err := sfnt.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	cffData, err := otfTable(data, "CFF ")
	if err != nil {
		t.Fatal(err)
	}
	tab, err := parseCFF(cffData)
	if err != nil {
		t.Fatal(err)
	}
	const size = 96
	scale := 64.0 / float64(sf.UnitsPerEm())
	var buf sfnt.Buffer
	compared, sfntFails := 0, ""
	for c := rune(33); c < 127; c++ {
		gid, err := sf.GlyphIndex(&buf, c)
		if err != nil || gid == 0 {
			continue
		}
		ours, err := tab.glyphOutline(int(gid))
		if err != nil {
			t.Fatalf("%q: %v", c, err)
		}
		theirs, err := sf.LoadGlyph(&buf, gid, fixed.I(int(sf.UnitsPerEm())), nil)
		if err != nil {
			sfntFails += string(c)
			continue
		}
		// sfnt's segments are in 26.6 units, y down, implicitly closed.
		var segs []seg
		p := func(q fixed.Point26_6) [2]float64 { return [2]float64{float64(q.X) / 64, -float64(q.Y) / 64} }
		for _, s := range theirs {
			switch s.Op {
			case sfnt.SegmentOpMoveTo:
				if len(segs) > 0 {
					segs = append(segs, seg{kind: segClose})
				}
				segs = append(segs, seg{kind: segMove, p: [3][2]float64{p(s.Args[0])}})
			case sfnt.SegmentOpLineTo:
				segs = append(segs, seg{kind: segLine, p: [3][2]float64{p(s.Args[0])}})
			case sfnt.SegmentOpCubeTo:
				segs = append(segs, seg{kind: segCube, p: [3][2]float64{p(s.Args[0]), p(s.Args[1]), p(s.Args[2])}})
			default:
				t.Fatalf("%q: unexpected op %v", c, s.Op)
			}
		}
		segs = append(segs, seg{kind: segClose})
		a, b := rasterize(ours.segs, scale, size), rasterize(segs, scale, size)
		for i := range a.Pix {
			if d := int(a.Pix[i]) - int(b.Pix[i]); d > 2 || d < -2 {
				t.Fatalf("%q differs from sfnt's at pixel %d: %d vs %d", c, i, a.Pix[i], b.Pix[i])
			}
		}
		compared++
	}
	if compared < 80 {
		t.Fatalf("compared only %d glyphs", compared)
	}
	t.Logf("%d glyphs match sfnt; sfnt cannot read %q", compared, sfntFails)
}

// holes counts the enclosed background regions of a glyph mask.
func holes(m *image.Alpha) int {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	seen := make([]bool, w*h)
	fill := func(x0, y0 int) {
		stack := []int{y0*w + x0}
		seen[y0*w+x0] = true
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			x, y := i%w, i/w
			for _, d := range [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
				nx, ny := x+d[0], y+d[1]
				if nx < 0 || ny < 0 || nx >= w || ny >= h {
					continue
				}
				if j := ny*w + nx; !seen[j] && m.Pix[j] < 128 {
					seen[j] = true
					stack = append(stack, j)
				}
			}
		}
	}
	fill(0, 0) // the outside: the mask has a margin
	n := 0
	for i := range seen {
		if !seen[i] && m.Pix[i] < 128 {
			n++
			fill(i%w, i/w)
		}
	}
	return n
}

// The MRZ's characters, the flex-drawn '8' and '<' among them, have the
// shapes they should: the right number of holes, and '<' is a chevron well
// inside the cap height.
func TestMRZGlyphShapes(t *testing.T) {
	f := requireFont(t)
	want := map[byte]int{'<': 0, '8': 2, 'B': 2, '0': 1, 'O': 1, 'A': 1, 'H': 0, 'X': 0, '1': 0, '6': 1, '9': 1, 'D': 1, 'P': 1}
	scale := 64 / f.capHeight
	for _, c := range []byte(Alphabet) {
		o := f.glyphs[c]
		if o == nil || len(o.segs) == 0 {
			t.Fatalf("no outline for %q", c)
		}
		if n, ok := want[c]; ok {
			if got := holes(rasterize(o.segs, scale, 96)); got != n {
				t.Errorf("%q has %d holes, want %d", c, got, n)
			}
		}
	}
	// '<' points left: its leftmost ink is halfway up its height.
	m := rasterize(f.glyphs['<'].segs, scale, 96)
	top, bottom, left, leftY, leftN := 96, -1, 96, 0, 0
	for y := 0; y < 96; y++ {
		for x := 0; x < 96; x++ {
			if m.Pix[y*m.Stride+x] < 128 {
				continue
			}
			top, bottom = min(top, y), max(bottom, y)
			switch {
			case x < left:
				left, leftY, leftN = x, y, 1
			case x == left:
				leftY, leftN = leftY+y, leftN+1
			}
		}
	}
	if mid := float64(leftY) / float64(leftN); bottom-top < 20 || mid < float64(top)+0.4*float64(bottom-top) || mid > float64(top)+0.6*float64(bottom-top) {
		t.Errorf("'<' is not a left-pointing chevron: ink rows %d..%d, leftmost at row %.1f", top, bottom, mid)
	}
}

// Every MRZ glyph starts where the font's horizontal metrics say: a CFF
// font's left side bearing is its glyph's smallest x, so a charstring read
// wrongly (a flex's end point misplaced shifts all that follows) shows.
func TestOutlinesMatchSideBearings(t *testing.T) {
	requireFont(t)
	data, err := os.ReadFile(Path())
	if err != nil {
		t.Fatal(err)
	}
	sf, err := sfnt.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	hhea, err := otfTable(data, "hhea")
	if err != nil {
		t.Fatal(err)
	}
	hmtx, err := otfTable(data, "hmtx")
	if err != nil {
		t.Fatal(err)
	}
	metrics := int(binary.BigEndian.Uint16(hhea[34:]))
	lsb := func(gid int) int {
		if gid < metrics {
			return int(int16(binary.BigEndian.Uint16(hmtx[4*gid+2:])))
		}
		return int(int16(binary.BigEndian.Uint16(hmtx[4*metrics+2*(gid-metrics):])))
	}
	tab, err := parseCFF(mustTable(t, data, "CFF "))
	if err != nil {
		t.Fatal(err)
	}
	var buf sfnt.Buffer
	for _, c := range Alphabet {
		gid, err := sf.GlyphIndex(&buf, c)
		if err != nil {
			t.Fatal(err)
		}
		o, err := tab.glyphOutline(int(gid))
		if err != nil {
			t.Fatal(err)
		}
		// Extremes of well-made glyphs lie on curve points, so the
		// control-point bounds are the glyph's bounds.
		if want := lsb(int(gid)); int(o.minX) != want {
			t.Errorf("%q starts at x %g, its side bearing is %d", c, o.minX, want)
		}
	}
}

func mustTable(t *testing.T, font []byte, tag string) []byte {
	t.Helper()
	b, err := otfTable(font, tag)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
