package face

import (
	"fmt"
	"image"
)

// landmarker places the 68 points of the iBUG 300-W scheme (jaw 0–16,
// brows 17–26, nose 27–35, eyes 36–47, mouth 48–67) on a face: four dense
// blocks of separable convolutions over a 112-pixel crop, then one fully
// connected layer.
type landmarker struct {
	first  *kernel
	blocks [4][4]*separable // blocks[0][0] is unused: the first layer is a full convolution
	fcW    []float32
	fcB    []float32
}

var faceMean = [3]float32{122.782, 117.001, 104.298}

const landmarkSize = 112

func newLandmarker(w *weights) (*landmarker, error) {
	r := &reader{w: w}
	l := &landmarker{first: r.conv("dense0/conv0", 3, 3, 32)}
	in := 3
	for b, out := range []int{32, 64, 128, 256} {
		for c := range 4 {
			if b == 0 && c == 0 {
				in = out
				continue
			}
			l.blocks[b][c] = r.separable(fmt.Sprintf("dense%d/conv%d", b, c), in, out)
			in = out
		}
	}
	l.fcW, l.fcB = r.get("fc/weights", 256, 136), r.get("fc/bias", 136)
	return l, r.err
}

// Point is a position in a photo's pixels.
type Point struct{ X, Y float64 }

// place finds the 68 points on the face in region r of the photo.
func (l *landmarker) place(p *picture, r image.Rectangle) [68]Point {
	out := l.forward(p, r)
	side := float64(max(r.Dx(), r.Dy()))
	padX, padY := (side-float64(r.Dx()))/2, (side-float64(r.Dy()))/2
	var pts [68]Point
	for i, v := range out {
		// v is a fraction of the padded square's side.
		if i%2 == 0 {
			pts[i/2].X = float64(r.Min.X) + v*side - padX
		} else {
			pts[i/2].Y = float64(r.Min.Y) + v*side - padY
		}
	}
	return pts
}

// forward is the network's output, x and y of each point in turn.
func (l *landmarker) forward(p *picture, r image.Rectangle) []float64 {
	x := p.input(r, landmarkSize, true, faceMean)
	for b := range l.blocks {
		var out1 *tensor
		if b == 0 {
			out1 = relu(conv(x, l.first, 2, same))
		} else {
			out1 = relu(l.blocks[b][0].apply(x, 2, same))
		}
		sum := clone(out1)
		for c := 1; c < 4; c++ {
			in := sum
			if c > 1 {
				in = relu(clone(sum))
			}
			add(sum, l.blocks[b][c].apply(in, 1, same))
		}
		x = relu(sum)
	}
	feat := pool(x, 7, 2, valid, true).d // 1 × 1 × 256
	out := make([]float64, 136)
	for i := range out {
		out[i] = float64(l.fcB[i])
		for j, f := range feat {
			out[i] += float64(f * l.fcW[j*136+i])
		}
	}
	return out
}

func clone(t *tensor) *tensor {
	c := &tensor{h: t.h, w: t.w, c: t.c, d: make([]float32, len(t.d))}
	copy(c.d, t.d)
	return c
}
