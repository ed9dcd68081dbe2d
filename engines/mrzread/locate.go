package mrzread

import (
	"cmp"
	"image"
	"math"
	"slices"
)

// The MRZ is found from its characters: dark blobs of one size, evenly
// spaced along two or three long parallel rows. Clutter, wood grain, the
// guilloche and the visual zone's words seldom form a row of thirty or
// more such blobs; a row of fillers does ('<' is a blob of its own).

// blob is a connected component of ink.
type blob struct {
	x, y   float64 // centroid
	n      int     // pixels
	x0, y0 int     // bounding box, x1 and y1 exclusive
	x1, y1 int
	// u, v is the centroid in the text's frame (u along the rows); du, dv
	// the blob's extent along and across them.
	u, v, du, dv float64
}

func (b *blob) size() float64 { return float64(max(b.x1-b.x0, b.y1-b.y0)) }

// blobs labels ink's connected components (4-connected) that could be
// characters: not a speck, not a long stroke, not a large area.
func blobs(ink []bool, w, h int) ([]blob, []int32) {
	label := make([]int32, w*h)
	for i := range label {
		label[i] = -1
	}
	var out []blob
	stack := make([]int, 0, 256)
	maxSide := max(w, h) / 6
	for start, on := range ink {
		if !on || label[start] >= 0 {
			continue
		}
		id := int32(len(out))
		b := blob{x0: w, y0: h}
		var sx, sy float64
		stack = append(stack[:0], start)
		label[start] = id
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			x, y := i%w, i/w
			b.n++
			sx, sy = sx+float64(x), sy+float64(y)
			b.x0, b.y0, b.x1, b.y1 = min(b.x0, x), min(b.y0, y), max(b.x1, x+1), max(b.y1, y+1)
			for _, nb := range [4]int{i - 1, i + 1, i - w, i + w} {
				if nb < 0 || nb >= len(ink) || !ink[nb] || label[nb] >= 0 || (nb == i-1 && x == 0) || (nb == i+1 && x == w-1) {
					continue
				}
				label[nb] = id
				stack = append(stack, nb)
			}
		}
		b.x, b.y = sx/float64(b.n), sy/float64(b.n)
		out = append(out, b)
	}
	// Mark the blobs that cannot be characters (their label stays: the
	// extents pass below skips them by size).
	for i := range out {
		b := &out[i]
		bw, bh := b.x1-b.x0, b.y1-b.y0
		if b.n < 4 || max(bw, bh) < 3 || max(bw, bh) > maxSide || float64(b.n) > 0.9*float64(bw*bh) && min(bw, bh) > 4 {
			b.n = 0
		}
	}
	return out, label
}

// orientation is the direction of the text rows, in degrees [0, 180): the
// peak of the directions from each blob to its nearest blob of like size
// (in a row of characters, the next character is the nearest). The
// first strong peaks are the usual ones; the rest are looked at only when
// those find no zone (zonesIn).
func orientation(bs []blob, w, h int) (peaks []float64, strong int) {
	// A grid of cells a typical blob wide, for the neighbour search.
	var sizes []int
	for _, b := range bs {
		if b.n > 0 {
			sizes = append(sizes, int(b.size()))
		}
	}
	if len(sizes) < 10 {
		return nil, 0
	}
	cell := max(4, percentile(sizes, 0.75)*2)
	gw, gh := w/cell+1, h/cell+1
	grid := make([][]int, gw*gh)
	for i, b := range bs {
		if b.n > 0 {
			c := int(b.y)/cell*gw + int(b.x)/cell
			grid[c] = append(grid[c], i)
		}
	}
	const bins = 360 // half-degree bins over 180°
	var hist [bins]float64
	for i, b := range bs {
		if b.n == 0 {
			continue
		}
		best, bestD := -1, math.Inf(1)
		cx, cy := int(b.x)/cell, int(b.y)/cell
		for gy := max(0, cy-1); gy <= min(gh-1, cy+1); gy++ {
			for gx := max(0, cx-1); gx <= min(gw-1, cx+1); gx++ {
				for _, j := range grid[gy*gw+gx] {
					o := bs[j]
					if j == i || o.size() > 2*b.size() || b.size() > 2*o.size() {
						continue
					}
					if d := math.Hypot(o.x-b.x, o.y-b.y); d < bestD && d < 2.5*max(b.size(), o.size()) {
						best, bestD = j, d
					}
				}
			}
		}
		if best < 0 {
			continue
		}
		a := math.Atan2(bs[best].y-b.y, bs[best].x-b.x) * 180 / math.Pi
		a = math.Mod(a+360, 180)
		hist[int(a*2)%bins]++
	}
	// Smooth over ±1.5° (circularly); up to four strong peaks at least 4°
	// apart and a sixth as high as the highest: a page of text or wood
	// grain beside the document may outnumber the MRZ's characters at an
	// angle close to theirs. Then two more a twelfth as high: pages
	// printed with rows of dashes at several angles around a card
	// outnumbered its rows by more than six to one (a row chains within a
	// few degrees of the peak it is found at).
	var smooth [bins]float64
	for i := range bins {
		for d := -3; d <= 3; d++ {
			smooth[i] += hist[(i+d+bins)%bins] * (4 - math.Abs(float64(d)))
		}
	}
	top := 0.0
	for len(peaks) < 6 {
		best := 0
		for i := range bins {
			if smooth[i] > smooth[best] {
				best = i
			}
		}
		if smooth[best] <= 0 || smooth[best] < top/12 {
			break
		}
		if len(peaks) == strong && strong < 4 && smooth[best] >= top/6 {
			strong++
		}
		top = max(top, smooth[best])
		peaks = append(peaks, float64(best)/2)
		for d := -8; d <= 8; d++ {
			smooth[(best+d+bins)%bins] = 0
		}
	}
	return peaks, strong
}

// project sets each character-sized blob's position and extents in the
// frame turned deg degrees (u along the rows).
func project(bs []blob, label []int32, w int, deg float64) {
	rad := deg * math.Pi / 180
	c, s := math.Cos(rad), math.Sin(rad)
	lo := make([][2]float64, len(bs))
	hi := make([][2]float64, len(bs))
	for i := range bs {
		lo[i] = [2]float64{math.Inf(1), math.Inf(1)}
		hi[i] = [2]float64{math.Inf(-1), math.Inf(-1)}
		bs[i].u, bs[i].v = bs[i].x*c+bs[i].y*s, -bs[i].x*s+bs[i].y*c
	}
	for i, l := range label {
		if l < 0 || bs[l].n == 0 {
			continue
		}
		x, y := float64(i%w), float64(i/w)
		u, v := x*c+y*s, -x*s+y*c
		lo[l] = [2]float64{min(lo[l][0], u), min(lo[l][1], v)}
		hi[l] = [2]float64{max(hi[l][0], u), max(hi[l][1], v)}
	}
	for i := range bs {
		if bs[i].n > 0 {
			bs[i].du, bs[i].dv = hi[i][0]-lo[i][0]+1, hi[i][1]-lo[i][1]+1
		}
	}
}

// row is a chain of blobs along u: a line of text.
type row struct {
	members []int
	a, b    float64 // v = a + b·u through the blobs' centres
	u0, u1  float64 // the first blob's left and the last's right
	height  float64 // the blobs' median extent across the row
	// regular is the share of its blobs a median step from the one
	// before (within a fifth): in an MRZ every position holds a glyph at
	// the fixed pitch, in proportional print the steps vary.
	regular float64
}

// minRegular is the least share of a row's blobs at the row's usual step
// for it to be a line of an MRZ (the generated documents' MRZ lines: 0.79
// and more; lines of proportional print beside them: 0.37–0.52).
const minRegular = 0.65

// rows chains blobs into rows: each blob to the nearest blob on its right
// that is level with it, of like height and less than a character and a
// half away; rows of at least minChain blobs, as regular as an MRZ's, are
// kept.
func chain(bs []blob, minChain int) []row {
	var idx []int
	for i, b := range bs {
		if b.n > 0 && b.dv > 0 {
			idx = append(idx, i)
		}
	}
	slices.SortFunc(idx, func(i, j int) int {
		switch {
		case bs[i].u < bs[j].u:
			return -1
		case bs[i].u > bs[j].u:
			return 1
		}
		return 0
	})
	next := make(map[int]int, len(idx))
	taken := make(map[int]bool, len(idx))
	for k, i := range idx {
		b := bs[i]
		best, bestGap := -1, math.Inf(1)
		for _, j := range idx[k+1:] {
			o := bs[j]
			gap := (o.u - o.du/2) - (b.u + b.du/2)
			h := max(b.dv, o.dv)
			if o.u-b.u > 3*h {
				break // sorted by u: the rest are further
			}
			if taken[j] || math.Abs(o.v-b.v) > 0.35*h || o.dv > 2.2*b.dv || b.dv > 2.2*o.dv || gap > 1.3*h || gap < -0.3*h {
				continue
			}
			if gap < bestGap {
				best, bestGap = j, gap
			}
		}
		if best >= 0 {
			next[i] = best
			taken[best] = true
		}
	}
	var out []row
	for _, i := range idx {
		if taken[i] {
			continue // not a row's first blob
		}
		r := row{members: []int{i}}
		for j, ok := next[i]; ok; j, ok = next[j] {
			r.members = append(r.members, j)
		}
		r.members = trimmed(bs, r.members)
		if len(r.members) < minChain {
			continue
		}
		if r.fit(bs); r.regular < minRegular {
			continue // proportional print: the fine print of a card's back
		}
		out = append(out, r)
	}
	return out
}

// trimmed drops a blob at either end of a chain that stands apart from
// its neighbour by well over the chain's usual step and is no wider than
// its usual blob — a speck of the background or the card's edge that all
// of an MRZ's rows reach alike, so that their ends agree and only the
// pitch tells (a glyph merged with its neighbour at the end is wide, and
// stays).
func trimmed(bs []blob, m []int) []int {
	if len(m) < 4 {
		return m
	}
	steps := make([]int, 0, len(m))
	widths := make([]int, 0, len(m))
	for k := range m {
		widths = append(widths, int(4*bs[m[k]].du))
		if k > 0 {
			steps = append(steps, int(4*(bs[m[k]].u-bs[m[k-1]].u)))
		}
	}
	step, width := float64(percentile(steps, 0.5))/4, float64(percentile(widths, 0.5))/4
	stray := func(end, next int) bool {
		return math.Abs(bs[end].u-bs[next].u) > 1.6*step && bs[end].du < 1.4*width
	}
	for len(m) > 2 && stray(m[0], m[1]) {
		m = m[1:]
	}
	for len(m) > 2 && stray(m[len(m)-1], m[len(m)-2]) {
		m = m[:len(m)-1]
	}
	return m
}

// fit sets r's line, ends and height from its blobs.
func (r *row) fit(bs []blob) {
	var n, su, sv, suu, suv float64
	var hs []int
	r.u0, r.u1 = math.Inf(1), math.Inf(-1)
	for _, i := range r.members {
		b := bs[i]
		n++
		su, sv, suu, suv = su+b.u, sv+b.v, suu+b.u*b.u, suv+b.u*b.v
		hs = append(hs, int(b.dv*4)) // quarter pixels
		r.u0, r.u1 = min(r.u0, b.u-b.du/2), max(r.u1, b.u+b.du/2)
	}
	if den := n*suu - su*su; den != 0 {
		r.b = (n*suv - su*sv) / den
	}
	r.a = (sv - r.b*su) / n
	r.height = float64(percentile(hs, 0.75)) / 4
	steps := make([]int, 0, len(r.members))
	for k := 1; k < len(r.members); k++ {
		steps = append(steps, int(4*(bs[r.members[k]].u-bs[r.members[k-1]].u))) // quarter pixels
	}
	if len(steps) > 0 {
		med, even := float64(percentile(steps, 0.5)), 0
		for _, st := range steps {
			if math.Abs(float64(st)-med) <= med/5 {
				even++
			}
		}
		r.regular = float64(even) / float64(len(steps))
	}
}

func (r row) at(u float64) float64 { return r.a + r.b*u }

// zone is a candidate MRZ: its rows, top to bottom, in the frame turned
// deg degrees.
type zone struct {
	rows  []row
	deg   float64
	fit   float64 // 0–1: how like an MRZ its rows are
	score float64 // fit × length
}

// zones groups rows into MRZs: two rows of 44 characters or three of 30,
// as long for their height as OCR-B at ICAO's pitch is, one under the
// other at the MRZ's line spacing, starting and ending alike.
func zones(bs []blob, rs []row, deg float64) []zone {
	slices.SortFunc(rs, func(a, b row) int {
		switch {
		case a.at(a.u0) < b.at(b.u0):
			return -1
		case a.at(a.u0) > b.at(b.u0):
			return 1
		}
		return 0
	})
	var out []zone
	for i, first := range rs {
		group := []row{first}
		for _, r := range rs[i+1:] {
			last := group[len(group)-1]
			mid := (r.u0 + r.u1) / 2
			gap := r.at(mid) - last.at(mid)
			h := (r.height + last.height) / 2
			if gap < 1.2*h || gap > 2.6*h {
				continue
			}
			if !sameEnds(r, last) {
				// A row that took in a blob or two beyond the MRZ (the
				// card's edge, a word of the page it lies on) is cut back
				// to the other's ends.
				var ok bool
				if r, last, ok = clipped(bs, r, last); !ok {
					continue
				}
				group[len(group)-1] = last
			}
			group = append(group, r)
			if len(group) == 3 {
				break
			}
		}
		for n := 2; n <= len(group); n++ {
			chars := float64(rowChars(n))
			// The fit of each row, times the rows' length: the MRZ is
			// the longest run of the largest uniform print on a document
			// (its fine print can be shaped alike).
			var fit float64 = 1
			var length float64
			for _, r := range group[:n] {
				length += r.u1 - r.u0
				// A row is chars pitches long, 2.54 mm each, its
				// capitals about 2.3 mm high (the blobs' height).
				want := chars * 2.54 / 2.3
				got := (r.u1 - r.u0) / r.height
				fit *= math.Exp(-math.Abs(math.Log(got/want)) * 2)
				// Blobs per row: characters, some merged.
				fit *= min(1, float64(len(r.members))/(0.6*chars))
			}
			out = append(out, zone{rows: slices.Clone(group[:n]), deg: deg, fit: fit, score: fit * length})
		}
	}
	return out
}

// sameEnds reports whether rows a and b start and end alike, as an MRZ's
// rows do.
func sameEnds(a, b row) bool {
	span := b.u1 - b.u0
	return math.Abs(a.u0-b.u0) <= span/10 && math.Abs(a.u1-b.u1) <= span/10
}

// clipped cuts the longer of rows a and b back to the blobs within the
// other's ends; ok is false unless the rows then start and end alike and
// the cut one is still a row (the blobs it loses are at most a sixth of
// its own).
func clipped(bs []blob, a, b row) (row, row, bool) {
	long, short := &a, &b
	if a.u1-a.u0 < b.u1-b.u0 {
		long, short = &b, &a
	}
	tol := short.height / 2
	var keep []int
	for _, i := range long.members {
		if u := bs[i].u; u >= short.u0-tol && u <= short.u1+tol {
			keep = append(keep, i)
		}
	}
	if len(keep) == len(long.members) || 6*(len(long.members)-len(keep)) > len(long.members) {
		return a, b, false
	}
	cut := row{members: keep}
	if cut.fit(bs); cut.regular < minRegular {
		return a, b, false
	}
	*long = cut
	return a, b, sameEnds(a, b)
}

// findK is the ink threshold (Sauvola's k, dark) the MRZ's blobs are
// looked for at; faintK is tried when no zone is found at it.
const findK = 0.2

// maxBlobs is the most character-sized blobs a photo find looks at holds
// (docs/DECISIONS.md has the counts generated photos make).
const maxBlobs = 25000

// find looks for the MRZ in det: the candidate zones, best first, each
// with the quadrilateral around it in det's pixels (corners in reading
// order of the zone as found: it may be upside down). Rows of a
// tablecloth's checks or a page's print can look more like an MRZ than
// the MRZ does from their blobs alone; the typeface tells (read.go).
func find(det *image.Gray) []candidate {
	w, h := det.Rect.Dx(), det.Rect.Dy()
	r := max(8, min(w, h)/40)
	ink := dark(det, r, findK)
	bs, label := blobs(ink, w, h)
	// Sensor noise in a dim photo breaks into tens of thousands of
	// specks of a character's size; a document on a desk, clutter and
	// all, makes a few thousand blobs. Chaining the specks would take
	// seconds and find nothing.
	if charSized(bs) > maxBlobs {
		return nil
	}
	all := zonesIn(bs, label, w, h)
	if len(all) == 0 {
		// Faint print (a laminate's) breaks into specks at the usual
		// threshold, its glyphs into halves no row chains: the lower
		// threshold keeps them whole.
		if bs, label = blobs(dark(det, r, faintK), w, h); charSized(bs) <= maxBlobs {
			all = zonesIn(bs, label, w, h)
		}
	}
	slices.SortStableFunc(all, func(a, b zone) int { return cmp.Compare(b.score, a.score) })
	var out []candidate
	used := map[int]bool{} // blobs of the candidates kept: one set of rows, one candidate
	for _, z := range all {
		if len(out) == maxCandidates {
			break
		}
		if slices.ContainsFunc(z.rows, func(r row) bool { return slices.ContainsFunc(r.members, func(i int) bool { return used[i] }) }) {
			continue
		}
		for _, r := range z.rows {
			for _, i := range r.members {
				used[i] = true
			}
		}
		out = append(out, candidate{z, z.quad(rowChars(len(z.rows)))})
	}
	return out
}

// charSized is how many of bs could be characters (blobs).
func charSized(bs []blob) int {
	n := 0
	for _, b := range bs {
		if b.n > 0 {
			n++
		}
	}
	return n
}

// zonesIn is every zone of fit 0.2 or more the blobs bs (labelled in
// label, of an image w × h) form at the strong orientations their rows
// take, or, where those form none, at the weaker ones (orientation).
func zonesIn(bs []blob, label []int32, w, h int) []zone {
	var all []zone
	peaks, strong := orientation(bs, w, h)
	for j, deg := range peaks {
		if j == strong && len(all) > 0 {
			break
		}
		// The rows run at deg or, read from the other side, deg+180; one
		// frame serves both (the matcher turns the band later).
		project(bs, label, w, deg)
		for _, z := range zones(bs, chain(bs, 12), deg) {
			if z.fit >= 0.2 {
				all = append(all, z)
			}
		}
	}
	return all
}

// rowChars is how many characters each row of an MRZ of rows rows holds:
// three of 30 (an ID card) or two of 44 (a passport).
func rowChars(rows int) int {
	if rows == 3 {
		return 30
	}
	return 44
}

// candidate is a zone find offers, and its quadrilateral in det.
type candidate struct {
	zone
	corners [4]pt
}

// maxCandidates is how many zones find offers at most.
const maxCandidates = 3

// quad is the zone's corners in det: where the first and the last row
// begin and end (in perspective a row's far end is nearer its neighbour,
// and the rows' ends lie on the document's columns), moved out a pitch
// along the rows and a character's height across them (rectify maps it to
// a band a pitch wider each side than chars characters).
func (z zone) quad(chars int) [4]pt {
	first, last := z.rows[0], z.rows[len(z.rows)-1]
	if len(z.rows) == 3 {
		first, last = trueEnds(first, z.rows[1], last, chars)
	}
	h := z.charHeight()
	ends := func(r row) (pt, pt) {
		// From the first glyph's left edge to the last's right edge is
		// chars pitches less the blank either side of a glyph in its cell.
		p := (r.u1 - r.u0) / (float64(chars) - 0.3)
		return pt{r.u0 - p, r.at(r.u0 - p)}, pt{r.u1 + p, r.at(r.u1 + p)}
	}
	tl, tr := ends(first)
	bl, br := ends(last)
	out := func(a, b pt) (pt, pt) { // a and b moved h apart, away from each other
		d := math.Hypot(b.x-a.x, b.y-a.y)
		if d == 0 {
			return pt{a.x, a.y - h}, pt{b.x, b.y + h}
		}
		ux, uy := (b.x-a.x)/d, (b.y-a.y)/d
		return pt{a.x - ux*h, a.y - uy*h}, pt{b.x + ux*h, b.y + uy*h}
	}
	tl, bl = out(tl, bl)
	tr, br = out(tr, br)
	rad := z.deg * math.Pi / 180
	c, s := math.Cos(rad), math.Sin(rad)
	back := func(p pt) pt { return pt{p.x*c - p.y*s, p.x*s + p.y*c} }
	return [4]pt{back(tl), back(tr), back(br), back(bl)}
}

// trueEnds corrects the ends of a TD1's outer rows by its middle one: the
// three rows start and end in the same columns, so an outer row that ends
// a pitch or more from the middle one while the other agrees with it has
// taken in a blob beyond the MRZ (the card's edge, a shadow) or lost its
// last glyph. Which of two rows is wrong is not known, so a TD3's two are
// left as found.
func trueEnds(first, mid, last row, chars int) (row, row) {
	p := (mid.u1 - mid.u0) / (float64(chars) - 0.3)
	fix := func(a, b *float64, m float64) {
		da, db := *a-m, *b-m
		switch {
		case math.Abs(db) > 0.75*p && math.Abs(da) < 0.5*p:
			*b = m - da
		case math.Abs(da) > 0.75*p && math.Abs(db) < 0.5*p:
			*a = m - db
		}
	}
	fix(&first.u0, &last.u0, mid.u0)
	fix(&first.u1, &last.u1, mid.u1)
	return first, last
}

// capHeight is the zone's least cap height, in det pixels, from the rows'
// lengths: chars pitches of 2.54 mm, capitals 2.3 mm tall (Doc 9303).
// Unlike the blobs' height it does not grow with blur.
func (z zone) capHeight(chars int) float64 {
	least := math.Inf(1)
	for _, r := range z.rows {
		least = min(least, (r.u1-r.u0)/(float64(chars)-0.3)*2.3/2.54)
	}
	return least
}

// lengthPerHeight is the zone's longest row's length in its character
// height.
func (z zone) lengthPerHeight() float64 {
	var l float64
	for _, r := range z.rows {
		l = max(l, r.u1-r.u0)
	}
	return l / z.charHeight()
}

// charHeight is the zone's character height, in det pixels.
func (z zone) charHeight() float64 {
	var hs float64
	for _, r := range z.rows {
		hs += r.height
	}
	return hs / float64(len(z.rows))
}
