// Package mrzread reads the machine-readable zone of an identity document
// from a photo: it finds the MRZ band (turned any way, in perspective, on
// any background, under uneven light), straightens it, and reads it twice
// — Tesseract in the MRZ's alphabet, and a matcher of the OCR-B typeface
// cell by cell (vote.go) — keeping the one reading that passes every
// check engines/mrz makes. A photo it cannot read with confidence is a
// retake, with the reason a person can act on — never a guess: a wrong
// read whose check digits happen to hold would let a made-up document
// through.
package mrzread

import (
	"context"
	"image"
	"math"
	"strings"

	"github.com/kycflow/kycflow/engines/docimage"
	"github.com/kycflow/kycflow/engines/mrz"
)

// Outcome is what became of a photo.
type Outcome string

// The outcomes.
const (
	Read   Outcome = "read"   // the MRZ was read, every check digit holds
	Retake Outcome = "retake" // a new photo is needed (Reason says why)
)

// Reason is why a photo is to be taken again, in words a person can act on
// (docs/IDSCAN.md).
type Reason string

// The reasons.
const (
	NotFound   Reason = "mrz_not_found" // no MRZ band in the photo (the wrong side, or out of the frame)
	TooSmall   Reason = "too_small"     // the document is too far away
	TooDark    Reason = "too_dark"
	Blurred    Reason = "blurred"
	Glare      Reason = "glare"      // a reflection on the MRZ
	Unreadable Reason = "unreadable" // found, but not read with confidence
)

// Result is a read's outcome.
type Result struct {
	Outcome Outcome
	Reason  Reason // Retake only
	// MRZ is what was read (lines joined by "\n", OCR corrections applied);
	// Document its parse. Empty for a retake.
	MRZ      string
	Document *mrz.Document
	// Agreement is the share of characters Tesseract and the typeface
	// matcher read alike (0–1); Open how many they did not, left for the
	// check digits or the fields' rules to decide.
	Agreement float64
	Open      int
	Quality   Quality
	// Zone is how a passport's printed page agrees with its MRZ; nil when
	// the page was not read (a card's MRZ side, which prints no name).
	Zone *VisualZone
}

// Quality is what the reader measured of the photo.
type Quality struct {
	Width      int     `json:"width"` // the image read, upright
	Height     int     `json:"height"`
	Brightness float64 `json:"brightness"` // mean grey level, 0–255
	BandFound  bool    `json:"band_found"`
	// CharHeight is the MRZ's character height in the image, in pixels.
	CharHeight float64 `json:"char_height"`
	// Sharpness is the band's edge strength against its contrast (0–1):
	// low when blurred.
	Sharpness float64 `json:"sharpness"`
	// Glare is the share of the band's pixels that are blown out.
	Glare float64 `json:"glare"`
}

// Reader reads MRZs. Its zero value works with tesseract on PATH and
// Debian's OCR-B font (engines/ocrb).
type Reader struct {
	Tesseract Tesseract
	// Heights, when set, is given each band's glyph heights, line by line
	// and cell by cell, as a share of the way from its line's capitals (0)
	// to its digits (1), NaN where not measured: the separation study of
	// `kycflow idscan eval --heights`.
	Heights func([][]float64)
}

// Photo reads the MRZ from an image file's bytes (as docimage.Inspect
// accepted them).
func (r Reader) Photo(ctx context.Context, b []byte, info docimage.Info) (Result, error) {
	full, err := docimage.DecodeGray(b, info)
	if err != nil {
		return Result{}, err
	}
	g, f := docimage.ShrinkTo(full, workSide)
	return r.read(ctx, shot{g, full, f})
}

// shot is the image read, and the photo it was shrunk from by an integer
// factor (1: g is the photo).
type shot struct {
	g, full *image.Gray
	shrunk  int
}

// inPhoto is q, in the image read, in the photo's pixels.
func (ph shot) inPhoto(q [4]pt) [4]pt {
	for i, p := range q {
		q[i] = pt{p.x * float64(ph.shrunk), p.y * float64(ph.shrunk)}
	}
	return q
}

// The sizes the reader works at: the image read (longer side), and the
// least the image the band is looked for in is shrunk to.
const (
	workSide   = 2400
	detectSide = 1200
)

// The least character heights read: in the photo's pixels, below which a
// careful person could not be sure of every character either (and a
// closer photo is easily taken), and in the image read.
const (
	minPhotoChar = 6
	minWorkChar  = 5
)

// Read reads the MRZ from g, upright as the camera recorded it (any
// rotation of the document within it).
func (r Reader) Read(ctx context.Context, g *image.Gray) (Result, error) {
	return r.read(ctx, shot{g, g, 1})
}

func (r Reader) read(ctx context.Context, ph shot) (Result, error) {
	g := ph.g
	q := Quality{Width: g.Rect.Dx(), Height: g.Rect.Dy(), Brightness: mean(g)}
	res := Result{Outcome: Retake, Quality: q}
	det := g
	if long := max(q.Width, q.Height); long >= 2*detectSide {
		det = docimage.Shrink(g, long/detectSide) // at least detectSide: small print stays whole
	}
	scale := float64(q.Width) / float64(det.Rect.Dx())
	found := find(det)
	if len(found) == 0 {
		// A reflection may be what hides the band.
		if glare(det) >= photoGlare {
			res.Reason = Glare
		} else {
			res.Reason = retakeReason(res.Quality, NotFound)
		}
		return res, nil
	}
	res.Quality.BandFound = true
	sets, err := glyphs()
	if err != nil {
		return Result{}, err
	}
	// The best-shaped candidate, unless the typeface says it is no MRZ's
	// print and another's is.
	b := straighten(ph, found[0], scale, sets)
	for _, c := range found[1:] {
		if b.ok && b.score >= typeface {
			break
		}
		if cb := straighten(ph, c, scale, sets); cb.ok && cb.score >= typeface {
			b = cb
		}
	}
	res.Quality.CharHeight, res.Quality.Sharpness, res.Quality.Glare = b.lineH, b.sharpness, b.glare
	if b.small {
		res.Reason = TooSmall
		return res, nil
	}
	straight, quad, chars, n, upsideDown, ok := b.straight, b.quad, b.chars, b.n, b.upsideDown, b.ok
	var cells []cellRead
	if ok {
		cells, ok = matchLines(straight, sets, chars, n, false)
	}
	if ok {
		refineHeights(cells, ph, quad, upsideDown, b.sharpness)
		if r.Heights != nil {
			r.Heights(shares(cells))
		}
	}
	if !ok {
		res.Reason = retakeReason(res.Quality, Unreadable)
		return res, nil
	}
	// A passport's printed page is read beside its MRZ, on the other core.
	zctx, stopZone := context.WithCancel(ctx)
	defer stopZone()
	zone := make(chan []ocrLine, 1)
	if n == 2 {
		go func() {
			lines, err := r.readZone(zctx, g, quad, straight.Rect.Dx(), straight.Rect.Dy(), upsideDown)
			if err != nil {
				lines = nil // the page unread: the MRZ's read stands alone
			}
			zone <- lines
		}()
	} else {
		zone <- nil
	}
	tess, err := r.variants(ctx, straight, chars, n)
	if err != nil {
		stopZone()
		<-zone
		return Result{}, err
	}
	doc, agreed, open, ok := choose(cells, tess)
	res.Agreement, res.Open = agreed, open
	if !ok {
		stopZone()
		<-zone
		res.Reason = retakeReason(res.Quality, Unreadable)
		return res, nil
	}
	if lines := <-zone; lines != nil {
		z := compareZone(lines, doc)
		res.Zone = &z
	}
	res.Outcome, res.Reason, res.MRZ, res.Document = Read, "", strings.Join(doc.Lines, "\n"), doc
	return res, nil
}

// band is a candidate zone straightened and matched quickly, upright and
// upside down.
type band struct {
	quad                    [4]pt // in the image read
	chars, n                int
	lineH, sharpness, glare float64
	small                   bool // too small to read
	straight                *image.Gray
	upsideDown, ok          bool    // ok: the matcher found its rows
	score                   float64 // the quick match's mean score
}

// fineChar is the cap height in the image read, pixels, below which a
// shrunk photo's band is straightened from the photo (the band draws it
// at about 32).
const fineChar = 20

// typeface is the quick match's mean score from which a candidate is
// taken for an MRZ without looking at the others, between what MRZs and
// a tablecloth's checks score (docs/BENCHMARKS.md).
const typeface = 0.17

// straighten straightens candidate c of det (scale times smaller than
// the image read) and matches it quickly.
func straighten(ph shot, c candidate, scale float64, sets []*glyphSet) band {
	b := band{n: len(c.rows), chars: rowChars(len(c.rows))}
	for i, p := range c.corners {
		b.quad[i] = pt{p.x * scale, p.y * scale}
	}
	b.lineH = c.capHeight(b.chars) * scale
	b.small = b.lineH < minWorkChar || b.lineH*float64(ph.shrunk) < minPhotoChar
	// Small print is straightened from the photo itself: the image read
	// has averaged away detail the band, drawn larger, would show.
	src, quad := ph.g, b.quad
	if ph.shrunk > 1 && b.lineH < fineChar {
		src, quad = ph.full, ph.inPhoto(quad)
	}
	b.straight = rectify(src, quad, b.chars, b.n)
	b.sharpness, b.glare = sharpness(b.straight), glare(b.straight)
	if b.small {
		return b
	}
	turned := rotate(b.straight, 180)
	up, ok := matchLines(b.straight, sets, b.chars, b.n, true)
	down, dok := matchLines(turned, sets, b.chars, b.n, true)
	b.ok, b.score = ok, meanScore(up)
	if dok && (!ok || meanScore(down) > meanScore(up)) {
		b.straight, b.ok, b.upsideDown, b.score = turned, true, true, meanScore(down)
	}
	return b
}

// meanScore is the matcher's mean correlation over a band's characters.
func meanScore(ls []cellRead) float64 {
	var s float64
	n := 0
	for _, l := range ls {
		for _, v := range l.score {
			s += v
			n++
		}
	}
	return s / float64(max(1, n))
}

// photoGlare is the share of blown-out pixels in a whole photo from which
// a band not found is put down to a reflection.
const photoGlare = 0.01

// retakeReason says why a photo could not be read, from what was measured;
// otherwise fallback.
func retakeReason(q Quality, fallback Reason) Reason {
	switch {
	case q.Brightness < 45:
		return TooDark
	case q.BandFound && q.Glare > 0.06:
		return Glare
	case q.BandFound && q.Sharpness < blurredBand:
		return Blurred
	}
	return fallback
}

func mean(g *image.Gray) float64 {
	var s float64
	w, h := g.Rect.Dx(), g.Rect.Dy()
	for y := range h {
		for _, v := range g.Pix[y*g.Stride : y*g.Stride+w] {
			s += float64(v)
		}
	}
	return s / float64(w*h)
}

// sharpness is the mean absolute Laplacian of band over its grey-level
// spread: sharp print has strong second derivatives at its edges.
func sharpness(band *image.Gray) float64 {
	w, h := band.Rect.Dx(), band.Rect.Dy()
	var lap, sum, sq float64
	n := 0
	for y := 1; y < h-1; y++ {
		for x := 1; x < w-1; x++ {
			at := func(dx, dy int) float64 { return float64(band.Pix[(y+dy)*band.Stride+x+dx]) }
			v := at(0, 0)
			lap += math.Abs(4*v - at(1, 0) - at(-1, 0) - at(0, 1) - at(0, -1))
			sum += v
			sq += v * v
			n++
		}
	}
	if n == 0 {
		return 0
	}
	m := sum / float64(n)
	sd := math.Sqrt(max(1, sq/float64(n)-m*m))
	return lap / float64(n) / sd
}

// glare is the share of band's pixels that are blown out.
func glare(band *image.Gray) float64 {
	n := 0
	for _, v := range band.Pix {
		if v >= 250 {
			n++
		}
	}
	return float64(n) / float64(len(band.Pix))
}
