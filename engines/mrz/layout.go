package mrz

import (
	"slices"
	"strings"
)

// span is a run of characters on one MRZ line: line is 0-based, start and
// end are 0-based rune offsets, end exclusive. The zero span is empty.
type span struct{ line, start, end int }

// layout says where each field of one document is. Positions follow Doc 9303
// parts 4–7; only the TD1/TD2 document-number overflow depends on the text.
type layout struct {
	docCode, issuing, name span

	docNumber span // the nine principal characters
	overflow  span // TD1/TD2 document-number overflow, without its check digit
	docCheck  span
	// overflowMark is set when the principal check-digit position holds the
	// '<' that announces an overflow into the optional data.
	overflowMark bool

	nationality, sex     span
	birth, birthCheck    span
	expiry, expiryCheck  span
	optional1, optional2 span
	optionalField        Field // FieldPersonalNumber on TD3, else FieldOptionalData
	optionalCheck        span  // TD3 personal-number check digit
	composite            span  // empty on visas
	compositeData        []span
}

// resolve returns the layout of format f for lines, which must have f's shape.
func resolve(f Format, lines [][]rune) layout {
	if f == TD1 {
		l := layout{
			docCode: span{0, 0, 2}, issuing: span{0, 2, 5},
			docNumber: span{0, 5, 14}, docCheck: span{0, 14, 15},
			optional1: span{0, 15, 30}, optionalField: FieldOptionalData,
			birth: span{1, 0, 6}, birthCheck: span{1, 6, 7},
			sex:    span{1, 7, 8},
			expiry: span{1, 8, 14}, expiryCheck: span{1, 14, 15},
			nationality: span{1, 15, 18},
			optional2:   span{1, 18, 29},
			composite:   span{1, 29, 30},
			// Part 5: line 1 positions 6–30, line 2 positions 1–7, 9–15, 19–29.
			compositeData: []span{{0, 5, 30}, {1, 0, 7}, {1, 8, 15}, {1, 18, 29}},
			name:          span{2, 0, 30},
		}
		l.findOverflow(lines)
		return l
	}
	_, width, _ := f.shape()
	// The two-line formats share line 1 and line 2 up to position 28.
	l := layout{
		docCode: span{0, 0, 2}, issuing: span{0, 2, 5}, name: span{0, 5, width},
		docNumber: span{1, 0, 9}, docCheck: span{1, 9, 10},
		nationality: span{1, 10, 13},
		birth:       span{1, 13, 19}, birthCheck: span{1, 19, 20},
		sex:    span{1, 20, 21},
		expiry: span{1, 21, 27}, expiryCheck: span{1, 27, 28},
		optionalField: FieldOptionalData,
	}
	switch f {
	case TD2:
		l.optional1 = span{1, 28, 35}
		l.composite = span{1, 35, 36}
		// Part 6: line 2 positions 1–10, 14–20, 22–35.
		l.compositeData = []span{{1, 0, 10}, {1, 13, 20}, {1, 21, 35}}
		l.findOverflow(lines)
	case TD3:
		l.optional1 = span{1, 28, 42}
		l.optionalField = FieldPersonalNumber
		l.optionalCheck = span{1, 42, 43}
		l.composite = span{1, 43, 44}
		// Part 4: line 2 positions 1–10, 14–20, 22–43.
		l.compositeData = []span{{1, 0, 10}, {1, 13, 20}, {1, 21, 43}}
	default: // MRV-A, MRV-B: optional data to the end of the line
		l.optional1 = span{1, 28, width}
	}
	return l
}

// findOverflow handles document numbers longer than nine characters (Doc
// 9303 part 5 for TD1, part 6 for TD2): a '<' in the check-digit
// position means the number goes on at the start of the optional data, up to
// the next filler, and the last character before that filler is the check
// digit of the whole number.
func (l *layout) findOverflow(lines [][]rune) {
	if at(lines, l.docCheck) != '<' {
		return
	}
	opt := l.optional1
	n := 0
	for opt.start+n < opt.end && lines[opt.line][opt.start+n] != '<' {
		n++
	}
	if n == 0 {
		return // no overflow: the check digit is simply missing
	}
	l.overflowMark = true
	l.overflow = span{opt.line, opt.start, opt.start + n - 1}
	l.docCheck = span{opt.line, opt.start + n - 1, opt.start + n}
	l.optional1.start += n
}

// text returns the characters of s (nil for the empty span).
func text(lines [][]rune, s span) []rune {
	if s.end <= s.start {
		return nil
	}
	return lines[s.line][s.start:s.end]
}

// at returns the one character of s, or 0 for the empty span.
func at(lines [][]rune, s span) rune {
	if s.end <= s.start {
		return 0
	}
	return lines[s.line][s.start]
}

// Class is what a position of an MRZ may hold, besides the filler '<'.
type Class int

// The classes.
const (
	Any     Class = iota // letters and digits: document numbers, optional data
	Letters              // document code, states, names, sex
	Digits               // dates and check digits
)

// Classes is the class of each position of format f's MRZ, line by line
// (nil for an unknown format): what lets a reader of photos settle an O
// against a 0 where only one of them may stand.
func Classes(f Format) [][]Class {
	n, width, ok := f.shape()
	if !ok {
		return nil
	}
	lines := make([][]rune, n)
	for i := range lines {
		lines[i] = []rune(strings.Repeat("<", width))
	}
	l := resolve(f, lines)
	out := make([][]Class, n)
	for i := range out {
		out[i] = make([]Class, width)
	}
	mark := func(c Class, ss ...span) {
		for _, s := range ss {
			for p := s.start; p < s.end; p++ {
				out[s.line][p] = c
			}
		}
	}
	mark(Letters, l.docCode, l.issuing, l.name, l.nationality, l.sex)
	mark(Digits, l.docCheck, l.birth, l.birthCheck, l.expiry, l.expiryCheck, l.optionalCheck, l.composite)
	return out
}

// Padding marks the positions of format f's MRZ that lie in fields
// filled from the left and padded with fillers (names, optional data),
// line by line (nil for an unknown format): after three fillers in a row
// there, only fillers may follow (Padded).
func Padding(f Format) [][]bool {
	n, width, ok := f.shape()
	if !ok {
		return nil
	}
	lines := make([][]rune, n)
	out := make([][]bool, n)
	for i := range lines {
		lines[i] = []rune(strings.Repeat("<", width))
		out[i] = make([]bool, width)
	}
	l := resolve(f, lines)
	for _, s := range []span{l.name, l.optional1, l.optional2} {
		for p := s.start; p < s.end; p++ {
			out[s.line][p] = true
		}
	}
	return out
}

// Padded reports whether d's names and optional data (those on lines, by
// index; all of them when none are given) are filled as Doc 9303 fills them: from the left, the filler after the last character. A
// run of three fillers ends a field's content (names are separated by one
// filler, the primary from the secondary identifier by two), so a
// character after one is not part of a real document — it is what a
// reader of photos makes of the last fillers of a line.
func (d *Document) Padded(lines ...int) bool {
	n, width, ok := d.Format.shape()
	if !ok || len(d.Lines) != n {
		return false
	}
	runes := make([][]rune, n)
	for i, s := range d.Lines {
		if runes[i] = []rune(s); len(runes[i]) != width {
			return false
		}
	}
	l := resolve(d.Format, runes)
	for _, s := range []span{l.name, l.optional1, l.optional2} {
		if len(lines) > 0 && !slices.Contains(lines, s.line) {
			continue
		}
		t := string(text(runes, s))
		if i := strings.Index(t, "<<<"); i >= 0 && strings.Trim(t[i:], "<") != "" {
			return false
		}
	}
	return true
}
