package docgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	xdraw "golang.org/x/image/draw"

	"github.com/kycflow/kycflow/engines/mrz"
	"github.com/kycflow/kycflow/engines/ocrb"
)

// Profile is a distribution of Camera parameters.
type Profile string

const (
	// Clean: flat-ish, well lit, sharp, quality ≥ 85, rotation within ±3°,
	// no glare, plain or lightly cluttered background, 3–8 MP. Always
	// readable.
	Clean Profile = "clean"
	// Phone: what phones produce: any rotation (right angles and arbitrary
	// ones), perspective up to 0.15, blur up to 1.5, noise up to 10, light
	// 0.6–1.1, uneven light up to 0.4, sometimes a mild glare away from the
	// MRZ, cluttered backgrounds, quality 35–95, 1–12 MP. Mostly readable;
	// Readable says which are not (mostly documents too small in the frame).
	Phone Profile = "phone"
	// Hard: beyond what can be read: glare on the MRZ, heavy blur, very
	// dark with noise, or a tiny document. Never readable.
	Hard Profile = "hard"
	// Tampered: clean photos of passports whose visual zone prints another
	// surname or date of birth than the MRZ (Identity.Tampered says
	// which): what a forger who edits the printed page but not the MRZ
	// leaves. A card's MRZ side prints no name, so its TD1 samples are as
	// Clean's.
	Tampered Profile = "tampered"
	// Offset: Phone's photos of documents printed the second way
	// (Screened): another rasterizer, ink spread, a halftone screen;
	// OffsetClean: Clean's photos of them.
	Offset      Profile = "offset"
	OffsetClean Profile = "offset-clean"
	// Scan: documents printed the second way, scanned flat at 150–300
	// dpi on a white lid (askew by up to 1.5°, a card sometimes turned a
	// quarter), JPEG 50–85; four in ten then shrunk for a web page (its
	// long side 500–1000 pixels) and compressed again. Mostly readable;
	// Readable says which are not (characters under 6 pixels).
	Scan Profile = "scan"
)

// Profiles lists the profiles.
var Profiles = []Profile{Clean, Phone, Hard, Tampered, Offset, OffsetClean, Scan}

// Sample is one labelled photo.
type Sample struct {
	Name     string // stable: format and index, "td3-00042"
	JPEG     []byte
	MRZ      string // the true MRZ, lines joined by "\n"
	Identity Identity
	Camera   Camera
	Profile  Profile
	// Readable says whether a careful person could read every MRZ
	// character in the photo. It is false when glare washes out a
	// character ("glare"), the light is too dim for the noise ("dark"),
	// blur merges strokes: sigma above 0.16 of the character height
	// ("blur"), or characters are under 6 pixels tall ("small").
	Readable bool
	Why      string // when not readable: "glare", "dark", "blur" or "small" (the first that applies)
	// CharHeight is the smallest MRZ cap height in the photo, in pixels.
	CharHeight float64
	// MRZQuad is the MRZ's bounding quadrilateral in the photo, clockwise
	// from the document's top left (which may be anywhere after rotation).
	MRZQuad [4]image.Point
	// DocQuad is the document's outline in the photo (for a passport the
	// cover strip around its page included), in the same order.
	DocQuad       [4]image.Point
	Width, Height int
}

// Readability thresholds, in photo pixels and 0–255 levels.
const (
	minCharHeight = 6    // smaller characters cannot be told apart (B/8, O/0/D), however enlarged
	maxBlurRatio  = 0.16 // blur sigma per character height at which strokes merge
	paperInk      = 205  // contrast of MRZ ink on the paper, before light and glare
	minContrast   = 16   // contrast below which print vanishes even without noise
	noiseContrast = 1.5  // contrast must exceed this many noise deviations
	glareWashed   = 30   // contrast left under glare below which a character is lost
)

// assess labels a planned photo: the smallest character height, and
// whether and why the MRZ cannot be read. It looks at every character cell
// through the scene's geometry, light and glare.
func assess(s *scene, l layout, cam Camera) (readable bool, why string, charHeight float64) {
	capPx := mrzCapMM * l.ppm
	charHeight = math.Inf(1)
	glare, dark := false, false
	for n := range l.baselines {
		for i := 0; i < l.chars; i++ {
			u, v := l.charCentre(n, i)
			x, y := s.toPhoto(u, v)
			x0, y0 := s.toPhoto(u, v-capPx/2)
			x1, y1 := s.toPhoto(u, v+capPx/2)
			charHeight = math.Min(charHeight, math.Hypot(x1-x0, y1-y0))
			g := s.glareAt(u, v)
			contrast := paperInk * s.illumination(x, y) * (1 - g)
			switch {
			case g > 0.5 && contrast < glareWashed:
				glare = true
			case contrast < math.Max(minContrast, noiseContrast*cam.Noise):
				dark = true
			}
		}
	}
	switch {
	case glare:
		return false, "glare", charHeight
	case dark:
		return false, "dark", charHeight
	case cam.Blur > maxBlurRatio*charHeight:
		return false, "blur", charHeight
	case charHeight < minCharHeight:
		return false, "small", charHeight
	}
	return true, "", charHeight
}

// Generate makes n labelled photos of profile p: TD3 passports at even
// indices, TD1 cards at odd ones. The same seed gives the same bytes;
// sample i is GenerateSample(seed, i, p), and has the same identity in every
// profile. Photos are made in parallel, one per processor.
func Generate(seed int64, n int, p Profile) ([]Sample, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("docgen: %d samples", n)
	}
	if _, err := ocrb.Load(); err != nil { // fail once, before any work
		return nil, err
	}
	out := make([]Sample, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := range next {
				out[i], errs[i] = GenerateSample(seed, i, p)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (p Profile) check() error {
	switch p {
	case Clean, Phone, Hard, Tampered, Offset, OffsetClean, Scan:
		return nil
	}
	return fmt.Errorf("docgen: unknown profile %q (want clean, phone, hard, tampered, offset, offset-clean or scan)", p)
}

// GenerateSample makes sample i of Generate(seed, …, p), alone: for sets
// too large to hold in memory.
func GenerateSample(seed int64, i int, p Profile) (Sample, error) {
	sp, err := specOf(seed, i, p)
	if err != nil {
		return Sample{}, err
	}
	how := Pressed
	if p == Offset || p == OffsetClean || p == Scan {
		how = Screened
	}
	doc, _, err := DocumentPrinted(sp.id, sp.l.ppm, how)
	if err != nil {
		return Sample{}, err
	}
	jpg, err := sp.s.render(doc, sp.cam, sp.r)
	if err != nil {
		return Sample{}, err
	}
	s := Sample{
		Name: sp.name, JPEG: jpg, MRZ: sp.id.MRZ, Identity: sp.id, Camera: sp.cam, Profile: p,
		Readable: sp.readable, Why: sp.why, CharHeight: sp.charHeight, MRZQuad: sp.s.mrz, DocQuad: sp.s.docQuad(), Width: sp.s.w, Height: sp.s.h,
	}
	if sp.web > 0 {
		if err := s.shrinkForWeb(sp.web, 60+sp.r.IntN(26)); err != nil {
			return Sample{}, err
		}
	}
	return s, nil
}

// spec is a sample decided but not drawn: everything but its pixels.
type spec struct {
	name       string
	id         Identity
	cam        Camera
	l          layout
	s          *scene
	readable   bool
	why        string
	charHeight float64
	web        int        // Scan: the long side a web page shrinks the scan to; 0: kept
	r          *rand.Rand // drawn from next while rendering
}

// specOf decides sample i: its own generator seeded by (seed, i), the
// identity first (so that it is the same in every profile), then the
// camera and the scene.
func specOf(seed int64, i int, p Profile) (*spec, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	if i < 0 {
		return nil, fmt.Errorf("docgen: sample %d", i)
	}
	r := rand.New(rand.NewPCG(uint64(seed), uint64(i)))
	format := mrz.TD3
	if i%2 == 1 {
		format = mrz.TD1
	}
	sp := &spec{name: fmt.Sprintf("%s-%05d", strings.ToLower(string(format)), i), id: RandomIdentity(r, format), r: r}
	if p == Tampered && format == mrz.TD3 {
		// A stream of its own: the camera is drawn as for Clean.
		sp.id = tamper(sp.id, rand.New(rand.NewPCG(uint64(seed), uint64(i)^0x74616d706572)))
	}
	cameraOf := p
	switch p {
	case Tampered, OffsetClean:
		cameraOf = Clean
	case Offset:
		cameraOf = Phone
	}
	// A profile's parameters are drawn to land on its side of the
	// readability line; the labels are computed, not assumed, and the rare
	// draw that lands on the wrong side is drawn again.
	for attempt := 0; ; attempt++ {
		sp.cam = drawCamera(cameraOf, format, r)
		sp.l = layoutOf(format, docResolution(sp.cam, format))
		w, h := sp.l.size()
		sp.s = plan(w, h, sp.l.mrzBox(), sp.cam, r)
		sp.readable, sp.why, sp.charHeight = assess(sp.s, sp.l, sp.cam)
		if p == Scan {
			sp.web = webSize(sp, r)
		}
		if cameraOf == Phone || cameraOf == Scan || sp.readable == (cameraOf == Clean) {
			return sp, nil
		}
		if attempt == 50 {
			return nil, fmt.Errorf("docgen: no %s camera found for sample %d", p, i)
		}
	}
}

// docResolution draws the document about as fine as the photo will show
// it (bilinear sampling has a little detail to average, and skips no
// print); coarser when the photo blurs it: bilinear magnification blurs by
// itself (variance 1/6 of a document pixel², which Photo accounts for), so
// mild blur costs no blurring pass, and what is left is blurred on fewer
// pixels.
func docResolution(cam Camera, format mrz.Format) float64 {
	w, h := cam.frameSize()
	l := layoutOf(format, 1)
	ratio := 1.05 // document pixels per photo pixel
	if cam.Blur > 0 {
		ratio = min(1.05, max(0.5, 1/(cam.Blur*math.Sqrt(6))))
	}
	// plan fits the rotated document's bounding box to the frame.
	sin, cos := math.Sincos(cam.Rotation * math.Pi / 180)
	box := math.Max(math.Abs(l.wMM*cos)+math.Abs(l.hMM*sin), math.Abs(l.wMM*sin)+math.Abs(l.hMM*cos))
	ppm := ratio * cam.Scale * float64(min(w, h)) / box
	return math.Min(maxPxPerMM, math.Max(minPxPerMM, ppm))
}

func uniform(r *rand.Rand, lo, hi float64) float64 { return lo + (hi-lo)*r.Float64() }

// seedOf draws a non-zero background seed.
func seedOf(r *rand.Rand) int64 { return int64(r.Uint64()>>2) + 1 }

// drawCamera draws camera parameters of profile p.
func drawCamera(p Profile, format mrz.Format, r *rand.Rand) Camera {
	switch p {
	case Clean:
		c := Camera{
			Megapixels: uniform(r, 3, 8), Portrait: r.IntN(2) == 0, Rotation: uniform(r, -3, 3), Perspective: uniform(r, 0, 0.04),
			Scale: uniform(r, 0.7, 0.92), Blur: uniform(r, 0, 0.5), Noise: uniform(r, 0, 3), Light: uniform(r, 0.9, 1.05),
			Uneven: uniform(r, 0, 0.15), JPEGQuality: 85 + r.IntN(11),
		}
		if r.IntN(2) == 0 {
			c.Background, c.Clutter = seedOf(r), 1+r.IntN(3)
		}
		return c
	case Phone:
		c := Camera{
			Megapixels: uniform(r, 1, 12), Portrait: r.IntN(2) == 0, Rotation: uniform(r, 0, 360), Perspective: uniform(r, 0, 0.15),
			Scale: uniform(r, 0.5, 0.95), Blur: uniform(r, 0, 1.5), Noise: uniform(r, 0, 10), Light: uniform(r, 0.6, 1.1),
			Uneven: uniform(r, 0, 0.4), JPEGQuality: 35 + r.IntN(61),
		}
		if r.IntN(5) < 2 { // phones square to the document, or turned by right angles
			c.Rotation = math.Mod(float64(90*r.IntN(4))+uniform(r, -4, 4)+360, 360)
		}
		if r.IntN(10) < 3 { // mild glare above the MRZ
			c.Glare, c.GlareAt, c.GlareSize = uniform(r, 0.3, 0.7), [2]float64{uniform(r, 0.15, 0.85), uniform(r, 0.1, 0.4)}, uniform(r, 0.1, 0.2)
		}
		if r.IntN(10) < 8 {
			c.Background, c.Clutter = seedOf(r), 2+r.IntN(9)
		}
		return c
	case Scan:
		// The frame is the scanned area: the document's long side spans
		// most of the frame's short side, at the scanner's resolution.
		dpi, scale := uniform(r, 150, 300), uniform(r, 0.88, 0.97)
		l := layoutOf(format, 1)
		short := math.Max(l.wMM, l.hMM) * dpi / 25.4 / scale
		c := Camera{
			Megapixels: math.Max(minMegapixels, short*short*4/3/1e6), Rotation: uniform(r, -1.5, 1.5), Scale: scale,
			Blur: uniform(r, 0.3, 0.8), Noise: uniform(r, 0, 2), Light: uniform(r, 1, 1.08), Uneven: uniform(r, 0, 0.05),
			JPEGQuality: 50 + r.IntN(36), Lid: true,
		}
		if format == mrz.TD1 && r.IntN(10) == 0 {
			c.Rotation += 90
		}
		return c
	}
	// Hard: a readable-looking base, then one thing that defeats reading.
	c := Camera{
		Megapixels: uniform(r, 1, 12), Portrait: r.IntN(2) == 0, Rotation: uniform(r, 0, 360), Perspective: uniform(r, 0, 0.1),
		Scale: uniform(r, 0.55, 0.9), Blur: uniform(r, 0, 0.8), Noise: uniform(r, 2, 8), Light: uniform(r, 0.7, 1),
		Uneven: uniform(r, 0, 0.3), JPEGQuality: 35 + r.IntN(51), Background: seedOf(r), Clutter: 2 + r.IntN(9),
	}
	// scaleFor is the Scale that makes MRZ characters about capPx tall.
	scaleFor := func(capPx float64) float64 {
		w, h := c.frameSize()
		l := layoutOf(format, 1)
		return math.Min(0.95, math.Max(0.1, capPx*math.Max(l.wMM, l.hMM)/(mrzCapMM*float64(min(w, h)))))
	}
	switch r.IntN(4) {
	case 0:
		c.Glare, c.GlareOnMRZ, c.GlareSize = uniform(r, 0.95, 1), true, uniform(r, 0.22, 0.32)
	case 1:
		c.Megapixels = uniform(r, 1, 3)
		c.Scale = scaleFor(uniform(r, 12.5, 20))
		c.Blur = uniform(r, 3.6, 4)
	case 2:
		// So dark that the print is a few levels above black, under noise
		// and JPEG quantisation several times larger.
		c.Light, c.Noise, c.Uneven = uniform(r, 0.015, 0.04), uniform(r, 12, 25), uniform(r, 0.2, 0.5)
		c.JPEGQuality = 35 + r.IntN(26)
	default:
		c.Megapixels = uniform(r, 1, 2.5)
		c.Scale = scaleFor(uniform(r, 3, 5.5))
		c.Blur = uniform(r, 0, 0.5)
	}
	return c
}

// label is one sample in labels.json.
type label struct {
	Name       string     `json:"name"`
	File       string     `json:"file"`
	MRZ        string     `json:"mrz"`
	Format     mrz.Format `json:"format"`
	Profile    Profile    `json:"profile"`
	Readable   bool       `json:"readable"`
	Why        string     `json:"why,omitempty"`
	Expired    bool       `json:"expired"`
	Tampered   string     `json:"tampered,omitempty"` // the visual zone's field that differs from the MRZ
	CharHeight float64    `json:"char_height_px"`
	MRZQuad    [4][2]int  `json:"mrz_quad"` // [x, y] pairs
	DocQuad    [4][2]int  `json:"doc_quad"`
	Width      int        `json:"width"`
	Height     int        `json:"height"`
	Camera     Camera     `json:"camera"`
}

// WriteSet writes each sample as dir/NAME.jpg and all labels to
// dir/labels.json, creating dir if needed.
func WriteSet(dir string, samples []Sample) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	labels := make([]label, len(samples))
	for i, s := range samples {
		file := s.Name + ".jpg"
		if err := os.WriteFile(filepath.Join(dir, file), s.JPEG, 0o644); err != nil {
			return err
		}
		labels[i] = label{
			Name: s.Name, File: file, MRZ: s.MRZ, Format: s.Identity.Format, Profile: s.Profile, Readable: s.Readable, Why: s.Why,
			Expired: s.Identity.Expired, Tampered: s.Identity.Tampered, CharHeight: math.Round(s.CharHeight*10) / 10, MRZQuad: pairs(s.MRZQuad), DocQuad: pairs(s.DocQuad), Width: s.Width, Height: s.Height, Camera: s.Camera,
		}
	}
	var data bytes.Buffer
	enc := json.NewEncoder(&data)
	enc.SetEscapeHTML(false) // MRZs are full of '<'
	enc.SetIndent("", "  ")
	if err := enc.Encode(labels); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "labels.json"), data.Bytes(), 0o644)
}

func pairs(q [4]image.Point) (out [4][2]int) {
	for i, p := range q {
		out[i] = [2]int{p.X, p.Y}
	}
	return out
}

// ReadSet reads a set WriteSet wrote: each sample's photo and labels (the
// Identity holds its Format, Expired and Tampered only).
func ReadSet(dir string) ([]Sample, error) {
	b, err := os.ReadFile(filepath.Join(dir, "labels.json"))
	if err != nil {
		return nil, err
	}
	var labels []label
	if err := json.Unmarshal(b, &labels); err != nil {
		return nil, fmt.Errorf("docgen: %s: %w", filepath.Join(dir, "labels.json"), err)
	}
	out := make([]Sample, len(labels))
	for i, l := range labels {
		if l.File != filepath.Base(l.File) {
			return nil, fmt.Errorf("docgen: labels.json names %q outside %s", l.File, dir)
		}
		jpg, err := os.ReadFile(filepath.Join(dir, l.File))
		if err != nil {
			return nil, err
		}
		out[i] = Sample{
			Name: l.Name, JPEG: jpg, MRZ: l.MRZ, Identity: Identity{Format: l.Format, Expired: l.Expired, Tampered: l.Tampered}, Camera: l.Camera, Profile: l.Profile,
			Readable: l.Readable, Why: l.Why, CharHeight: l.CharHeight, MRZQuad: points(l.MRZQuad), DocQuad: points(l.DocQuad), Width: l.Width, Height: l.Height,
		}
	}
	return out, nil
}

func points(q [4][2]int) (out [4]image.Point) {
	for i, p := range q {
		out[i] = image.Pt(p[0], p[1])
	}
	return out
}

// webSize is the long side a web page shrinks a scan to, four times in
// ten, when smaller than the scan's; 0: the scan is kept as it is.
func webSize(sp *spec, r *rand.Rand) int {
	long := float64(max(sp.s.w, sp.s.h))
	if r.IntN(10) >= 4 {
		return 0
	}
	if w := uniform(r, 500, 1000); w < long {
		return int(w)
	}
	return 0
}

// shrinkForWeb scales the sample's photo so that its long side is long
// pixels (Catmull-Rom, as image tools do) and compresses it again at
// quality, its labels scaled alike.
func (s *Sample) shrinkForWeb(long, quality int) error {
	src, err := jpeg.Decode(bytes.NewReader(s.JPEG))
	if err != nil {
		return err
	}
	k := float64(long) / float64(max(s.Width, s.Height))
	w, h := max(1, int(math.Round(float64(s.Width)*k))), max(1, int(math.Round(float64(s.Height)*k)))
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	xdraw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), xdraw.Src, nil)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, dst, &jpeg.Options{Quality: quality}); err != nil {
		return err
	}
	scale := func(q [4]image.Point) [4]image.Point {
		for i := range q {
			q[i] = image.Pt(int(math.Round(float64(q[i].X)*k)), int(math.Round(float64(q[i].Y)*k)))
		}
		return q
	}
	s.JPEG, s.Width, s.Height, s.CharHeight = buf.Bytes(), w, h, s.CharHeight*k
	s.MRZQuad, s.DocQuad = scale(s.MRZQuad), scale(s.DocQuad)
	if s.Readable && s.CharHeight < minCharHeight {
		s.Readable, s.Why = false, "small"
	}
	return nil
}
