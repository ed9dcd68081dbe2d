package mrzread

import (
	"image"
	"math"
)

// pt is a point in an image's pixel coordinates.
type pt struct{ x, y float64 }

// homography maps points of one plane to another (row-major 3 × 3).
type homography [9]float64

func (h homography) apply(p pt) pt {
	w := h[6]*p.x + h[7]*p.y + h[8]
	return pt{(h[0]*p.x + h[1]*p.y + h[2]) / w, (h[3]*p.x + h[4]*p.y + h[5]) / w}
}

// squareTo is the homography taking the rectangle (0,0)-(w,h) onto the
// quadrilateral q (corners in order: top-left, top-right, bottom-right,
// bottom-left), by Heckbert's unit-square mapping.
func squareTo(q [4]pt, w, h float64) homography {
	x0, y0, x1, y1, x2, y2, x3, y3 := q[0].x, q[0].y, q[1].x, q[1].y, q[2].x, q[2].y, q[3].x, q[3].y
	dx1, dx2, dx3 := x1-x2, x3-x2, x0-x1+x2-x3
	dy1, dy2, dy3 := y1-y2, y3-y2, y0-y1+y2-y3
	var a, b, c, d, e, f, g, hh float64
	if dx3 == 0 && dy3 == 0 { // affine
		a, b, c = x1-x0, x2-x1, x0
		d, e, f = y1-y0, y2-y1, y0
	} else {
		den := dx1*dy2 - dx2*dy1
		g = (dx3*dy2 - dx2*dy3) / den
		hh = (dx1*dy3 - dx3*dy1) / den
		a, b, c = x1-x0+g*x1, x3-x0+hh*x3, x0
		d, e, f = y1-y0+g*y1, y3-y0+hh*y3, y0
	}
	// From (u, v) in the unit square to q; scale the rectangle to it.
	return homography{a / w, b / h, c, d / w, e / h, f, g / w, hh / h, 1}
}

// sample is g's grey level at p, bilinear; white outside.
func sample(g *image.Gray, p pt) uint8 {
	x, y := p.x-0.5, p.y-0.5
	x0, y0 := int(math.Floor(x)), int(math.Floor(y))
	fx, fy := x-float64(x0), y-float64(y0)
	w, h := g.Rect.Dx(), g.Rect.Dy()
	at := func(xi, yi int) float64 {
		if xi < 0 || yi < 0 || xi >= w || yi >= h {
			return 255
		}
		return float64(g.Pix[yi*g.Stride+xi])
	}
	v := at(x0, y0)*(1-fx)*(1-fy) + at(x0+1, y0)*fx*(1-fy) + at(x0, y0+1)*(1-fx)*fy + at(x0+1, y0+1)*fx*fy
	return uint8(v + 0.5)
}

// warp is a w × h image whose pixel (x, y) is g at h(x, y).
func warp(g *image.Gray, h homography, w, ht int) *image.Gray {
	out := image.NewGray(image.Rect(0, 0, w, ht))
	for y := range ht {
		for x := range w {
			out.Pix[y*out.Stride+x] = sample(g, h.apply(pt{float64(x) + 0.5, float64(y) + 0.5}))
		}
	}
	return out
}

// rotation turns points of an image of size (w, h) by deg degrees about
// its centre into an image large enough to hold it whole: it returns the
// new size and the map from the new image back to the old.
func rotation(w, h int, deg float64) (nw, nh int, back func(pt) pt) {
	rad := deg * math.Pi / 180
	c, s := math.Cos(rad), math.Sin(rad)
	nw = int(math.Ceil(math.Abs(float64(w)*c) + math.Abs(float64(h)*s)))
	nh = int(math.Ceil(math.Abs(float64(w)*s) + math.Abs(float64(h)*c)))
	cx, cy, ncx, ncy := float64(w)/2, float64(h)/2, float64(nw)/2, float64(nh)/2
	back = func(p pt) pt {
		dx, dy := p.x-ncx, p.y-ncy
		return pt{cx + c*dx + s*dy, cy - s*dx + c*dy}
	}
	return nw, nh, back
}

// rotate is g turned by deg degrees (counter-clockwise on screen), whole.
func rotate(g *image.Gray, deg float64) *image.Gray {
	nw, nh, back := rotation(g.Rect.Dx(), g.Rect.Dy(), deg)
	out := image.NewGray(image.Rect(0, 0, nw, nh))
	for y := range nh {
		for x := range nw {
			out.Pix[y*out.Stride+x] = sample(g, back(pt{float64(x) + 0.5, float64(y) + 0.5}))
		}
	}
	return out
}

// scaleTo is g resampled to w × h (bilinear).
func scaleTo(g *image.Gray, w, h int) *image.Gray {
	sx, sy := float64(g.Rect.Dx())/float64(w), float64(g.Rect.Dy())/float64(h)
	out := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			out.Pix[y*out.Stride+x] = sample(g, pt{(float64(x) + 0.5) * sx, (float64(y) + 0.5) * sy})
		}
	}
	return out
}
