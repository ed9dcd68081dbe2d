package docgen

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"math"
	"math/rand/v2"

	"github.com/kycflow/kycflow/engines/docimage"
)

// Camera describes how a phone photographed the document.
type Camera struct {
	Megapixels  float64    `json:"megapixels"`   // output size, 1–12 (4:3 frame)
	Portrait    bool       `json:"portrait"`     // the frame is taller than wide
	Rotation    float64    `json:"rotation"`     // degrees clockwise, any (0–360, upside down included)
	Perspective float64    `json:"perspective"`  // 0 (flat) .. ~0.25 (strong tilt): how much the far edge shrinks and the near one grows
	Scale       float64    `json:"scale"`        // fraction of the frame's shorter side the document's bounding box spans (0.5–0.95)
	Blur        float64    `json:"blur"`         // Gaussian sigma in output pixels (0–4)
	Noise       float64    `json:"noise"`        // sensor noise, about its standard deviation per channel (0–25, on 0–255), mostly luminance
	Light       float64    `json:"light"`        // overall brightness factor (0.35 dim .. 1.1); 0 means 1
	Uneven      float64    `json:"uneven"`       // strength of a light gradient and vignette across the frame (0–0.6)
	Glare       float64    `json:"glare"`        // 0: none; >0: a bright specular blob of that strength (0..1) on the document
	GlareAt     [2]float64 `json:"glare_at"`     // the glare's centre as fractions of the document's width and height
	GlareSize   float64    `json:"glare_size"`   // the glare's radius as a fraction of the document's width; 0 means 0.2
	GlareOnMRZ  bool       `json:"glare_on_mrz"` // centre the glare on the MRZ band instead of GlareAt
	Background  int64      `json:"background"`   // seed of a cluttered background (desk or wood texture, objects, paper with text); 0: plain
	Clutter     int        `json:"clutter"`      // number of objects on a cluttered background; 0 means 4
	JPEGQuality int        `json:"jpeg_quality"` // 35–95
	// Lid: a flatbed scanner's white lid around the document instead of
	// a surface (Background is then ignored).
	Lid bool `json:"lid,omitempty"`
}

// SharpPhone is a phone's good photo of a document on a desk (2
// megapixels, a little tilt, noise and blur): what the suites and the
// face evaluations photograph a generated page with.
var SharpPhone = Camera{Megapixels: 2, Scale: 0.8, Light: 1, Noise: 2, Blur: 0.3, JPEGQuality: 90, Background: 5, Rotation: 3}

// Camera limits Photo accepts (wider than what the profiles draw).
const (
	minMegapixels, maxMegapixels = 0.1, 16.0
)

func (c Camera) check() error {
	switch {
	case !(c.Megapixels >= minMegapixels && c.Megapixels <= maxMegapixels):
		return fmt.Errorf("docgen: %g megapixels is outside [%g, %g]", c.Megapixels, minMegapixels, maxMegapixels)
	case !(c.Scale > 0.05 && c.Scale <= 1):
		return fmt.Errorf("docgen: scale %g is outside (0.05, 1]", c.Scale)
	case !(c.Perspective >= 0 && c.Perspective <= 0.4):
		return fmt.Errorf("docgen: perspective %g is outside [0, 0.4]", c.Perspective)
	case !(c.Blur >= 0 && c.Blur <= 20), !(c.Noise >= 0 && c.Noise <= 100), !(c.Light >= 0 && c.Light <= 2),
		!(c.Uneven >= 0 && c.Uneven <= 1), !(c.Glare >= 0 && c.Glare <= 1), !(c.GlareSize >= 0 && c.GlareSize <= 1),
		math.IsNaN(c.Rotation) || math.IsInf(c.Rotation, 0):
		return fmt.Errorf("docgen: camera parameter out of range: %+v", c)
	case c.JPEGQuality < 1 || c.JPEGQuality > 100:
		return fmt.Errorf("docgen: JPEG quality %d is outside [1, 100]", c.JPEGQuality)
	}
	return nil
}

// frameSize is the photo's size for c: 4:3 at c.Megapixels.
func (c Camera) frameSize() (int, int) {
	w := int(math.Round(math.Sqrt(c.Megapixels * 1e6 * 4 / 3)))
	h := int(math.Round(float64(w) * 3 / 4))
	if c.Portrait {
		return h, w
	}
	return w, h
}

// scene is where everything is in one photo: the geometry and the random
// choices Photo makes, so that labels can be computed from it without
// looking at pixels.
type scene struct {
	w, h       int
	docW, docH float64    // document image size, pixels
	hom, inv   [9]float64 // document pixels to photo pixels, and back
	// light: illumination = light·(1 − uneven·shade), shade a linear ramp
	// along (gx, gy) and a vignette.
	light, uneven float64
	gx, gy        float64
	tint          [3]float64
	// glare: an ellipse in document pixels with a saturated core.
	glare              float64
	gcx, gcy, grx, gry float64
	mrz                [4]image.Point // in the photo
}

// plan places the document in the photo.
func plan(docW, docH int, mrzBox [4]image.Point, cam Camera, r *rand.Rand) *scene {
	w, h := cam.frameSize()
	s := &scene{w: w, h: h, docW: float64(docW), docH: float64(docH)}
	hw, hh := s.docW/2, s.docH/2
	corners := [4][2]float64{{-hw, -hh}, {hw, -hh}, {hw, hh}, {-hw, hh}}
	// Tilt: corners on the far side of a random axis move in, the near ones
	// out, with a little independent jitter.
	theta := r.Float64() * 2 * math.Pi
	ax, ay := math.Cos(theta), math.Sin(theta)
	diag := math.Hypot(hw, hh)
	for i := range corners {
		c := &corners[i]
		f := 1 - cam.Perspective*(c[0]*ax+c[1]*ay)/diag
		c[0], c[1] = c[0]*f+cam.Perspective*0.15*diag*(2*r.Float64()-1), c[1]*f+cam.Perspective*0.15*diag*(2*r.Float64()-1)
	}
	sin, cos := math.Sincos(cam.Rotation * math.Pi / 180)
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i := range corners {
		c := &corners[i]
		c[0], c[1] = c[0]*cos-c[1]*sin, c[0]*sin+c[1]*cos
		minX, maxX = min(minX, c[0]), max(maxX, c[0])
		minY, maxY = min(minY, c[1]), max(maxY, c[1])
	}
	k := cam.Scale * float64(min(w, h)) / max(maxX-minX, maxY-minY)
	// Anywhere in the frame that keeps the whole document in it.
	freeX, freeY := float64(w)-(maxX-minX)*k, float64(h)-(maxY-minY)*k
	cx := float64(w)/2 - (minX+maxX)/2*k + 0.9*freeX/2*(2*r.Float64()-1)
	cy := float64(h)/2 - (minY+maxY)/2*k + 0.9*freeY/2*(2*r.Float64()-1)
	var dst [4][2]float64
	for i, c := range corners {
		dst[i] = [2]float64{cx + c[0]*k, cy + c[1]*k}
	}
	s.hom = homography([4][2]float64{{0, 0}, {s.docW, 0}, {s.docW, s.docH}, {0, s.docH}}, dst)
	s.inv = invert3(s.hom)

	s.light = cam.Light
	if s.light == 0 {
		s.light = 1
	}
	s.uneven = cam.Uneven
	phi := r.Float64() * 2 * math.Pi
	s.gx, s.gy = math.Cos(phi), math.Sin(phi)
	warm := 0.08 * (2*r.Float64() - 1) // white balance: warm indoor light or cool daylight
	s.tint = [3]float64{1 + warm, 1, 1 - warm}

	s.glare = cam.Glare
	size := cam.GlareSize
	if size == 0 {
		size = 0.2
	}
	s.gcx, s.gcy = cam.GlareAt[0]*s.docW, cam.GlareAt[1]*s.docH
	if cam.GlareOnMRZ {
		s.gcx = float64(mrzBox[0].X+mrzBox[1].X+mrzBox[2].X+mrzBox[3].X) / 4
		s.gcy = float64(mrzBox[0].Y+mrzBox[1].Y+mrzBox[2].Y+mrzBox[3].Y) / 4
	}
	s.grx, s.gry = 1.6*size*s.docW, 0.9*size*s.docW // laminate reflections are elongated
	for i, p := range mrzBox {
		x, y := s.toPhoto(float64(p.X), float64(p.Y))
		s.mrz[i] = image.Pt(int(math.Round(x)), int(math.Round(y)))
	}
	return s
}

// toPhoto maps document pixel coordinates to photo pixel coordinates.
func (s *scene) toPhoto(u, v float64) (float64, float64) {
	return project(s.hom, u, v)
}

// docQuad is the document's corners in the photo, rounded.
func (s *scene) docQuad() [4]image.Point {
	var q [4]image.Point
	for i, c := range [4][2]float64{{0, 0}, {s.docW, 0}, {s.docW, s.docH}, {0, s.docH}} {
		x, y := s.toPhoto(c[0], c[1])
		q[i] = image.Pt(int(math.Round(x)), int(math.Round(y)))
	}
	return q
}

// illumination at photo pixel (x, y), before the tint.
func (s *scene) illumination(x, y float64) float64 {
	cx, cy := float64(s.w)/2, float64(s.h)/2
	half := math.Hypot(cx, cy)
	dx, dy := (x-cx)/half, (y-cy)/half
	shade := 0.6*(1+dx*s.gx+dy*s.gy)/2 + 0.4*(dx*dx+dy*dy)
	return s.light * (1 - s.uneven*shade)
}

// glareAt is the glare's strength (0..1) at document pixel (u, v).
func (s *scene) glareAt(u, v float64) float64 {
	if s.glare == 0 {
		return 0
	}
	dx, dy := (u-s.gcx)/s.grx, (v-s.gcy)/s.gry
	return s.glare * glareProfile(dx*dx+dy*dy)
}

// glareProfile is the glare's shape over the squared normalised radius:
// saturated inside half the radius, fading smoothly to nothing at it.
func glareProfile(d2 float64) float64 {
	if d2 >= 1 {
		return 0
	}
	d := math.Sqrt(d2)
	if d <= 0.5 {
		return 1
	}
	t := (1 - d) / 0.5
	return t * t * (3 - 2*t)
}

// Photo photographs doc (as Document draws it) with cam: a projective warp
// onto the background, then blur, light, glare, sensor noise and JPEG
// compression. r draws what cam leaves open: the tilt's direction, where
// the document lies in the frame, the light's direction and colour, the
// noise. mrzInPhoto is mrzBox mapped into the photo.
func Photo(doc *image.RGBA, mrzBox [4]image.Point, cam Camera, r *rand.Rand) (jpegBytes []byte, mrzInPhoto [4]image.Point, err error) {
	if err := cam.check(); err != nil {
		return nil, mrzInPhoto, err
	}
	b := doc.Bounds()
	if b.Dx() < 8 || b.Dy() < 8 {
		return nil, mrzInPhoto, errors.New("docgen: document image too small")
	}
	// Drawing reads Pix row by row from the image's own origin.
	for i := range mrzBox {
		mrzBox[i] = mrzBox[i].Sub(b.Min)
	}
	s := plan(b.Dx(), b.Dy(), mrzBox, cam, r)
	out, err := s.render(doc, cam, r)
	if err != nil {
		return nil, mrzInPhoto, err
	}
	return out, s.mrz, nil
}

// render draws the photo of s and encodes it.
func (s *scene) render(doc *image.RGBA, cam Camera, r *rand.Rand) ([]byte, error) {
	// Document pixels per photo pixel, on average over the document.
	ratio := math.Sqrt(s.docW * s.docH / quadArea(s))
	// The blur, in document pixels.
	sigmaDoc := cam.Blur * ratio
	// A document drawn much finer than the photo is box-averaged first, as
	// bilinear sampling alone would alias its print; so is one blurred so
	// much that its fine detail is lost anyway, which makes blurring cheap.
	step := 1
	if ratio >= 2 {
		step = int(ratio)
	}
	if sigmaDoc >= 3 {
		step = max(step, int(sigmaDoc/1.5))
	}
	if step > 1 {
		doc = shrink(doc, step)
	}
	// What blur is left to add, in shrunk pixels: the box average added a
	// variance of (step²−1)/12, and bilinear sampling at random sub-pixel
	// offsets adds 1/6 on average.
	v := (sigmaDoc*sigmaDoc-float64(step*step-1)/12)/float64(step*step) - 1.0/6
	sigma := math.Sqrt(math.Max(v, 0))
	// The blurred document keeps a transparent margin, so that its edges
	// blur into the background too.
	pad := 2
	if sigma >= 0.2 {
		pad = int(math.Ceil(3*sigma)) + 2
	}
	src := padded(doc, pad)
	if sigma >= 0.2 {
		gaussBlur(src, sigma)
	}
	// Photo pixel to src pixel: undo the homography, scale, shift by pad.
	m := s.inv
	for i := 0; i < 6; i++ {
		m[i] /= float64(step)
	}
	m[0], m[1], m[2] = m[0]+float64(pad)*m[6], m[1]+float64(pad)*m[7], m[2]+float64(pad)*m[8]
	m[3], m[4], m[5] = m[3]+float64(pad)*m[6], m[4]+float64(pad)*m[7], m[5]+float64(pad)*m[8]

	bg := background(s.w, s.h, cam, r)
	// Upsampling the half-resolution background blurs it by a tent of
	// variance 4/6 photo pixels²; what is left is added at half resolution.
	if v := cam.Blur*cam.Blur - 4.0/6; v > 0.04 {
		gaussBlur(bg, math.Sqrt(v)/2)
	}

	out := image.NewYCbCr(image.Rect(0, 0, s.w, s.h), image.YCbCrSubsampleRatio420)
	s.composite(out, src, m, float64(step), float64(pad), bg, cam, r)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, out, &jpeg.Options{Quality: cam.JPEGQuality}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// quadArea is the document's area in the photo, in pixels.
func quadArea(s *scene) float64 {
	var p [4][2]float64
	for i, c := range [4][2]float64{{0, 0}, {s.docW, 0}, {s.docW, s.docH}, {0, s.docH}} {
		p[i][0], p[i][1] = s.toPhoto(c[0], c[1])
	}
	a := 0.0
	for i := range p {
		j := (i + 1) % 4
		a += p[i][0]*p[j][1] - p[j][0]*p[i][1]
	}
	return math.Abs(a) / 2
}

// noiseLUT holds standard normal quantiles: indexing it with uniform random
// bits draws Gaussian noise for a table lookup.
var noiseLUT = func() (t [4096]float32) {
	for i := range t {
		t[i] = float32(math.Sqrt2 * math.Erfinv(2*(float64(i)+0.5)/4096-1))
	}
	return
}()

// compositor makes the photo's rows: the background (upsampled from half
// resolution), the document over it, light and glare, in linear 0..255 RGB.
type compositor struct {
	s          *scene
	src        *image.RGBA
	m          [9]float64 // photo pixel to src pixel
	quad       [4][2]float64
	bg         *image.RGBA
	bx0        []int
	bxw        []uint32
	vrow       []uint32 // two background rows blended, ×256
	glare      []float32
	alpha      []float32
	gcx, gcy   float32 // glare centre and inverse radii, in src pixels
	igrx, igry float32
	glareLUT   [1025]float32
	tint       [3]float32
}

func newCompositor(s *scene, src *image.RGBA, m [9]float64, step, pad float64, bg *image.RGBA) *compositor {
	c := &compositor{s: s, src: src, m: m, bg: bg}
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	// The padded document's outline in the photo, to bound each row's work.
	for i, p := range [4][2]float64{{-pad, -pad}, {float64(sw) - pad, -pad}, {float64(sw) - pad, float64(sh) - pad}, {-pad, float64(sh) - pad}} {
		c.quad[i][0], c.quad[i][1] = s.toPhoto(p[0]*step, p[1]*step)
	}
	c.bx0, c.bxw = make([]int, s.w), make([]uint32, s.w)
	for x := range c.bx0 {
		c.bx0[x], c.bxw[x] = tap(x, s.w, bg.Rect.Dx())
	}
	c.vrow = make([]uint32, 4*bg.Rect.Dx())
	c.glare, c.alpha = make([]float32, s.w), make([]float32, s.w)
	c.gcx, c.gcy = float32(s.gcx/step+pad), float32(s.gcy/step+pad)
	c.igrx, c.igry = float32(step/s.grx), float32(step/s.gry)
	for i := range c.glareLUT {
		c.glareLUT[i] = float32(s.glare * glareProfile(float64(i)/1024))
	}
	c.tint = [3]float32{float32(s.tint[0] * s.light), float32(s.tint[1] * s.light), float32(s.tint[2] * s.light)}
	return c
}

// tap is the lower source sample and its weight (of 256) for output pixel
// i of n, resampling size samples.
func tap(i, n, size int) (int, uint32) {
	f := (float64(i)+0.5)*float64(size)/float64(n) - 0.5
	j := int(math.Floor(f))
	wt := uint32(math.Round((f - float64(j)) * 256))
	if j < 0 {
		j, wt = 0, 0
	}
	if j >= size-1 {
		j, wt = size-2, 256
	}
	return j, wt
}

// row makes photo row y into line (3 floats a pixel), clipped to 255.
func (c *compositor) row(y int, line []float32) {
	s, src, m := c.s, c.src, c.m
	w := s.w
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	fy := float64(y) + 0.5
	// The document first (premultiplied, its coverage in alpha), so that
	// the background is only computed where it shows.
	xl, xr := rowSpan(c.quad, fy)
	xl, xr = max(xl, 0), min(xr, w-1)
	glare, alpha := c.glare, c.alpha
	clear(glare)
	clear(alpha)
	nu0, nv0, d0 := m[1]*fy+m[2], m[4]*fy+m[5], m[7]*fy+m[8]
	for x := xl; x <= xr; x++ {
		fx := float64(x) + 0.5
		den := m[6]*fx + d0
		u := (m[0]*fx+nu0)/den - 0.5
		v := (m[3]*fx+nv0)/den - 0.5
		if !(u >= 0 && v >= 0) { // also NaN
			continue
		}
		ui, vi := int(u), int(v)
		if ui+1 >= sw || vi+1 >= sh {
			continue
		}
		fu, fv := float32(u-float64(ui)), float32(v-float64(vi))
		p := src.Pix[vi*src.Stride+4*ui : vi*src.Stride+4*ui+8]
		q := src.Pix[(vi+1)*src.Stride+4*ui : (vi+1)*src.Stride+4*ui+8]
		a0 := float32(p[3]) + (float32(p[7])-float32(p[3]))*fu
		a1 := float32(q[3]) + (float32(q[7])-float32(q[3]))*fu
		a := (a0 + (a1-a0)*fv) * (1.0 / 255)
		if a == 0 {
			continue
		}
		alpha[x] = a
		for k := 0; k < 3; k++ {
			top := float32(p[k]) + (float32(p[4+k])-float32(p[k]))*fu
			bot := float32(q[k]) + (float32(q[4+k])-float32(q[k]))*fu
			line[3*x+k] = top + (bot-top)*fv
		}
		if s.glare > 0 {
			dx, dy := (float32(u)+0.5-c.gcx)*c.igrx, (float32(v)+0.5-c.gcy)*c.igry
			if d2 := dx*dx + dy*dy; d2 < 1 {
				glare[x] = c.glareLUT[int(d2*1024)] * a
			}
		}
	}
	// The background under it: blend two half-resolution rows, then
	// spread them across the photo row.
	bimg := c.bg
	by, byw := tap(y, s.h, bimg.Rect.Dy())
	row0, row1 := bimg.Pix[by*bimg.Stride:], bimg.Pix[(by+1)*bimg.Stride:]
	vrow := c.vrow
	for i := 0; i+3 < len(vrow); i += 4 { // alpha is always 255
		vrow[i] = uint32(row0[i])*(256-byw) + uint32(row1[i])*byw
		vrow[i+1] = uint32(row0[i+1])*(256-byw) + uint32(row1[i+1])*byw
		vrow[i+2] = uint32(row0[i+2])*(256-byw) + uint32(row1[i+2])*byw
	}
	for x := 0; x < w; x++ {
		a := alpha[x]
		if a >= 1 {
			continue
		}
		i, wx := 4*c.bx0[x], c.bxw[x]
		l := line[3*x : 3*x+3 : 3*x+3]
		b0 := float32(vrow[i]*(256-wx)+vrow[i+4]*wx) * (1.0 / 65536)
		b1 := float32(vrow[i+1]*(256-wx)+vrow[i+5]*wx) * (1.0 / 65536)
		b2 := float32(vrow[i+2]*(256-wx)+vrow[i+6]*wx) * (1.0 / 65536)
		if a == 0 {
			l[0], l[1], l[2] = b0, b1, b2
			continue
		}
		l[0] += b0 * (1 - a) // premultiplied over
		l[1] += b1 * (1 - a)
		l[2] += b2 * (1 - a)
	}
	// Light (a quadratic along the row), then glare, which adds light up to
	// white, then the sensor's clipping.
	cx, cy := float64(w)/2, float64(s.h)/2
	half := math.Hypot(cx, cy)
	dy := float32((fy - cy) / half)
	dx0, ddx := float32((0.5-cx)/half), float32(1/half)
	uneven, gx, gy := float32(s.uneven), float32(s.gx), float32(s.gy)
	for x := 0; x < w; x++ {
		dx := dx0 + float32(x)*ddx
		light := 1 - uneven*(0.3*(1+dx*gx+dy*gy)+0.4*(dx*dx+dy*dy))
		l := line[3*x : 3*x+3 : 3*x+3]
		c0, c1, c2 := l[0]*light*c.tint[0], l[1]*light*c.tint[1], l[2]*light*c.tint[2]
		if g := glare[x]; g > 0 {
			c0 += (255 - min(c0, 255)) * g
			c1 += (255 - min(c1, 255)) * g
			c2 += (255 - min(c2, 255)) * g
		}
		l[0], l[1], l[2] = min(c0, 255), min(c1, 255), min(c2, 255)
	}
}

// composite writes the photo as JPEG's YCbCr 4:2:0, two rows at a time
// (one row of chroma), with sensor noise, mostly in luminance as phones
// deliver it; chroma noise comes in 2×2 blotches, as it does from phones.
func (s *scene) composite(out *image.YCbCr, src *image.RGBA, m [9]float64, step, pad float64, bg *image.RGBA, cam Camera, r *rand.Rand) {
	w, h := s.w, s.h
	c := newCompositor(s, src, m, step, pad, bg)
	lines := [2][]float32{make([]float32, 3*w), make([]float32, 3*w)}
	noise := float32(cam.Noise)
	rng := splitmix(r.Uint64())
	for y := 0; y < h; y += 2 {
		rows := min(2, h-y)
		for k := 0; k < rows; k++ {
			c.row(y+k, lines[k])
			l := lines[k]
			yrow := out.Y[(y+k)*out.YStride : (y+k)*out.YStride+w]
			for x := range yrow {
				yy := 0.299*l[3*x] + 0.587*l[3*x+1] + 0.114*l[3*x+2]
				if noise > 0 {
					z := rng.next()
					yy += noise * 0.9 * noiseLUT[z&4095]
				}
				yrow[x] = clamp8(yy)
			}
		}
		if rows == 1 { // an odd last row: its own chroma
			copy(lines[1], lines[0])
		}
		cbrow := out.Cb[(y/2)*out.CStride:]
		crrow := out.Cr[(y/2)*out.CStride:]
		l0, l1 := lines[0], lines[1]
		for x := 0; x < w; x += 2 {
			x1 := min(x+1, w-1)
			r := (l0[3*x] + l0[3*x1] + l1[3*x] + l1[3*x1]) * 0.25
			g := (l0[3*x+1] + l0[3*x1+1] + l1[3*x+1] + l1[3*x1+1]) * 0.25
			b := (l0[3*x+2] + l0[3*x1+2] + l1[3*x+2] + l1[3*x1+2]) * 0.25
			cb := 128 - 0.168736*r - 0.331264*g + 0.5*b
			cr := 128 + 0.5*r - 0.418688*g - 0.081312*b
			if noise > 0 {
				z := rng.next()
				cb += noise * 0.35 * noiseLUT[z&4095]
				cr += noise * 0.35 * noiseLUT[z>>12&4095]
			}
			cbrow[x/2], crrow[x/2] = clamp8(cb), clamp8(cr)
		}
	}
}

func clamp8(v float32) uint8 {
	switch {
	case v <= 0:
		return 0
	case v >= 255:
		return 255
	}
	return uint8(v + 0.5)
}

// rowSpan is the range of x a row at y crosses of the convex quad q, with a
// pixel of margin; empty (xl > xr) when it misses it.
func rowSpan(q [4][2]float64, y float64) (int, int) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range q {
		a, b := q[i], q[(i+1)%4]
		if (a[1] <= y && y <= b[1]) || (b[1] <= y && y <= a[1]) {
			var x float64
			if a[1] == b[1] {
				lo, hi = min(lo, a[0], b[0]), max(hi, a[0], b[0])
				continue
			}
			x = a[0] + (y-a[1])*(b[0]-a[0])/(b[1]-a[1])
			lo, hi = min(lo, x), max(hi, x)
		}
	}
	if lo > hi {
		return 1, 0
	}
	return int(math.Floor(lo)) - 1, int(math.Ceil(hi)) + 1
}

// splitmix is a tiny fast generator for per-pixel noise, seeded from the
// caller's rand so that photos stay deterministic.
type splitmixState struct{ s uint64 }

func splitmix(seed uint64) *splitmixState { return &splitmixState{seed} }

func (g *splitmixState) next() uint64 {
	g.s += 0x9e3779b97f4a7c15
	z := g.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// homography returns the 3×3 matrix (row major, h[8] = 1) mapping the
// points from onto the points to.
func homography(from, to [4][2]float64) [9]float64 {
	// Eight equations in h0..h7:
	//   x' (h6 x + h7 y + 1) = h0 x + h1 y + h2
	//   y' (h6 x + h7 y + 1) = h3 x + h4 y + h5
	var a [8][9]float64
	for i := 0; i < 4; i++ {
		x, y, X, Y := from[i][0], from[i][1], to[i][0], to[i][1]
		a[2*i] = [9]float64{x, y, 1, 0, 0, 0, -X * x, -X * y, X}
		a[2*i+1] = [9]float64{0, 0, 0, x, y, 1, -Y * x, -Y * y, Y}
	}
	for col := 0; col < 8; col++ { // Gaussian elimination, partial pivoting
		p := col
		for r := col + 1; r < 8; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[p][col]) {
				p = r
			}
		}
		a[col], a[p] = a[p], a[col]
		for r := 0; r < 8; r++ {
			if r == col || a[col][col] == 0 {
				continue
			}
			f := a[r][col] / a[col][col]
			for c := col; c < 9; c++ {
				a[r][c] -= f * a[col][c]
			}
		}
	}
	var h [9]float64
	for i := 0; i < 8; i++ {
		h[i] = a[i][8] / a[i][i]
	}
	h[8] = 1
	return h
}

// invert3 inverts a 3×3 matrix.
func invert3(m [9]float64) [9]float64 {
	a, b, c, d, e, f, g, h, i := m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8]
	A, B, C := e*i-f*h, -(d*i - f*g), d*h-e*g
	det := a*A + b*B + c*C
	return [9]float64{
		A / det, -(b*i - c*h) / det, (b*f - c*e) / det,
		B / det, (a*i - c*g) / det, -(a*f - c*d) / det,
		C / det, -(a*h - b*g) / det, (a*e - b*d) / det,
	}
}

func project(m [9]float64, x, y float64) (float64, float64) {
	d := m[6]*x + m[7]*y + m[8]
	return (m[0]*x + m[1]*y + m[2]) / d, (m[3]*x + m[4]*y + m[5]) / d
}

// shrink box-averages img by an integer factor.
func shrink(img *image.RGBA, k int) *image.RGBA {
	w, h := img.Rect.Dx()/k, img.Rect.Dy()/k
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	sum := make([]uint32, 4*w)
	for y := 0; y < h; y++ {
		clear(sum)
		for dy := 0; dy < k; dy++ {
			row := img.Pix[(y*k+dy)*img.Stride:]
			for x := 0; x < w; x++ {
				for dx := 0; dx < k; dx++ {
					i := 4 * (x*k + dx)
					sum[4*x] += uint32(row[i])
					sum[4*x+1] += uint32(row[i+1])
					sum[4*x+2] += uint32(row[i+2])
					sum[4*x+3] += uint32(row[i+3])
				}
			}
		}
		n := uint32(k * k)
		o := out.Pix[y*out.Stride:]
		for i := 0; i < 4*w; i++ {
			o[i] = uint8((sum[i] + n/2) / n)
		}
	}
	return out
}

// padded returns img inside a transparent margin of pad pixels.
func padded(img *image.RGBA, pad int) *image.RGBA {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	out := image.NewRGBA(image.Rect(0, 0, w+2*pad, h+2*pad))
	for y := 0; y < h; y++ {
		copy(out.Pix[(y+pad)*out.Stride+4*pad:], img.Pix[y*img.Stride:y*img.Stride+4*w])
	}
	return out
}

// gaussBlur blurs all four channels of img in place: a sampled Gaussian
// kernel for the small sigmas photos mostly need, and beyond that three
// passes per axis of an extended box filter (box filters with fractional
// end taps whose variances add up to sigma² exactly), close to a Gaussian
// at a cost independent of sigma.
func gaussBlur(img *image.RGBA, sigma float64) {
	if sigma <= 0 {
		return
	}
	w, h := img.Rect.Dx(), img.Rect.Dy()
	tmp := make([]uint8, len(img.Pix))
	// 2.5 sigma holds 98.8% of the kernel's weight.
	if rad := int(math.Ceil(2.5 * sigma)); rad <= 3 {
		k := kernel(sigma, rad)
		convH(img.Pix, tmp, w, h, img.Stride, k)
		convV(tmp, img.Pix, w, h, img.Stride, k)
		return
	}
	v := sigma * sigma / 3 // per pass
	rad := int(math.Floor((math.Sqrt(12*v+1) - 1) / 2))
	for float64(rad*(rad+1))/3 > v && rad > 0 {
		rad--
	}
	// Variance of a box of radius r with end taps of weight α at ±(r+1):
	// (r(r+1)(2r+1)/3 + 2α(r+1)²) / (2r+1+2α) = v, solved for α.
	fr := float64(rad)
	alpha := (v*(2*fr+1) - fr*(fr+1)*(2*fr+1)/3) / (2*(fr+1)*(fr+1) - 2*v)
	alpha = math.Min(1, math.Max(0, alpha))
	a, b := img.Pix, tmp
	for pass := 0; pass < 3; pass++ {
		boxH(a, b, w, h, img.Stride, rad, alpha)
		a, b = b, a
	}
	for pass := 0; pass < 3; pass++ {
		boxV(a, b, w, h, img.Stride, rad, alpha)
		a, b = b, a
	}
	copy(img.Pix, a) // six passes end in tmp
}

// kernel is a Gaussian of sigma sampled at −rad..rad, in integer weights
// summing to 1<<14.
func kernel(sigma float64, rad int) []int32 {
	f := docimage.Gaussian(sigma, rad)
	k := make([]int32, len(f))
	total := int32(0)
	for i := range f {
		k[i] = int32(math.Round(f[i] * (1 << 14)))
		total += k[i]
	}
	k[rad] += 1<<14 - total // exact unit gain: flat areas stay flat
	return k
}

// convH convolves rows of src with k (at most 7 taps) into dst, edge
// pixels repeated.
func convH(src, dst []uint8, w, h, stride int, k []int32) {
	rad := len(k) / 2
	var kk [7]int32
	copy(kk[3-rad:], k)
	n := 4 * w
	for y := 0; y < h; y++ {
		s := src[y*stride : y*stride+n]
		d := dst[y*stride : y*stride+n]
		// Interior: seven views of the row shifted by a pixel each.
		if w > 6 {
			m := n - 24
			s0, s1, s2, s3, s4, s5, s6 := s[0:m], s[4:4+m], s[8:8+m], s[12:12+m], s[16:16+m], s[20:20+m], s[24:24+m]
			dd := d[12 : 12+m]
			for i := range dd {
				a := kk[0]*int32(s0[i]) + kk[1]*int32(s1[i]) + kk[2]*int32(s2[i]) + kk[3]*int32(s3[i]) +
					kk[4]*int32(s4[i]) + kk[5]*int32(s5[i]) + kk[6]*int32(s6[i])
				dd[i] = uint8((a + 1<<13) >> 14)
			}
		}
		// The three pixels at each end, clamped.
		for x := 0; x < w; x++ {
			if x == 3 && w > 6 {
				x = w - 4 // skip the interior
				continue
			}
			for c := 0; c < 4; c++ {
				var a int32
				for j, wt := range kk {
					a += wt * int32(s[4*min(max(x+j-3, 0), w-1)+c])
				}
				d[4*x+c] = uint8((a + 1<<13) >> 14)
			}
		}
	}
}

// convV convolves columns of src with k into dst, a row at a time to read
// memory in order; up to 7 taps unrolled, more in an accumulator.
func convV(src, dst []uint8, w, h, stride int, k []int32) {
	rad := len(k) / 2
	n := 4 * w
	row := func(y int) []uint8 {
		y = min(max(y, 0), h-1)
		return src[y*stride : y*stride+n]
	}
	if len(k) <= 7 {
		var kk [7]int32
		copy(kk[3-rad:], k)
		for y := 0; y < h; y++ {
			r0, r1, r2, r3, r4, r5, r6 := row(y-3), row(y-2), row(y-1), row(y), row(y+1), row(y+2), row(y+3)
			d := dst[y*stride : y*stride+n]
			for i := range d {
				a := kk[0]*int32(r0[i]) + kk[1]*int32(r1[i]) + kk[2]*int32(r2[i]) + kk[3]*int32(r3[i]) +
					kk[4]*int32(r4[i]) + kk[5]*int32(r5[i]) + kk[6]*int32(r6[i])
				d[i] = uint8((a + 1<<13) >> 14)
			}
		}
		return
	}
	acc := make([]int32, n)
	for y := 0; y < h; y++ {
		clear(acc)
		for j, wt := range k {
			for i, c := range row(y + j - rad) {
				acc[i] += wt * int32(c)
			}
		}
		d := dst[y*stride : y*stride+n]
		for i, a := range acc {
			d[i] = uint8((a + 1<<13) >> 14)
		}
	}
}

// boxH filters rows of src into dst: a box of radius r plus end taps of
// weight alpha, the image's edge pixels repeated beyond it (the document
// arrives with a transparent margin, so its edges blur into nothing).
func boxH(src, dst []uint8, w, h, stride, r int, alpha float64) {
	ea := int32(math.Round(alpha * 256))
	inv := float32(1 / (float64(2*r+1)*256 + 2*float64(ea)))
	at := func(i int) int { return 4 * min(max(i, 0), w-1) }
	for y := 0; y < h; y++ {
		s := src[y*stride : y*stride+4*w]
		d := dst[y*stride : y*stride+4*w]
		var sum [4]int32
		for x := -r; x <= r; x++ {
			for k := 0; k < 4; k++ {
				sum[k] += int32(s[at(x)+k])
			}
		}
		for x := 0; x < w; x++ {
			lo, hi, out := at(x-r-1), at(x+r+1), at(x-r)
			for k := 0; k < 4; k++ {
				e := int32(s[lo+k]) + int32(s[hi+k])
				d[4*x+k] = uint8(min(float32(sum[k]*256+ea*e)*inv+0.5, 255))
				sum[k] += int32(s[hi+k]) - int32(s[out+k]) // slide: x+r+1 enters, x−r leaves
			}
		}
	}
}

// boxV is boxH along columns, a row at a time to read memory in order.
func boxV(src, dst []uint8, w, h, stride, r int, alpha float64) {
	ea := int32(math.Round(alpha * 256))
	inv := float32(1 / (float64(2*r+1)*256 + 2*float64(ea)))
	n := 4 * w
	row := func(y int) []uint8 {
		y = min(max(y, 0), h-1)
		return src[y*stride : y*stride+n]
	}
	sum := make([]int32, n)
	for y := -r; y <= r; y++ {
		for i, c := range row(y) {
			sum[i] += int32(c)
		}
	}
	for y := 0; y < h; y++ {
		d := dst[y*stride : y*stride+n]
		lo, hi, out := row(y-r-1), row(y+r+1), row(y-r)
		for i := range d {
			e := int32(lo[i]) + int32(hi[i])
			d[i] = uint8(min(float32(sum[i]*256+ea*e)*inv+0.5, 255))
			sum[i] += int32(hi[i]) - int32(out[i])
		}
	}
}

// Snapshot is a photo of id's document drawn at pxPerMM through cam, the
// camera's open choices drawn from seed: Document and Photo in one, for
// tests and load generators that need a photo of a given identity.
func Snapshot(id Identity, pxPerMM float64, cam Camera, seed uint64) ([]byte, error) {
	doc, box, err := Document(id, pxPerMM)
	if err != nil {
		return nil, err
	}
	b, _, err := Photo(doc, box, cam, rand.New(rand.NewPCG(seed, 0x736e6170)))
	return b, err
}
