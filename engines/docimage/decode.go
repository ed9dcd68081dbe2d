package docimage

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
)

// DecodeGray decodes b (as Inspect described it) into grey levels, upright
// (its EXIF orientation applied).
func DecodeGray(b []byte, info Info) (*image.Gray, error) {
	var img image.Image
	var err error
	switch info.Format {
	case JPEG:
		img, err = jpeg.Decode(bytes.NewReader(b))
	case PNG:
		img, err = png.Decode(bytes.NewReader(b))
	default:
		return nil, ErrFormat
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return Orient(gray(img), info.Orientation), nil
}

// ShrinkTo shrinks g by the least whole factor that brings its longer side
// to at most maxSide, and returns that factor (1: g as it is).
func ShrinkTo(g *image.Gray, maxSide int) (*image.Gray, int) {
	f := 1
	if long := max(g.Rect.Dx(), g.Rect.Dy()); long > maxSide {
		f = (long + maxSide - 1) / maxSide
	}
	return Shrink(g, f), f
}

// gray is img's luminance: a JPEG's Y plane as is, anything else converted.
func gray(img image.Image) *image.Gray {
	switch m := img.(type) {
	case *image.YCbCr:
		r := m.Rect
		g := image.NewGray(image.Rect(0, 0, r.Dx(), r.Dy()))
		for y := range r.Dy() {
			copy(g.Pix[y*g.Stride:y*g.Stride+r.Dx()], m.Y[m.YOffset(r.Min.X, r.Min.Y+y):])
		}
		return g
	case *image.Gray:
		return m
	}
	r := img.Bounds()
	g := image.NewGray(image.Rect(0, 0, r.Dx(), r.Dy()))
	m, ok := img.(image.RGBA64Image)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			var v uint8
			if ok { // color.GrayModel's weights, without a colour allocated a pixel
				c := m.RGBA64At(x, y)
				v = uint8((19595*uint32(c.R) + 38470*uint32(c.G) + 7471*uint32(c.B) + 1<<15) >> 24)
			} else {
				v = color.GrayModel.Convert(img.At(x, y)).(color.Gray).Y
			}
			g.Pix[(y-r.Min.Y)*g.Stride+x-r.Min.X] = v
		}
	}
	return g
}

// Shrink averages f × f blocks of g into one pixel.
func Shrink(g *image.Gray, f int) *image.Gray {
	if f <= 1 {
		return g
	}
	w, h := g.Rect.Dx()/f, g.Rect.Dy()/f
	out := image.NewGray(image.Rect(0, 0, max(w, 1), max(h, 1)))
	sums := make([]int, w)
	for oy := range h {
		clear(sums)
		for y := oy * f; y < oy*f+f; y++ {
			row := g.Pix[y*g.Stride:]
			for ox := range w {
				s := 0
				for _, v := range row[ox*f : ox*f+f] {
					s += int(v)
				}
				sums[ox] += s
			}
		}
		for ox := range w {
			out.Pix[oy*out.Stride+ox] = uint8(sums[ox] / (f * f))
		}
	}
	return out
}

// Orient turns g upright as EXIF orientation o says (1: as stored; 3:
// rotated 180°; 6: 90° clockwise; 8: 90° counter-clockwise; 2, 4, 5, 7:
// those mirrored).
func Orient(g *image.Gray, o int) *image.Gray {
	if o <= 1 || o > 8 {
		return g
	}
	w, h := g.Rect.Dx(), g.Rect.Dy()
	ow, oh := w, h
	if o >= 5 {
		ow, oh = h, w
	}
	out := image.NewGray(image.Rect(0, 0, ow, oh))
	for y := range h {
		for x := range w {
			var nx, ny int
			switch o {
			case 2:
				nx, ny = w-1-x, y
			case 3:
				nx, ny = w-1-x, h-1-y
			case 4:
				nx, ny = x, h-1-y
			case 5:
				nx, ny = y, x
			case 6:
				nx, ny = h-1-y, x
			case 7:
				nx, ny = h-1-y, w-1-x
			case 8:
				nx, ny = y, w-1-x
			}
			out.Pix[ny*out.Stride+nx] = g.Pix[y*g.Stride+x]
		}
	}
	return out
}

// Gaussian is a Gaussian kernel of sigma sampled at −rad..rad, its
// weights summing to 1.
func Gaussian(sigma float64, rad int) []float64 {
	k := make([]float64, 2*rad+1)
	var sum float64
	for i := range k {
		d := float64(i - rad)
		k[i] = math.Exp(-d * d / (2 * sigma * sigma))
		sum += k[i]
	}
	for i := range k {
		k[i] /= sum
	}
	return k
}
