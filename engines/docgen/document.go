package docgen

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/kycflow/kycflow/engines/mrz"
	"github.com/kycflow/kycflow/engines/ocrb"
)

// MRZ print metrics (Doc 9303 part 3): OCR-B at 10 characters per inch, a
// cap height within the 2.0–2.4 mm ICAO allows.
const (
	mrzPitchMM = 2.54
	mrzCapMM   = 2.3
)

// layout places a document and its MRZ, in millimetres from the image's top
// left corner.
type layout struct {
	format     mrz.Format
	ppm        float64 // pixels per millimetre
	wMM, hMM   float64 // the whole image: for TD3 the page and the cover around it
	page       [4]float64
	mrzX0      float64   // left edge of the first character cell
	baselines  []float64 // one per MRZ line
	chars      int       // per MRZ line
	mrzBandTop float64
}

// coverMM is the passport cover visible around a TD3 data page.
const coverMM = 2.5

func layoutOf(f mrz.Format, ppm float64) layout {
	switch f {
	case mrz.TD3: // data page 125 × 88 mm
		c := coverMM
		return layout{format: f, ppm: ppm, wMM: 125 + 2*c, hMM: 88 + 2*c, page: [4]float64{c, c, c + 125, c + 88},
			mrzX0: c + (125-44*mrzPitchMM)/2, baselines: []float64{c + 88 - 10.3, c + 88 - 6.0}, chars: 44, mrzBandTop: c + 88 - 16}
	default: // TD1: ID-1, 85.60 × 53.98 mm
		return layout{format: f, ppm: ppm, wMM: 85.6, hMM: 53.98, page: [4]float64{0, 0, 85.6, 53.98},
			mrzX0: (85.6 - 30*mrzPitchMM) / 2, baselines: []float64{53.98 - 12.6, 53.98 - 8.4, 53.98 - 4.2}, chars: 30, mrzBandTop: 53.98 - 17.5}
	}
}

// size is the image size in pixels.
func (l layout) size() (int, int) {
	return int(math.Round(l.wMM * l.ppm)), int(math.Round(l.hMM * l.ppm))
}

// mrzBox is the MRZ's bounding quadrilateral in pixels, clockwise from the
// top left: the character cells with half a cap height of margin.
func (l layout) mrzBox() [4]image.Point {
	m := mrzCapMM / 2
	x0, x1 := l.mrzX0, l.mrzX0+float64(l.chars)*mrzPitchMM
	y0, y1 := l.baselines[0]-mrzCapMM-m, l.baselines[len(l.baselines)-1]+m
	p := func(x, y float64) image.Point {
		return image.Pt(int(math.Round(x*l.ppm)), int(math.Round(y*l.ppm)))
	}
	return [4]image.Point{p(x0, y0), p(x1, y0), p(x1, y1), p(x0, y1)}
}

// charCentre is the centre of character i of MRZ line n, in pixels.
func (l layout) charCentre(n, i int) (float64, float64) {
	return (l.mrzX0 + (float64(i)+0.5)*mrzPitchMM) * l.ppm, (l.baselines[n] - mrzCapMM/2) * l.ppm
}

// Document limits: below 3 px/mm the MRZ's characters are 7 px tall, at
// 60 a TD3 page is 44 MP.
const minPxPerMM, maxPxPerMM = 3, 60

// Document draws the flat document of id at pxPerMM pixels per millimetre:
// for a TD3 passport the data page (visual zone, portrait placeholder, MRZ)
// inside a strip of its cover; for a TD1 card the back side (its MRZ and a
// little other print), with rounded corners. The MRZ printed is id.MRZ,
// the visual zone id.Fields and id's dates. Pixels outside the document
// are transparent. mrzBox is the MRZ's bounding quadrilateral in the
// image's pixels, clockwise from the top left.
func Document(id Identity, pxPerMM float64) (img *image.RGBA, mrzBox [4]image.Point, err error) {
	return DocumentPrinted(id, pxPerMM, Pressed)
}

// Printing is how a document's MRZ is put on its page.
type Printing int

const (
	// Pressed: the font's outline filled by golang.org/x/image/vector, as
	// the reader's templates are, its edges then moved and made ragged
	// (press).
	Pressed Printing = iota
	// Screened: a rasterizer of its own, ink spread or a worn plate, a
	// sheared, ragged glyph, the tone screened into dots (screen): the
	// second printing path, sharing nothing with the templates but the
	// outline.
	Screened
)

// DocumentPrinted is Document with its MRZ printed as how says.
func DocumentPrinted(id Identity, pxPerMM float64, how Printing) (img *image.RGBA, mrzBox [4]image.Point, err error) {
	if id.Format != mrz.TD3 && id.Format != mrz.TD1 {
		return nil, mrzBox, fmt.Errorf("docgen: Document draws TD3 and TD1 documents, not %q", id.Format)
	}
	if pxPerMM < minPxPerMM || pxPerMM > maxPxPerMM || math.IsNaN(pxPerMM) {
		return nil, mrzBox, fmt.Errorf("docgen: %g px/mm is outside [%d, %d]", pxPerMM, minPxPerMM, maxPxPerMM)
	}
	lines := strings.Split(id.MRZ, "\n")
	l := layoutOf(id.Format, pxPerMM)
	ok := len(lines) == len(l.baselines)
	for _, line := range lines {
		ok = ok && len(line) == l.chars
	}
	if !ok {
		return nil, mrzBox, fmt.Errorf("docgen: the MRZ of a %s has %d lines of %d characters", id.Format, len(l.baselines), l.chars)
	}
	font, err := ocrb.Load()
	if err != nil {
		return nil, mrzBox, err
	}
	// The decoration (colours, pattern, authority) follows from the MRZ, so
	// that the same identity always looks the same.
	h := fnv.New64a()
	h.Write([]byte(id.MRZ))
	r := rand.New(rand.NewPCG(h.Sum64(), 0x646f6367656e))
	d := &drawing{l: l, id: id, r: r}
	d.background()
	if id.Format == mrz.TD3 {
		d.dataPage()
	} else {
		d.cardBack()
	}
	ink := color.RGBA{24, 22, 28, 255}
	capPx := mrzCapMM * l.ppm
	// The press has its own stream, so that the decoration stays as it was.
	pr := rand.New(rand.NewPCG(h.Sum64(), 0x7072657373))
	var print func(c byte, x, baseline float64)
	if how == Screened {
		sc := screenFor(pr)
		print = func(c byte, x, baseline float64) {
			sc.print(d.img, font, pr, c, x, baseline, mrzPitchMM*l.ppm, capPx, ink)
		}
	} else {
		p := pressFor(pr)
		print = func(c byte, x, baseline float64) {
			p.print(d.img, font, pr, c, x, baseline, mrzPitchMM*l.ppm, capPx, ink)
		}
	}
	for n, line := range lines {
		for i := 0; i < len(line); i++ {
			print(line[i], (l.mrzX0+float64(i)*mrzPitchMM)*l.ppm, l.baselines[n]*l.ppm)
		}
	}
	return d.img, l.mrzBox(), nil
}

// drawing is a document being drawn.
type drawing struct {
	l   layout
	id  Identity
	r   *rand.Rand
	img *image.RGBA
}

// palettes: paper tone and pattern ink of security paper.
var palettes = [][2]color.RGBA{
	{{238, 230, 242, 255}, {176, 150, 196, 255}}, // lilac
	{{229, 240, 233, 255}, {140, 186, 160, 255}}, // mint
	{{243, 236, 222, 255}, {204, 170, 120, 255}}, // cream
	{{227, 236, 245, 255}, {140, 170, 210, 255}}, // blue
	{{245, 232, 230, 255}, {214, 150, 146, 255}}, // rose
}

// covers of passports: burgundy, dark blue, black, green.
var covers = []color.RGBA{{92, 22, 34, 255}, {24, 36, 74, 255}, {28, 28, 30, 255}, {22, 62, 44, 255}}

// sinLUT holds one period of sine, for the per-pixel pattern.
var sinLUT = func() (t [4096]float32) {
	for i := range t {
		t[i] = float32(math.Sin(2 * math.Pi * float64(i) / 4096))
	}
	return
}()

// lineLUT is the profile of a thin guilloche line over one period of its
// phase: (1+cos)/2 raised to a power, a fine line with soft edges.
var lineLUT = func() (t [4096]float32) {
	for i := range t {
		t[i] = float32(math.Pow((1+math.Cos(2*math.Pi*float64(i)/4096))/2, 24))
	}
	return
}()

// lut reads a table of one period at phase (in periods).
func lut(t *[4096]float32, phase float32) float32 {
	return t[int32(phase*4096)&4095]
}

// background fills the page with paper, a faint guilloche of two families
// of wavy lines (fainter over the MRZ, which ICAO wants on a quiet
// background), the cover strip, and transparent rounded corners.
func (d *drawing) background() {
	l := d.l
	w, h := l.size()
	d.img = image.NewRGBA(image.Rect(0, 0, w, h))
	pal := palettes[d.r.IntN(len(palettes))]
	cover := covers[d.r.IntN(len(covers))]
	ppm := float32(l.ppm)
	// Periods in mm and phases, per document.
	pa, pb := float32(2.6+d.r.Float64()), float32(2.8+d.r.Float64())
	wa, wb := float32(14+8*d.r.Float64()), float32(16+8*d.r.Float64())
	amp := float32(0.7 + 0.5*d.r.Float64())
	// Per-column and per-row parts of the two families' phases, so that a
	// pixel costs four table lookups: A's inner wave depends on x only, B's
	// on y only.
	colA, colPA, colWB, colPB := make([]float32, w), make([]float32, w), make([]float32, w), make([]float32, w)
	for x := range colA {
		fx := float32(x) / ppm
		colA[x], colPA[x], colWB[x], colPB[x] = 0.35*lut(&sinLUT, fx/23), fx/pa, fx/wb, 0.5*fx/pb
	}
	page := [4]float64{l.page[0] * l.ppm, l.page[1] * l.ppm, l.page[2] * l.ppm, l.page[3] * l.ppm}
	outer := [4]float64{0, 0, float64(w), float64(h)}
	outerR, pageR := 3.18*l.ppm, 3.18*l.ppm
	if l.format == mrz.TD3 {
		outerR, pageR = 5*l.ppm, 2*l.ppm
	}
	band := float32(l.mrzBandTop * l.ppm)
	p0 := [3]float32{float32(pal[0].R), float32(pal[0].G), float32(pal[0].B)}
	dp := [3]float32{float32(pal[1].R) - p0[0], float32(pal[1].G) - p0[1], float32(pal[1].B) - p0[2]}
	cov := [3]float32{float32(cover.R), float32(cover.G), float32(cover.B)}
	for y := 0; y < h; y++ {
		fy := float32(y) / ppm
		innerA, rowB, fyPB := fy/wa, 0.35*lut(&sinLUT, fy/19), fy/pb
		strength := float32(0.42)
		if float32(y) > band {
			strength = 0.12
		}
		py := float64(y) + 0.5
		// Rows where coverage is only in doubt at the ends.
		inPage := l.format != mrz.TD3 || (py > page[1]+pageR && py < page[3]-pageR)
		inOuter := py > outerR && py < float64(h)-outerR
		row := d.img.Pix[y*d.img.Stride : y*d.img.Stride+4*w]
		for x := 0; x < w; x++ {
			a := lut(&lineLUT, colPA[x]+amp*lut(&sinLUT, innerA+colA[x]))
			b := lut(&lineLUT, fyPB+amp*lut(&sinLUT, colWB[x]+rowB)+colPB[x])
			p := strength * max(a, b)
			c0, c1, c2 := p0[0]+dp[0]*p, p0[1]+dp[1]*p, p0[2]+dp[2]*p
			px := float64(x) + 0.5
			if !inPage || px < page[0]+1 || px > page[2]-1 {
				pc := float32(roundRectCoverage(px, py, page, pageR))
				c0, c1, c2 = cov[0]+(c0-cov[0])*pc, cov[1]+(c1-cov[1])*pc, cov[2]+(c2-cov[2])*pc
			}
			o := row[4*x : 4*x+4 : 4*x+4]
			if inOuter && px > 1 && px < float64(w)-1 {
				o[0], o[1], o[2], o[3] = uint8(c0+0.5), uint8(c1+0.5), uint8(c2+0.5), 255
				continue
			}
			oc := float32(roundRectCoverage(px, py, outer, outerR)) // premultiplied
			o[0], o[1], o[2], o[3] = uint8(c0*oc+0.5), uint8(c1*oc+0.5), uint8(c2*oc+0.5), uint8(255*oc+0.5)
		}
	}
}

// roundRectCoverage is how much of the pixel at (x, y) lies inside the
// rectangle r (x0, y0, x1, y1) with corners of radius rad: 0..1, with a
// one-pixel soft edge.
func roundRectCoverage(x, y float64, r [4]float64, rad float64) float64 {
	cx := max(r[0]+rad-x, x-(r[2]-rad), 0)
	cy := max(r[1]+rad-y, y-(r[3]-rad), 0)
	var dist float64        // > 0 outside
	if cx == 0 || cy == 0 { // along a straight edge, the common case
		dist = max(r[0]-x, x-r[2], r[1]-y, y-r[3])
	} else {
		dist = math.Hypot(cx, cy) - rad
	}
	return min(1, max(0, 0.5-dist))
}

// text prints s at (x, y) mm (baseline, left) with a cap height of size mm,
// narrowed when wider than maxW mm.
func (d *drawing) text(style int, x, y, size, maxW float64, c color.Color, s string) {
	px := size * d.l.ppm / 0.72 // Go fonts' cap height is 0.72 em
	fc := face(style, px)
	if w := textWidth(fc, s) / d.l.ppm; maxW > 0 && w > maxW {
		fc = face(style, px*maxW/w)
	}
	text(d.img, fc, x*d.l.ppm, y*d.l.ppm, c, s)
}

var (
	labelInk = color.RGBA{70, 62, 96, 255}
	valueInk = color.RGBA{22, 20, 26, 255}
)

// states' names and nationalities as printed.
var stateNames = map[string][2]string{
	"NLD": {"KONINKRIJK DER NEDERLANDEN", "NEDERLANDSE"},
	"D":   {"BUNDESREPUBLIK DEUTSCHLAND", "DEUTSCH"},
	"BEL": {"ROYAUME DE BELGIQUE", "BELGE"},
	"FRA": {"RÉPUBLIQUE FRANÇAISE", "FRANÇAISE"},
	"UTO": {"UTOPIA", "UTOPIAN"},
	"GBR": {"UNITED KINGDOM", "BRITISH CITIZEN"},
	"ESP": {"REINO DE ESPAÑA", "ESPAÑOLA"},
	"ITA": {"REPUBBLICA ITALIANA", "ITALIANA"},
	"POL": {"RZECZPOSPOLITA POLSKA", "POLSKIE"},
	"SWE": {"KONUNGARIKET SVERIGE", "SVENSK"},
	"TUR": {"TÜRKIYE CUMHURIYETI", "T.C."},
	"MAR": {"ROYAUME DU MAROC", "MAROCAINE"},
	"USA": {"UNITED STATES OF AMERICA", "USA"},
}

func stateName(code string) (name, nationality string) {
	if n, ok := stateNames[code]; ok {
		return n[0], n[1]
	}
	return code, code
}

// printedDate is the visual zone's DD MMM YYYY.
func printedDate(t time.Time) string { return strings.ToUpper(t.Format("02 Jan 2006")) }

var cities = []string{"AMSTERDAM", "ROTTERDAM", "DEN HAAG", "UTRECHT", "GRONINGEN", "MAASTRICHT", "UTOPIA CITY", "BRUXELLES", "BERLIN", "LYON"}

// field prints a label and its value below it.
func (d *drawing) field(x, y, maxW float64, label, value string) {
	d.text(regular, x, y, 1.25, maxW, labelInk, label)
	d.text(bold, x, y+3.4, 2.2, maxW, valueInk, value)
}

// dataPage draws a passport's visual zone: header, portrait, fields.
func (d *drawing) dataPage() {
	f := d.id.Fields
	x0, y0 := d.l.page[0], d.l.page[1]
	name, _ := stateName(f.IssuingState)
	_, holderNat := stateName(f.Nationality)
	d.text(bold, x0+42, y0+6.5, 2.4, 78, labelInk, name)
	d.text(regular, x0+42, y0+10.2, 1.6, 78, labelInk, "PASPOORT / PASSPORT / PASSEPORT")
	d.portrait(x0+5, y0+12, x0+36, y0+52, false)
	d.text(regular, x0+5, y0+57, 1.3, 31, labelInk, "Signature of holder")
	d.signature(x0+6, y0+58, x0+34, y0+63)
	cx, cy := x0+42, y0+14.5
	d.field(cx, cy, 14, "Type", f.DocumentCode)
	d.field(cx+16, cy, 22, "Code", f.IssuingState)
	d.field(cx+44, cy, 36, "Document no. / No. du document", f.DocumentNumber)
	surname, birth := f.Surname, d.id.Birth
	if d.id.PrintedSurname != "" {
		surname = d.id.PrintedSurname
	}
	if !d.id.PrintedBirth.IsZero() {
		birth = d.id.PrintedBirth
	}
	d.field(cx, cy+7, 80, "Surname / Nom", surname)
	d.field(cx, cy+14, 80, "Given names / Prénoms", f.GivenNames)
	d.field(cx, cy+21, 50, "Nationality / Nationalité", holderNat)
	d.field(cx+54, cy+21, 26, "Sex / Sexe", f.Sex)
	d.field(cx, cy+28, 40, "Date of birth / Date de naissance", printedDate(birth))
	d.field(cx+44, cy+28, 36, "Place of birth / Lieu de naissance", pick(d.r, cities))
	d.field(cx, cy+35, 40, "Date of issue / Date de délivrance", printedDate(d.id.Issue))
	d.field(cx+44, cy+35, 36, "Date of expiry / Date d'expiration", printedDate(d.id.Expiry))
	d.field(cx, cy+42, 80, "Authority / Autorité", "BURGEMEESTER VAN "+pick(d.r, cities))
}

// cardBack draws the back of an ID card above its MRZ: a little print and
// a ghost portrait.
func (d *drawing) cardBack() {
	f := d.id.Fields
	name, _ := stateName(f.IssuingState)
	d.text(bold, 4.7, 5.5, 1.8, 58, labelInk, name)
	d.field(4.7, 10, 40, "Authority / Autorité", "BURGEMEESTER VAN "+pick(d.r, cities))
	d.field(4.7, 17.5, 28, "Date of issue", printedDate(d.id.Issue))
	d.field(36, 17.5, 24, "Height / Taille", fmt.Sprintf("%.2f m", 1.50+0.45*d.r.Float64()))
	d.text(regular, 4.7, 28, 1.0, 58, labelInk, "This document remains the property of the issuing state. If found, return it to")
	d.text(regular, 4.7, 30.2, 1.0, 58, labelInk, "the nearest municipality or police station. Document no. "+f.DocumentNumber)
	d.portrait(66, 6, 80.5, 24, true)
}

// portrait draws the photo placeholder: a grey silhouette on a plain
// backdrop, or a faint ghost image of it.
func (d *drawing) portrait(x0, y0, x1, y1 float64, ghost bool) {
	p := d.l.ppm
	r := image.Rect(int(x0*p), int(y0*p), int(x1*p), int(y1*p)).Intersect(d.img.Bounds())
	w, h := float64(r.Dx()), float64(r.Dy())
	if d.id.Portrait != nil && !ghost {
		d.photo(r)
		return
	}
	shade := 90 + d.r.Float64()*60
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			u, v := float64(x-r.Min.X)+0.5, float64(y-r.Min.Y)+0.5
			back := 214 - 20*v/h
			head := ellipseCoverage(u, v, w/2, 0.42*h, 0.22*w, 0.26*h)
			body := ellipseCoverage(u, v, w/2, 1.08*h, 0.5*w, 0.4*h)
			neck := ellipseCoverage(u, v, w/2, 0.68*h, 0.09*w, 0.12*h)
			cov := max(head, body, neck)
			c := back + (shade-back)*cov
			i := d.img.PixOffset(x, y)
			if ghost { // printed faintly over the pattern
				a := 0.35 * (1 - c/255)
				for k := 0; k < 3; k++ {
					d.img.Pix[i+k] = uint8(float64(d.img.Pix[i+k]) * (1 - a))
				}
				continue
			}
			d.img.Pix[i], d.img.Pix[i+1], d.img.Pix[i+2], d.img.Pix[i+3] = uint8(c), uint8(c), uint8(c+6), 255
		}
	}
}

// photo prints the holder's portrait in grey into r, scaled to cover it
// and centred (nearest pixel: the printing and the camera blur it after).
func (d *drawing) photo(r image.Rectangle) {
	src := d.id.Portrait
	b := src.Bounds()
	s := math.Min(float64(b.Dx())/float64(r.Dx()), float64(b.Dy())/float64(r.Dy())) // source pixels a page pixel
	ox := float64(b.Min.X) + (float64(b.Dx())-s*float64(r.Dx()))/2
	oy := float64(b.Min.Y) + (float64(b.Dy())-s*float64(r.Dy()))/2
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			sx, sy := int(ox+(float64(x-r.Min.X)+0.5)*s), int(oy+(float64(y-r.Min.Y)+0.5)*s)
			c := color.GrayModel.Convert(src.At(sx, sy)).(color.Gray).Y
			i := d.img.PixOffset(x, y)
			d.img.Pix[i], d.img.Pix[i+1], d.img.Pix[i+2], d.img.Pix[i+3] = c, c, c, 255
		}
	}
}

// ellipseCoverage is an antialiased ellipse (centre cx, cy; radii rx, ry)
// at the pixel centre (x, y).
func ellipseCoverage(x, y, cx, cy, rx, ry float64) float64 {
	dx, dy := (x-cx)/rx, (y-cy)/ry
	dist := (math.Sqrt(dx*dx+dy*dy) - 1) * math.Min(rx, ry) // ≈ pixels outside
	return math.Min(1, math.Max(0, 0.5-dist))
}

// signature scribbles a holder's signature inside the box (mm): a chain
// of thin loops.
func (d *drawing) signature(x0, y0, x1, y1 float64) {
	p := d.l.ppm
	n := 5 + d.r.IntN(5)
	phase := d.r.Float64() * 6
	width := math.Max(0.18*p, 0.8) // pen width in pixels
	for i := 0; i < 400; i++ {
		t := float64(i) / 400
		x := x0 + (x1-x0)*t + 1.2*math.Sin(t*float64(n)*2*math.Pi+phase)
		y := (y0+y1)/2 + (y1-y0)*0.4*math.Sin(t*float64(n)*3*math.Pi)*math.Cos(t*5+phase)
		d.dot(x*p, y*p, width/2, valueInk)
	}
}

// dot paints a round dot of radius rad pixels at (x, y) pixels.
func (d *drawing) dot(x, y, rad float64, c color.RGBA) {
	r := image.Rect(int(x-rad-1), int(y-rad-1), int(x+rad+2), int(y+rad+2)).Intersect(d.img.Bounds())
	for py := r.Min.Y; py < r.Max.Y; py++ {
		for px := r.Min.X; px < r.Max.X; px++ {
			a := math.Min(1, math.Max(0, rad+0.5-math.Hypot(float64(px)+0.5-x, float64(py)+0.5-y)))
			if a == 0 {
				continue
			}
			i := d.img.PixOffset(px, py)
			d.img.Pix[i] = uint8(float64(d.img.Pix[i])*(1-a) + float64(c.R)*a)
			d.img.Pix[i+1] = uint8(float64(d.img.Pix[i+1])*(1-a) + float64(c.G)*a)
			d.img.Pix[i+2] = uint8(float64(d.img.Pix[i+2])*(1-a) + float64(c.B)*a)
		}
	}
}

// WithoutMRZ is a JPEG of id's document cut above its MRZ: what a photo of
// a passport's other page or a card's front gives the reader (the
// printed data, the portrait, no code).
func WithoutMRZ(id Identity, pxPerMM float64) ([]byte, error) {
	doc, box, err := Document(id, pxPerMM)
	if err != nil {
		return nil, err
	}
	top := image.NewRGBA(image.Rect(0, 0, doc.Rect.Dx(), box[0].Y-int(pxPerMM)))
	draw.Draw(top, top.Rect, image.White, image.Point{}, draw.Src)
	draw.Draw(top, top.Rect, doc, image.Point{}, draw.Over)
	var b bytes.Buffer
	if err := jpeg.Encode(&b, top, &jpeg.Options{Quality: 90}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
