package face

import (
	"image"
	"image/draw"
	"math"
)

// picture is a photo as 8-bit RGB, decoded once.
type picture struct {
	w, h int
	rgb  []uint8
}

func newPicture(im image.Image) *picture {
	b := im.Bounds()
	rgba, ok := im.(*image.RGBA)
	if !ok || b.Min != (image.Point{}) {
		rgba = image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		draw.Draw(rgba, rgba.Bounds(), im, b.Min, draw.Src)
	}
	p := &picture{w: b.Dx(), h: b.Dy(), rgb: make([]uint8, 3*b.Dx()*b.Dy())}
	for y := range p.h {
		row := rgba.Pix[y*rgba.Stride:]
		for x := range p.w {
			copy(p.rgb[3*(y*p.w+x):3*(y*p.w+x)+3], row[4*x:4*x+3])
		}
	}
	return p
}

// Box is a rectangle in a photo's pixels.
type Box struct {
	X, Y, W, H float64
}

// Area is the box's area, 0 for an empty one.
func (b Box) Area() float64 { return max(b.W, 0) * max(b.H, 0) }

// iou is how much two boxes overlap: their intersection over their union.
func iou(a, b Box) float64 {
	x0, y0 := max(a.X, b.X), max(a.Y, b.Y)
	x1, y1 := min(a.X+a.W, b.X+b.W), min(a.Y+a.H, b.Y+b.H)
	in := max(x1-x0, 0) * max(y1-y0, 0)
	if u := a.Area() + b.Area() - in; u > 0 {
		return in / u
	}
	return 0
}

// clip is the box's whole pixels inside the photo.
func (p *picture) clip(b Box) image.Rectangle {
	r := image.Rect(int(math.Floor(b.X)), int(math.Floor(b.Y)), int(math.Ceil(b.X+b.W)), int(math.Ceil(b.Y+b.H)))
	return r.Intersect(image.Rect(0, 0, p.w, p.h))
}

// input is the network input of side n for the region r: r padded with
// black to a square (centred, or at its right and bottom), resized
// bilinearly as TensorFlow's resizeBilinear does without aligned corners,
// each channel less its mean and over 255.
func (p *picture) input(r image.Rectangle, n int, centre bool, mean [3]float32) *tensor {
	side := max(r.Dx(), r.Dy())
	offX, offY := 0, 0
	if centre {
		offX, offY = (side-r.Dx())/2, (side-r.Dy())/2
	}
	// The padded square's pixel (x, y), 0 outside the region.
	px := func(x, y, c int) float32 {
		x, y = x-offX, y-offY
		if x < 0 || y < 0 || x >= r.Dx() || y >= r.Dy() {
			return 0
		}
		return float32(p.rgb[3*((r.Min.Y+y)*p.w+r.Min.X+x)+c])
	}
	out := newTensor(n, n, 3)
	scale := float64(side) / float64(n)
	for i := range n {
		sy := float64(i) * scale
		y0 := int(sy)
		y1, fy := min(y0+1, side-1), float32(sy-float64(y0))
		for j := range n {
			sx := float64(j) * scale
			x0 := int(sx)
			x1, fx := min(x0+1, side-1), float32(sx-float64(x0))
			o := out.at(i, j)
			for c := range 3 {
				top := px(x0, y0, c)*(1-fx) + px(x1, y0, c)*fx
				bottom := px(x0, y1, c)*(1-fx) + px(x1, y1, c)*fx
				o[c] = (top*(1-fy) + bottom*fy - mean[c]) / 255
			}
		}
	}
	return out
}
