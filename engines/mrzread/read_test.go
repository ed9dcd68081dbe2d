package mrzread

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/jpeg"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kycflow/kycflow/engines/docgen"
	"github.com/kycflow/kycflow/engines/docimage"
	"github.com/kycflow/kycflow/engines/mrz"
)

// photo is a generated photo of a random document of format f through
// cam.
func photo(t *testing.T, seed uint64, f mrz.Format, cam docgen.Camera) ([]byte, docgen.Identity) {
	t.Helper()
	id := docgen.RandomIdentity(rand.New(rand.NewPCG(seed, 29)), f)
	b, err := docgen.Snapshot(id, 12, cam, seed)
	if err != nil {
		t.Fatal(err)
	}
	return b, id
}

// decoded is photo b in grey.
func decoded(t *testing.T, b []byte) *image.Gray {
	t.Helper()
	info, err := docimage.Inspect(b)
	if err != nil {
		t.Fatal(err)
	}
	g, err := docimage.DecodeGray(b, info)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func read(t *testing.T, r Reader, b []byte) Result {
	t.Helper()
	info, err := docimage.Inspect(b)
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Photo(context.Background(), b, info)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A document photographed the way a person does — flat or tilted, turned
// any way, upside down included, on a desk — is read exactly.
func TestReadsTurnedDocuments(t *testing.T) {
	base := docgen.Camera{Megapixels: 2, Scale: 0.8, Light: 1, Noise: 3, Blur: 0.4, JPEGQuality: 88, Background: 3}
	for _, c := range []struct {
		name        string
		format      mrz.Format
		rotation    float64
		perspective float64
	}{
		{"card upright", mrz.TD1, 0, 0},
		{"passport upside down", mrz.TD3, 180, 0},
		{"card on its side", mrz.TD1, 90, 0},
		{"passport turned and tilted", mrz.TD3, 33, 0.08},
	} {
		t.Run(c.name, func(t *testing.T) {
			cam := base
			cam.Rotation, cam.Perspective = c.rotation, c.perspective
			b, id := photo(t, uint64(len(c.name)), c.format, cam)
			res := read(t, Reader{}, b)
			if res.Outcome != Read || res.MRZ != id.MRZ {
				t.Fatalf("read %s %s %q, want %q (quality %+v)", res.Outcome, res.Reason, res.MRZ, id.MRZ, res.Quality)
			}
			if res.Document == nil || res.Document.Format != c.format || !res.Quality.BandFound {
				t.Errorf("result %+v", res)
			}
		})
	}
}

// What a person can act on: glare over the code, a document too far
// away, a photo of the side without the code. Each is a retake, never a
// read.
func TestRetakes(t *testing.T) {
	t.Run("glare on the code", func(t *testing.T) {
		b, _ := photo(t, 1, mrz.TD3, docgen.Camera{Megapixels: 2, Scale: 0.75, Light: 1, JPEGQuality: 90, Glare: 1, GlareOnMRZ: true, GlareSize: 0.35})
		if res := read(t, Reader{}, b); res.Outcome != Retake || res.Reason != Glare {
			t.Errorf("%s %s, want a retake for the glare", res.Outcome, res.Reason)
		}
	})
	// Blur that hides the band is blur, not a missing code: hold still.
	t.Run("blurred", func(t *testing.T) {
		for _, blur := range []float64{3, 8} {
			b, _ := photo(t, 2, mrz.TD3, docgen.Camera{Megapixels: 2, Scale: 0.75, Light: 1, JPEGQuality: 90, Blur: blur})
			if res := read(t, Reader{}, b); res.Outcome != Retake || res.Reason != Blurred {
				t.Errorf("blur %g: %s %s, want blurred", blur, res.Outcome, res.Reason)
			}
		}
	})
	// A blank page and sensor noise are no reflection and no blur: the
	// code is not in the photo.
	t.Run("blank and noise", func(t *testing.T) {
		white, noise := image.NewGray(image.Rect(0, 0, 1200, 900)), image.NewGray(image.Rect(0, 0, 1200, 900))
		r := rand.New(rand.NewPCG(1, 2))
		for i := range white.Pix {
			white.Pix[i], noise.Pix[i] = 255, uint8(r.IntN(256))
		}
		for name, g := range map[string]*image.Gray{"white": white, "noise": noise} {
			var buf bytes.Buffer
			if err := jpeg.Encode(&buf, g, &jpeg.Options{Quality: 90}); err != nil {
				t.Fatal(err)
			}
			if res := read(t, Reader{}, buf.Bytes()); res.Outcome != Retake || res.Reason != NotFound {
				t.Errorf("%s: %s %s, want mrz_not_found", name, res.Outcome, res.Reason)
			}
		}
	})
	t.Run("too far away", func(t *testing.T) {
		b, _ := photo(t, 2, mrz.TD1, docgen.Camera{Megapixels: 1, Scale: 0.12, Light: 1, JPEGQuality: 90})
		if res := read(t, Reader{}, b); res.Outcome != Retake || res.Reason != TooSmall && res.Reason != NotFound {
			t.Errorf("%s %s, want too_small or mrz_not_found", res.Outcome, res.Reason)
		}
	})
	// A thumbnail of a passport page (a web page's, 190 pixels across)
	// prints its code 3 pixels tall: too small, never "not in the
	// photo".
	t.Run("a thumbnail", func(t *testing.T) {
		b, _ := photo(t, 3, mrz.TD3, docgen.Camera{Megapixels: 0.1, Scale: 0.95, Light: 1, JPEGQuality: 90})
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, docimage.Shrink(decoded(t, b), 2), &jpeg.Options{Quality: 90}); err != nil {
			t.Fatal(err)
		}
		res := read(t, Reader{}, buf.Bytes())
		if res.Quality.Width >= minPhotoSide && res.Quality.Height >= minPhotoSide {
			t.Fatalf("a thumbnail of %d × %d", res.Quality.Width, res.Quality.Height)
		}
		if res.Outcome != Retake || res.Reason != TooSmall {
			t.Errorf("%s %s, want too_small", res.Outcome, res.Reason)
		}
	})
	// A card's back without its code still has two lines of fine print:
	// proportional, not an MRZ (and not a document too far away).
	t.Run("the side without the code", func(t *testing.T) {
		for _, tc := range []struct {
			seed uint64
			f    mrz.Format
			ppm  float64
		}{{3, mrz.TD3, 10}, {3, mrz.TD1, 12}, {5, mrz.TD1, 12}} {
			b, err := docgen.WithoutMRZ(docgen.RandomIdentity(rand.New(rand.NewPCG(tc.seed, 3)), tc.f), tc.ppm)
			if err != nil {
				t.Fatal(err)
			}
			if res := read(t, Reader{}, b); res.Outcome != Retake || res.Reason != NotFound {
				t.Errorf("%s %d: %s %s, want mrz_not_found", tc.f, tc.seed, res.Outcome, res.Reason)
			}
		}
	})
	t.Run("too dark", func(t *testing.T) {
		b, _ := photo(t, 4, mrz.TD3, docgen.Camera{Megapixels: 2, Scale: 0.7, Light: 0.02, Noise: 20, JPEGQuality: 40})
		if res := read(t, Reader{}, b); res.Outcome != Retake || res.Reason != TooDark {
			t.Errorf("%s %s, want too_dark", res.Outcome, res.Reason)
		}
	})
}

// Without the tesseract command the reader says so, rather than asking
// every person for a retake.
func TestNoTesseract(t *testing.T) {
	b, _ := photo(t, 5, mrz.TD3, docgen.Camera{Megapixels: 2, Scale: 0.8, Light: 1, JPEGQuality: 90})
	info, err := docimage.Inspect(b)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Reader{Tesseract: Tesseract{Path: "/nonexistent/tesseract"}}.Photo(context.Background(), b, info)
	if !errors.Is(err, ErrNoTesseract) {
		t.Fatalf("err %v, want ErrNoTesseract", err)
	}
}

// Reads run side by side in a worker (the glyph templates are built once,
// shared).
func TestConcurrentReads(t *testing.T) {
	b, id := photo(t, 6, mrz.TD1, docgen.Camera{Megapixels: 2, Scale: 0.8, Light: 1, JPEGQuality: 90})
	var wg sync.WaitGroup
	results := make([]Result, 2)
	for i := range results {
		wg.Go(func() { results[i] = read(t, Reader{}, b) })
	}
	wg.Wait()
	for _, res := range results {
		if res.Outcome != Read || res.MRZ != id.MRZ {
			t.Errorf("read %s %s %q, want %q", res.Outcome, res.Reason, res.MRZ, id.MRZ)
		}
	}
}

// reading is a matcher's reading of lines: every character its glyph's
// with the given lead over its runner-up ('<', or for O and 0 each
// other), except the characters second names, whose runner-up it gives
// with a lead too small to stand alone.
func reading(lines []string, margin float64, second map[[2]int]byte) []cellRead {
	out := make([]cellRead, len(lines))
	for i, l := range lines {
		c := cellRead{text: l, second: strings.Repeat("<", len(l)), score: make([]float64, len(l)), margin: make([]float64, len(l))}
		sec := []byte(c.second)
		for k := range l {
			c.score[k], c.margin[k] = 0.9, margin
			switch l[k] {
			case 'O':
				sec[k] = '0'
			case '0':
				sec[k] = 'O'
			}
			if s, ok := second[[2]int{i, k}]; ok {
				sec[k] = s
				c.margin[k] = 0.05
			}
		}
		c.second = string(sec)
		out[i] = c
	}
	return out
}

// Ink heights of OCR-B's glyphs in a band, pixels: fillers lowest,
// capitals, digits tallest; round glyphs (O, 0) stand out above and below
// the flat ones, by about 0.3 of the digit–capital difference.
const (
	fillerInk, capitalInk, digitInk = 28, 32, 34.5
	roundO, round0                  = capitalInk + 0.3*(digitInk-capitalInk), digitInk + 0.3*(digitInk-capitalInk)
)

// measure gives the cells of lines the heights OCR-B's glyphs stand at.
func measure(cells []cellRead, lines []string) {
	for i, l := range lines {
		cells[i].height = make([]float64, len(l))
		for k := range l {
			switch c := l[k]; {
			case c == '<':
				cells[i].height[k] = fillerInk
			case c == '0':
				cells[i].height[k] = round0
			case c == 'O':
				cells[i].height[k] = roundO
			case c >= '1' && c <= '9':
				cells[i].height[k] = digitInk
			default:
				cells[i].height[k] = capitalInk
			}
		}
	}
}

func ocr(lines ...string) []ocrLine {
	out := make([]ocrLine, len(lines))
	for i, l := range lines {
		out[i] = ocrLine{text: l, conf: 90}
	}
	return out
}

// The readers' votes: a read is only ever the one reading that passes
// every check; two passing readings are a retake.
func TestChoose(t *testing.T) {
	id := docgen.RandomIdentity(rand.New(rand.NewPCG(7, 7)), mrz.TD3)
	lines := strings.Split(id.MRZ, "\n")
	name := strings.IndexByte(lines[0][5:], '<') + 5 - 1 // the surname's last letter: no check digit covers it
	letter := lines[0][name]
	other := byte('A')
	if letter == 'A' {
		other = 'B'
	}
	doc1 := 13 // the birth date's first digit, covered by its check digit
	wrongDigit := byte('5')
	if lines[1][doc1] == '5' {
		wrongDigit = '3'
	}

	// Both readers agree: read, fully agreed; only O and 0 where either
	// may stand stay open.
	round := 0
	classes := mrz.Classes(mrz.TD3)
	for i, l := range lines {
		for k := range l {
			if (l[k] == 'O' || l[k] == '0') && classes[i][k] == mrz.Any {
				round++
			}
		}
	}
	if doc, agreed, open, ok := choose(reading(lines, 0.1, nil), [][]ocrLine{ocr(lines...)}); !ok || strings.Join(doc.Lines, "\n") != id.MRZ || agreed != 1 || open != round {
		t.Errorf("agreeing readers: ok %v agreed %v open %d", ok, agreed, open)
	}
	// The matcher unsure of a name letter between two letters, Tesseract
	// silent: both pass the check digits, so it is a retake.
	if _, _, _, ok := choose(reading(lines, 0.9, map[[2]int]byte{{0, name}: other}), nil); ok {
		t.Error("read a name letter the readers could not decide")
	}
	// The same with Tesseract reading the letter as the matcher's first
	// choice: read.
	if doc, _, _, ok := choose(reading(lines, 0.1, map[[2]int]byte{{0, name}: other}), [][]ocrLine{ocr(lines...)}); !ok || strings.Join(doc.Lines, "\n") != id.MRZ {
		t.Error("did not read what Tesseract confirmed")
	}
	// A digit in doubt under a check digit: the check digit decides (the
	// fields' classes settle O against 0).
	swapped := append([]string(nil), lines...)
	swapped[1] = lines[1][:doc1] + string(wrongDigit) + lines[1][doc1+1:]
	cells := reading(swapped, 0.9, map[[2]int]byte{{1, doc1}: lines[1][doc1]})
	if doc, _, open, ok := choose(cells, nil); !ok || strings.Join(doc.Lines, "\n") != id.MRZ || open == 0 {
		t.Errorf("check digit did not decide: ok %v open %d", ok, open)
	}
	// Everything open: too much in doubt to try.
	if _, _, open, ok := choose(reading(lines, 0, nil), nil); ok || open <= maxOpen {
		t.Errorf("read a band with every character in doubt (open %d)", open)
	}
	// A document number with an O and a 0 where the check digit weighs
	// both 1: both readers swapping them still passes every check digit,
	// so the reading is ambiguous — a retake, never a read.
	f := id.Fields
	f.DocumentNumber = "XAOBC0DE1"
	composed, err := mrz.Compose(f)
	if err != nil {
		t.Fatal(err)
	}
	misread := strings.Split(strings.Replace(composed, "XAOBC0DE1", "XA0BCODE1", 1), "\n")
	if _, _, _, ok := choose(reading(misread, 0.9, nil), [][]ocrLine{ocr(misread...)}); ok {
		t.Error("read a document number whose O and 0 may have swapped")
	}
	// The same, with the glyphs' heights measured: OCR-B's digits stand
	// taller than its capitals, and the heights settle which is which.
	measured := reading(misread, 0.9, nil)
	for i, l := range strings.Split(composed, "\n") {
		measured[i].height = make([]float64, len(l))
		for k := range l {
			measured[i].height[k] = 32 // capitals
			if l[k] >= '0' && l[k] <= '9' {
				measured[i].height[k] = 34.5
			}
		}
	}
	if doc, _, _, ok := choose(measured, [][]ocrLine{ocr(misread...)}); !ok || strings.Join(doc.Lines, "\n") != composed {
		t.Errorf("heights did not settle O against 0: ok %v", ok)
	}

	// Tesseract inserting a character is aligned away.
	extra := []string{lines[0][:10] + "K" + lines[0][10:], lines[1]}
	if _, agreed, _, ok := choose(reading(lines, 0.1, nil), [][]ocrLine{ocr(extra...)}); !ok || agreed < 0.98 {
		t.Errorf("an inserted character broke the alignment: ok %v agreed %v", ok, agreed)
	}
}

func TestAlign(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want []int
	}{
		{"AB<C", "AB<C", []int{0, 1, 2, 3}},
		{"AB<<C", "ABX<<C", []int{0, 1, 3, 4, 5}},
		{"AB<<C", "AB<C", []int{0, 1, -1, 2, 3}},
		{"ABC", "", []int{-1, -1, -1}},
	} {
		if got, _ := align(c.a, c.b); !slices.Equal(got, c.want) {
			t.Errorf("align(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	// Beside a character Tesseract invented, the pairing is one of two
	// that cost alike: the matcher's misread Q is not taken as read Q. A
	// filler invented in a run of fillers pairs no other way.
	for _, c := range []struct {
		a, b string
		want []bool
	}{
		{"UZQQ5", "UZGQS5", []bool{false, false, true, false, false}},
		{"AB<<C", "AB<<<C", []bool{false, false, false, false, false}},
	} {
		if _, got := align(c.a, c.b); !slices.Equal(got, c.want) {
			t.Errorf("align(%q, %q) loose %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// Tesseract's TSV: words gathered into lines in reading order, with the
// lowest confidence and the line's middle row.
func TestParseTSV(t *testing.T) {
	tsv := "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n" +
		"1\t1\t0\t0\t0\t0\t0\t0\t100\t100\t-1\t\n" +
		"5\t1\t1\t1\t2\t1\t0\t50\t40\t20\t80\tL2\n" +
		"5\t1\t1\t1\t1\t1\t0\t10\t40\t20\t95\tP<NLD\n" +
		"5\t1\t1\t1\t1\t2\t50\t10\t40\t20\t70\tDE<<JAN\n" +
		"5\t1\t1\t1\t1\t3\t90\t10\t40\t20\t60\t \n" +
		"5\t1\t1\t1\t3\tbroken\n"
	got := parseTSV([]byte(tsv))
	if len(got) != 2 || got[0].text != "P<NLDDE<<JAN" || got[0].conf != 70 || got[0].mid != 20 || got[1].text != "L2" || got[1].mid != 60 {
		t.Errorf("parseTSV: %+v", got)
	}
}

// What the fields' rules and the glyphs' heights settle where neither
// reader is sure.
func TestChooseSettles(t *testing.T) {
	lines := composed(t, 9, mrz.TD3, func(f *mrz.Fields) { f.Surname, f.GivenNames, f.OptionalData = "JONES", "YOUSSEF", "" })
	whole := strings.Join(lines, "\n")

	// Every filler after the name's first three in doubt against a C, more
	// of them than maxOpen, Tesseract reading them K: after three fillers
	// in a row only fillers may follow, so they settle.
	end := len("P<" + lines[0][2:5] + "JONES<<YOUSSEF")
	doubt := map[[2]int]byte{}
	tess := []byte(lines[0])
	for k := end + 3; k < len(lines[0]); k++ {
		doubt[[2]int{0, k}] = 'C'
		tess[k] = 'K'
	}
	if len(doubt) <= maxOpen {
		t.Fatalf("only %d fillers in doubt", len(doubt))
	}
	cells := reading(lines, 0.9, doubt)
	if doc, _, _, ok := choose(cells, [][]ocrLine{ocr(string(tess), lines[1])}); !ok || strings.Join(doc.Lines, "\n") != whole {
		t.Errorf("trailing fillers in doubt not settled: ok %v", ok)
	}
	// A letter a line's first filler could also be (a one-letter name
	// after a single filler) is not settled by the padding: a retake.
	doubt = map[[2]int]byte{{0, end}: 'C'}
	if _, _, _, ok := choose(reading(lines, 0.9, doubt), nil); ok {
		t.Error("read a filler that may have been a one-letter name")
	}

	// The personal number's check digit read as an O with a filler for
	// runner-up: where only a digit or a filler may stand, the O is taken
	// as the 0 it looks like, not dropped — and with the personal number
	// empty, 0 and '<' both pass, so without heights it is a retake.
	if lines[1][42] != '0' && lines[1][42] != '<' {
		t.Fatalf("personal number check digit %q", lines[1][42])
	}
	read := []string{lines[0], lines[1][:42] + "O" + lines[1][43:]}
	truth := lines[1][:42] + "0" + lines[1][43:]
	cells = reading(read, 0.9, map[[2]int]byte{{1, 42}: '<'})
	if doc, _, _, ok := choose(cells, nil); ok {
		t.Errorf("read %q where 0 and < both pass", doc.Lines[1])
	}
	// Measured digit-tall, the glyph is the 0 (a chevron stands lower
	// than a capital, a digit higher).
	measure(cells, read)
	cells[1].height[42] = 34.5
	if doc, _, _, ok := choose(cells, nil); !ok || doc.Lines[1] != truth {
		t.Errorf("heights did not settle the check digit: ok %v", ok)
	}
	// The same with the name's trailing fillers in doubt as well: they
	// settle, and the check digit's height is still its own.
	for k := end + 3; k < len(lines[0]); k++ {
		cells[0].second = cells[0].second[:k] + "C" + cells[0].second[k+1:]
		cells[0].margin[k] = 0.05
	}
	if doc, _, _, ok := choose(cells, nil); !ok || doc.Lines[1] != truth {
		t.Errorf("heights mixed up once the fillers settled: ok %v", ok)
	}
	// Measured filler-low, it is the filler.
	cells[1].height[42] = 28
	if doc, _, _, ok := choose(cells, nil); !ok || doc.Lines[1] != lines[1][:42]+"<"+lines[1][43:] {
		t.Errorf("heights did not settle the filler: ok %v", ok)
	}
}

// document is the MRZ lines of a random document of format numbered
// number, with no optional data.
func document(t *testing.T, seed uint64, format mrz.Format, number string) []string {
	t.Helper()
	return composed(t, seed, format, func(f *mrz.Fields) { f.DocumentNumber, f.OptionalData = number, "" })
}

// composed is the MRZ lines of a random document of format with set's
// changes to its fields.
func composed(t *testing.T, seed uint64, format mrz.Format, set func(*mrz.Fields)) []string {
	t.Helper()
	f := docgen.RandomIdentity(rand.New(rand.NewPCG(seed, seed)), format).Fields
	set(&f)
	c, err := mrz.Compose(f)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(c, "\n")
}

// passesSwapped fails t unless lines with line i replaced by swapped parse: the
// swap is one no check digit sees.
func passesSwapped(t *testing.T, lines []string, i int, swapped string) {
	t.Helper()
	other := slices.Clone(lines)
	other[i] = swapped
	if _, err := mrz.Parse(strings.Join(other, "\n")); err != nil {
		t.Fatalf("%q does not pass: %v", swapped, err)
	}
}

// heightCase is the heights of some glyphs of a line and what is read
// with them: want, the line, or "" for a retake.
type heightCase struct {
	name string
	h    []float64
	want string
}

// readHeights gives lines' glyphs the heights OCR-B's stand at, then, per
// case, the case's heights to line's glyphs at pos, and checks the read.
func readHeights(t *testing.T, lines []string, cells []cellRead, tess [][]ocrLine, line int, pos []int, cases []heightCase) {
	t.Helper()
	for _, c := range cases {
		measure(cells, lines)
		for j, k := range pos {
			cells[line].height[k] = c.h[j]
		}
		doc, _, _, ok := choose(cells, tess)
		switch {
		case c.want == "" && ok:
			t.Errorf("%s: read %q, want a retake", c.name, doc.Lines[line])
		case c.want != "" && (!ok || doc.Lines[line] != c.want):
			t.Errorf("%s: ok %v, want %q", c.name, ok, c.want)
		}
	}
}

// Two I/1 swaps at weights 7 and 3 cancel in every check digit: "II" and
// "11" both pass. Heights decide only where they refute the other reading
// at both characters; one glyph measured digit-tall beside one that could
// be either is a retake, not a read (a held-out phone photo was once read
// "11" for "II" on the height of one blurred I).
func TestHeightsRefuteEveryDifference(t *testing.T) {
	lines := document(t, 10, mrz.TD3, "AX6M22II4")
	if lines[1][6:8] != "II" {
		t.Fatalf("document number at %q", lines[1][:9])
	}
	ones := lines[1][:6] + "11" + lines[1][8:]
	passesSwapped(t, lines, 1, ones)
	cells := reading(lines, 0.9, map[[2]int]byte{{1, 6}: '1', {1, 7}: '1'})
	readHeights(t, lines, cells, [][]ocrLine{ocr(lines[0], ones)}, 1, []int{6, 7}, []heightCase{
		{"both capital-tall", []float64{32, 32}, lines[1]},
		{"both digit-tall", []float64{34.5, 34.5}, ones},
		{"one digit-tall, one between", []float64{33.3, 34.5}, ""},
		{"one capital-tall, one between", []float64{32, 33.3}, ""},
		{"neither told", []float64{33.3, 33.3}, ""},
	})
}

// An O and a 0 swapped both ways at equal weights cancel too ("KO7P0…"
// and "K07PO…"); where one glyph's height says digit and the other's says
// nothing, the digit must stand clearly taller than the letter beside it.
func TestHeightsTellOFromZeroBesideIt(t *testing.T) {
	lines := document(t, 11, mrz.TD3, "KO7P0AQ91")
	passesSwapped(t, lines, 1, lines[1][:1]+"07PO"+lines[1][5:])
	// The O at 1, the 0 at 4.
	readHeights(t, lines, reading(lines, 0.9, nil), nil, 1, []int{1, 4}, []heightCase{
		{"the 0 clearly taller", []float64{33.3, 34.6}, lines[1]},
		{"the 0 barely taller", []float64{33.5, 34.0}, ""},
	})
}

// A card's first line may hold too few digits to measure a digit's height
// by (KN5JKH000 has two besides the zeros); it borrows the reference from
// the next line, printed in the same type. Two O/0 swaps at weights 7 and
// 3 then read as the heights say, and as a retake where they say nothing.
func TestHeightsBorrowedFromTheNextLine(t *testing.T) {
	lines := document(t, 47, mrz.TD1, "KN5JKH000")
	if lines[0][11:14] != "000" {
		t.Fatalf("document number at %q", lines[0][5:14])
	}
	letters := lines[0][:11] + "OO" + lines[0][13:]
	passesSwapped(t, lines, 0, letters)
	readHeights(t, lines, reading(lines, 0.9, nil), nil, 0, []int{11, 12}, []heightCase{
		{"digit-tall", []float64{round0, round0}, lines[0]},
		{"capital-tall", []float64{roundO, roundO}, letters},
		{"neither told", []float64{33.6, 33.6}, ""},
	})
}

// Two 0s read as O both (weights 7 and 3 cancel) have no glyph of the
// other kind to stand beside: unless both heights rule the other reading
// out, a retake — however close the undecided glyph stands to the decided
// one (a phone photo's II, the I's measured 35 and 36 pixels against
// capitals of 33 and digits of 36, would otherwise read 11).
func TestHeightsSameKindIsARetake(t *testing.T) {
	lines := document(t, 12, mrz.TD3, "KX700AB91")
	letters := lines[1][:3] + "OO" + lines[1][5:]
	passesSwapped(t, lines, 1, letters)
	readHeights(t, lines, reading(lines, 0.9, nil), nil, 1, []int{3, 4}, []heightCase{
		{"both digit-tall", []float64{round0, round0}, lines[1]},
		{"both capital-tall", []float64{roundO, roundO}, letters},
		{"one digit-tall, one close beside it", []float64{round0, 33.75}, ""},
		{"one capital-tall, one close beside it", []float64{roundO, 33.45}, ""},
	})
}

// An O stands taller than the flat capitals the references are measured
// on (OCR-B's round glyphs overshoot the cap line and the baseline): two
// Os read as 0s alike (weights 7 and 3) are told by heights that allow for
// it — held to the capitals' quarter of the way, an O lay between capital
// and digit and a card's D4GODH8OQ was a retake on its clean photo.
func TestHeightsRoundGlyphsOvershoot(t *testing.T) {
	lines := document(t, 15, mrz.TD1, "D4GODH8OQ")
	digits := lines[0][:8] + "0" + lines[0][9:12] + "0" + lines[0][13:]
	passesSwapped(t, lines, 0, digits)
	readHeights(t, lines, reading(lines, 0.9, nil), nil, 0, []int{8, 12}, []heightCase{
		{"Os as tall as Os", []float64{roundO, roundO}, lines[0]},
		{"0s as tall as 0s", []float64{round0, round0}, digits},
		{"between", []float64{33.6, 33.6}, ""},
	})
}

// Three swaps, O O 0 against 0 0 O at weights 1, 7 and 3: the glyph read
// as the digit must stand taller than each read as a letter by half the
// digit–capital difference.
func TestHeightsThreeSwapsSideBySide(t *testing.T) {
	lines := document(t, 13, mrz.TD3, "PLO6YVO0V")
	passesSwapped(t, lines, 1, lines[1][:2]+"0"+lines[1][3:6]+"0O"+lines[1][8:])
	// The Os at 2 and 6, the 0 at 7.
	readHeights(t, lines, reading(lines, 0.9, nil), nil, 1, []int{2, 6, 7}, []heightCase{
		{"the 0 clearly taller", []float64{33.4, 33.4, 34.7}, lines[1]},
		{"the 0 barely taller", []float64{33.4, 33.4, 33.8}, ""},
	})
}

// A K weighs what a filler weighs in every check digit, and two fillers
// before it are not the three that end a field: a card's optional data
// …469<<<<<< read …469<<K<<< by both readers passes every check. A K or
// C among fillers is open with the filler, and its height decides.
func TestHeightsFillerReadAsK(t *testing.T) {
	lines := document(t, 14, mrz.TD1, "GOV2T9318")
	if lines[0][15:] != strings.Repeat("<", 15) {
		t.Fatalf("optional data %q", lines[0][15:])
	}
	k := lines[0][:17] + "K" + lines[0][18:]
	passesSwapped(t, lines, 0, k)
	cells := reading([]string{k, lines[1], lines[2]}, 0.9, nil)
	readHeights(t, lines, cells, [][]ocrLine{ocr(k, lines[1], lines[2])}, 0, []int{17}, []heightCase{
		{"filler-low", []float64{fillerInk}, lines[0]},
		{"capital-tall", []float64{capitalInk}, k},
		{"neither told", []float64{(fillerInk + capitalInk) / 2}, ""},
	})
}

// The same at the start of a field, after another field's fillers: a
// TD1's second optional data after the nationality D<< (a German card),
// where both readers took its first filler for a K (a phone photo of seed
// 13, card 119, had been read so, wrong).
func TestHeightsFillerReadAsKAtAFieldsStart(t *testing.T) {
	lines := composed(t, 15, mrz.TD1, func(f *mrz.Fields) { f.Nationality, f.OptionalData = "D", "" })
	if lines[1][15:18] != "D<<" || lines[1][18:29] != strings.Repeat("<", 11) {
		t.Fatalf("line 2 %q", lines[1])
	}
	k := lines[1][:18] + "K" + lines[1][19:]
	passesSwapped(t, lines, 1, k)
	cells := reading([]string{lines[0], k, lines[2]}, 0.9, nil)
	readHeights(t, lines, cells, [][]ocrLine{ocr(lines[0], k, lines[2])}, 1, []int{18}, []heightCase{
		{"filler-low", []float64{fillerInk}, lines[1]},
		{"capital-tall", []float64{capitalInk}, k},
		{"neither told", []float64{(fillerInk + capitalInk) / 2}, ""},
	})
}

// A blurred band's thin glyphs' heights say nothing: blur spreads their
// ends, and on this phone photo (seed 12's passport 46, characters 19
// pixels high) both Is of AX6M22II4 measure a 1's height on the larger
// band, so II and 11, whose weights cancel in the check digit, would be
// told apart by heights that are wrong. It is a retake.
func TestBlurredBandIsNoRuler(t *testing.T) {
	s, err := docgen.GenerateSample(12, 46, docgen.Phone)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.MRZ, "AX6M22II4") {
		t.Fatalf("the generator drew another document: %q", s.MRZ)
	}
	res := read(t, Reader{}, s.JPEG)
	if res.Quality.Sharpness >= blurredBand || res.Outcome != Retake {
		t.Errorf("sharpness %.3f, %s %q: want a blurred band's retake", res.Quality.Sharpness, res.Outcome, res.MRZ)
	}
}

// The heights are measured again on a band drawn twice as large, in half
// pixels; where that band's cells do not line up with the matcher's (here
// its corners moved three characters along), the matcher's own are kept.
func TestRefinedHeights(t *testing.T) {
	band, ph, _, sets := straightBand(t, 7)
	coarse, ok := matchLines(band.straight, sets, band.chars, band.n, false, inkK)
	if !ok || band.sharpness < blurredBand {
		t.Fatalf("band not read (sharpness %.2f)", band.sharpness)
	}
	heights := func(cs []cellRead) [][]float64 {
		var out [][]float64
		for _, c := range cs {
			out = append(out, slices.Clone(c.height))
		}
		return out
	}
	halves := func(hs [][]float64) (n int) {
		for _, l := range hs {
			for _, h := range l {
				if h != float64(int(h)) {
					n++
				}
			}
		}
		return n
	}
	before := heights(coarse)
	refineHeights(coarse, ph, band.quad, band.upsideDown, band.sharpness, inkK)
	if after := heights(coarse); halves(before) != 0 || halves(after) < 10 || coarse[0].blurred {
		t.Errorf("refined heights: %d half pixels before, %d after", halves(before), halves(after))
	}
	moved := band.quad
	step := pt{(moved[1].x - moved[0].x) / float64(band.chars+2), (moved[1].y - moved[0].y) / float64(band.chars+2)}
	for i := range moved {
		moved[i] = pt{moved[i].x + 3*step.x, moved[i].y + 3*step.y}
	}
	kept, _ := matchLines(band.straight, sets, band.chars, band.n, false, inkK)
	refineHeights(kept, ph, moved, band.upsideDown, band.sharpness, inkK)
	if !slices.EqualFunc(heights(kept), before, slices.Equal) {
		t.Errorf("heights from a band off by three characters replaced the matcher's")
	}
}

// A clean white scan's band is blown-out paper with dark print: no glare.
// A reflection washes the print out too: the columns it covers are glare.
func TestGlareIsAReflectionNotWhitePaper(t *testing.T) {
	const chars, lines = 44, 2
	band := image.NewGray(image.Rect(0, 0, (chars+2)*pitch, lines*pitch))
	for i := range band.Pix {
		band.Pix[i] = 255
	}
	for c := range chars { // a stroke in every character's column
		for y := 6; y < lines*pitch-6; y++ {
			for x := (c+1)*pitch + 14; x < (c+1)*pitch+20; x++ {
				band.Pix[y*band.Stride+x] = 20
			}
		}
	}
	if g := glare(band); g != 0 {
		t.Fatalf("a white scan: glare %.3f, want 0", g)
	}
	for y := range lines * pitch { // a reflection over 11 characters lifts their print
		for x := 10 * pitch; x < 21*pitch; x++ {
			band.Pix[y*band.Stride+x] = max(band.Pix[y*band.Stride+x], 230)
		}
	}
	if g := glare(band); g < 0.2 || g > 0.3 {
		t.Fatalf("a reflection over a quarter of the code: glare %.3f", g)
	}
}

// zeroNumber is a passport's MRZ whose document number is a specimen's
// A0000000 and whose dates hold zeros.
func zeroNumber(t *testing.T) []string {
	t.Helper()
	return composed(t, 16, mrz.TD3, func(f *mrz.Fields) {
		f.DocumentNumber, f.OptionalData = "A0000000", ""
		f.BirthDate, f.ExpiryDate = "660101", "300510" // zeros known by their field
	})
}

// shape gives the cells of lines the lead of the 0's shape over the O's
// their zeros and Os have (cellRead.zeroLead).
func shape(cells []cellRead, lines []string, zero, oh float64) {
	for i, l := range lines {
		cells[i].zeroLead = make([]float64, len(l))
		for k := range l {
			switch l[k] {
			case '0':
				cells[i].zeroLead[k] = zero
			case 'O':
				cells[i].zeroLead[k] = oh
			}
		}
	}
}

// A run of round glyphs in a document number (a specimen's A0000000,
// whose Os weigh what its zeros weigh in the check digit) is read as zeros
// when the run is one glyph and that glyph is the band's 0: as tall as the
// dates' zeros, or shaped like them where its print stands lower; an O
// among them, or shapes that do not tell on the band, leave it a retake.
func TestZeroRuns(t *testing.T) {
	lines := zeroNumber(t)
	run := []int{1, 2, 3, 4, 5, 6, 7}
	passesSwapped(t, lines, 1, "AOOOOOOO"+lines[1][8:])
	const zeroShape, ohShape = 1.0, -0.6
	cases := []struct {
		name      string
		h, lead   float64 // the run's glyphs' ink height and shape
		odd       int     // a glyph of the run shaped as an O (-1: none)
		zeroLeads float64 // the dates' zeros' shapes
		want      string
	}{
		{"as tall as the dates' zeros", round0, zeroShape, -1, zeroShape, lines[1]},
		{"lower, shaped as the zeros", round0 - 0.6*(digitInk-capitalInk), zeroShape, -1, zeroShape, lines[1]},
		{"lower, shaped as Os", round0 - 0.6*(digitInk-capitalInk), ohShape, -1, zeroShape, ""},
		{"lower, one shaped as an O", round0 - 0.6*(digitInk-capitalInk), zeroShape, 3, zeroShape, ""},
		{"lower, shapes alike on the band", round0 - 0.6*(digitInk-capitalInk), zeroShape, -1, ohShape + 0.3, ""},
	}
	for _, c := range cases {
		cells := reading(lines, 0.9, nil)
		measure(cells, lines)
		shape(cells, lines, c.zeroLeads, ohShape)
		for _, k := range run {
			cells[1].height[k], cells[1].zeroLead[k] = c.h, c.lead
		}
		if c.odd >= 0 {
			cells[1].zeroLead[c.odd] = ohShape
		}
		doc, _, _, ok := choose(cells, [][]ocrLine{ocr(lines...)})
		switch {
		case c.want == "" && ok:
			t.Errorf("%s: read %q, want a retake", c.name, doc.Lines[1])
		case c.want != "" && (!ok || doc.Lines[1] != c.want):
			t.Errorf("%s: ok %v, want %q", c.name, ok, c.want)
		}
	}
}

// A round glyph the matcher reads surely — its margin over every other
// glyph, the O and 0 included — is round, whatever Tesseract made of it
// (a D, a Q): it is open between O and 0 only, so the run it stands in
// stays whole and settles.
func TestRoundWhereTheMatcherIsSure(t *testing.T) {
	lines := zeroNumber(t)
	cells := reading(lines, 0.9, nil)
	measure(cells, lines)
	// The run lower than the dates' zeros, shaped as they are (TestZeroRuns).
	shape(cells, lines, 1, 0)
	for k := 1; k <= 7; k++ {
		cells[1].height[k] = round0 - 0.6*(digitInk-capitalInk)
	}
	tess := []byte(lines[1])
	tess[3], tess[6] = 'D', 'Q' // breaking the run in three

	if doc, _, _, ok := choose(cells, [][]ocrLine{ocr(lines[0], string(tess)), ocr(lines[0], string(tess))}); !ok || doc.Lines[1] != lines[1] {
		t.Errorf("ok %v, want %q", ok, lines[1])
	}
}

// A TD2 (two lines of 36: ICAO's specimen of Doc 9303 part 6) is read
// with the document codes of a card.
func TestChooseTD2(t *testing.T) {
	lines := []string{"I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<", "D231458907UTO7408122F1204159<<<<<<<6"}
	cells := reading(lines, 0.9, nil)
	measure(cells, lines)
	if doc, _, _, ok := choose(cells, [][]ocrLine{ocr(lines...)}); !ok || doc.Format != mrz.TD2 || strings.Join(doc.Lines, "\n") != strings.Join(lines, "\n") {
		t.Errorf("TD2 not read: ok %v", ok)
	}
}

// Faint print — a laminate over the page, a worn ribbon — stands a few
// tens of grey levels below the paper: the usual ink threshold loses its
// glyphs, or breaks them in halves no row chains, and the lower one
// finds and reads them.
func TestFaintPrint(t *testing.T) {
	cam := docgen.Camera{Megapixels: 1, Scale: 0.8, Light: 1, Noise: 1, Blur: 0.3, JPEGQuality: 92}
	b, id := photo(t, 21, mrz.TD3, cam)
	g := decoded(t, b)
	for i, p := range g.Pix {
		g.Pix[i] = 255 - uint8(float64(255-p)*faintContrast)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, g, &jpeg.Options{Quality: 92}); err != nil {
		t.Fatal(err)
	}
	res := read(t, Reader{}, buf.Bytes())
	if res.Outcome != Read || res.MRZ != id.MRZ {
		t.Fatalf("read %s %s %q, want %q (quality %+v)", res.Outcome, res.Reason, res.MRZ, id.MRZ, res.Quality)
	}
}

// faintContrast is the share of its contrast with the paper faint print
// keeps in TestFaintPrint.
const faintContrast = 0.3

// Both readers reading a document number's 85 as BS — 8 and B, 5 and S
// at weights 7 and 3 cancel in its check digit — is a wrong read the
// heights refute: glyphs Tesseract settled (the matcher unsure: its S a
// hair ahead of a 3) read as letters yet standing as tall as digits are
// opened with their look-alikes, and the heights decide. A G never is:
// G and 6 weigh alike in every check digit, and a round G measures a
// digit's height on a blurred photo.
func TestHeightsRefuteWhatBothRead(t *testing.T) {
	lines := document(t, 17, mrz.TD3, "85W2ADZKC")
	misread := slices.Clone(lines)
	misread[1] = "BS" + lines[1][2:]
	passesSwapped(t, lines, 1, misread[1])
	cells := reading(misread, 0.9, map[[2]int]byte{{1, 0}: 'D', {1, 1}: '3'})
	readHeights(t, lines, cells, [][]ocrLine{ocr(misread...)}, 1, []int{0, 1}, []heightCase{
		{"digit-tall", []float64{digitInk, digitInk}, lines[1]},
		{"capital-tall", []float64{capitalInk, capitalInk}, misread[1]},
	})
	// The matcher sure of its letters alone: the heights are not asked.
	sure := reading(misread, 0.9, nil)
	readHeights(t, lines, sure, [][]ocrLine{ocr(misread...)}, 1, []int{0, 1}, []heightCase{
		{"sure, digit-tall", []float64{digitInk, digitInk}, misread[1]},
	})

	gs := document(t, 19, mrz.TD3, "GJX89N3ZB")
	sixes := slices.Clone(gs)
	sixes[1] = "6" + gs[1][1:]
	passesSwapped(t, gs, 1, sixes[1])
	cells = reading(gs, 0.9, map[[2]int]byte{{1, 0}: 'Q'})
	readHeights(t, gs, cells, [][]ocrLine{ocr(gs...)}, 1, []int{0}, []heightCase{
		{"a G digit-tall", []float64{digitInk}, gs[1]},
	})
}

// A digit both readers read where only a letter may stand (ITA's T read
// 1 by both, the matcher's runner-up a T) is not settled as the 1 it can
// never be: taken as its look-alike beside the other options, the
// country codes decide.
func TestConfirmedDigitInALetterField(t *testing.T) {
	lines := composed(t, 18, mrz.TD1, func(f *mrz.Fields) { f.Nationality = "ITA" })
	if lines[1][15:18] != "ITA" {
		t.Fatalf("nationality at %q", lines[1][15:18])
	}
	misread := slices.Clone(lines)
	misread[1] = lines[1][:16] + "1" + lines[1][17:]
	cells := reading(misread, 0.9, map[[2]int]byte{{1, 16}: 'T'})
	measure(cells, lines)
	if doc, _, _, ok := choose(cells, [][]ocrLine{ocr(misread...)}); !ok || doc.Lines[1] != lines[1] {
		t.Errorf("ok %v, want %q", ok, lines[1])
	}
}

// An O rises above the capitals and may measure a digit's height where
// the digits stand little above them. Its height alone refutes no
// reading: the Z/2 swaps of a personal number (weights 7 and 3, which
// cancel) are told by their own heights, the O standing digit-tall
// beside them in both readings; and an O/0 swap is told side by side, the
// 0 clearly taller and shaped no less like one — not on the heights alone.
func TestHeightsORisingToADigitsHeight(t *testing.T) {
	lines := composed(t, 20, mrz.TD3, func(f *mrz.Fields) { f.DocumentNumber, f.OptionalData = "O6KMTPJ0K", "238983626" })
	zs := slices.Clone(lines)
	zs[1] = lines[1][:28] + "Z" + lines[1][29:35] + "Z" + lines[1][36:]
	passesSwapped(t, lines, 1, zs[1])
	cells := reading(zs, 0.9, map[[2]int]byte{{1, 28}: '2', {1, 35}: '2'})
	readHeights(t, lines, cells, [][]ocrLine{ocr(lines...), ocr(lines...)}, 1, []int{0}, []heightCase{
		{"the O digit-tall", []float64{digitInk}, lines[1]},
	})

	swap := document(t, 11, mrz.TD3, "KO7P0AQ91") // the O at 1, the 0 at 4
	passesSwapped(t, swap, 1, swap[1][:1]+"07PO"+swap[1][5:])
	cells = reading(swap, 0.9, nil)
	for _, c := range []struct {
		name     string
		oh, zero float64 // the glyphs' leads of the 0's shape over the O's
		want     string
	}{
		{"the 0 taller and shaped so", -1, 0.5, swap[1]},
		{"the 0 taller, shaped as an O", 0.5, -1, ""},
	} {
		cells[1].zeroLead = make([]float64, len(swap[1]))
		cells[1].zeroLead[1], cells[1].zeroLead[4] = c.oh, c.zero
		readHeights(t, swap, cells, nil, 1, []int{1, 4}, []heightCase{
			{c.name, []float64{digitInk - 0.5, round0 + 0.5}, c.want},
		})
	}
}

// A blurred run of fillers after a name reads as Cs and Ks to Tesseract
// and leaves the matcher unsure of every chevron, too many to try; those
// the matcher reads as fillers and that stand a filler's height are ones.
func TestFillersByHeight(t *testing.T) {
	lines := document(t, 9, mrz.TD3, "L898902C3")
	end := strings.LastIndexFunc(lines[0], func(r rune) bool { return r != '<' }) + 1
	doubt := map[[2]int]byte{}
	tess := []byte(lines[0])
	for k := end; k < len(lines[0]); k++ {
		doubt[[2]int{0, k}] = 'C'
		tess[k] = 'K'
	}
	if len(doubt) <= maxOpen {
		t.Fatalf("only %d fillers in doubt", len(doubt))
	}
	cells := reading(lines, 0.9, doubt)
	if _, _, _, ok := choose(cells, [][]ocrLine{ocr(string(tess), lines[1])}); ok {
		t.Error("read fillers whose heights were not measured")
	}
	measure(cells, lines)
	if doc, _, _, ok := choose(cells, [][]ocrLine{ocr(string(tess), lines[1])}); !ok || !slices.Equal(doc.Lines, lines) {
		t.Errorf("fillers standing a filler's height not settled: ok %v", ok)
	}
}

// A card among pages printed with rows of dashes at several angles (an
// offset-printed card of the second printing path, seed 5): the dashes'
// directions outnumber the card's rows many times over, and its rows were
// not looked for.
func TestCardAmongDashedPages(t *testing.T) {
	s, err := docgen.GenerateSample(5, 141, docgen.Offset)
	if err != nil {
		t.Fatal(err)
	}
	if res := read(t, Reader{}, s.JPEG); res.Outcome != Read || res.MRZ != s.MRZ {
		t.Errorf("read %s %s %q, want %q", res.Outcome, res.Reason, res.MRZ, s.MRZ)
	}
}

// A rendering that invents a character beside a misread one confirms
// nothing there: a card's document number …GQ5… read …QQ5… by the
// matcher (its runner-up the G) and …GQS5… by Tesseract pairs the
// matcher's first Q with Tesseract's Q as cheaply as with its G, and G
// and Q weigh alike in every check digit. It is a retake, not QQ.
func TestInventedCharacterConfirmsNothing(t *testing.T) {
	lines := document(t, 21, mrz.TD1, "AD5UZGQ5X")
	if lines[0][10:13] != "GQ5" {
		t.Fatalf("document number at %q", lines[0][5:14])
	}
	misread := slices.Clone(lines)
	misread[0] = lines[0][:10] + "Q" + lines[0][11:]
	passesSwapped(t, lines, 0, misread[0])
	cells := reading(misread, 0.9, map[[2]int]byte{{0, 10}: 'G'})
	measure(cells, lines)
	invented := lines[0][:12] + "S" + lines[0][12:]
	if doc, _, _, ok := choose(cells, [][]ocrLine{ocr(invented, lines[1], lines[2])}); ok {
		t.Errorf("read %q", doc.Lines[0])
	}
}
