package mrzread

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"math"
	"slices"
	"strings"

	"github.com/kycflow/kycflow/engines/mrz"
)

// Tesseract's stock model was not trained on OCR-B: on one rendering of a
// band it may read a line right, on another insert a letter between two
// fillers. So the band is read in several renderings at once, stacked in
// one image (one process, one model load), and a line counts as read only
// when the renderings agree on it or its check digits confirm it.

// renderings are the scales (of the straightened band) it is presented
// to Tesseract at, its levels stretched.
var renderings = []float64{1, 1.25, 0.8}

// variants reads the straightened band in every rendering: for each, the
// lines it read, cleaned to the MRZ's alphabet and length (nil where it
// did not read n lines of chars characters).
func (r Reader) variants(ctx context.Context, band *image.Gray, chars, n int) ([][]ocrLine, error) {
	const margin, gap = 4, pitch
	var parts []*image.Gray
	w, h := 0, margin
	var bounds [][2]int // each rendering's rows in the stack
	for _, scale := range renderings {
		g := band
		if scale != 1 {
			g = scaleTo(band, int(float64(band.Rect.Dx())*scale), int(float64(band.Rect.Dy())*scale))
		}
		g = stretch(g)
		parts = append(parts, g)
		bounds = append(bounds, [2]int{h, h + g.Rect.Dy()})
		w, h = max(w, g.Rect.Dx()+2*margin), h+g.Rect.Dy()+gap
	}
	stack := image.NewGray(image.Rect(0, 0, w, h))
	for i := range stack.Pix {
		stack.Pix[i] = 255
	}
	for i, g := range parts {
		for y := range g.Rect.Dy() {
			copy(stack.Pix[(bounds[i][0]+y)*stack.Stride+margin:], g.Pix[y*g.Stride:y*g.Stride+g.Rect.Dx()])
		}
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, stack); err != nil {
		return nil, err
	}
	lines, err := r.Tesseract.readMRZ(ctx, buf.Bytes())
	if err != nil {
		return nil, err
	}
	out := make([][]ocrLine, len(renderings))
	for i, b := range bounds {
		var mine []ocrLine
		for _, l := range lines {
			if l.mid >= float64(b[0]) && l.mid < float64(b[1]) {
				mine = append(mine, l)
			}
		}
		out[i] = assemble(mine, chars, n)
	}
	return out, nil
}

// assemble cleans a rendering's lines: characters outside the alphabet
// dropped, short noise lines skipped; nil unless n lines remain. Their
// lengths are left as read: choose aligns them with the matcher's.
func assemble(ls []ocrLine, chars, n int) []ocrLine {
	var out []ocrLine
	for _, l := range ls {
		t := strings.Map(func(r rune) rune {
			if strings.ContainsRune(mrzAlphabet, r) {
				return r
			}
			return -1
		}, l.text)
		if len(t) < chars/2 {
			continue
		}
		out = append(out, ocrLine{text: t, conf: l.conf})
	}
	if len(out) != n {
		return nil
	}
	return out
}

// align maps each character of a to the character of b it lines up with
// in a least-edit alignment (-1 where b has none): Tesseract drops and
// invents characters, above all in runs of fillers, and the matcher's
// fixed-pitch cells say how many there are. loose marks the characters
// of a it pairs with the same character of b where another least-edit
// alignment pairs them with a different one: align chooses one of them,
// and the one it chose may pair a character with its neighbour's
// reading, which confirms nothing. A rendering that read a card's GQ5 as
// GQS5 had been aligned Q with Q, the G invented — "confirming" the
// matcher's misread QQ, which no check digit refutes — where pairing Q
// with G, the S invented, costs the same.
func align(a, b string) (at []int, loose []bool) {
	n, m := len(a), len(b)
	d := editTable(a, b)
	at = make([]int, n)
	for i, j := n, m; i > 0; {
		switch {
		case j > 0 && d[i][j] == d[i-1][j-1]+boolInt(a[i-1] != b[j-1]):
			at[i-1] = j - 1
			i, j = i-1, j-1
		case d[i][j] == d[i-1][j]+1:
			at[i-1] = -1
			i--
		default:
			j--
		}
	}
	r := editTable(reversed(a), reversed(b)) // of the suffixes
	loose = make([]bool, n)
	for i := range n {
		if at[i] < 0 || b[at[i]] != a[i] {
			continue
		}
		for j := range m {
			if b[j] != a[i] && d[i][j]+boolInt(a[i] != b[j])+r[n-i-1][m-j-1] == d[n][m] {
				loose[i] = true
				break
			}
		}
	}
	return at, loose
}

// editTable is the least edits (changes, insertions, deletions) from each
// prefix of a to each prefix of b: d[i][j] for a[:i] and b[:j].
func editTable(a, b string) [][]int {
	n, m := len(a), len(b)
	d := make([][]int, n+1)
	for i := range d {
		d[i] = make([]int, m+1)
		d[i][0] = i
	}
	for j := range m + 1 {
		d[0][j] = j
	}
	for i := 1; i <= n; i++ {
		for j := 1; j <= m; j++ {
			d[i][j] = min(d[i-1][j-1]+boolInt(a[i-1] != b[j-1]), d[i-1][j]+1, d[i][j-1]+1)
		}
	}
	return d
}

func reversed(s string) string {
	b := []byte(s)
	slices.Reverse(b)
	return string(b)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// slot is an open character: its options, the matcher's first, and what
// its ink height says it is.
type slot struct {
	line, pos int
	options   []byte
	height    stature
	// ink is the glyph's ink height, gap its line's digits' height less
	// its capitals' (0: not known): beside another glyph, what tells which
	// of the two is the 0 and which the O.
	ink, gap float64
	// lead is the glyph's lead of the 0's shape over the O's
	// (cellRead.zeroLead).
	lead float64
}

// maxOpen bounds the characters the readers may disagree on: each doubles
// the readings to try, and a band read that badly is a retake anyway.
const maxOpen = 12

// sureMargin is the lead over the runner-up glyph (cellRead) at which the
// matcher's reading of a character stands without Tesseract's
// (docs/BENCHMARKS.md has the matcher's errors by lead). Never for O or
// 0: in OCR-B they differ in width alone, which blur and perspective
// change.
const sureMargin = 0.35

// fillerMargin is sureMargin for the filler '<', whose chevron no letter
// resembles, while Tesseract's stock model reads filler runs as K and
// inserts letters between fillers — and a K weighs 20 in a check digit,
// the same as a filler modulo 10, so no check digit can refute it.
const fillerMargin = 0.3

// matcherSure reports whether the matcher's reading of character k of c
// stands alone.
func matcherSure(c cellRead, k int) bool {
	switch c.text[k] {
	case 'O', '0':
		return false
	case '<':
		return c.margin[k] >= fillerMargin
	}
	return c.margin[k] >= sureMargin
}

// stature is what a glyph's ink height says it is.
type stature int

const (
	anyHeight stature = iota // the height does not say
	fillerHeight
	capitalHeight
	digitHeight
	tallHeight // a capital or a digit, not a filler
)

// allows reports whether ch stands as tall as st says.
func (st stature) allows(ch byte) bool {
	switch st {
	case fillerHeight:
		return ch == '<'
	case capitalHeight:
		return ch >= 'A' && ch <= 'Z'
	case digitHeight:
		return ch >= '0' && ch <= '9'
	case tallHeight:
		return ch != '<'
	}
	return true
}

// references are, for each line, the medians of the heights of the cells
// the matcher reads surely as fillers, capitals and digits (1–9), at least
// three each (0: too few). A line with too few of one — a card's first
// line may hold two digits, its second two capitals — borrows that
// reference from the nearest line that has it: the band's lines are
// printed in one type at one size.
func references(cells []cellRead) [][4]float64 {
	meds := make([][4]float64, len(cells))
	for i, c := range cells {
		var refs [4][]float64
		for k := range len(c.text) {
			if k >= len(c.height) || c.height[k] == 0 || !matcherSure(c, k) {
				continue
			}
			switch ch := c.text[k]; {
			case ch == '<':
				refs[fillerHeight] = append(refs[fillerHeight], c.height[k])
			case ch >= 'A' && ch <= 'Z' && ch != 'Q':
				refs[capitalHeight] = append(refs[capitalHeight], c.height[k])
			case ch >= '1' && ch <= '9':
				refs[digitHeight] = append(refs[digitHeight], c.height[k])
			}
		}
		for st := fillerHeight; st <= digitHeight; st++ {
			if r := refs[st]; len(r) >= 3 {
				slices.Sort(r)
				meds[i][st] = r[len(r)/2]
			}
		}
	}
	own := slices.Clone(meds)
	for i := range meds {
		for st := fillerHeight; st <= digitHeight; st++ {
			for dist := 1; meds[i][st] == 0 && dist < len(meds); dist++ {
				for _, j := range []int{i - dist, i + dist} {
					if j >= 0 && j < len(meds) && meds[i][st] == 0 {
						meds[i][st] = own[j][st]
					}
				}
			}
		}
	}
	return meds
}

// shares are the cells' heights as a share of the way from their line's
// capitals to its digits (see Reader.Heights).
func shares(cells []cellRead) [][]float64 {
	refs := references(cells)
	out := make([][]float64, len(cells))
	for i, c := range cells {
		l, d := refs[i][capitalHeight], refs[i][digitHeight]
		out[i] = make([]float64, len(c.text))
		for k := range out[i] {
			out[i][k] = math.NaN()
			if k < len(c.height) && c.height[k] > 0 && l > 0 && d-l >= 1 {
				out[i][k] = (c.height[k] - l) / (d - l)
			}
		}
	}
	return out
}

// heights tells, for a cell of c, what its ink height says it is: OCR-B's
// digits stand about 7 % taller than its capitals, and the chevron lower
// than either, which tells 0 from O, 5 from S, 8 from B, a filler from a
// C or a K where blur and ink spread have made their shapes alike. med is
// the line's references (see references); a cell is taken for one when it
// lies within a quarter of the way to the nearest other — an O (round)
// within half the way from the capitals to the digits: OCR-B's round
// glyphs rise above the cap line and sink below the baseline, so an O
// stands about a third of the way up from the flat capitals the
// references are measured on (docs/BENCHMARKS.md).
func heights(c cellRead, med [4]float64) (func(k int, round bool) stature, float64) {
	f, l, d := med[fillerHeight], med[capitalHeight], med[digitHeight]
	fl, ld := f != 0 && l-f >= 1, d != 0 && d-l >= 1 // the references that tell apart
	var gap float64
	if ld && l != 0 {
		gap = d - l
	}
	return func(k int, round bool) stature {
		if k >= len(c.height) || l == 0 {
			return anyHeight
		}
		h := c.height[k]
		switch {
		case h == 0:
			return anyHeight
		case fl && h <= f+0.25*(l-f):
			return fillerHeight
		case ld && h >= d-0.25*(d-l):
			return digitHeight
		case round && ld && h >= l && h <= l+roundCapital*(d-l):
			return capitalHeight
		case ld && h <= l+0.25*(d-l) && (fl && h >= l-0.25*(l-f) || !fl && h >= l-0.25*(d-l)):
			return capitalHeight
		case fl && h >= l-0.25*(l-f):
			return tallHeight
		}
		return anyHeight
	}, gap
}

// mayStand reports whether ch may stand in a field of class as it is
// (a 1 read alike by both readers in a nationality is not settled: it is
// taken, with the other options, as the letter it looks like).
func mayStand(ch byte, class mrz.Class) bool {
	as, ok := mrz.AsClass(rune(ch), class)
	return ok && byte(as) == ch
}

// refutedLookAlike is the look-alike of the other kind (S and 5, B and 8,
// I and 1, Z and 2) that a glyph read as ch but as tall as st says may
// be, where the field's class allows both; false where the height allows
// ch, or says nothing, or there is none. Never G and 6: they weigh alike
// in every check digit, so the height of one round glyph, which blur
// lifts to a digit's, would decide alone (three phone photos' Gs were
// read 6 so).
func refutedLookAlike(ch byte, st stature, class mrz.Class) (byte, bool) {
	if class != mrz.Any || st.allows(ch) || roundish(ch) || ch == 'G' || ch == '6' {
		return 0, false
	}
	other := mrz.Digits
	if ch >= '0' && ch <= '9' {
		other = mrz.Letters
	}
	alt, ok := mrz.AsClass(rune(ch), other)
	if !ok || byte(alt) == ch || !st.allows(byte(alt)) {
		return 0, false
	}
	return byte(alt), true
}

// roundCapital is how far up from the capitals' height to the digits' a
// round glyph is still taken for an O (see heights).
const roundCapital = 0.5

// roundish reports whether ch is O or 0, which OCR-B tells apart by
// width alone.
func roundish(ch byte) bool { return ch == 'O' || ch == '0' }

// choose reads the MRZ from the two readers: cells, the typeface
// matcher's lines, and tess, each Tesseract rendering's (nil where one
// did not read the band whole). A character is sure when the matcher and
// at least one rendering read it alike, or the matcher's glyph leads its
// runner-up by sureMargin — but where both read O or 0, the field's class
// decides (a digit in a date, a letter in a name), or, where either may
// stand, both are tried. Every other character is open: its options are
// the matcher's two best glyphs and what the renderings read there, less
// those the field's class rules out, and every combination of options is
// tried. The read is the one combination that passes every check — check
// digits, the character class of each field, dates, country codes,
// padding — and there must be exactly one. So where no check digit covers
// an open character (the name, the nationality, the sex) the field's class
// must rule all but one reading out; where a digit covers it, the digit
// decides, unless two readings pass it alike (G and 6 weigh the same).
// agreed is the share of characters the two readers read alike, open how
// many were open.
func choose(cells []cellRead, tess [][]ocrLine) (doc *mrz.Document, agreed float64, open int, ok bool) {
	var slots []slot
	lines := make([][]byte, len(cells))
	format := mrz.TD3
	switch {
	case len(cells) == 3:
		format = mrz.TD1
	case len(cells[0].text) == 36:
		format = mrz.TD2
	}
	classes := mrz.Classes(format)
	classOf := func(i, k int) mrz.Class {
		if i < len(classes) && k < len(classes[i]) {
			return classes[i][k]
		}
		return mrz.Any
	}
	pad := mrz.Padding(format)
	total, same := 0, 0
	refs := references(cells)
	var kn known
	for i, c := range cells {
		lines[i] = []byte(c.text)
		tall, gap := heights(c, refs[i])
		open := func(k int, options []byte) slot {
			sl := slot{line: i, pos: k, options: options, gap: gap}
			sl.height = tall(k, sl.round())
			if k < len(c.height) {
				sl.ink = c.height[k]
			}
			if k < len(c.zeroLead) {
				sl.lead = c.zeroLead[k]
			}
			if c.blurred && (slices.Contains(options, 'I') || slices.Contains(options, '1')) {
				// Blur spreads a thin glyph's ends: on a phone photo both
				// Is of a document number's II measured a 1's height.
				sl.height, sl.ink = anyHeight, 0
			}
			return sl
		}
		// Each rendering's line i, aligned with the matcher's.
		var aligned [][]int
		var unsure [][]bool // a pairing another alignment makes otherwise (align)
		var texts []string
		for _, r := range tess {
			if r != nil && i < len(r) {
				at, loose := align(c.text, r[i].text)
				aligned = append(aligned, at)
				unsure = append(unsure, loose)
				texts = append(texts, r[i].text)
			}
		}
		for k := range len(c.text) {
			total++
			opts := []byte{c.text[k], c.second[k]}
			confirmed, rounds, others := false, 0, 0
			for j, at := range aligned {
				if at[k] < 0 {
					continue
				}
				ch := texts[j][at[k]]
				if ch == c.text[k] {
					confirmed = confirmed || !unsure[j][k]
				} else if !slices.Contains(opts, ch) {
					opts = append(opts, ch)
				}
				if roundish(ch) {
					rounds++
				} else {
					others++
				}
			}
			// A round glyph when the matcher and most of Tesseract's
			// renderings see one (a rendering that slipped a character in
			// beside it may see another), or the matcher sees one surely:
			// its margin is over every other glyph, the O or 0 included,
			// and it is only between those two that it is never sure.
			round := roundish(c.text[k]) && (rounds > others || c.margin[k] >= sureMargin)
			if confirmed {
				same++
			}
			class := classOf(i, k)
			switch {
			case round && class == mrz.Digits:
				lines[i][k] = '0' // where only a digit may stand
				if k < len(c.height) && c.height[k] > 0 {
					kn.zeros = append(kn.zeros, c.height[k])
				}
				if k < len(c.zeroLead) {
					kn.zeroLeads = append(kn.zeroLeads, c.zeroLead[k])
				}
			case round && class == mrz.Letters:
				lines[i][k] = 'O'
				if k < len(c.zeroLead) {
					kn.ohLeads = append(kn.ohLeads, c.zeroLead[k])
				}
			case round:
				// Both readers see a round glyph, and OCR-B's O and 0
				// differ in little but the 0's height, which print, blur
				// and small sizes make uncertain: always open where
				// either may stand, even when they
				// agree, so that two O/0 swaps whose weights cancel in a
				// check digit are found ambiguous rather than read.
				slots = append(slots, open(k, []byte{'O', '0'}))
			case (confirmed || matcherSure(c, k) || c.text[k] == '<' && tall(k, false) == fillerHeight) && mayStand(c.text[k], class):
				// A chevron the matcher reads that stands a filler's height
				// is one, whatever Tesseract made of it (a blurred run of
				// fillers reads as Cs and Ks, which no letter is as short as).
				//
				// Read alike, yet on Tesseract's word (the matcher not sure
				// alone) and a letter standing a digit's height (or a digit
				// a capital's) where either may stand: open with its
				// look-alike, for the check digits and the heights to
				// decide. Both readers had read a document number's 85 as
				// BS, whose weights cancel in its check digit, the
				// matcher's S 0.02 ahead of a 3.
				if alt, ok := refutedLookAlike(c.text[k], tall(k, false), class); ok && c.margin[k] < sureMargin {
					slots = append(slots, open(k, []byte{c.text[k], alt}))
				}
			default:
				// What may not stand here is taken as its look-alike
				// that may (an O in a date is a 0), as Parse takes it.
				var fit []byte
				for _, ch := range opts {
					if as, ok := mrz.AsClass(rune(ch), class); ok && !slices.Contains(fit, byte(as)) {
						fit = append(fit, byte(as))
					}
				}
				switch len(fit) {
				case 0: // nothing may stand here: no reading passes
					slots = append(slots, slot{line: i, pos: k, options: []byte{c.text[k]}})
				case 1:
					lines[i][k] = fit[0]
				default:
					slots = append(slots, open(k, fit))
				}
			}
		}
		for k := range lines[i] {
			if fillerLike(pad, lines[i], i, k) && !slices.ContainsFunc(slots, func(s slot) bool { return s.line == i && s.pos == k }) {
				slots = append(slots, open(k, []byte{lines[i][k], '<'}))
			}
		}
	}
	if total == 0 {
		return nil, 0, 0, false
	}
	slots = zeroRuns(lines, slots, kn)
	slots = padded(pad, lines, slots)
	// The lines fall into groups no check spans (a TD3's name line, a
	// TD1's name line): each group's reading is found alone, and the
	// document's is unique when every group's is.
	for _, group := range lineGroups(format) {
		var mine []slot
		for _, sl := range slots {
			if slices.Contains(group, sl.line) {
				mine = append(mine, sl)
			}
		}
		all, tried := readings(lines, mine, group)
		if !tried || len(all) == 0 {
			return nil, 0, len(slots), false
		}
		found := all[0]
		if len(all) > 1 {
			// Where letters, digits and fillers left two readings, their
			// heights decide — only where they refute the other reading
			// at every character the two differ in: two look-alike swaps
			// whose weights cancel in a check digit (I and 1 at weights 7
			// and 3) would otherwise be read on the height of one glyph.
			// One TD3 photo of 1 500 had been read so, wrong.
			if found = byHeight(all, mine); found == nil {
				return nil, 0, len(slots), false
			}
		}
		for _, i := range group {
			lines[i] = []byte(found.Lines[i])
		}
	}
	text := make([]string, len(lines))
	for i, l := range lines {
		text[i] = string(l)
	}
	d, err := mrz.Parse(strings.Join(text, "\n"))
	if err != nil || !passes(d, nil) {
		return nil, 0, len(slots), false
	}
	return d, float64(same) / float64(total), len(slots), true
}

// known are the round glyphs whose field says what they are: zeros
// (dates, check digits) and Os (names), by ink height and by the lead of
// the 0's shape over the O's (cellRead.zeroLead).
type known struct {
	zeros, zeroLeads, ohLeads []float64
}

// zeroRuns settles a run of round glyphs either of O and 0 may be — three
// or more side by side in one line, as a specimen's document number
// 000000000 — as zeros when they are one glyph and it is the 0: their
// ink heights within half the line's digit–capital difference of one
// another, and either their mean within a sixth of it of the mean of the
// band's round glyphs that can only be zeros (dates, check digits: at
// least two) — an O stands some three fifths of it lower — or their
// shapes the zeros' (zeroShaped). A careful reader does the same: the run
// looks like the dates' zeros, not like a letter. One glyph, a fraction
// of a pixel on a small scan, is too uncertain to tell one O among zeros;
// a run beside zeros of the same print is not, and a run with an O in it
// is not one glyph. Heights alone fail where the print is thinner at one
// end of a line (an Icelandic passport's zeros a third of the gap lower
// than its dates'), shapes alone where blur makes the two alike: either,
// measured against the band's own glyphs, says so. Anything else stays
// open for the check digits and byHeight.
func zeroRuns(lines [][]byte, slots []slot, kn known) []slot {
	if len(kn.zeros) == 0 {
		return slots
	}
	zero := meanOf(kn.zeros)
	isRound := func(sl slot) bool {
		return len(sl.options) == 2 && roundish(sl.options[0]) && roundish(sl.options[1]) && sl.ink > 0 && sl.gap > 0
	}
	settled := make([]bool, len(slots))
	for a := 0; a < len(slots); {
		b := a + 1
		for b < len(slots) && isRound(slots[a]) && isRound(slots[b]) && slots[b].line == slots[a].line && slots[b].pos == slots[b-1].pos+1 {
			b++
		}
		if run := slots[a:b]; len(run) >= 3 {
			lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
			for _, sl := range run {
				lo, hi, sum = min(lo, sl.ink), max(hi, sl.ink), sum+sl.ink
			}
			m, gap := sum/float64(len(run)), run[0].gap
			tall := len(kn.zeros) >= 2 && math.Abs(m-zero) <= gap/6
			if hi-lo <= gap/2 && (tall || kn.zeroShaped(run)) {
				for j := a; j < b; j++ {
					lines[slots[j].line][slots[j].pos], settled[j] = '0', true
				}
			}
		}
		a = b
	}
	return unsettled(slots, settled)
}

// unsettled is the slots not settled.
func unsettled(slots []slot, settled []bool) []slot {
	var out []slot
	for j, sl := range slots {
		if !settled[j] {
			out = append(out, sl)
		}
	}
	return out
}

// zeroShaped reports whether every glyph of run has the 0's shape by the
// measure of the band's known round glyphs: where the band's zeros lead
// the O by minZeroLead more than its Os do (than 0, the two alike, in a
// band whose names have no O), each glyph of the run leads it by more
// than half-way from the Os to the zeros, and by more than nothing.
func (kn known) zeroShaped(run []slot) bool {
	if len(kn.zeroLeads) == 0 {
		return false
	}
	oh := 0.0
	if len(kn.ohLeads) > 0 {
		oh = slices.Max(kn.ohLeads)
	}
	apart := meanOf(kn.zeroLeads) - oh
	if apart < minZeroLead {
		return false
	}
	for _, sl := range run {
		if sl.lead <= 0 || sl.lead < oh+apart/2 {
			return false
		}
	}
	return true
}

// minZeroLead is how much further the band's known zeros' shapes must lead
// the O (cellRead.zeroLead) than its Os' for shapes to tell the two apart
// on it (docs/BENCHMARKS.md).
const minZeroLead = 0.5

func meanOf(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// fillerLike reports whether character k of line i (of lines, padded as
// pad says) is a K or a C standing among fillers in a padded field: where
// both readers may take a filler for one, and no check digit tells (a K
// weighs what a filler weighs; a C, in a name, is covered by none). It
// is then open with the filler beside it, so that the glyph's height
// decides, or it is a retake: a card's optional data …469<<<<<< had been
// read …469<<K<<< so, by both readers; and at a field's start after
// another's fillers (a TD1's optional data after the nationality D<<),
// <<<<<< read K<<<<<.
func fillerLike(pad [][]bool, line []byte, i, k int) bool {
	in := func(k int) bool { return i < len(pad) && k >= 0 && k < len(pad[i]) && pad[i][k] }
	if !in(k) || line[k] != 'K' && line[k] != 'C' || k == 0 || line[k-1] != '<' {
		return false
	}
	return !in(k+1) || line[k+1] == '<'
}

// padded settles the characters that can only be fillers: those after
// three fillers in a row in a field padded from the left (names, optional
// data), where no other character may follow (mrz.Padded) — a name's
// trailing fillers are where Tesseract reads K and C, and the matcher now
// and then. pad is the format's (mrz.Padding). It returns the slots still
// open; lines is updated.
func padded(pad [][]bool, lines [][]byte, slots []slot) []slot {
	open := make(map[[2]int]int, len(slots))
	for j, sl := range slots {
		open[[2]int{sl.line, sl.pos}] = j
	}
	settled := make([]bool, len(slots))
	for i, l := range lines {
		run := 0 // fillers in a row, settled, up to here
		for k := range l {
			if i >= len(pad) || k >= len(pad[i]) || !pad[i][k] {
				run = 0
				continue
			}
			j, isOpen := open[[2]int{i, k}]
			switch {
			case isOpen && run >= 3 && slices.Contains(slots[j].options, '<'):
				l[k], settled[j] = '<', true
				run++
			case !isOpen && l[k] == '<':
				run++
			case !isOpen && run >= 3:
				// No document prints a character there: the readers took
				// a filler for a letter alike (a K, as Tesseract reads
				// fillers).
				l[k] = '<'
				run++
			default:
				run = 0
			}
		}
	}
	return unsettled(slots, settled)
}

// lineGroups are the lines of format's MRZ that checks tie together.
func lineGroups(f mrz.Format) [][]int {
	if f == mrz.TD1 {
		return [][]int{{0, 1}, {2}}
	}
	return [][]int{{0}, {1}}
}

// maxReadings bounds the passing readings readings collects: more are as
// undecidable as too many slots. A specimen's document number 000000000
// is nine round glyphs either of O and 0 may be: 512 readings, some fifty
// passing its check digit, of which the glyphs' heights (byHeight) leave
// one or none.
const maxReadings = 64

// readings tries every combination of the slots' options in lines (which
// it overwrites): the distinct readings that pass every check on the given
// lines, and false when the slots are too many to try or the readings
// more than maxReadings.
func readings(lines [][]byte, slots []slot, group []int) ([]*mrz.Document, bool) {
	if len(slots) > maxOpen {
		return nil, false
	}
	pick := make([]int, len(slots))
	var out []*mrz.Document
	for {
		for j, s := range slots {
			lines[s.line][s.pos] = s.options[pick[j]]
		}
		text := make([]string, len(lines))
		for i, l := range lines {
			text[i] = string(l)
		}
		if d, err := mrz.Parse(strings.Join(text, "\n")); err == nil && passes(d, group) &&
			!slices.ContainsFunc(out, func(o *mrz.Document) bool { return sameLines(o, d, group) }) {
			if out = append(out, d); len(out) > maxReadings {
				return nil, false
			}
		}
		j := 0
		for ; j < len(slots); j++ {
			if pick[j]++; pick[j] < len(slots[j].options) {
				break
			}
			pick[j] = 0
		}
		if j == len(slots) {
			return out, true
		}
	}
}

// byHeight is the one reading of several that the glyphs' heights tell
// from every other (refutes); nil when there is none.
func byHeight(all []*mrz.Document, slots []slot) *mrz.Document {
	var found *mrz.Document
	for _, d := range all {
		if !slices.ContainsFunc(all, func(r *mrz.Document) bool { return r != d && !refutes(d, r, slots) }) {
			if found != nil {
				return nil
			}
			found = d
		}
	}
	return found
}

// refutes reports whether the heights of the open glyphs tell reading d
// from rival: every glyph but a round one (slot.round) is as tall as d's
// character there, and at every character where the two differ the glyph
// is as tall as d's and not as tall as rival's — or, where every
// difference is a letter in one reading and a digit in the other within
// one line, d has both among them (O O 0 against 0 0 O: swaps whose
// weights cancel in a check digit), and each glyph d reads as a digit
// stands taller than each it reads as a letter by half the line's
// digit–capital difference, and where both are round is shaped no less
// like the 0: glyphs compared side by side. Where d has one
// kind only (00 against OO) there is no such comparison, and one glyph
// measured tall beside one that says nothing is not enough: a phone
// photo's II was read 11 so, the first I measured half-way to a digit's
// height and the second a digit's.
func refutes(d, rival *mrz.Document, slots []slot) bool {
	at := func(doc *mrz.Document, sl slot) byte { return doc.Lines[sl.line][sl.pos] }
	var differ []slot
	alone := true // every difference refuted by its glyph's height alone
	for _, sl := range slots {
		a := at(d, sl)
		if !sl.height.allows(a) && !sl.round() {
			return false
		}
		if c := at(rival, sl); c != a {
			differ = append(differ, sl)
			alone = alone && sl.height.allows(a) && !sl.height.allows(c)
		}
	}
	if alone {
		return true
	}
	digit, capital := digitHeight.allows, capitalHeight.allows
	var digits, letters []slot // the differences, by d's character
	for _, sl := range differ {
		switch a, b := at(d, sl), at(rival, sl); {
		case sl.line != differ[0].line || sl.gap <= 0 || sl.ink <= 0:
			return false
		case digit(a) && capital(b):
			digits = append(digits, sl)
		case capital(a) && digit(b):
			letters = append(letters, sl)
		default:
			return false
		}
	}
	if len(digits) == 0 || len(letters) == 0 {
		return false
	}
	for _, x := range digits {
		for _, y := range letters {
			if x.ink-y.ink < x.gap/2 || x.round() && y.round() && x.lead < y.lead {
				return false
			}
		}
	}
	return true
}

// round reports whether sl is a round glyph, O or 0. An O rises above
// the capitals' cap line and sinks below their baseline, so its height
// alone does not refute a reading (a passport's O measured a digit's
// height where the digits stand 2 pixels above the capitals): beside a
// 0 of its line, and shaped no more like one, it does (refutes).
func (sl slot) round() bool {
	return len(sl.options) == 2 && roundish(sl.options[0]) && roundish(sl.options[1])
}

func sameLines(a, b *mrz.Document, group []int) bool {
	for _, i := range group {
		if a.Lines[i] != b.Lines[i] {
			return false
		}
	}
	return true
}

// passes reports whether doc passes, on the given lines (by index; all
// when nil), every check Validate makes, its states are ones Doc 9303
// lists, its fields are padded as Doc 9303 pads them (Tesseract reads the
// last fillers of a line as K or C, which no check digit covers in a
// name, and a K weighs what a filler weighs), and its document code is
// one the format has (Doc 9303: a passport's starts with P, an ID card's
// or a TD2 permit's with A, C or I) — the reader reads passports and
// cards, and P against F or R, I against T are the matcher's close calls.
func passes(doc *mrz.Document, lines []int) bool {
	on := func(i int) bool { return lines == nil || slices.Contains(lines, i) }
	if on(0) {
		if doc.DocumentCode == "" {
			return false
		}
		switch c := doc.DocumentCode[0]; doc.Format {
		case mrz.TD3:
			if c != 'P' {
				return false
			}
		case mrz.TD1, mrz.TD2:
			if c != 'A' && c != 'C' && c != 'I' {
				return false
			}
		default:
			return false
		}
		if !mrz.KnownState(doc.IssuingState) {
			return false
		}
	}
	if on(1) && !mrz.KnownState(doc.Nationality) {
		return false
	}
	if !doc.Padded(lines...) {
		return false
	}
	for _, e := range doc.Validate() {
		if e.Line == 0 || on(e.Line-1) {
			return false
		}
	}
	return true
}
