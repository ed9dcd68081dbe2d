package face

import (
	"cmp"
	"math"
	"slices"
)

// detector is the Tiny Face Detector: a Tiny YOLO v2 of depthwise
// separable convolutions that predicts, on a 13 × 13 grid, five boxes a
// cell around five anchor shapes.
type detector struct {
	conv0  *kernel
	blocks [5]*separable
	head   *kernel
}

var (
	detectorMean = [3]float32{117.001, 114.697, 97.404}
	anchors      = [5][2]float64{{1.603231, 2.094468}, {6.041143, 7.080126}, {2.882459, 3.518061}, {4.266906, 5.178857}, {9.041765, 10.66308}}
)

const (
	// detectorSize is the side the photo is resized to; a face a tenth of
	// the photo's longer side is found at it.
	detectorSize = 416
	// nmsOverlap is the overlap above which the weaker of two boxes is
	// dropped, the detector's own.
	nmsOverlap = 0.4
)

func newDetector(w *weights) (*detector, error) {
	r := &reader{w: w}
	d := &detector{conv0: r.conv("conv0", 3, 3, 16), head: r.conv("conv8", 1, 512, 25)}
	in := 16
	for i := range d.blocks {
		d.blocks[i] = r.separable("conv"+string(rune('1'+i)), in, 2*in)
		in *= 2
	}
	return d, r.err
}

// Detection is a face found in a photo: its box and the detector's
// confidence.
type Detection struct {
	Box   Box
	Score float64
}

// forward is the network's output on the photo: a 13 × 13 grid of five
// boxes of five numbers (centre, size, confidence).
func (d *detector) forward(p *picture) *tensor {
	x := p.input(p.clip(Box{W: float64(p.w), H: float64(p.h)}), detectorSize, false, detectorMean)
	x = leaky(conv(x, d.conv0, 1, valid))
	for _, b := range d.blocks {
		x = leaky(b.apply(pool(x, 2, 2, same, false), 1, same))
	}
	return conv(pool(x, 2, 1, same, false), d.head, 1, valid)
}

// detect finds faces scoring at least minScore, strongest first.
func (d *detector) detect(p *picture, minScore float64) []Detection {
	x := d.forward(p)
	// Boxes come relative to the padded square; the photo is its top-left.
	side := float64(max(p.w, p.h))
	cells := float64(x.h)
	var found []Detection
	for row := range x.h {
		for col := range x.w {
			out := x.at(row, col)
			for a, anchor := range anchors {
				v := out[5*a : 5*a+5]
				score := sigmoid(v[4])
				if score < minScore {
					continue
				}
				cx := (float64(col) + sigmoid(v[0])) / cells
				cy := (float64(row) + sigmoid(v[1])) / cells
				bw := math.Exp(float64(v[2])) * anchor[0] / cells
				bh := math.Exp(float64(v[3])) * anchor[1] / cells
				found = append(found, Detection{Score: score, Box: Box{X: (cx - bw/2) * side, Y: (cy - bh/2) * side, W: bw * side, H: bh * side}})
			}
		}
	}
	return suppress(found)
}

func sigmoid(v float32) float64 { return 1 / (1 + math.Exp(-float64(v))) }

// suppress keeps the strongest of each group of overlapping boxes.
func suppress(found []Detection) []Detection {
	slices.SortFunc(found, func(a, b Detection) int { return cmp.Compare(b.Score, a.Score) })
	var kept []Detection
	for _, f := range found {
		if !slices.ContainsFunc(kept, func(k Detection) bool { return iou(k.Box, f.Box) > nmsOverlap }) {
			kept = append(kept, f)
		}
	}
	return kept
}
