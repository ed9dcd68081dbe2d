package face

import (
	"image"
	"math"
)

// recogniser is dlib's face descriptor network: a ResNet of 29
// convolutions over a 150-pixel crop whose 128 outputs sit close together
// for two photos of one person.
type recogniser struct {
	first  *scaledConv
	stages []residual
	fc     []float32 // 256 × 128
}

// scaledConv is a convolution followed by a per-channel scale and shift.
type scaledConv struct {
	k            *kernel
	scale, shift []float32
}

// residual is two scaled convolutions and the shortcut around them; a down
// block halves the side with a stride 2 first convolution, and its
// shortcut is the input mean-pooled, padded with zero channels.
type residual struct {
	conv1, conv2 *scaledConv
	down         bool
}

const (
	recogniserSize = 150
	// DescriptorSize is the length of a face descriptor.
	DescriptorSize = 128
)

func newRecogniser(w *weights) (*recogniser, error) {
	r := &reader{w: w}
	sc := func(prefix string, k, in, out int) *scaledConv {
		return &scaledConv{k: r.conv(prefix+"/conv", k, in, out), scale: r.get(prefix+"/scale/weights", out), shift: r.get(prefix+"/scale/biases", out)}
	}
	n := &recogniser{first: sc("conv32_down", 7, 3, 32)}
	for _, s := range []struct {
		name    string
		in, out int
		down    bool
	}{
		{"conv32_1", 32, 32, false}, {"conv32_2", 32, 32, false}, {"conv32_3", 32, 32, false},
		{"conv64_down", 32, 64, true}, {"conv64_1", 64, 64, false}, {"conv64_2", 64, 64, false}, {"conv64_3", 64, 64, false},
		{"conv128_down", 64, 128, true}, {"conv128_1", 128, 128, false}, {"conv128_2", 128, 128, false},
		{"conv256_down", 128, 256, true}, {"conv256_1", 256, 256, false}, {"conv256_2", 256, 256, false},
		{"conv256_down_out", 256, 256, true},
	} {
		n.stages = append(n.stages, residual{conv1: sc(s.name+"/conv1", 3, s.in, s.out), conv2: sc(s.name+"/conv2", 3, s.out, s.out), down: s.down})
	}
	n.fc = r.get("fc", 256, 128)
	return n, r.err
}

func (s *scaledConv) apply(x *tensor, stride int, p padding) *tensor {
	return affine(conv(x, s.k, stride, p), s.scale, s.shift)
}

// describe is the descriptor of the face in region r of the photo.
func (n *recogniser) describe(p *picture, r image.Rectangle) []float32 {
	x := p.input(r, recogniserSize, true, faceMean)
	x = relu(n.first.apply(x, 2, valid))
	x = pool(x, 3, 2, valid, false)
	for _, s := range n.stages {
		if !s.down {
			out := s.conv2.apply(relu(s.conv1.apply(x, 1, same)), 1, same)
			x = relu(add(out, x))
			continue
		}
		out := s.conv2.apply(relu(s.conv1.apply(x, 2, valid)), 1, same)
		short := pool(x, 2, 2, valid, true)
		x = relu(shortcut(out, short))
	}
	// The mean over the grid, through the last layer.
	mean := make([]float32, x.c)
	for i, v := range x.d {
		mean[i%x.c] += v
	}
	desc := make([]float32, DescriptorSize)
	for c, m := range mean {
		m /= float32(x.h * x.w)
		axpy(desc, n.fc[c*DescriptorSize:(c+1)*DescriptorSize], m)
	}
	return desc
}

// shortcut adds the pooled input to a down block's output: the output
// padded with a zero row and column where the pooled grid is larger, the
// pooled input with zero channels where it has fewer.
func shortcut(out, short *tensor) *tensor {
	sum := newTensor(short.h, short.w, out.c)
	for y := range sum.h {
		for x := range sum.w {
			s := sum.at(y, x)
			copy(s, short.at(y, x))
			if y < out.h && x < out.w {
				for c, v := range out.at(y, x) {
					s[c] += v
				}
			}
		}
	}
	return sum
}

// Distance is the Euclidean distance between two descriptors: dlib's
// model puts two photos of one person under 0.6 apart.
func Distance(a, b []float32) float64 {
	var s float64
	for i := range a {
		d := float64(a[i] - b[i])
		s += d * d
	}
	return math.Sqrt(s)
}
