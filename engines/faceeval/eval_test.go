package faceeval

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/kycflow/kycflow/engines/selfie"
)

func TestRatesAndEqualError(t *testing.T) {
	genuine := []float64{0.30, 0.40, 0.50, 0.70}
	impostor := []float64{0.55, 0.80, 0.90, 0.95}
	fnmr, fmr := Rates(genuine, impostor, 0.6)
	if fnmr != 0.25 || fmr != 0.25 {
		t.Errorf("at 0.6: false non-match %.2f, false match %.2f; want 0.25 each", fnmr, fmr)
	}
	rate, at := equalError(genuine, impostor)
	if math.Abs(rate-0.25) > 1e-9 || at < 0.55 || at > 0.70 {
		t.Errorf("equal error %.3f at %.3f; want 0.25 between 0.55 and 0.70", rate, at)
	}
}

// The slid spoof moves the picture as a hand would: no move leaves it as
// it is; a shift carries a pixel by the shift.
func TestAffine(t *testing.T) {
	im := image.NewRGBA(image.Rect(0, 0, 40, 30))
	im.Set(10, 12, color.RGBA{255, 0, 0, 255})
	same := affine(im, 0, 0, 1, 0).(*image.RGBA)
	if !bytes.Equal(same.Pix, im.Pix) {
		t.Error("the identity moved the picture")
	}
	moved := affine(im, 5, -2, 1, 0)
	if r, _, _, _ := moved.At(15, 10).RGBA(); r>>8 != 255 {
		t.Error("a shift of (5, -2) did not carry (10, 12) to (15, 10)")
	}
}

// A folder without labels.tsv is labelled by its folders, and their PGM
// photos decode (a comment in the header, as some writers put one); a
// PGM of more than 8 bits is refused.
func TestFoldersOfPGM(t *testing.T) {
	dir := t.TempDir()
	pix := []byte{0, 64, 128, 255, 10, 20}
	for _, f := range []string{"s1/1.pgm", "s1/2.pgm", "s2/1.pgm"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(dir, f), append([]byte("P5\n# made here\n3 2\n255\n"), pix...), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "README"), []byte("not a photo"), 0o644)
	photos, err := ReadLabels(dir)
	if err != nil || len(photos) != 3 || photos[0] != (Photo{File: "s1/1.pgm", Person: "s1"}) || photos[2].Person != "s2" {
		t.Fatalf("labels by folder: %v %v", photos, err)
	}
	im, err := decode(filepath.Join(dir, "s2/1.pgm"))
	if err != nil {
		t.Fatal(err)
	}
	g, ok := im.(*image.Gray)
	if !ok || g.Bounds().Dx() != 3 || g.Bounds().Dy() != 2 || !bytes.Equal(g.Pix, pix) {
		t.Fatalf("decoded %T %v", im, im.Bounds())
	}
	if _, _, err := image.Decode(bytes.NewReader([]byte("P5 3 2 65535\n......"))); err == nil {
		t.Error("a 16-bit PGM decoded")
	}
}

// At a tenant's thresholds (similarities): an impostor pair above clear
// is a false match; a genuine pair under clear a false non-match, refused
// under fail and reviewed between; the JSON carries the names
// kycflow face eval --json promises.
func TestSummarize(t *testing.T) {
	r := Report{Genuine: []float64{0.2, 0.45, 0.55, 0.65}, Impostor: []float64{0.45, 0.7, 0.8, 0.9}, EER: 0.25, NoFace: 2}
	s := Summarize(r, selfie.Thresholds{Clear: 0.5, Fail: 0.4})
	if s.Genuine != 4 || s.Impostor != 4 || s.FMR != 0.25 || s.FNMR != 0.5 || s.Rejected != 0.25 || s.EER != 0.25 || s.Undetected != 2 {
		t.Errorf("%+v", s)
	}
	b, _ := json.Marshal(s)
	var keys map[string]any
	json.Unmarshal(b, &keys)
	for _, k := range []string{"genuine", "impostor", "threshold", "fmr", "fnmr", "eer", "undetected"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("no %q in %s", k, b)
		}
	}
}
