package mrzread

import (
	"bytes"
	"context"
	"image"
	"image/png"
)

// VisualZone is what a passport's printed page says of the holder beside
// its MRZ: whether the printed surname and given names, and the printed
// date of birth, agree with the MRZ's. A forger who edits the page but
// not the MRZ (or the MRZ but not the page) leaves them apart.
type VisualZone struct {
	Name      Finding // the surname and the first given name
	BirthDate Finding
}

// Differs reports whether a field was found printed otherwise than in
// the MRZ: a tampering signal.
func (z VisualZone) Differs() bool { return z.Name == Differs || z.BirthDate == Differs }

// Read reports whether either field was read, either way.
func (z VisualZone) Read() bool { return z.Name != NotRead || z.BirthDate != NotRead }

// Finding is what became of one field of the visual zone.
type Finding string

// The findings.
const (
	Agrees  Finding = "agrees"   // printed as the MRZ has it
	Differs Finding = "differs"  // the page was read, and prints something else
	NotRead Finding = "not_read" // not read with confidence either way
)

// zonePxPerMM is the resolution the visual zone is read at: a data page's
// values (capitals about 2.2 mm) some 20 pixels tall.
const zonePxPerMM = 9

// The visual zone of a data page, in millimetres from the straightened
// band's top left corner (a pitch left of the MRZ's first character, a
// character's height above its first line): the page's width with a
// little to spare, and the height of a data page's printed fields above
// the MRZ (Doc 9303 part 4: an 88 mm page, the MRZ in its lowest 16).
const (
	zoneSideMM = 4
	zoneUpMM   = 66
)

// zoneImage is a passport data page's visual zone above its MRZ, straight:
// the band's homography extended up the page (the page is flat, so the
// homography holds beyond the band). bw × bh is the straightened band's
// size, quad its corners in g; turned says the band reads upside down in
// quad's order, so the page lies below it there.
func zoneImage(g *image.Gray, quad [4]pt, bw, bh int, turned bool) *image.Gray {
	h := squareTo(quad, float64(bw), float64(bh))
	bandPerMM := float64(pitch) / 2.54
	x0, x1 := -zoneSideMM*bandPerMM, float64(bw)+zoneSideMM*bandPerMM
	y0 := -zoneUpMM * bandPerMM
	k := bandPerMM / zonePxPerMM // band pixels per zone pixel
	w, ht := int((x1-x0)/k), int(-y0/k)
	out := image.NewGray(image.Rect(0, 0, w, ht))
	for y := range ht {
		for x := range w {
			p := pt{x0 + (float64(x)+0.5)*k, y0 + (float64(y)+0.5)*k}
			if turned {
				p = pt{float64(bw) - p.x, float64(bh) - p.y}
			}
			out.Pix[y*out.Stride+x] = sample(g, h.apply(p))
		}
	}
	return out
}

// readZone OCRs the visual zone of a TD3 whose band is at quad in g.
func (r Reader) readZone(ctx context.Context, g *image.Gray, quad [4]pt, bw, bh int, turned bool) ([]ocrLine, error) {
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, zoneImage(g, quad, bw, bh, turned)); err != nil {
		return nil, err
	}
	return r.Tesseract.readText(ctx, buf.Bytes())
}
