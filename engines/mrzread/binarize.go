package mrzread

import (
	"image"
	"math"
	"slices"
)

// window is g's neighbourhood statistics: the mean and standard
// deviation of the levels in a square of side 2r+1 around any pixel, from
// integral images (so the cost does not grow with r).
type window struct {
	w, h, r int
	sum, sq []float64 // integral images of the levels and their squares, a zero row and column in front
}

func newWindow(g *image.Gray, r int) window {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	iw := w + 1
	win := window{w: w, h: h, r: r, sum: make([]float64, iw*(h+1)), sq: make([]float64, iw*(h+1))}
	for y := range h {
		var rs, rq float64
		row := g.Pix[y*g.Stride:]
		for x := range w {
			v := float64(row[x])
			rs += v
			rq += v * v
			win.sum[(y+1)*iw+x+1] = win.sum[y*iw+x+1] + rs
			win.sq[(y+1)*iw+x+1] = win.sq[y*iw+x+1] + rq
		}
	}
	return win
}

// at is the mean and standard deviation around (x, y).
func (win window) at(x, y int) (mean, sd float64) {
	iw := win.w + 1
	x0, x1 := max(0, x-win.r), min(win.w, x+win.r+1)
	y0, y1 := max(0, y-win.r), min(win.h, y+win.r+1)
	n := float64((x1 - x0) * (y1 - y0))
	s := win.sum[y1*iw+x1] - win.sum[y0*iw+x1] - win.sum[y1*iw+x0] + win.sum[y0*iw+x0]
	q := win.sq[y1*iw+x1] - win.sq[y0*iw+x1] - win.sq[y1*iw+x0] + win.sq[y0*iw+x0]
	mean = s / n
	return mean, math.Sqrt(max(0, q/n-mean*mean))
}

// dark marks the pixels of g darker than their neighbourhood, by Sauvola's
// threshold over a square window of side 2r+1: ink under uneven light, on
// a coloured or patterned background.
func dark(g *image.Gray, r int, k float64) []bool {
	win := newWindow(g, r)
	out := make([]bool, win.w*win.h)
	for y := range win.h {
		for x := range win.w {
			m, sd := win.at(x, y)
			out[y*win.w+x] = float64(g.Pix[y*g.Stride+x]) < m*(1+k*(sd/128-1))
		}
	}
	return out
}

// level evens out g's light: each pixel is stretched between its
// neighbourhood's (a square of side 2r+1) darkest and brightest levels,
// estimated as the mean ∓ 1.5 standard deviations, so paper is white and
// ink black under a shadow or a gradient of light alike.
func level(g *image.Gray, r int) *image.Gray {
	win := newWindow(g, r)
	out := image.NewGray(image.Rect(0, 0, win.w, win.h))
	for y := range win.h {
		for x := range win.w {
			m, sd := win.at(x, y)
			sd = max(8, sd)
			v := (float64(g.Pix[y*g.Stride+x]) - (m - 1.5*sd)) / (3 * sd)
			out.Pix[y*win.w+x] = uint8(255 * min(1, max(0, v)))
		}
	}
	return out
}

// stretch spreads g's levels over 0–255 between its 1st and 75th
// percentiles: the paper, most of a band, turns white (Tesseract's page
// layout takes a grey box for a picture and reads no text in it).
func stretch(g *image.Gray) *image.Gray {
	var hist [256]int
	w, h := g.Rect.Dx(), g.Rect.Dy()
	for y := range h {
		for _, v := range g.Pix[y*g.Stride : y*g.Stride+w] {
			hist[v]++
		}
	}
	lo, hi := 0, 255
	for c := 0; lo < 255 && c+hist[lo] <= w*h/100; lo++ {
		c += hist[lo]
	}
	for c := 0; hi > lo && c+hist[hi] <= w*h/4; hi-- {
		c += hist[hi]
	}
	out := image.NewGray(image.Rect(0, 0, w, h))
	span := float64(max(1, hi-lo))
	for y := range h {
		for x, v := range g.Pix[y*g.Stride : y*g.Stride+w] {
			out.Pix[y*w+x] = uint8(255 * min(1, max(0, float64(int(v)-lo)/span)))
		}
	}
	return out
}

// unruled clears from a band's ink the row runs no glyph makes, longer
// than three pitches: rules and frames printed or drawn along the zone (a
// scanning app's box, a page's edge), which would join a line's rows.
func unruled(ink []bool, w, h int, pitch float64) []bool {
	out := slices.Clone(ink)
	for y := range h {
		run := 0
		for x := 0; x <= w; x++ {
			if x < w && ink[y*w+x] {
				run++
				continue
			}
			if float64(run) > 3*pitch {
				clear(out[y*w+x-run : y*w+x])
			}
			run = 0
		}
	}
	return out
}

// uncrossed clears from a band's ink the columns that cross the gaps
// between its text lines rs (a frame's side, a page's edge): no glyph
// reaches into them, and such a column would stand as a glyph at the
// line's end. A frame drawn in a photo breaks into dashes at the ink
// threshold, so a column counts as crossing where it or its neighbours
// within two pixels have ink in half of the gaps' rows.
func uncrossed(ink []bool, w int, rs [][2]int) {
	var gaps []int
	for i := 1; i < len(rs); i++ {
		for y := rs[i-1][1]; y < rs[i][0]; y++ {
			gaps = append(gaps, y)
		}
	}
	if len(gaps) < 4 {
		return
	}
	h := len(ink) / w
	crossing := make([]bool, w)
	for x := range w {
		n := 0
		for _, y := range gaps {
			for dx := max(0, x-2); dx <= min(w-1, x+2); dx++ {
				if ink[y*w+dx] {
					n++
					break
				}
			}
		}
		crossing[x] = 2*n >= len(gaps)
	}
	for x, c := range crossing {
		if c {
			for y := range h {
				ink[y*w+x] = false
			}
		}
	}
}
