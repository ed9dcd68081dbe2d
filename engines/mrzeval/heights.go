package mrzeval

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/kycflow/kycflow/engines/docgen"
	"github.com/kycflow/kycflow/engines/docimage"
	"github.com/kycflow/kycflow/engines/mrzread"
)

// Heights is the separation study of the reader's glyph heights: what the
// glyphs of each character measure, as a share of the way from their
// line's capitals (0) to its digits (1) — how far apart the look-alikes
// the heights tell (O and 0, S and 5, I and 1, B and 8) stand, by what
// the labels say they are.
type Heights struct {
	By map[byte][]float64 // sorted once Study returns
}

// StudyHeights reads the readable samples and gathers their glyphs'
// heights by the character the label puts there (bands whose lines the
// matcher cut to another length than the label's are left out).
func StudyHeights(ctx context.Context, r mrzread.Reader, samples []docgen.Sample) (*Heights, error) {
	h := &Heights{By: map[byte][]float64{}}
	for _, s := range samples {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !s.Readable {
			continue
		}
		info, err := docimage.Inspect(s.JPEG)
		if err != nil {
			continue
		}
		truth := strings.Split(s.MRZ, "\n")
		r.Heights = func(lines [][]float64) {
			if len(lines) != len(truth) {
				return
			}
			for i, l := range lines {
				if len(l) != len(truth[i]) {
					return
				}
			}
			for i, l := range lines {
				for k, v := range l {
					if !math.IsNaN(v) {
						h.By[truth[i][k]] = append(h.By[truth[i][k]], v)
					}
				}
			}
		}
		if _, err := r.Photo(ctx, s.JPEG, info); err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
	}
	for _, v := range h.By {
		slices.Sort(v)
	}
	return h, nil
}

// Quantile is the q-quantile of ch's heights (NaN when none was measured).
func (h *Heights) Quantile(ch byte, q float64) float64 {
	v := h.By[ch]
	if len(v) == 0 {
		return math.NaN()
	}
	return v[int(q*float64(len(v)-1)+0.5)]
}

// Print writes the study: a line a character, its count and quantiles.
func (h *Heights) Print(w io.Writer) {
	fmt.Fprintln(w, "glyph heights, 0 = the line's capitals, 1 = its digits")
	fmt.Fprintln(w, "char      n     p1     p5    p25    p50    p75    p95    p99")
	for _, ch := range slices.Sorted(maps.Keys(h.By)) {
		fmt.Fprintf(w, "%c    %6d", ch, len(h.By[ch]))
		for _, q := range []float64{0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99} {
			fmt.Fprintf(w, " %+6.2f", h.Quantile(ch, q))
		}
		fmt.Fprintln(w)
	}
}
