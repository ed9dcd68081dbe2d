package mrzread

import (
	"image"
	"math"
	"strings"
	"testing"

	"github.com/kycflow/kycflow/engines/docgen"
	"github.com/kycflow/kycflow/engines/docimage"
	"github.com/kycflow/kycflow/engines/mrz"
)

// straightBand is the band of a generated photo of a passport,
// straightened as the reader straightens it, the photo, and the
// passport's lines.
func straightBand(t *testing.T, seed uint64) (band, shot, []string, []*glyphSet) {
	t.Helper()
	b, id := photo(t, seed, mrz.TD3, docgen.Camera{Megapixels: 4, Scale: 0.8, Light: 1, JPEGQuality: 92})
	full := decoded(t, b)
	g, f := docimage.ShrinkTo(full, workSide)
	sets, err := glyphs()
	if err != nil {
		t.Fatal(err)
	}
	found := find(g)
	if len(found) == 0 {
		t.Fatal("no band found")
	}
	ph := shot{g, full, f}
	bd := straighten(ph, found[0], 1, sets)
	if !bd.ok {
		t.Fatal("band not matched")
	}
	return bd, ph, strings.Split(id.MRZ, "\n"), sets
}

// matched is what the matcher reads on g, line by line.
func matched(t *testing.T, g *image.Gray, bd band, sets []*glyphSet) []cellRead {
	t.Helper()
	cells, ok := matchLines(g, sets, bd.chars, bd.n, false, inkK)
	if !ok {
		t.Fatal("rows not found")
	}
	return cells
}

func texts(cells []cellRead) []string {
	var out []string
	for _, c := range cells {
		out = append(out, c.text)
	}
	return out
}

// sameHeights reports the cells whose ink height differs from the
// reference's by more than a pixel: the heights tell 0 from O and fillers
// from capitals, so a frame or a bend must not change them.
func sameHeights(t *testing.T, what string, got, want []cellRead) {
	t.Helper()
	for i := range want {
		for k, h := range want[i].height {
			if math.Abs(got[i].height[k]-h) > 1 {
				t.Errorf("%s: line %d cell %d is %.0f px tall, want %.0f", what, i+1, k, got[i].height[k], h)
			}
		}
	}
}

// readsAs compares a reading with the lines, O and 0 taken as one: the
// matcher alone does not tell them apart (choose does, by their heights).
func readsAs(t *testing.T, what string, got, want []string) {
	t.Helper()
	fold := strings.NewReplacer("0", "O").Replace
	if fold(strings.Join(got, "\n")) != fold(strings.Join(want, "\n")) {
		t.Errorf("%s: read\n%s\nwant\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A scanning app's box drawn around the zone: its top edge slanting down
// to a pixel above the first line's capitals, its side just before the
// lines' first glyphs, solid or broken into dashes as a photo's threshold
// breaks a thin coloured line. The edge is not taken for the capitals'
// tops, nor the side for a glyph: every cell reads and measures as on the
// unframed band.
func TestFramedZone(t *testing.T) {
	bd, _, lines, sets := straightBand(t, 5)
	plain := matched(t, bd.straight, bd, sets)
	readsAs(t, "unframed", texts(plain), lines)
	ink := dark(bd.straight, pitch, inkK)
	w, h := bd.straight.Rect.Dx(), bd.straight.Rect.Dy()
	rs, ok := rows(ink, w, h, bd.n)
	if !ok {
		t.Fatal("rows not found")
	}
	frame := func(top, dashed bool) *image.Gray {
		g := image.NewGray(bd.straight.Rect)
		copy(g.Pix, bd.straight.Pix)
		on := func(i int) bool { return !dashed || i%9 < 6 }
		if top {
			for x := range w {
				y0 := rs[0][0] - 15 + 12*x/w // its bottom from 13 rows above to 1
				for y := max(0, y0); y < y0+3; y++ {
					g.Pix[y*g.Stride+x] = 40
				}
			}
		}
		side := pitch * 9 / 10 // the first glyph's ink starts a pitch in
		for y := range h {
			for x := side; x < side+4; x++ {
				if on(y) {
					g.Pix[y*g.Stride+x] = 40
				}
			}
		}
		return g
	}
	for _, c := range []struct {
		what        string
		top, dashed bool
	}{
		{"top edge and solid side", true, false},
		{"dashed side", false, true},
	} {
		framed := matched(t, frame(c.top, c.dashed), bd, sets)
		readsAs(t, c.what, texts(framed), lines)
		sameHeights(t, c.what, framed, plain)
	}
}

// A page bowed as a passport's bends towards its spine: the lines stand
// on a curve, their ends six pixels below their middles, and the cells
// follow it.
func TestBentPage(t *testing.T) {
	bd, _, lines, sets := straightBand(t, 5)
	w, h := bd.straight.Rect.Dx(), bd.straight.Rect.Dy()
	bent := image.NewGray(bd.straight.Rect)
	c := 6 / math.Pow(float64(w)/2, 2)
	for y := range h {
		for x := range w {
			dx := float64(x) - float64(w)/2
			bent.Pix[y*bent.Stride+x] = sample(bd.straight, pt{float64(x) + 0.5, float64(y) + 0.5 - c*dx*dx})
		}
	}
	readsAs(t, "bent page", texts(matched(t, bent, bd, sets)), lines)
}
