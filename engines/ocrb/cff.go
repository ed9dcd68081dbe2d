package ocrb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// A minimal reader of the glyph outlines of a CFF OpenType font. It exists
// because golang.org/x/image/font/sfnt does not implement the flex
// operators of Type 2 charstrings, and Debian's OCR-B draws '8', '<' and '>'
// with flex1: sfnt fails on exactly the MRZ's filler. Only what OCR-B needs
// is read: a non-CID font, its charstrings and subroutines (Adobe technical
// notes 5176, "The Compact Font Format", and 5177, "Type 2 Charstring
// Format"). Character to glyph mapping is left to sfnt, which reads cmap
// fine.

// segKind is the kind of one outline segment.
type segKind uint8

const (
	segMove segKind = iota
	segLine
	segCube
	segClose
)

// seg is one outline segment in font units, y up: the end point is p[0] for
// moves and lines, p[2] for cubic curves (p[0] and p[1] are the controls).
type seg struct {
	kind segKind
	p    [3][2]float64
}

// outline is a glyph's path and its bounds in font units.
type outline struct {
	segs                   []seg
	minX, minY, maxX, maxY float64
}

// cffTables holds the charstrings and subroutines of a CFF table.
type cffTables struct {
	charStrings [][]byte
	gsubrs      [][]byte
	subrs       [][]byte
}

// otfTable returns the bytes of the table tag of an OpenType file.
func otfTable(font []byte, tag string) ([]byte, error) {
	if len(font) < 12 {
		return nil, errors.New("not an OpenType file")
	}
	n := int(binary.BigEndian.Uint16(font[4:]))
	for i := 0; i < n; i++ {
		rec := 12 + 16*i
		if rec+16 > len(font) {
			break
		}
		if string(font[rec:rec+4]) != tag {
			continue
		}
		off := int(binary.BigEndian.Uint32(font[rec+8:]))
		length := int(binary.BigEndian.Uint32(font[rec+12:]))
		if off < 0 || length < 0 || off+length > len(font) {
			return nil, fmt.Errorf("table %q out of bounds", tag)
		}
		return font[off : off+length], nil
	}
	return nil, fmt.Errorf("no %q table (not a CFF OpenType font)", tag)
}

// parseCFF reads the charstrings and subroutines of a CFF table.
func parseCFF(b []byte) (*cffTables, error) {
	if len(b) < 4 {
		return nil, errors.New("CFF table too short")
	}
	off := int(b[2])
	var err error
	if _, off, err = cffIndex(b, off); err != nil { // Name INDEX
		return nil, err
	}
	tops, off, err := cffIndex(b, off)
	if err != nil {
		return nil, err
	}
	if _, off, err = cffIndex(b, off); err != nil { // String INDEX
		return nil, err
	}
	t := &cffTables{}
	if t.gsubrs, _, err = cffIndex(b, off); err != nil {
		return nil, err
	}
	if len(tops) != 1 {
		return nil, fmt.Errorf("CFF with %d fonts", len(tops))
	}
	top, err := cffDict(tops[0])
	if err != nil {
		return nil, err
	}
	if _, cid := top[1230]; cid { // ROS (12 30): a CID-keyed font
		return nil, errors.New("CID-keyed CFF fonts are not supported")
	}
	cs, ok := top[17]
	if !ok || len(cs) != 1 {
		return nil, errors.New("CFF without CharStrings")
	}
	if t.charStrings, _, err = cffIndex(b, int(cs[0])); err != nil {
		return nil, err
	}
	if priv, ok := top[18]; ok && len(priv) == 2 {
		size, at := int(priv[0]), int(priv[1])
		if at < 0 || size < 0 || at+size > len(b) {
			return nil, errors.New("CFF Private DICT out of bounds")
		}
		pd, err := cffDict(b[at : at+size])
		if err != nil {
			return nil, err
		}
		if s, ok := pd[19]; ok && len(s) == 1 {
			if t.subrs, _, err = cffIndex(b, at+int(s[0])); err != nil {
				return nil, err
			}
		}
	}
	return t, nil
}

// cffIndex reads the INDEX at off and returns its items and the offset after
// it.
func cffIndex(b []byte, off int) ([][]byte, int, error) {
	bad := fmt.Errorf("CFF INDEX at %d out of bounds", off)
	if off < 0 || off+2 > len(b) {
		return nil, 0, bad
	}
	count := int(binary.BigEndian.Uint16(b[off:]))
	if count == 0 {
		return nil, off + 2, nil
	}
	if off+3 > len(b) {
		return nil, 0, bad
	}
	size := int(b[off+2])
	if size < 1 || size > 4 {
		return nil, 0, bad
	}
	offsets := off + 3
	data := offsets + (count+1)*size - 1 // offsets count from 1
	if data >= len(b) {
		return nil, 0, bad
	}
	at := func(i int) int {
		v := 0
		for _, c := range b[offsets+i*size : offsets+(i+1)*size] {
			v = v<<8 | int(c)
		}
		return data + v
	}
	items := make([][]byte, count)
	for i := range items {
		s, e := at(i), at(i+1)
		if s > e || e > len(b) {
			return nil, 0, bad
		}
		items[i] = b[s:e]
	}
	return items, at(count), nil
}

// cffDict reads a DICT: operands keyed by operator, escaped operators
// (12 x) as 1200+x.
func cffDict(b []byte) (map[int][]float64, error) {
	d := map[int][]float64{}
	var operands []float64
	for i := 0; i < len(b); {
		b0 := int(b[i])
		switch {
		case b0 <= 21:
			op := b0
			i++
			if b0 == 12 {
				if i >= len(b) {
					return nil, errors.New("truncated CFF DICT")
				}
				op = 1200 + int(b[i])
				i++
			}
			d[op] = operands
			operands = nil
		case b0 == 28 || b0 == 29 || (b0 >= 32 && b0 <= 254):
			v, n, err := cffNumber(b[i:])
			if err != nil {
				return nil, err
			}
			operands = append(operands, v)
			i += n
		case b0 == 30:
			v, n, err := cffReal(b[i+1:])
			if err != nil {
				return nil, err
			}
			operands = append(operands, v)
			i += 1 + n
		default:
			return nil, fmt.Errorf("reserved CFF DICT byte %d", b0)
		}
	}
	return d, nil
}

// cffNumber decodes an integer operand (DICT and charstring encodings
// share these) and returns it with its length in bytes.
func cffNumber(b []byte) (float64, int, error) {
	short := errors.New("truncated CFF number")
	b0 := int(b[0])
	switch {
	case b0 >= 32 && b0 <= 246:
		return float64(b0 - 139), 1, nil
	case b0 >= 247 && b0 <= 250:
		if len(b) < 2 {
			return 0, 0, short
		}
		return float64((b0-247)*256 + int(b[1]) + 108), 2, nil
	case b0 >= 251 && b0 <= 254:
		if len(b) < 2 {
			return 0, 0, short
		}
		return float64(-(b0-251)*256 - int(b[1]) - 108), 2, nil
	case b0 == 28:
		if len(b) < 3 {
			return 0, 0, short
		}
		return float64(int16(binary.BigEndian.Uint16(b[1:]))), 3, nil
	case b0 == 29:
		if len(b) < 5 {
			return 0, 0, short
		}
		return float64(int32(binary.BigEndian.Uint32(b[1:]))), 5, nil
	}
	return 0, 0, fmt.Errorf("not a CFF number: %d", b0)
}

// cffReal decodes a DICT real (nibbles) and returns it with its length.
func cffReal(b []byte) (float64, int, error) {
	var s []byte
	for i, c := range b {
		for _, nib := range [2]byte{c >> 4, c & 15} {
			switch {
			case nib <= 9:
				s = append(s, '0'+nib)
			case nib == 0xa:
				s = append(s, '.')
			case nib == 0xb:
				s = append(s, 'E')
			case nib == 0xc:
				s = append(s, 'E', '-')
			case nib == 0xe:
				s = append(s, '-')
			case nib == 0xf:
				v, err := strconv.ParseFloat(string(s), 64)
				return v, i + 1, err
			default:
				return 0, 0, errors.New("bad CFF real")
			}
		}
	}
	return 0, 0, errors.New("truncated CFF real")
}

// subrBias is the bias added to subroutine numbers (5177, section 4.7).
func subrBias(n int) int {
	switch {
	case n < 1240:
		return 107
	case n < 33900:
		return 1131
	}
	return 32768
}

// t2 interprets one glyph's Type 2 charstring.
type t2 struct {
	tab      *cffTables
	stack    []float64
	x, y     float64
	stems    int
	sawWidth bool
	open     bool
	depth    int
	out      outline
}

// glyphOutline decodes glyph gid's outline.
func (t *cffTables) glyphOutline(gid int) (outline, error) {
	if gid < 0 || gid >= len(t.charStrings) {
		return outline{}, fmt.Errorf("glyph %d out of range", gid)
	}
	in := &t2{tab: t}
	in.out.minX, in.out.minY = math.Inf(1), math.Inf(1)
	in.out.maxX, in.out.maxY = math.Inf(-1), math.Inf(-1)
	if _, err := in.run(t.charStrings[gid]); err != nil {
		return outline{}, fmt.Errorf("glyph %d: %w", gid, err)
	}
	in.closePath()
	if len(in.out.segs) == 0 {
		in.out.minX, in.out.minY, in.out.maxX, in.out.maxY = 0, 0, 0, 0
	}
	return in.out, nil
}

func (t *t2) add(k segKind, pts ...[2]float64) {
	s := seg{kind: k}
	copy(s.p[:], pts)
	for _, p := range pts { // control points bound the curve, enough for a raster box
		t.out.minX, t.out.maxX = math.Min(t.out.minX, p[0]), math.Max(t.out.maxX, p[0])
		t.out.minY, t.out.maxY = math.Min(t.out.minY, p[1]), math.Max(t.out.maxY, p[1])
	}
	t.out.segs = append(t.out.segs, s)
}

func (t *t2) closePath() {
	if t.open {
		t.out.segs = append(t.out.segs, seg{kind: segClose})
		t.open = false
	}
}

func (t *t2) moveTo(dx, dy float64) {
	t.closePath()
	t.x, t.y = t.x+dx, t.y+dy
	t.add(segMove, [2]float64{t.x, t.y})
	t.open = true
}

func (t *t2) lineTo(dx, dy float64) {
	t.x, t.y = t.x+dx, t.y+dy
	t.add(segLine, [2]float64{t.x, t.y})
}

func (t *t2) curveTo(dxa, dya, dxb, dyb, dxc, dyc float64) {
	ax, ay := t.x+dxa, t.y+dya
	bx, by := ax+dxb, ay+dyb
	t.x, t.y = bx+dxc, by+dyc
	t.add(segCube, [2]float64{ax, ay}, [2]float64{bx, by}, [2]float64{t.x, t.y})
}

// width drops the optional advance width that the first stack-clearing
// operator may carry below its arguments, when the argument count says it
// is there.
func (t *t2) width(present bool) {
	if !t.sawWidth && present && len(t.stack) > 0 {
		t.stack = t.stack[1:]
	}
	t.sawWidth = true
}

// run interprets cs; done is true after endchar.
func (t *t2) run(cs []byte) (done bool, err error) {
	if t.depth++; t.depth > 10 { // 5177 limits subroutine nesting to 10
		return false, errors.New("subroutines nested too deep")
	}
	defer func() { t.depth-- }()
	for i := 0; i < len(cs); {
		b0 := cs[i]
		if b0 >= 32 || b0 == 28 {
			var v float64
			n := 0
			if b0 == 255 {
				if i+5 > len(cs) {
					return false, errors.New("truncated number")
				}
				v, n = float64(int32(binary.BigEndian.Uint32(cs[i+1:])))/65536, 5
			} else if v, n, err = cffNumber(cs[i:]); err != nil {
				return false, err
			}
			if len(t.stack) >= 48 {
				return false, errors.New("argument stack overflow")
			}
			t.stack = append(t.stack, v)
			i += n
			continue
		}
		op := int(b0)
		i++
		if b0 == 12 {
			if i >= len(cs) {
				return false, errors.New("truncated escape")
			}
			op = 1200 + int(cs[i])
			i++
		}
		a := t.stack
		switch op {
		case 1, 3, 18, 23: // hstem, vstem, hstemhm, vstemhm
			t.width(len(a)%2 == 1)
			t.stems += len(t.stack) / 2
		case 19, 20: // hintmask, cntrmask: pending arguments are a vstem
			t.width(len(a)%2 == 1)
			t.stems += len(t.stack) / 2
			i += (t.stems + 7) / 8
		case 21: // rmoveto
			t.width(len(a) > 2)
			if len(t.stack) < 2 {
				return false, errors.New("rmoveto: too few arguments")
			}
			t.moveTo(t.stack[0], t.stack[1])
		case 22, 4: // hmoveto, vmoveto
			t.width(len(a) > 1)
			if len(t.stack) < 1 {
				return false, errors.New("h/vmoveto: too few arguments")
			}
			if op == 22 {
				t.moveTo(t.stack[0], 0)
			} else {
				t.moveTo(0, t.stack[0])
			}
		case 5: // rlineto
			for ; len(a) >= 2; a = a[2:] {
				t.lineTo(a[0], a[1])
			}
		case 6, 7: // hlineto, vlineto: alternating directions
			horiz := op == 6
			for _, d := range a {
				if horiz {
					t.lineTo(d, 0)
				} else {
					t.lineTo(0, d)
				}
				horiz = !horiz
			}
		case 8: // rrcurveto
			for ; len(a) >= 6; a = a[6:] {
				t.curveTo(a[0], a[1], a[2], a[3], a[4], a[5])
			}
		case 27: // hhcurveto
			dy1 := 0.0
			if len(a)%2 == 1 {
				dy1, a = a[0], a[1:]
			}
			for ; len(a) >= 4; a = a[4:] {
				t.curveTo(a[0], dy1, a[1], a[2], a[3], 0)
				dy1 = 0
			}
		case 26: // vvcurveto
			dx1 := 0.0
			if len(a)%2 == 1 {
				dx1, a = a[0], a[1:]
			}
			for ; len(a) >= 4; a = a[4:] {
				t.curveTo(dx1, a[0], a[1], a[2], 0, a[3])
				dx1 = 0
			}
		case 30, 31: // vhcurveto, hvcurveto: alternating tangents, optional last delta
			horiz := op == 31
			for len(a) >= 4 {
				last := 0.0
				n := 4
				if len(a) == 5 {
					last, n = a[4], 5
				}
				if horiz {
					t.curveTo(a[0], 0, a[1], a[2], last, a[3])
				} else {
					t.curveTo(0, a[0], a[1], a[2], a[3], last)
				}
				a = a[n:]
				horiz = !horiz
			}
		case 24: // rcurveline
			for ; len(a) >= 8; a = a[6:] {
				t.curveTo(a[0], a[1], a[2], a[3], a[4], a[5])
			}
			if len(a) >= 2 {
				t.lineTo(a[0], a[1])
			}
		case 25: // rlinecurve
			for ; len(a) >= 8; a = a[2:] {
				t.lineTo(a[0], a[1])
			}
			if len(a) >= 6 {
				t.curveTo(a[0], a[1], a[2], a[3], a[4], a[5])
			}
		case 1235: // flex: two curves; the flex depth only matters to hinting
			if len(a) < 12 {
				return false, errors.New("flex: too few arguments")
			}
			t.curveTo(a[0], a[1], a[2], a[3], a[4], a[5])
			t.curveTo(a[6], a[7], a[8], a[9], a[10], a[11])
		case 1234: // hflex
			if len(a) < 7 {
				return false, errors.New("hflex: too few arguments")
			}
			t.curveTo(a[0], 0, a[1], a[2], a[3], 0)
			t.curveTo(a[4], 0, a[5], -a[2], a[6], 0)
		case 1236: // hflex1
			if len(a) < 9 {
				return false, errors.New("hflex1: too few arguments")
			}
			t.curveTo(a[0], a[1], a[2], a[3], a[4], 0)
			t.curveTo(a[5], 0, a[6], a[7], a[8], -(a[1] + a[3] + a[7]))
		case 1237: // flex1: the last point moves along the dominant axis only
			if len(a) < 11 {
				return false, errors.New("flex1: too few arguments")
			}
			dx := a[0] + a[2] + a[4] + a[6] + a[8]
			dy := a[1] + a[3] + a[5] + a[7] + a[9]
			dx6, dy6 := a[10], -dy
			if math.Abs(dy) > math.Abs(dx) {
				dx6, dy6 = -dx, a[10]
			}
			t.curveTo(a[0], a[1], a[2], a[3], a[4], a[5])
			t.curveTo(a[6], a[7], a[8], a[9], dx6, dy6)
		case 10, 29: // callsubr, callgsubr
			if len(a) < 1 {
				return false, errors.New("call: no subroutine number")
			}
			subrs := t.tab.subrs
			if op == 29 {
				subrs = t.tab.gsubrs
			}
			n := int(a[len(a)-1]) + subrBias(len(subrs))
			t.stack = a[:len(a)-1]
			if n < 0 || n >= len(subrs) {
				return false, fmt.Errorf("subroutine %d out of range", n)
			}
			if done, err := t.run(subrs[n]); done || err != nil {
				return done, err
			}
			continue // the subroutine's results stay on the stack
		case 11: // return
			return false, nil
		case 14: // endchar
			t.width(len(a) == 1 || len(a) == 5)
			if len(t.stack) >= 4 {
				return false, errors.New("endchar with accent composition (seac) is not supported")
			}
			t.closePath()
			return true, nil
		default:
			return false, fmt.Errorf("unsupported charstring operator %d", op)
		}
		t.stack = t.stack[:0]
	}
	return false, nil
}
