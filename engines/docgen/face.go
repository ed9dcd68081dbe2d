package docgen

import (
	"image"
	"image/color"
	"math"
)

// FacePose is how a drawn face is held: Yaw from −1 to 1 (at 1 the nose
// towards the picture's right, as a person turning to their own left
// shows it to a camera that does not mirror) and Pitch from −1 to 1 (at 1
// looking up). A drawn face does not blink: the landmarks read its eyes
// open however they are drawn.
type FacePose struct {
	Yaw, Pitch float64
}

// StepPoses are the poses that answer a liveness challenge's steps, by
// the steps' names; a blink is not among them.
var StepPoses = map[string]FacePose{"turn_left": {Yaw: 0.6}, "turn_right": {Yaw: -0.6}, "look_up": {Pitch: 1}}

// DrawFace is a w × h picture of a face drawn from shapes — an egg of skin
// under hair, brows, eyes, a nose and a mouth, on a light wall — that the
// face detector finds as it finds a photographed one, in the poses a
// liveness challenge asks for: a person the generator makes, for tests
// that need a face without a real person's photo. It is no one's likeness
// and no measure of the matcher (drawn faces are much alike); its
// features move against the outline as a turning head's do, so the
// frames are no picture slid in the hand.
func DrawFace(w, h int, p FacePose) *image.RGBA {
	im := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range im.Pix {
		im.Pix[i] = 200
	}
	cx, cy, s := float64(w)/2, float64(h)/2, float64(h)/480
	blob(im, cx, cy-20*s, 110*s, 150*s, color.RGBA{60, 40, 30, 255}, 0.05) // hair
	blob(im, cx, cy, 95*s, 130*s, color.RGBA{224, 172, 140, 255}, 0.05)    // skin
	dx, dy := p.Yaw*40*s, -p.Pitch*24*s
	for _, side := range []float64{-1, 1} {
		ex, ey := cx+side*38*s+dx, cy-25*s+dy/2
		blob(im, ex, ey-22*s, 24*s, 5*s, color.RGBA{70, 50, 40, 255}, 0.2) // brow
		blob(im, ex, ey, 20*s, 9*s, color.RGBA{250, 250, 250, 255}, 0.2)
		blob(im, ex, ey, 8*s, 8*s, color.RGBA{60, 40, 30, 255}, 0.2)
		blob(im, ex, ey, 3*s, 3*s, color.RGBA{10, 10, 10, 255}, 0.2)
	}
	blob(im, cx+dx*1.2, cy+15*s+dy, 10*s, 28*s, color.RGBA{200, 145, 115, 255}, 0.4) // nose
	blob(im, cx+dx*1.2, cy+38*s+dy, 16*s, 6*s, color.RGBA{170, 110, 90, 255}, 0.4)
	blob(im, cx+dx, cy+70*s+dy, 32*s, 9*s, color.RGBA{170, 70, 70, 255}, 0.3) // mouth
	return im
}

// blob paints an ellipse of c centred at (cx, cy), its edge blended over
// soft of its radius.
func blob(im *image.RGBA, cx, cy, rx, ry float64, c color.RGBA, soft float64) {
	r := image.Rect(int(cx-rx*(1+soft))-1, int(cy-ry*(1+soft))-1, int(cx+rx*(1+soft))+2, int(cy+ry*(1+soft))+2).Intersect(im.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			ex, ey := (float64(x)-cx)/rx, (float64(y)-cy)/ry
			d := math.Hypot(ex, ey)
			if d > 1+soft {
				continue
			}
			a := 1.0
			if soft > 0 && d > 1-soft {
				a = (1 + soft - d) / (2 * soft)
			}
			o := im.RGBAAt(x, y)
			mix := func(p, q uint8) uint8 { return uint8(float64(p)*(1-a) + float64(q)*a) }
			im.SetRGBA(x, y, color.RGBA{mix(o.R, c.R), mix(o.G, c.G), mix(o.B, c.B), 255})
		}
	}
}
