package selfie

import (
	"math"

	"github.com/kycflow/kycflow/engines/face"
)

// flatness is how far a frame's landmarks are from those of the first
// frame carried by an affine map, as a share of the distance between the
// eyes: a picture — printed, on a screen — held up, slid, turned or tilted
// moves its landmarks together, an affine map of the first frame's (as a
// plane seen from a little further round is, nearly); a head that turns,
// looks up or blinks does not.
func flatness(ref, f *[68]face.Point) float64 {
	// The least-squares affine map: [x y 1]·a = x', [x y 1]·b = y'.
	var m [3][3]float64
	var vx, vy [3]float64
	for i := range f {
		r := [3]float64{ref[i].X, ref[i].Y, 1}
		for j := range 3 {
			for k := range 3 {
				m[j][k] += r[j] * r[k]
			}
			vx[j] += r[j] * f[i].X
			vy[j] += r[j] * f[i].Y
		}
	}
	a, okA := solve3(m, vx)
	b, okB := solve3(m, vy)
	if !okA || !okB {
		return math.Inf(1)
	}
	var sq float64
	for i := range f {
		x := a[0]*ref[i].X + a[1]*ref[i].Y + a[2]
		y := b[0]*ref[i].X + b[1]*ref[i].Y + b[2]
		sq += (x-f[i].X)*(x-f[i].X) + (y-f[i].Y)*(y-f[i].Y)
	}
	eyes := eyeDistance(f)
	if eyes == 0 {
		return math.Inf(1)
	}
	return math.Sqrt(sq/float64(len(f))) / eyes
}

// eyeDistance is the distance between the two eyes' centres.
func eyeDistance(f *[68]face.Point) float64 {
	var l, r face.Point
	for i := range 6 {
		l.X, l.Y = l.X+f[36+i].X/6, l.Y+f[36+i].Y/6
		r.X, r.Y = r.X+f[42+i].X/6, r.Y+f[42+i].Y/6
	}
	return math.Hypot(l.X-r.X, l.Y-r.Y)
}

// solve3 solves m·x = v by Cramer's rule.
func solve3(m [3][3]float64, v [3]float64) ([3]float64, bool) {
	det := func(a [3][3]float64) float64 {
		return a[0][0]*(a[1][1]*a[2][2]-a[1][2]*a[2][1]) - a[0][1]*(a[1][0]*a[2][2]-a[1][2]*a[2][0]) + a[0][2]*(a[1][0]*a[2][1]-a[1][1]*a[2][0])
	}
	d := det(m)
	if math.Abs(d) < 1e-12 {
		return [3]float64{}, false
	}
	var x [3]float64
	for c := range 3 {
		mc := m
		for r := range 3 {
			mc[r][c] = v[r]
		}
		x[c] = det(mc) / d
	}
	return x, true
}
