package mrzread

import (
	"slices"
	"testing"

	"github.com/kycflow/kycflow/engines/docgen"
)

// chainOf is a row of blobs along u: one every step pixels, each width
// wide, then the extra blobs at the given positions.
func chainOf(n int, step, width float64, extra ...float64) ([]blob, []int) {
	var bs []blob
	for k := range n {
		bs = append(bs, blob{n: 20, u: 100 + float64(k)*step, v: 50, du: width, dv: 1.1 * step})
	}
	for _, u := range extra {
		bs = append(bs, blob{n: 20, u: u, v: 50, du: width, dv: 1.1 * step})
	}
	slices.SortFunc(bs, func(a, b blob) int { return int(a.u - b.u) })
	m := make([]int, len(bs))
	for i := range m {
		m[i] = i
	}
	return bs, m
}

// A speck beyond a row's end, further than the pitch, is not one of its
// characters; a glyph merged with its neighbour at the end is.
func TestTrimmed(t *testing.T) {
	bs, m := chainOf(30, 25, 18, 100+29*25+68)
	if got := trimmed(bs, m); len(got) != 30 || bs[got[len(got)-1]].u != 100+29*25 {
		t.Errorf("a speck 68 px past a 25 px pitch: kept %d blobs, want 30", len(got))
	}
	bs, m = chainOf(30, 25, 18, 100-60)
	if got := trimmed(bs, m); len(got) != 30 || bs[got[0]].u != 100 {
		t.Errorf("a speck before the row: kept %d blobs, want 30", len(got))
	}
	bs, m = chainOf(30, 25, 18)
	bs[29].u, bs[29].du = 100+28.5*25, 43 // the last two glyphs one blob
	if got := trimmed(bs, m); len(got) != 30 {
		t.Errorf("a merged pair at the end: kept %d blobs, want all 30", len(got))
	}
}

// A row that took in two blobs beyond the MRZ is cut back to its
// neighbour's ends; one that differs by more than a sixth is not an MRZ's.
func TestClipped(t *testing.T) {
	bs, m := chainOf(30, 25, 18, 100-110, 100-85)
	long := row{members: m}
	long.fit(bs)
	short := row{members: m[2:]}
	short.fit(bs)
	if sameEnds(long, short) {
		t.Fatal("the rows start alike: nothing to test")
	}
	a, b, ok := clipped(bs, long, short)
	if !ok || len(a.members) != 30 || len(b.members) != 30 || !sameEnds(a, b) {
		t.Errorf("clipped: ok %v, %d and %d blobs", ok, len(a.members), len(b.members))
	}
	half := row{members: m[:18]}
	half.fit(bs)
	if _, _, ok := clipped(bs, long, half); ok {
		t.Error("a row 14 blobs longer than its neighbour was cut to it")
	}
}

// Generated photos the reader once sent back although a person reads them
// at a glance (docs/BENCHMARKS.md, "Document reading"): a checked
// tablecloth whose rows looked more like an MRZ than the card's code; a
// card's first row that took in two words of the page beside it; the
// card's edge reached by both outer rows.
func TestFindsTheMRZBesideLookalikes(t *testing.T) {
	for _, c := range []struct {
		name string
		seed int64
		i    int
	}{
		{"tablecloth", 9, 58},
		{"a page beside the card", 9, 49},
		{"a speck past both outer rows", 10, 13},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := docgen.GenerateSample(c.seed, c.i, docgen.Clean)
			if err != nil {
				t.Fatal(err)
			}
			res := read(t, Reader{}, s.JPEG)
			if res.Outcome != Read || res.MRZ != s.MRZ {
				t.Fatalf("read %s %s %q, want %q", res.Outcome, res.Reason, res.MRZ, s.MRZ)
			}
		})
	}
}
