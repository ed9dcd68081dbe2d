package mrzread

import (
	"image"
	"math"
	"slices"
)

// grid is where a line's character cells are in the straightened band:
// cell k spans [x0 + k·pitch, x0 + (k+1)·pitch), rows [y0, y1).
type grid struct {
	x0, pitch float64
	y0, y1    int
}

// rows splits the band's ink into n text lines by its row profile: the n
// densest runs of rows, top to bottom.
func rows(ink []bool, w, h, n int) ([][2]int, bool) {
	prof := make([]int, h)
	peak := 0
	for y := range h {
		for x := range w {
			if ink[y*w+x] {
				prof[y]++
			}
		}
		peak = max(peak, prof[y])
	}
	var runs [][2]int
	start := -1
	for y := 0; y <= h; y++ {
		on := y < h && prof[y] > peak/8
		switch {
		case on && start < 0:
			start = y
		case !on && start >= 0:
			if y-start >= 4 {
				runs = append(runs, [2]int{start, y})
			}
			start = -1
		}
	}
	if len(runs) < n {
		return nil, false
	}
	// Keep the n tallest, in order.
	for len(runs) > n {
		low := 0
		for i, r := range runs {
			if r[1]-r[0] < runs[low][1]-runs[low][0] {
				low = i
			}
		}
		runs = append(runs[:low], runs[low+1:]...)
	}
	return runs, true
}

// cells finds the fixed-pitch grid of a line of chars characters in a
// band of chars+2 pitches (zone.quad): the pitch and offset near the
// nominal ones whose cell boundaries cross the least ink (OCR-B in an MRZ
// is monospaced, 2.54 mm a character).
func cells(ink []bool, w int, y0, y1, chars int, nominal float64) grid {
	prof := make([]float64, w)
	for x := range w {
		for y := y0; y < y1; y++ {
			if ink[y*w+x] {
				prof[x]++
			}
		}
	}
	best, bestCost := grid{y0: y0, y1: y1}, math.Inf(1)
	for p := nominal * 0.95; p <= nominal*1.05; p += 0.1 {
		for o := nominal * 0.6; o <= nominal*1.4; o += 0.5 {
			var cost float64
			for k := 0; k <= chars; k++ {
				x := int(o + float64(k)*p + 0.5)
				if x >= 0 && x < w {
					cost += prof[x]
				}
			}
			if cost < bestCost {
				best, bestCost = grid{x0: o, pitch: p, y0: y0, y1: y1}, cost
			}
		}
	}
	return settle(ink, w, best, chars)
}

// settle moves a grid that is a whole pitch off: every position of an MRZ
// holds a glyph (a filler too), so a grid with an empty cell at one end
// and a glyph's ink just beyond the other has missed a character, and
// would read each character as its neighbour.
func settle(ink []bool, w int, g grid, chars int) grid {
	cell := func(k int) int { // ink in cell k's middle 60 %
		n := 0
		x0, x1 := int(g.x0+(float64(k)+0.2)*g.pitch), int(g.x0+(float64(k)+0.8)*g.pitch)
		for y := max(0, g.y0); y < min(len(ink)/w, g.y1); y++ {
			for x := max(0, x0); x < min(w, x1); x++ {
				if ink[y*w+x] {
					n++
				}
			}
		}
		return n
	}
	for range 2 {
		counts := make([]int, chars)
		for k := range counts {
			counts[k] = cell(k)
		}
		med := slices.Clone(counts)
		slices.Sort(med)
		empty := func(n int) bool { return n < med[len(med)/2]/6 }
		switch {
		case empty(counts[0]) && !empty(cell(chars)):
			g.x0 += g.pitch
		case empty(counts[chars-1]) && !empty(cell(-1)):
			g.x0 -= g.pitch
		default:
			return g
		}
	}
	return g
}

// cellRead is a line read cell by cell against the typeface: its text,
// and each character's match (normalised correlation, -1–1) and lead over
// the runner-up, in units of the two glyphs' own difference: 1 when the
// cell is the glyph itself, 0 when it lies halfway to the runner-up (so
// that O against Q, whose templates differ in a few samples, is judged as
// strictly as O against X).
type cellRead struct {
	text          string
	second        string // each character's runner-up
	score, margin []float64
	// height is each cell's ink height in the band, pixels: OCR-B's
	// digits stand taller than its capitals, which tells 0 from O.
	height []float64
	// blurred: the band is blurred (see refineHeights).
	blurred bool
	// zeroLead is each cell's lead of the 0 over the O, as margin measures
	// leads: positive where its shape is the 0's.
	zeroLead []float64
}

// matchLines reads the n lines of chars characters of band (straight,
// pitch pixels a character) cell by cell; ok is false when the band's
// rows cannot be found. Each line is read with the templates whose blur
// fits it best (the highest mean match over every fourth cell). With
// quick, only every fourth cell is read, with the middle blur: enough to
// tell which way up the band is.
func matchLines(band *image.Gray, sets []*glyphSet, chars, n int, quick bool, k float64) ([]cellRead, bool) {
	w, h := band.Rect.Dx(), band.Rect.Dy()
	ink := unruled(dark(band, pitch, k), w, h, pitch)
	rs, ok := rows(ink, w, h, n)
	if !ok {
		return nil, false
	}
	uncrossed(ink, w, rs)
	flat := level(band, pitch)
	out := make([]cellRead, 0, n)
	for _, r := range rs {
		g := cells(ink, w, r[0], r[1], chars, pitch)
		if g.pitch == 0 {
			return nil, false
		}
		if quick {
			out = append(out, matchCells(flat, ink, sets[len(sets)/2], g, chars, 4))
			continue
		}
		set, bestScore := sets[0], math.Inf(-1)
		for _, s := range sets {
			if m := meanScore([]cellRead{matchCells(flat, ink, s, g, chars, 4)}); m > bestScore {
				set, bestScore = s, m
			}
		}
		out = append(out, matchCells(flat, ink, set, g, chars, 1))
	}
	return out, true
}

// matchCells matches each stride-th cell of g against every glyph:
// centred on its glyph (glyphCentres), between the line's cap line and
// baseline (capLines), and a sample or two either way.
func matchCells(g *image.Gray, ink []bool, set *glyphSet, gr grid, chars, stride int) cellRead {
	w := g.Rect.Dx()
	cr := cellRead{score: make([]float64, chars), margin: make([]float64, chars), zeroLead: make([]float64, chars)}
	text, runnerUp := make([]byte, chars), make([]byte, chars)
	centres, model := glyphCentres(ink, w, gr, chars)
	top, bottom, heights := capLines(ink, w, gr, centres)
	cr.height = heights
	sx := gr.pitch / tw
	var v [tw * th]float64
	best := make([]float64, len(set.t))
	for k, centre := range centres {
		if k%stride != 0 {
			text[k], runnerUp[k] = '<', '<'
			continue
		}
		x0 := centre - gr.pitch/2
		y0 := top.at(centre)
		sy := (bottom.at(centre) - y0) / th
		for i := range best {
			best[i] = -1
		}
		for dy := -1; dy <= 1; dy++ {
			for dx := -2; dx <= 2; dx++ {
				for j := range th {
					y := y0 + (float64(j+dy)+0.5)*sy
					for i := range tw {
						v[j*tw+i] = float64(sample(g, pt{x0 + (float64(i+dx)+0.5)*sx, y}))
					}
				}
				nv := normalise(v)
				for c := range set.t {
					best[c] = max(best[c], dot(nv[:], set.t[c][:]))
				}
			}
		}
		first := 0
		for c := range best {
			if best[c] > best[first] {
				first = c
			}
		}
		// The runner-up is the glyph the cell is least clearly not.
		second, lead := -1, math.Inf(1)
		for c := range best {
			if c != first {
				if r := (best[first] - best[c]) / set.apart[first][c]; r < lead {
					second, lead = c, r
				}
			}
		}
		text[k], runnerUp[k] = set.chars[first], set.chars[second]
		cr.zeroLead[k] = (best[set.zero] - best[set.oh]) / set.apart[set.zero][set.oh]
		cr.score[k], cr.margin[k] = best[first], lead
		if math.Abs(centres[k]-model.at(float64(k)+0.5)) > 0.3*gr.pitch || cr.score[k] < 0.5 {
			cr.margin[k] = 0 // off the grid, or nothing like any glyph
		}
	}
	cr.text, cr.second = string(text), string(runnerUp)
	return cr
}

// line is y = a + b·x + c·x²: a cap line or baseline, bowed where the
// page is (a passport's page curves towards its spine).
type line struct{ a, b, c float64 }

func (l line) at(x float64) float64 { return l.a + l.b*x + l.c*x*x }

// capLines fits the line's cap line and baseline through the tops and
// bottoms of its glyphs' ink (capitals and digits are all of one height;
// fillers, shorter, are left out), so that each cell is compared with the
// templates at the glyphs' own height, even where the band is a little
// tilted or the row's ink spreads with blur. It also gives each cell's ink
// height (0 where it has none).
func capLines(ink []bool, w int, gr grid, centres []float64) (line, line, []float64) {
	h := len(ink) / w
	pad := (gr.y1 - gr.y0) / 3
	ylo, yhi := max(0, gr.y0-pad), min(h, gr.y1+pad)
	var xs, tops, bottoms, heights []float64
	cellHeights := make([]float64, len(centres))
	for k, c := range centres {
		t, b := glyphSpan(ink, w, ylo, yhi, gr, c)
		if t >= 0 {
			xs, tops, bottoms, heights = append(xs, c), append(tops, float64(t)), append(bottoms, float64(b)), append(heights, float64(b-t))
			cellHeights[k] = float64(b - t)
		}
	}
	fallback := func() (line, line, []float64) { return line{a: float64(gr.y0)}, line{a: float64(gr.y1)}, cellHeights }
	if len(xs) < 3 {
		return fallback()
	}
	med := slices.Clone(heights)
	slices.Sort(med)
	full := med[len(med)*3/4] // a capital's height: most characters are
	var fx, ft, fb []float64
	for i := range xs {
		if heights[i] >= 0.85*full && heights[i] <= 1.15*full {
			fx, ft, fb = append(fx, xs[i]), append(ft, tops[i]), append(fb, bottoms[i])
		}
	}
	if len(fx) < 3 {
		return fallback()
	}
	if top, bottom, ok := bowed(xs, tops, bottoms, full); ok {
		return top, bottom, cellHeights
	}
	return fitLine(fx, ft), fitLine(fx, fb), cellHeights
}

// glyphSpan is the rows [t, b) of the glyph in the cell centred on c,
// looked for between rows ylo and yhi: the run of rows with ink (gaps of
// a row or two closed) that overlaps the grid's row most, so that a rule
// or a speck above or below the glyph is not taken for its top or bottom.
// t is -1 where the cell has no ink.
func glyphSpan(ink []bool, w, ylo, yhi int, gr grid, c float64) (t, b int) {
	t, b = -1, -1
	best := 0
	x0, x1 := max(0, int(c-0.35*gr.pitch)), min(w, int(c+0.35*gr.pitch))
	inkRuns(ylo, yhi, func(y int) bool { return slices.Contains(ink[y*w+x0:y*w+x1], true) }, func(start, end int) {
		if o := min(end, gr.y1) - max(start, gr.y0); o > best || t < 0 {
			t, b, best = start, end, o
		}
	})
	return t, b
}

// inkRuns calls each with the runs [start, end) of i in [lo, hi) where on
// holds, gaps of one or two closed: a glyph's strokes broken by the ink
// threshold are one glyph.
func inkRuns(lo, hi int, on func(i int) bool, each func(start, end int)) {
	start, last := -1, -1
	for i := lo; i < hi; i++ {
		if !on(i) {
			continue
		}
		if start >= 0 && i-last > 3 {
			each(start, last+1)
			start = -1
		}
		if start < 0 {
			start = i
		}
		last = i
	}
	if start >= 0 {
		each(start, last+1)
	}
}

// fitLine is the least-squares straight line through (xs, ys).
func fitLine(xs, ys []float64) line {
	var n, sx, sy, sxx, sxy float64
	for i := range xs {
		n++
		sx, sy, sxx, sxy = sx+xs[i], sy+ys[i], sxx+xs[i]*xs[i], sxy+xs[i]*ys[i]
	}
	l := line{a: sy / n}
	if den := n*sxx - sx*sx; den != 0 {
		l.b = (n*sxy - sx*sy) / den
		l.a = (sy - l.b*sx) / n
	}
	return l
}

// bowed fits the cap line and baseline of a line whose glyphs (xs, their
// ink's tops and bottoms) may stand on a curve: the glyphs' middles,
// capitals' and fillers' alike (a filler stands a little higher), on a
// parabola, and the capitals' height along the line on a straight line
// (perspective). ok is false with fewer than bowPoints glyphs.
func bowed(xs, tops, bottoms []float64, full float64) (top, bottom line, ok bool) {
	var design [][]float64
	var mids, cx, ch []float64
	for i, x := range xs {
		hi := bottoms[i] - tops[i]
		if hi < 0.6*full || hi > 1.15*full {
			continue
		}
		short := 0.0
		if hi < 0.85*full {
			short = 1
		} else {
			cx, ch = append(cx, x), append(ch, hi)
		}
		design, mids = append(design, []float64{1, x, x * x, short}), append(mids, (tops[i]+bottoms[i])/2)
	}
	if len(mids) < bowPoints || len(cx) < 3 {
		return line{}, line{}, false
	}
	v, ok := leastSquares(design, mids)
	if !ok {
		return line{}, line{}, false
	}
	// Once more without the glyphs far off the curve (a speck joined to
	// one, a stroke broken).
	var kd [][]float64
	var km []float64
	for i, d := range design {
		if math.Abs(d[0]*v[0]+d[1]*v[1]+d[2]*v[2]+d[3]*v[3]-mids[i]) <= 0.1*full {
			kd, km = append(kd, d), append(km, mids[i])
		}
	}
	if len(km) < bowPoints {
		return line{}, line{}, false
	}
	if v, ok = leastSquares(kd, km); !ok {
		return line{}, line{}, false
	}
	h := fitLine(cx, ch)
	return line{a: v[0] - h.a/2, b: v[1] - h.b/2, c: v[2]}, line{a: v[0] + h.a/2, b: v[1] + h.b/2, c: v[2]}, true
}

// bowPoints is how many glyphs a line's cap line and baseline are fitted
// through before they may bow.
const bowPoints = 12

// inkCentre is the middle of the glyph nearest x in a row of g's grid: of
// the run of ink columns (gaps of a pixel or two closed) within a pitch
// and a half around x whose middle is nearest x. The grid's boundaries lie
// somewhere in the gaps between glyphs, and a document prints each glyph
// centred in its pitch, as the templates are drawn. Glyphs run together
// (blur) or no ink: x itself.
func inkCentre(ink []bool, w int, gr grid, x float64) float64 {
	lo, hi := max(0, int(x-0.75*gr.pitch)), min(w, int(x+0.75*gr.pitch)+1)
	h := len(ink) / w
	y0, y1 := max(0, gr.y0), min(h, gr.y1)
	best, bestD := x, gr.pitch/2
	on := func(cx int) bool {
		for y := y0; y < y1; y++ {
			if ink[y*w+cx] {
				return true
			}
		}
		return false
	}
	inkRuns(lo, hi, on, func(start, end int) {
		if width := float64(end - start); width <= 1.05*gr.pitch {
			if c := float64(start+end) / 2; math.Abs(c-x) < bestD {
				best, bestD = c, math.Abs(c-x)
			}
		}
	})
	return best
}

// glyphCentres finds each cell's glyph. A row's glyphs are runs of ink
// columns (OCR-B's glyphs do not touch): when there are as many runs as
// characters, they are the cells. Otherwise (glyphs run together in blur,
// a stroke breaks) the grid's uniform pitch, or the line from the first
// run to the last, is a first guess: the glyphs nearest each cell
// (inkCentre) fit a projective map from a character's index to its
// position — a band straightened from a photo in perspective keeps some
// foreshortening, its pitch changing along the line — and the cells move
// with it, a few times over.
func glyphCentres(ink []bool, w int, gr grid, chars int) ([]float64, projective) {
	centres := make([]float64, chars)
	runs := glyphRuns(ink, w, gr)
	model := projective{a: gr.pitch, b: gr.x0}
	if len(runs) >= chars/2 {
		first, last := runs[0], runs[len(runs)-1]
		a := (last - first) / float64(chars-1)
		model = projective{a: a, b: first - 0.5*a}
	}
	if len(runs) == chars {
		ts := make([]float64, chars)
		for k := range ts {
			ts[k] = float64(k) + 0.5
		}
		copy(centres, runs)
		if m, ok := fitProjective(ts, centres); ok {
			model = m
		}
		return centres, model
	}
	for round := range 3 {
		var ts, xs []float64
		for k := range chars {
			t := float64(k) + 0.5
			guess := model.at(t)
			centres[k] = inkCentre(ink, w, gr, guess)
			if math.Abs(centres[k]-guess) < []float64{0.3, 0.2, 0.15}[round]*gr.pitch {
				ts, xs = append(ts, t), append(xs, centres[k])
			}
		}
		if len(ts) < chars/2 {
			break
		}
		if m, ok := fitProjective(ts, xs); ok {
			model = m
		}
	}
	return centres, model
}

// glyphRuns is the middles of a grid row's runs of ink columns (gaps of a
// pixel or two closed), specks left out.
func glyphRuns(ink []bool, w int, gr grid) []float64 {
	h := len(ink) / w
	var out []float64
	start, last := -1, -1
	flush := func() {
		if start >= 0 && float64(last-start+1) >= 0.12*gr.pitch {
			out = append(out, float64(start+last+1)/2)
		}
		start = -1
	}
	for x := range w {
		on := false
		for y := max(0, gr.y0); y < min(h, gr.y1); y++ {
			if ink[y*w+x] {
				on = true
				break
			}
		}
		switch {
		case on && start >= 0 && x-last > 3:
			flush()
			start, last = x, x
		case on:
			if start < 0 {
				start = x
			}
			last = x
		}
	}
	flush()
	return out
}

// projective is x = (a·t + b) / (c·t + 1): positions along a line seen in
// perspective.
type projective struct{ a, b, c float64 }

func (p projective) at(t float64) float64 { return (p.a*t + p.b) / (p.c*t + 1) }

// fitProjective fits x = (a·t + b)/(c·t + 1) to the points by least
// squares of a·t + b − c·t·x = x.
func fitProjective(ts, xs []float64) (projective, bool) {
	design := make([][]float64, len(ts))
	for i, t := range ts {
		design[i] = []float64{t, 1, -t * xs[i]}
	}
	v, ok := leastSquares(design, xs)
	if !ok {
		return projective{}, false
	}
	return projective{a: v[0], b: v[1], c: v[2]}, true
}

// leastSquares solves design·v ≈ ys by least squares (the normal
// equations, by Gaussian elimination with partial pivoting); ok is false
// when they are singular.
func leastSquares(design [][]float64, ys []float64) (v []float64, ok bool) {
	if len(design) == 0 {
		return nil, false
	}
	n := len(design[0])
	m := make([][]float64, n) // normal equations, augmented
	for r := range m {
		m[r] = make([]float64, n+1)
	}
	for i, row := range design {
		for r := range n {
			for c := range n {
				m[r][c] += row[r] * row[c]
			}
			m[r][n] += row[r] * ys[i]
		}
	}
	for c := range n {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		if math.Abs(m[p][c]) < 1e-9 {
			return nil, false
		}
		m[c], m[p] = m[p], m[c]
		for r := range n {
			if r != c {
				f := m[r][c] / m[c][c]
				for k := c; k <= n; k++ {
					m[r][k] -= f * m[c][k]
				}
			}
		}
	}
	v = make([]float64, n)
	for r := range n {
		v[r] = m[r][n] / m[r][r]
	}
	return v, true
}

// fineScale is how many times the matcher's size the band is drawn at to
// measure its glyphs' heights: at the matcher's size OCR-B's digits stand
// about 3 pixels above its capitals, so a glyph one pixel off sits a third
// of the way to the other kind (docs/BENCHMARKS.md).
const fineScale = 2

// refineHeights measures the cells' ink heights again on the band drawn
// fineScale times larger from the photo itself (the image read may have
// been shrunk), in the matcher's pixels; the matcher's own are kept where
// the larger band's lines or grid are not found where the matcher's were.
// A blurred band's cells are marked so: blur spreads a thin glyph's ends,
// and its heights no longer tell an I from a 1 (see choose).
func refineHeights(cells []cellRead, ph shot, quad [4]pt, upsideDown bool, sharp, k float64) {
	for i := range cells {
		cells[i].blurred = sharp < blurredBand
	}
	fine := fineHeights(ph.full, ph.inPhoto(quad), len(cells[0].text), len(cells), fineScale, upsideDown, k)
	if len(fine) != len(cells) {
		return
	}
	for i, c := range cells {
		near, known := 0, 0
		for k, h := range c.height {
			if h > 0 && k < len(fine[i]) {
				known++
				if math.Abs(fine[i][k]-h) <= 1.5 {
					near++
				}
			}
		}
		if len(fine[i]) != len(c.height) || near < known*9/10 {
			return
		}
	}
	for i := range cells {
		cells[i].height = fine[i]
	}
}

// blurredBand is the sharpness under which a band is blurred (retakeReason).
const blurredBand = 0.12

// fineHeights measures each cell's ink height on the band drawn at scale
// times the matcher's size, in the matcher's pixels (nil where its rows or
// grid are not found).
func fineHeights(src *image.Gray, quad [4]pt, chars, n, scale int, upsideDown bool, k float64) [][]float64 {
	band := rectifyAt(src, quad, chars, n, scale*pitch)
	if upsideDown {
		band = rotate(band, 180)
	}
	w, h := band.Rect.Dx(), band.Rect.Dy()
	ink := unruled(dark(band, scale*pitch, k), w, h, float64(scale*pitch))
	rs, ok := rows(ink, w, h, n)
	if !ok {
		return nil
	}
	uncrossed(ink, w, rs)
	out := make([][]float64, 0, n)
	for _, r := range rs {
		g := cells(ink, w, r[0], r[1], chars, float64(scale*pitch))
		if g.pitch == 0 {
			return nil
		}
		centres, _ := glyphCentres(ink, w, g, chars)
		_, _, hs := capLines(ink, w, g, centres)
		for k := range hs {
			hs[k] /= float64(scale)
		}
		out = append(out, hs)
	}
	return out
}
