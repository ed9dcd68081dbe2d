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
	"slices"
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
	// Glare is the share of the band's character columns a reflection
	// washed out.
	Glare  float64 `json:"glare"`
	native float64 // Sharpness at the photo's own size
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

// minPhotoSide is the least long side, pixels, of a photo whose
// passport page, filling it, prints its code minPhotoChar tall (the page
// 125 mm wide, its characters 2.3 mm): in a smaller photo where no code
// is found, the photo is too small, whatever it shows (a thumbnail).
const minPhotoSide = minPhotoChar * 1250 / 23

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
		// A reflection, or blur, may be what hides the band.
		res.Quality.native = sharpness(det)
		switch {
		case max(q.Width, q.Height) < minPhotoSide:
			res.Reason = TooSmall
		case reflection(det) >= photoGlare:
			res.Reason = Glare
		case res.Quality.Brightness >= 45 && spread(det) >= 12 && res.Quality.native < blurredPhoto:
			res.Reason = Blurred
		default:
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
	res.Quality.native = b.native
	if b.small {
		res.Reason = TooSmall
		return res, nil
	}
	out, err := r.readBand(ctx, ph, b, sets, res)
	if err != nil || out.Outcome == Read || b.n != 2 || b.c.lengthPerHeight() > maxTD2Length {
		return out, err
	}
	// Two lines of 36 (TD2: ID cards, older residence permits) are found
	// as a band like a passport's two of 44, the same print at the same
	// pitch, only shorter: read as 44 they fail; read them as 36.
	if b36 := straightenAs(ph, b.c, scale, sets, 36); b36.ok && !b36.small {
		if res36, err := r.readBand(ctx, ph, b36, sets, res); err != nil || res36.Outcome == Read {
			return res36, err
		}
	}
	return out, nil
}

// maxTD2Length is the most a band's longest line measures, in its
// characters' heights, for its lines to be tried as a TD2's 36: 44
// characters measure 39–44 on real passports, 36 on an ICAO TD2 specimen
// (docs/BENCHMARKS.md).
const maxTD2Length = 40.5

// readBand reads the straightened band b: the matcher cell by cell,
// Tesseract in several renderings, and a passport's printed page beside
// them; res is what was measured so far.
func (r Reader) readBand(ctx context.Context, ph shot, b band, sets []*glyphSet, res Result) (Result, error) {
	g := ph.g
	straight, quad, chars, n, upsideDown := b.straight, b.quad, b.chars, b.n, b.upsideDown
	k := inkK
	cells, ok := r.cellsOf(ph, b, sets, k)
	if !ok {
		k = faintK
		cells, ok = r.cellsOf(ph, b, sets, k)
	}
	if !ok {
		res.Reason = retakeReason(res.Quality, Unreadable)
		return res, nil
	}
	// A passport's printed page is read beside its MRZ, on the other core.
	zctx, stopZone := context.WithCancel(ctx)
	defer stopZone()
	zone := make(chan []ocrLine, 1)
	if n == 2 && chars == 44 {
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
	if !ok && k != faintK {
		// Faint or broken print, a laminate's, breaks into specks at the
		// usual threshold, and the matcher's cells slip: the matcher reads
		// again on the ink a lower threshold finds, beside the same
		// renderings.
		if faint, fok := r.cellsOf(ph, b, sets, faintK); fok {
			doc, agreed, open, ok = choose(faint, tess)
		}
	}
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

// inkK and faintK are the ink thresholds (Sauvola's k, dark) the matcher
// finds a band's glyphs with: the usual, and the lower one for print too
// faint or broken for it (docs/BENCHMARKS.md).
const (
	inkK   = 0.25
	faintK = 0.05
)

// cellsOf reads band b's cells with the matcher on the ink threshold k,
// their heights measured again on the photo; ok is false when the band's
// rows are not found.
func (r Reader) cellsOf(ph shot, b band, sets []*glyphSet, k float64) ([]cellRead, bool) {
	if !b.ok && k == inkK {
		return nil, false // the quick match found no rows at it
	}
	cells, ok := matchLines(b.straight, sets, b.chars, b.n, false, k)
	if !ok {
		return nil, false
	}
	refineHeights(cells, ph, b.quad, b.upsideDown, b.sharpness, k)
	if r.Heights != nil && k == inkK {
		r.Heights(shares(cells))
	}
	return cells, true
}

// band is a candidate zone straightened and matched quickly, upright and
// upside down.
type band struct {
	quad                    [4]pt // in the image read
	chars, n                int
	lineH, sharpness, glare float64
	native                  float64 // sharpness at the photo's own size
	small                   bool    // too small to read
	straight                *image.Gray
	upsideDown, ok          bool    // ok: the matcher found its rows
	score                   float64 // the quick match's mean score
	c                       candidate
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
	return straightenAs(ph, c, scale, sets, rowChars(len(c.rows)))
}

// straightenAs is straighten for lines of chars characters.
func straightenAs(ph shot, c candidate, scale float64, sets []*glyphSet, chars int) band {
	b := band{n: len(c.rows), chars: chars, c: c}
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
	b.native = b.sharpness
	// Drawn larger than it was taken, sharp small print looks soft: its
	// sharpness is measured at the size the photo has it too.
	if p := int(math.Hypot(quad[1].x-quad[0].x, quad[1].y-quad[0].y)/float64(b.chars+2) + 0.5); p < pitch {
		b.native = sharpness(rectifyAt(src, quad, b.chars, b.n, max(p, 4)))
	}
	if b.small {
		return b
	}
	turned := rotate(b.straight, 180)
	up, ok := matchLines(b.straight, sets, b.chars, b.n, true, inkK)
	down, dok := matchLines(turned, sets, b.chars, b.n, true, inkK)
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

// photoGlare is the share of a whole photo in blown-out patches from which
// a band not found is put down to a reflection; blurredPhoto the sharpness
// of a whole photo (with some contrast: not a blank page) under which it
// is put down to blur (docs/BENCHMARKS.md).
const (
	photoGlare   = 0.004
	blurredPhoto = 0.04
)

// retakeReason says why a photo could not be read, from what was measured;
// otherwise fallback.
func retakeReason(q Quality, fallback Reason) Reason {
	switch {
	case q.Brightness < 45:
		return TooDark
	case q.BandFound && q.Glare > 0.06:
		return Glare
	case q.BandFound && q.native < blurredBand:
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

// spread is the standard deviation of g's grey levels.
func spread(g *image.Gray) float64 {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	var sum, sq float64
	for y := range h {
		for _, v := range g.Pix[y*g.Stride : y*g.Stride+w] {
			sum += float64(v)
			sq += float64(v) * float64(v)
		}
	}
	n := float64(w * h)
	m := sum / n
	return math.Sqrt(max(0, sq/n-m*m))
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

// glare is the share of the band's character columns a reflection washed
// out: the paper blown out and the print, which is dark in every column of
// an MRZ, lifted to a light grey. A clean white scan's paper is blown out
// too, but its print stays dark: no glare.
func glare(band *image.Gray) float64 {
	w, h := band.Rect.Dx(), band.Rect.Dy()
	cols := w/pitch - 2 // the band's characters, inside a pitch of margin either side
	if cols <= 0 || h == 0 {
		return 0
	}
	washed := 0
	for c := range cols {
		blown := 0
		levels := make([]int, 0, pitch*h)
		for y := range h {
			for _, v := range band.Pix[y*band.Stride+(c+1)*pitch : y*band.Stride+(c+2)*pitch] {
				if v >= 250 {
					blown++
				}
				levels = append(levels, int(v))
			}
		}
		slices.Sort(levels)
		if ink := levels[len(levels)/50]; float64(blown) >= 0.3*float64(len(levels)) && ink >= washedInk {
			washed++
		}
	}
	return float64(washed) / float64(cols)
}

// washedInk is the grey level the darkest print of a column stays above
// under a reflection (print is near black, 0–100, in a photo or a scan).
const washedInk = 150

// reflection is the share of a photo's pixels inside a blown-out patch
// (blown out, and so is every pixel two away): a lamp's reflection is a
// patch brighter than the paper around it. Scattered bright pixels (noise)
// are no patch, and a photo whose middle level is near white (a scan, a
// blank page) has no paper darker than a reflection.
func reflection(g *image.Gray) float64 {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	if w < 5 || h < 5 {
		return 0
	}
	var hist [256]int
	for y := range h {
		for _, v := range g.Pix[y*g.Stride : y*g.Stride+w] {
			hist[v]++
		}
	}
	half, med := w*h/2, 0
	for n := 0; n+hist[med] <= half; med++ {
		n += hist[med]
	}
	if med >= 230 {
		return 0
	}
	at := func(x, y int) bool { return g.Pix[y*g.Stride+x] >= 250 }
	n := 0
	for y := 2; y < h-2; y++ {
		for x := 2; x < w-2; x++ {
			if at(x, y) && at(x-2, y) && at(x+2, y) && at(x, y-2) && at(x, y+2) {
				n++
			}
		}
	}
	return float64(n) / float64(w*h)
}
