package selfie

import (
	"image"

	"github.com/kycflow/kycflow/engines/face"
)

// brightness is the mean grey level, 0–255, of the box's pixels (sampled
// on a 16 × 16 grid).
func brightness(im image.Image, b face.Box) float64 {
	const n = 16
	bounds := im.Bounds()
	var sum float64
	for y := range n {
		for x := range n {
			sx := int(b.X + (float64(x)+0.5)*b.W/n)
			sy := int(b.Y + (float64(y)+0.5)*b.H/n)
			pt := image.Pt(min(max(sx, 0), bounds.Dx()-1), min(max(sy, 0), bounds.Dy()-1)).Add(bounds.Min)
			r, g, bl, _ := im.At(pt.X, pt.Y).RGBA()
			sum += (0.299*float64(r) + 0.587*float64(g) + 0.114*float64(bl)) / 257
		}
	}
	return sum / (n * n)
}
