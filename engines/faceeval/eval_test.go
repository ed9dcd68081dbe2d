package faceeval

import (
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
