package face

import (
	"math"
	"runtime"
	"sync"
)

// tensor is one image's activations, height × width × channels, channels
// innermost (the layout the weights were trained in).
type tensor struct {
	h, w, c int
	d       []float32
}

func newTensor(h, w, c int) *tensor {
	return &tensor{h: h, w: w, c: c, d: make([]float32, h*w*c)}
}

func (t *tensor) at(y, x int) []float32 {
	i := (y*t.w + x) * t.c
	return t.d[i : i+t.c : i+t.c]
}

// taps calls each with the input pixels of a k × k window whose top-left
// is (y0, x0), those inside the input (outside is zero padding), and the
// tap's number, ky·k + kx.
func (t *tensor) taps(k, y0, x0 int, each func(in []float32, tap int)) {
	for ky := range k {
		if y := y0 + ky; y >= 0 && y < t.h {
			for kx := range k {
				if x := x0 + kx; x >= 0 && x < t.w {
					each(t.at(y, x), ky*k+kx)
				}
			}
		}
	}
}

// padding is how a layer treats the border: "valid" reads only inside the
// input, "same" pads so that the output is the input's size over the
// stride, the extra row or column at the end as TensorFlow puts it.
type padding int

const (
	valid padding = iota
	same
)

// outSize is a layer's output length and the padding before its first
// input, as TensorFlow computes them.
func outSize(in, k, stride int, p padding) (out, before int) {
	if p == valid {
		return (in-k)/stride + 1, 0
	}
	out = (in + stride - 1) / stride
	total := max((out-1)*stride+k-in, 0)
	return out, total / 2
}

// kernel is a convolution's filters, k × k × in × out, and a bias per output.
type kernel struct {
	k, in, out int
	w          []float32
	bias       []float32
}

// rows runs each(y) for y in [0, n) on every core; the layers' rows are
// independent.
func rows(n int, each func(y int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for y := range n {
			each(y)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int, n)
	for y := range n {
		next <- y
	}
	close(next)
	for range workers {
		wg.Go(func() {
			for y := range next {
				each(y)
			}
		})
	}
	wg.Wait()
}

// conv is a full convolution with bias.
func conv(x *tensor, f *kernel, stride int, p padding) *tensor {
	oh, top := outSize(x.h, f.k, stride, p)
	ow, left := outSize(x.w, f.k, stride, p)
	out := newTensor(oh, ow, f.out)
	rows(oh, func(oy int) {
		for ox := range ow {
			acc := out.at(oy, ox)
			copy(acc, f.bias)
			x.taps(f.k, oy*stride-top, ox*stride-left, func(in []float32, tap int) {
				base := tap * f.in * f.out
				for ci, v := range in {
					if v == 0 {
						continue // after a ReLU, often
					}
					axpy(acc, f.w[base+ci*f.out:base+(ci+1)*f.out], v)
				}
			})
		}
	})
	return out
}

// axpy adds v·w to acc.
func axpy(acc, w []float32, v float32) {
	w = w[:len(acc)]
	i := 0
	for ; i+4 <= len(acc); i += 4 {
		a, b := acc[i:i+4:i+4], w[i:i+4:i+4]
		a[0] += v * b[0]
		a[1] += v * b[1]
		a[2] += v * b[2]
		a[3] += v * b[3]
	}
	for ; i < len(acc); i++ {
		acc[i] += v * w[i]
	}
}

// separable is a depthwise 3 × 3 convolution, one filter a channel, then a
// pointwise (1 × 1) one with bias.
type separable struct {
	depth []float32 // k × k × c
	point *kernel
}

func (s *separable) apply(x *tensor, stride int, p padding) *tensor {
	const k = 3
	oh, top := outSize(x.h, k, stride, p)
	ow, left := outSize(x.w, k, stride, p)
	mid := newTensor(oh, ow, x.c)
	rows(oh, func(oy int) {
		for ox := range ow {
			acc := mid.at(oy, ox)
			x.taps(k, oy*stride-top, ox*stride-left, func(in []float32, tap int) {
				w := s.depth[tap*x.c : (tap+1)*x.c]
				for ci := range acc {
					acc[ci] += in[ci] * w[ci]
				}
			})
		}
	})
	return conv(mid, s.point, 1, valid)
}

// pool is a max or mean over k × k windows.
func pool(x *tensor, k, stride int, p padding, mean bool) *tensor {
	oh, top := outSize(x.h, k, stride, p)
	ow, left := outSize(x.w, k, stride, p)
	out := newTensor(oh, ow, x.c)
	rows(oh, func(oy int) {
		for ox := range ow {
			acc := out.at(oy, ox)
			if !mean {
				for i := range acc {
					acc[i] = float32(math.Inf(-1))
				}
			}
			n := 0
			x.taps(k, oy*stride-top, ox*stride-left, func(in []float32, _ int) {
				n++
				for ci, v := range in {
					if mean {
						acc[ci] += v
					} else if v > acc[ci] {
						acc[ci] = v
					}
				}
			})
			if mean && n > 0 {
				for i := range acc {
					acc[i] /= float32(n)
				}
			}
		}
	})
	return out
}

func relu(x *tensor) *tensor {
	for i, v := range x.d {
		if v < 0 {
			x.d[i] = 0
		}
	}
	return x
}

// leaky is the detector's activation, a tenth of the negative part kept.
func leaky(x *tensor) *tensor {
	for i, v := range x.d {
		if v < 0 {
			x.d[i] = 0.1 * v
		}
	}
	return x
}

// add adds y into x, element by element (their shapes equal).
func add(x, y *tensor) *tensor {
	for i := range x.d {
		x.d[i] += y.d[i]
	}
	return x
}

// affine scales and shifts each channel: the recogniser's batch norm,
// folded.
func affine(x *tensor, scale, shift []float32) *tensor {
	for i := 0; i < len(x.d); i += x.c {
		px := x.d[i : i+x.c]
		for c := range px {
			px[c] = px[c]*scale[c] + shift[c]
		}
	}
	return x
}
