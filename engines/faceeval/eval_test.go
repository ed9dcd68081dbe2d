package faceeval

import (
	"bytes"
	"image"
	"image/color"
	"math"
	"testing"
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
