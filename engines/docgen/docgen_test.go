package docgen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kycflow/kycflow/engines/mrz"
	"github.com/kycflow/kycflow/engines/ocrb"
)

// checkMRZ parses an MRZ and fails on any layout or check-digit problem.
// Validate does not judge expiry, so expired documents pass too.
func checkMRZ(t *testing.T, text string, format mrz.Format) *mrz.Document {
	t.Helper()
	d, err := mrz.Parse(text)
	if err != nil {
		t.Fatalf("%q: %v", text, err)
	}
	if errs := d.Validate(); len(errs) > 0 {
		t.Fatalf("%q: %v", text, errs)
	}
	if d.Format != format || len(d.Corrections) > 0 {
		t.Fatalf("%q read as %s with corrections %v", text, d.Format, d.Corrections)
	}
	return d
}

// Random identities have valid MRZs that read back as drawn, in the
// proportions the generator promises.
func TestRandomIdentity(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	docNumber := regexp.MustCompile(`^[A-Z0-9]{9}$`)
	const n = 2000
	expired, optional := 0, 0
	sexes := map[string]int{}
	for i := range n {
		format := []mrz.Format{mrz.TD3, mrz.TD1}[i%2]
		id := RandomIdentity(r, format)
		d := checkMRZ(t, id.MRZ, format)
		f := id.Fields
		if id.Format != format || f.Format != format || !docNumber.MatchString(f.DocumentNumber) || d.DocumentNumber != f.DocumentNumber {
			t.Fatalf("%+v", id)
		}
		if d.BirthDate.Raw != f.BirthDate || d.ExpiryDate.Raw != f.ExpiryDate || d.Sex != f.Sex || d.IssuingState != f.IssuingState || d.Nationality != f.Nationality {
			t.Fatalf("%q read back as %+v, drawn %+v", id.MRZ, d, f)
		}
		if y, _ := d.BirthDate.BirthYear(Reference()); y != id.Birth.Year() || y < 1940 || y > 2007 {
			t.Fatalf("%q: birth year %d, drawn %v", id.MRZ, y, id.Birth)
		}
		if id.Expired != d.Expired(Reference()) || id.Expired != id.Expiry.Before(Reference()) || !id.Issue.Before(Reference()) {
			t.Fatalf("%q: expired %v, expiry %v, issue %v", id.MRZ, id.Expired, id.Expiry, id.Issue)
		}
		if f.OptionalData != "" {
			optional++
			if d.OptionalData1 != f.OptionalData || !elevenTest(f.OptionalData) {
				t.Fatalf("%q: personal number %q", id.MRZ, f.OptionalData)
			}
		}
		if !slices.Contains(states, f.IssuingState) || !slices.Contains(states, f.Nationality) {
			t.Fatalf("%q: states %s, %s", id.MRZ, f.IssuingState, f.Nationality)
		}
		if id.Expired {
			expired++
		}
		sexes[f.Sex]++
	}
	if expired < n*5/100 || expired > n*16/100 {
		t.Errorf("%d of %d expired, want about 10%%", expired, n)
	}
	if optional < n*40/100 || optional > n*60/100 {
		t.Errorf("%d of %d with a personal number, want about half", optional, n)
	}
	if len(sexes) != 3 || sexes["X"] == 0 {
		t.Errorf("sexes %v", sexes)
	}
	// The same generator state draws the same identity.
	a, b := RandomIdentity(rand.New(rand.NewPCG(7, 7)), mrz.TD1), RandomIdentity(rand.New(rand.NewPCG(7, 7)), mrz.TD1)
	if a != b {
		t.Fatalf("%+v != %+v", a, b)
	}
}

// elevenTest is the Dutch BSN check: 9·d1 + 8·d2 + … + 2·d8 − d9 ≡ 0 (mod 11).
func elevenTest(s string) bool {
	if len(s) != 9 {
		return false
	}
	sum := 0
	for i, c := range s {
		if c < '0' || c > '9' {
			return false
		}
		wt := 9 - i
		if i == 8 {
			wt = -1
		}
		sum += wt * int(c-'0')
	}
	return sum%11 == 0
}

// A flat document has the size of its format, transparent rounded corners,
// and ink where its MRZ box says, at ICAO's pitch.
func TestDocument(t *testing.T) {
	requireFont(t)
	const ppm = 6
	for _, tc := range []struct {
		format        mrz.Format
		wMM, hMM      float64
		chars, lines  int
		transparentAt image.Point
	}{
		{mrz.TD3, 125 + 2*coverMM, 88 + 2*coverMM, 44, 2, image.Pt(0, 0)},
		{mrz.TD1, 85.6, 53.98, 30, 3, image.Pt(0, 0)},
	} {
		id := RandomIdentity(rand.New(rand.NewPCG(3, 3)), tc.format)
		img, box, err := Document(id, ppm)
		if err != nil {
			t.Fatal(err)
		}
		if w, h := img.Rect.Dx(), img.Rect.Dy(); math.Abs(float64(w)-tc.wMM*ppm) > 1 || math.Abs(float64(h)-tc.hMM*ppm) > 1 {
			t.Fatalf("%s: %dx%d pixels", tc.format, w, h)
		}
		if a := img.RGBAAt(tc.transparentAt.X, tc.transparentAt.Y).A; a != 0 {
			t.Errorf("%s: corner alpha %d", tc.format, a)
		}
		if a := img.RGBAAt(img.Rect.Dx()/2, img.Rect.Dy()/2).A; a != 255 {
			t.Errorf("%s: centre alpha %d", tc.format, a)
		}
		if w := float64(box[1].X - box[0].X); math.Abs(w-float64(tc.chars)*mrzPitchMM*ppm) > 2 {
			t.Errorf("%s: MRZ box %v is %g pixels wide", tc.format, box, w)
		}
		r := image.Rect(box[0].X, box[0].Y, box[2].X, box[2].Y)
		if !r.In(img.Rect) || box[0].Y != box[1].Y || box[3].X != box[0].X {
			t.Fatalf("%s: MRZ box %v in %v", tc.format, box, img.Rect)
		}
		// Each MRZ line is a band of ink: dark pixels in every line's rows,
		// light paper between the lines.
		rows := inkRows(img, r)
		bands := 0
		for y := 1; y < len(rows); y++ {
			if rows[y] && !rows[y-1] {
				bands++
			}
		}
		if rows[0] {
			bands++
		}
		if bands != tc.lines {
			t.Errorf("%s: %d bands of ink in the MRZ box, want %d", tc.format, bands, tc.lines)
		}
	}
	if _, _, err := Document(RandomIdentity(rand.New(rand.NewPCG(1, 1)), mrz.TD3), 0.5); err == nil {
		t.Error("0.5 px/mm drawn")
	}
	if _, _, err := Document(Identity{Format: mrz.TD2}, 6); err == nil {
		t.Error("a TD2 drawn")
	}
}

// inkRows says for each row of r whether it holds MRZ ink (near black).
func inkRows(img *image.RGBA, r image.Rectangle) []bool {
	out := make([]bool, r.Dy())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		n := 0
		for x := r.Min.X; x < r.Max.X; x++ {
			if c := img.RGBAAt(x, y); int(c.R)+int(c.G)+int(c.B) < 3*80 {
				n++
			}
		}
		out[y-r.Min.Y] = n > r.Dx()/50
	}
	return out
}

// Labels for many samples, decided without drawing them (what Generate
// labels, from the same code): Clean photos are all readable, Hard ones
// never and for each of the four reasons, Phone photos mostly readable; the
// document and its MRZ always lie inside the frame, and parameters in
// their profile's range.
func TestLabels(t *testing.T) {
	const n = 400
	for _, p := range Profiles {
		whys := map[string]int{}
		for i := range n {
			sp, err := specOf(99, i, p)
			if err != nil {
				t.Fatal(err)
			}
			c := sp.cam
			if (sp.why == "") != sp.readable || !slices.Contains([]string{"", "glare", "dark", "blur", "small"}, sp.why) {
				t.Fatalf("%s %s: readable %v, why %q", p, sp.name, sp.readable, sp.why)
			}
			frame := image.Rect(0, 0, sp.s.w+1, sp.s.h+1) // corners may round onto the far edge
			doc := sp.s.docQuad()
			for _, q := range append(sp.s.mrz[:], doc[:]...) {
				if !q.In(frame) {
					t.Fatalf("%s %s: MRZ %v or document %v outside %dx%d", p, sp.name, sp.s.mrz, doc, sp.s.w, sp.s.h)
				}
			}
			if c.JPEGQuality < 35 || c.JPEGQuality > 95 || c.Megapixels < 1 && p != Scan || c.Megapixels > 12 || c.Blur > 4 || c.Noise > 25 {
				t.Fatalf("%s %s: %+v", p, sp.name, c)
			}
			switch p {
			case Clean, OffsetClean:
				if !sp.readable || sp.charHeight < minCharHeight || c.JPEGQuality < 85 || math.Abs(c.Rotation) > 3 || c.Glare != 0 || c.Megapixels < 3 || c.Megapixels > 8 {
					t.Fatalf("clean %s: readable %v, %.1f px, %+v", sp.name, sp.readable, sp.charHeight, c)
				}
			case Hard:
				if sp.readable {
					t.Fatalf("hard %s readable: %+v", sp.name, c)
				}
			case Phone, Offset:
				if c.Perspective > 0.15 || c.Blur > 1.5 || c.Noise > 10 || c.Light < 0.6 || c.Uneven > 0.4 || c.GlareOnMRZ {
					t.Fatalf("phone %s: %+v", sp.name, c)
				}
			case Scan: // 150–300 dpi on a white lid
				if dpi := sp.charHeight / mrzCapMM * 25.4; !c.Lid || dpi < 140 || dpi > 310 || c.Perspective != 0 || c.Glare != 0 || c.JPEGQuality < 50 || c.JPEGQuality > 85 {
					t.Fatalf("scan %s: %.0f dpi, %+v", sp.name, dpi, c)
				}
			}
			whys[sp.why]++
		}
		switch p {
		case Hard:
			for _, why := range []string{"glare", "dark", "blur", "small"} {
				if whys[why] < n/10 {
					t.Errorf("hard: %v", whys)
				}
			}
		case Phone, Offset, Scan:
			if whys[""] < n*85/100 {
				t.Errorf("%s: %v", p, whys)
			}
		}
		t.Logf("%s: %v", p, whys)
	}
}

// decode decodes a sample's JPEG and checks its size against its labels
// and its camera's megapixels.
func decode(t *testing.T, s Sample) *image.YCbCr {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(s.JPEG))
	if err != nil {
		t.Fatalf("%s: %v", s.Name, err)
	}
	b := img.Bounds()
	if b.Dx() != s.Width || b.Dy() != s.Height {
		t.Fatalf("%s: %v, labelled %dx%d", s.Name, b, s.Width, s.Height)
	}
	if mp := float64(b.Dx()*b.Dy()) / 1e6; math.Abs(mp/s.Camera.Megapixels-1) > 0.1 {
		t.Fatalf("%s: %.2f MP, asked for %.2f", s.Name, mp, s.Camera.Megapixels)
	}
	y, ok := img.(*image.YCbCr)
	if !ok {
		t.Fatalf("%s: decoded as %T", s.Name, img)
	}
	return y
}

// lumaIn is the darkest and brightest luma inside the quadrilateral q
// (convex, clockwise or not), sampled on a grid.
func lumaIn(img *image.YCbCr, q [4]image.Point) (lo, hi uint8, mean float64) {
	lo, n := 255, 0
	for i := 0; i <= 60; i++ {
		for j := 0; j <= 12; j++ {
			u, v := float64(i)/60, float64(j)/12
			top := [2]float64{float64(q[0].X) + u*float64(q[1].X-q[0].X), float64(q[0].Y) + u*float64(q[1].Y-q[0].Y)}
			bot := [2]float64{float64(q[3].X) + u*float64(q[2].X-q[3].X), float64(q[3].Y) + u*float64(q[2].Y-q[3].Y)}
			x, y := int(top[0]+v*(bot[0]-top[0])), int(top[1]+v*(bot[1]-top[1]))
			c := img.Y[img.YOffset(x, y)]
			lo, hi = min(lo, c), max(hi, c)
			mean += float64(c)
			n++
		}
	}
	return lo, hi, mean / float64(n)
}

// Generate is deterministic: the same seed gives the same bytes, in
// parallel (Generate) or one sample at a time (GenerateSample); another
// seed gives other documents. Clean photos are JPEGs of the size asked,
// with the true MRZ and print (dark ink on light paper) where the label
// puts the MRZ.
func TestGenerate(t *testing.T) {
	requireFont(t)
	t.Parallel()
	// Any seed does; this one's two photos are small (3.7 and 3.4 MP),
	// which keeps the race detector's run short.
	const seed = 20260681
	samples, err := Generate(seed, 2, Clean)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range samples {
		format := []mrz.Format{mrz.TD3, mrz.TD1}[i%2]
		if want := fmt.Sprintf("%s-%05d", strings.ToLower(string(format)), i); s.Name != want || s.Profile != Clean {
			t.Fatalf("sample %d named %q, profile %s", i, s.Name, s.Profile)
		}
		if s.MRZ != s.Identity.MRZ || s.Identity.Format != format {
			t.Fatalf("%s: MRZ %q, identity %+v", s.Name, s.MRZ, s.Identity)
		}
		checkMRZ(t, s.MRZ, format)
		if !s.Readable || s.Why != "" || s.CharHeight < minCharHeight {
			t.Fatalf("%s: readable %v (%q), characters %.1f px", s.Name, s.Readable, s.Why, s.CharHeight)
		}
		img := decode(t, s)
		if lo, hi, _ := lumaIn(img, s.MRZQuad); lo > 90 || hi < 150 {
			t.Errorf("%s: luma %d..%d in the MRZ %v, want ink and paper", s.Name, lo, hi, s.MRZQuad)
		}
	}
	again, err := GenerateSample(seed, 1, Clean)
	if err != nil {
		t.Fatal(err)
	}
	if s := samples[1]; !bytes.Equal(again.JPEG, s.JPEG) || again.MRZ != s.MRZ || again.Camera != s.Camera {
		t.Fatalf("%s differs when generated again", s.Name)
	}
	for i := range 2 {
		other, err := specOf(seed+1, i, Clean)
		if err != nil {
			t.Fatal(err)
		}
		if other.id.MRZ == samples[i].MRZ || other.cam == samples[i].Camera {
			t.Fatalf("seed %d drew sample %d of seed %d", seed+1, i, seed)
		}
	}
}

// Hard photos are unreadable in their pixels, not only in their labels:
// glare washes the MRZ out to near white, darkness leaves it near black.
func TestHardPhotos(t *testing.T) {
	requireFont(t)
	t.Parallel()
	const seed = 5
	found := map[string]bool{}
	for i := 0; len(found) < 2 && i < 300; i++ {
		sp, err := specOf(seed, i, Hard)
		if err != nil {
			t.Fatal(err)
		}
		if found[sp.why] || (sp.why != "glare" && sp.why != "dark") || sp.cam.Megapixels > 2 {
			continue // two cheap photos suffice
		}
		found[sp.why] = true
		s, err := GenerateSample(seed, i, Hard)
		if err != nil {
			t.Fatal(err)
		}
		if s.Readable || s.Why != sp.why {
			t.Fatalf("%s: readable %v, why %q", s.Name, s.Readable, s.Why)
		}
		checkMRZ(t, s.MRZ, s.Identity.Format)
		img := decode(t, s)
		// The middle of the MRZ: where glare centres.
		q := s.MRZQuad
		mid := [4]image.Point{lerp(q[0], q[1], 0.4), lerp(q[0], q[1], 0.6), lerp(q[3], q[2], 0.6), lerp(q[3], q[2], 0.4)}
		_, _, mean := lumaIn(img, mid)
		switch s.Why {
		case "glare":
			if mean < 200 {
				t.Errorf("%s: glare, yet the MRZ's middle has mean luma %.0f", s.Name, mean)
			}
		case "dark":
			if mean > 30 {
				t.Errorf("%s: dark, yet the MRZ's middle has mean luma %.0f", s.Name, mean)
			}
		}
	}
	if len(found) < 2 {
		t.Fatalf("found only %v", found)
	}
}

func lerp(a, b image.Point, t float64) image.Point {
	return image.Pt(a.X+int(t*float64(b.X-a.X)), a.Y+int(t*float64(b.Y-a.Y)))
}

// Photo refuses cameras outside its ranges.
func TestPhotoRefuses(t *testing.T) {
	doc := image.NewRGBA(image.Rect(0, 0, 100, 70))
	r := rand.New(rand.NewPCG(1, 1))
	good := Camera{Megapixels: 1, Scale: 0.8, JPEGQuality: 80}
	if _, _, err := Photo(doc, [4]image.Point{}, good, r); err != nil {
		t.Fatal(err)
	}
	for _, c := range []Camera{
		{Megapixels: 0, Scale: 0.8, JPEGQuality: 80},
		{Megapixels: 40, Scale: 0.8, JPEGQuality: 80},
		{Megapixels: 1, Scale: 0, JPEGQuality: 80},
		{Megapixels: 1, Scale: 0.8, JPEGQuality: 0},
		{Megapixels: 1, Scale: 0.8, JPEGQuality: 80, Glare: 2},
		{Megapixels: 1, Scale: 0.8, JPEGQuality: 80, Rotation: math.NaN()},
	} {
		if _, _, err := Photo(doc, [4]image.Point{}, c, r); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	if _, _, err := Photo(image.NewRGBA(image.Rect(0, 0, 4, 4)), [4]image.Point{}, good, r); err == nil {
		t.Error("a 4×4 document photographed")
	}
	if _, err := Generate(1, 1, "blurry"); err == nil {
		t.Error("an unknown profile accepted")
	}
}

// Without the font, generating fails with an error that says which Debian
// package to install.
func TestFontMissing(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(ocrb.PathEnv, filepath.Join(dir, "missing.otf"))
	_, err := Generate(1, 1, Clean)
	if err == nil || !errors.Is(err, ocrb.ErrNoFont) || !strings.Contains(err.Error(), "fonts-ocr-b") {
		t.Fatalf("Generate: %v", err)
	}
	if _, _, err := Document(RandomIdentity(rand.New(rand.NewPCG(1, 1)), mrz.TD3), 6); err == nil || !strings.Contains(err.Error(), "fonts-ocr-b") {
		t.Fatalf("Document: %v", err)
	}
	junk := filepath.Join(dir, "junk.otf")
	if err := os.WriteFile(junk, []byte("not a font"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(ocrb.PathEnv, junk)
	if _, err := Generate(1, 1, Clean); err == nil || !errors.Is(err, ocrb.ErrNoFont) || !strings.Contains(err.Error(), "fonts-ocr-b") {
		t.Fatalf("Generate with a junk font: %v", err)
	}
}

// WriteSet writes one JPEG per sample and labels.json describing them.
func TestWriteSet(t *testing.T) {
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, image.NewGray(image.Rect(0, 0, 8, 8)), nil); err != nil {
		t.Fatal(err)
	}
	id := RandomIdentity(rand.New(rand.NewPCG(4, 4)), mrz.TD1)
	samples := []Sample{
		{Name: "td1-00001", JPEG: jpg.Bytes(), MRZ: id.MRZ, Identity: id, Camera: Camera{Megapixels: 2, JPEGQuality: 70, Background: 9}, Profile: Phone, Readable: true, CharHeight: 21.04,
			MRZQuad: [4]image.Point{{10, 20}, {30, 20}, {30, 40}, {10, 40}}, Width: 1633, Height: 1225},
		{Name: "td1-00003", JPEG: jpg.Bytes(), MRZ: id.MRZ, Identity: id, Camera: Camera{Megapixels: 1, Glare: 1, GlareOnMRZ: true}, Profile: Hard, Why: "glare"},
	}
	dir := filepath.Join(t.TempDir(), "set")
	if err := WriteSet(dir, samples); err != nil {
		t.Fatal(err)
	}
	for _, s := range samples {
		if data, err := os.ReadFile(filepath.Join(dir, s.Name+".jpg")); err != nil || !bytes.Equal(data, s.JPEG) {
			t.Fatalf("%s.jpg: %v", s.Name, err)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "labels.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("<<")) {
		t.Errorf("labels.json escapes the MRZ's fillers:\n%s", data)
	}
	var labels []map[string]any
	if err := json.Unmarshal(data, &labels); err != nil {
		t.Fatal(err)
	}
	if len(labels) != 2 {
		t.Fatalf("%d labels", len(labels))
	}
	l0, l1 := labels[0], labels[1]
	cam, _ := l0["camera"].(map[string]any)
	if l0["name"] != "td1-00001" || l0["file"] != "td1-00001.jpg" || l0["mrz"] != id.MRZ || l0["format"] != "TD1" || l0["readable"] != true ||
		l0["profile"] != "phone" || l0["char_height_px"] != 21.0 || cam["jpeg_quality"] != 70.0 || cam["background"] != 9.0 ||
		fmt.Sprint(l0["mrz_quad"]) != "[[10 20] [30 20] [30 40] [10 40]]" {
		t.Errorf("label %v", l0)
	}
	if l1["readable"] != false || l1["why"] != "glare" || l1["camera"].(map[string]any)["glare_on_mrz"] != true {
		t.Errorf("label %v", l1)
	}

	back, err := ReadSet(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 2 || back[0].Name != "td1-00001" || !bytes.Equal(back[0].JPEG, jpg.Bytes()) || back[0].MRZ != id.MRZ || back[0].Identity.Format != mrz.TD1 ||
		!back[0].Readable || back[0].Profile != Phone || back[0].MRZQuad != samples[0].MRZQuad || back[0].Camera.JPEGQuality != 70 ||
		back[1].Readable || back[1].Why != "glare" || !back[1].Camera.GlareOnMRZ {
		t.Errorf("ReadSet gave back %+v", back)
	}
	// A labels file naming a file outside its directory is refused.
	if err := os.WriteFile(filepath.Join(dir, "labels.json"), []byte(`[{"name":"x","file":"../secret.jpg"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSet(dir); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("ReadSet of a label naming ../secret.jpg: %v", err)
	}
}

// Photo costs, for BENCHMARKS-style numbers: a TD3 page at 1, 5 and 12 MP
// with light blur and noise on a cluttered desk.
func BenchmarkPhoto(b *testing.B) {
	requireFont(b)
	id := RandomIdentity(rand.New(rand.NewPCG(1, 1)), mrz.TD3)
	for _, mp := range []float64{1, 5, 12} {
		cam := Camera{Megapixels: mp, Rotation: 20, Perspective: 0.1, Scale: 0.85, Blur: 0.5, Noise: 6, Light: 0.9, Uneven: 0.3,
			Glare: 0.4, GlareAt: [2]float64{0.6, 0.3}, Background: 5, Clutter: 6, JPEGQuality: 80}
		b.Run(fmt.Sprintf("%gMP", mp), func(b *testing.B) {
			for range b.N {
				doc, box, err := Document(id, docResolution(cam, mrz.TD3))
				if err != nil {
					b.Fatal(err)
				}
				if _, _, err := Photo(doc, box, cam, rand.New(rand.NewPCG(1, 2))); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// requireFont fails a test on a machine without OCR-B (make installs
// it); the message names the Debian package to install.
func requireFont(t testing.TB) {
	t.Helper()
	if _, err := ocrb.Load(); err != nil {
		t.Fatal(err)
	}
}

// The press prints heavier or lighter, wider or narrower than the font's
// outline, within the character's cell.
func TestPress(t *testing.T) {
	font, err := ocrb.Load()
	if err != nil {
		t.Fatal(err)
	}
	const pitch, capPx, base = 40.0, 36.0, 60.0
	ink := func(p press) (sum float64, x0, x1 int) {
		img := image.NewRGBA(image.Rect(0, 0, 80, 80))
		draw.Draw(img, img.Rect, image.White, image.Point{}, draw.Src)
		p.print(img, font, rand.New(rand.NewPCG(1, 1)), 'H', 20, base, pitch, capPx, color.RGBA{0, 0, 0, 255})
		x0, x1 = 80, 0
		for y := range 80 {
			for x := range 80 {
				if v := 255 - float64(img.Pix[img.PixOffset(x, y)]); v > 0 {
					sum += v
					if v > 128 {
						x0, x1 = min(x0, x), max(x1, x)
					}
				}
			}
		}
		return sum, x0, x1
	}
	thin, _, _ := ink(press{weight: -0.025, width: 1})
	plain, px0, px1 := ink(press{width: 1})
	bold, _, _ := ink(press{weight: 0.035, width: 1})
	if !(thin < 0.9*plain && bold > 1.1*plain) {
		t.Errorf("ink: thin %.0f, plain %.0f, bold %.0f", thin, plain, bold)
	}
	_, nx0, nx1 := ink(press{width: 0.93})
	_, wx0, wx1 := ink(press{width: 1.05})
	if !(nx1-nx0 < px1-px0 && wx1-wx0 > px1-px0) {
		t.Errorf("widths: narrow %d, plain %d, wide %d pixels", nx1-nx0, px1-px0, wx1-wx0)
	}
	if px0 < 20 || px1 >= 20+int(pitch) {
		t.Errorf("the glyph leaves its cell: x %d–%d", px0, px1)
	}
}

// The tampered profile prints a passport's page otherwise than its MRZ
// (the surname or the date of birth), through a clean camera; its cards
// are the clean profile's.
func TestTamperedProfile(t *testing.T) {
	for i := range 6 {
		s, err := GenerateSample(3, i, Tampered)
		if err != nil {
			t.Fatal(err)
		}
		clean, err := GenerateSample(3, i, Clean)
		if err != nil {
			t.Fatal(err)
		}
		id := s.Identity
		switch {
		case id.Format == mrz.TD1 && (id.Tampered != "" || s.Camera != clean.Camera):
			t.Errorf("%s: a card tampered (%q) or not through the clean camera", s.Name, id.Tampered)
		case id.Format == mrz.TD3 && id.Tampered == TamperedSurname && (id.PrintedSurname == "" || id.PrintedSurname == id.Fields.Surname):
			t.Errorf("%s: surname printed %q for %q", s.Name, id.PrintedSurname, id.Fields.Surname)
		case id.Format == mrz.TD3 && id.Tampered == TamperedBirth && (id.PrintedBirth.IsZero() || id.PrintedBirth.Equal(id.Birth)):
			t.Errorf("%s: birth printed %v for %v", s.Name, id.PrintedBirth, id.Birth)
		case id.Format == mrz.TD3 && id.Tampered == "":
			t.Errorf("%s: a passport not tampered", s.Name)
		case id.MRZ != clean.Identity.MRZ:
			t.Errorf("%s: the MRZ changed with the page", s.Name)
		}
	}
}
