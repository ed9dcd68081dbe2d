package mrzread

import (
	"image"
	"math"
)

// pitch is a character's width in the straightened band, pixels: OCR-B
// at about 32 pixels high, the size Tesseract reads best.
const pitch = 36

// rectify straightens the band within quad (in g) into an image of chars
// columns of pitch pixels, its height as the band's proportions say.
func rectify(g *image.Gray, quad [4]pt, chars, lines int) *image.Gray {
	return rectifyAt(g, quad, chars, lines, pitch)
}

// rectifyAt is rectify with columns of p pixels (refineHeights draws the
// band larger).
func rectifyAt(g *image.Gray, quad [4]pt, chars, lines, p int) *image.Gray {
	w := (chars + 2) * p // a pitch of margin either side (zone.quad)
	qw := math.Hypot(quad[1].x-quad[0].x, quad[1].y-quad[0].y)
	qh := math.Hypot(quad[3].x-quad[0].x, quad[3].y-quad[0].y)
	h := int(float64(w) * qh / qw)
	h = min(max(h, lines*p), lines*p*3)
	return warp(g, squareTo(quad, float64(w), float64(h)), w, h)
}

func percentile(v []int, p float64) int {
	if len(v) == 0 {
		return 0
	}
	s := append([]int(nil), v...)
	for i := 1; i < len(s); i++ { // insertion sort: a few hundred values
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s[min(len(s)-1, int(p*float64(len(s))))]
}
