// Package mrzeval measures the document reader (engines/mrzread) on
// labelled photos (engines/docgen): how many it reads exactly, how many it
// reads wrong, what it asks to retake and why, and how long a photo takes.
// kycflow idscan eval prints its report; docs/BENCHMARKS.md records it.
package mrzeval

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/kycflow/kycflow/engines/docgen"
	"github.com/kycflow/kycflow/engines/docimage"
	"github.com/kycflow/kycflow/engines/mrzread"
)

// Report is the reader's score on one profile's photos.
type Report struct {
	Profile  docgen.Profile
	Photos   int
	Readable int // labelled readable by a careful person
	// Exact: readable photos read exactly. Wrong: photos read as something
	// other than their MRZ (every check digit holding) — the security
	// defect the reader must not commit. UnreadableRead: photos labelled
	// unreadable that were read all the same (exactly: else Wrong).
	Exact, Wrong, UnreadableRead int
	// Retakes counts the reasons readable photos were sent back for;
	// Unreadable, those unreadable photos were, by what makes them
	// unreadable (docgen's Why: glare, dark, blur, small).
	Retakes    map[mrzread.Reason]int
	Unreadable map[string]map[mrzread.Reason]int
	// Refused: photos docimage refused outright (none is expected).
	Refused int
	// Latency of each photo from its bytes to the outcome (inspect,
	// decode, read), sorted.
	Latency []time.Duration
	// Misses names the readable photos not read exactly, with the outcome.
	Misses []string
	// Zone counts the passports read exactly by what their printed page
	// said: "consider" (a field differs from the MRZ), "clear" (read, none
	// differs) or "not_read"; ZoneTampered the same for pages docgen
	// tampered with. A consider on a page not tampered with is a false
	// alarm; a clear on one tampered with, a forgery missed.
	Zone, ZoneTampered map[string]int
	// ZoneMisses names the pages judged otherwise than they are printed.
	ZoneMisses []string
}

// Evaluate reads each sample, one at a time (the latency of one read on an
// otherwise idle machine), and scores the reads by profile, in the order
// the profiles first appear.
func Evaluate(ctx context.Context, r mrzread.Reader, samples []docgen.Sample) ([]*Report, error) {
	var order []docgen.Profile
	by := map[docgen.Profile]*Report{}
	for _, s := range samples {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rep := by[s.Profile]
		if rep == nil {
			rep = &Report{Profile: s.Profile, Retakes: map[mrzread.Reason]int{}, Unreadable: map[string]map[mrzread.Reason]int{},
				Zone: map[string]int{}, ZoneTampered: map[string]int{}}
			by[s.Profile] = rep
			order = append(order, s.Profile)
		}
		rep.Photos++
		if s.Readable {
			rep.Readable++
		}
		start := time.Now()
		// As an upload takes it: inspected, its metadata stripped.
		info, err := docimage.Inspect(s.JPEG)
		var img []byte
		if err == nil {
			img, err = docimage.Strip(s.JPEG, info.Format)
		}
		if err != nil {
			rep.Refused++
			rep.Misses = append(rep.Misses, fmt.Sprintf("%s: refused: %v", s.Name, err))
			continue
		}
		res, err := r.Photo(ctx, img, info)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		rep.Latency = append(rep.Latency, time.Since(start))
		switch {
		case res.Outcome == mrzread.Read && res.MRZ != s.MRZ:
			rep.Wrong++
			rep.Misses = append(rep.Misses, fmt.Sprintf("%s: WRONG read %q", s.Name, res.MRZ))
		case res.Outcome == mrzread.Read && !s.Readable:
			rep.UnreadableRead++
			rep.Misses = append(rep.Misses, fmt.Sprintf("%s: read, though unreadable (%s)", s.Name, s.Why))
		case res.Outcome == mrzread.Read:
			rep.Exact++
			rep.zone(s, res.Zone)
		case s.Readable:
			rep.Retakes[res.Reason]++
			rep.Misses = append(rep.Misses, fmt.Sprintf("%s: retake %s", s.Name, res.Reason))
		default:
			if rep.Unreadable[s.Why] == nil {
				rep.Unreadable[s.Why] = map[mrzread.Reason]int{}
			}
			rep.Unreadable[s.Why][res.Reason]++
		}
	}
	out := make([]*Report, len(order))
	for i, p := range order {
		slices.Sort(by[p].Latency)
		out[i] = by[p]
	}
	return out, nil
}

// zone counts what a passport's printed page was judged.
func (r *Report) zone(s docgen.Sample, z *mrzread.VisualZone) {
	if z == nil {
		return
	}
	verdict := "not_read"
	switch {
	case z.Differs():
		verdict = "consider"
	case z.Read():
		verdict = "clear"
	}
	counts := r.Zone
	if s.Identity.Tampered != "" {
		counts = r.ZoneTampered
	}
	counts[verdict]++
	if (verdict == "consider") != (s.Identity.Tampered != "") {
		r.ZoneMisses = append(r.ZoneMisses, fmt.Sprintf("%s: page %s (tampered %q): name %s, birth date %s", s.Name, verdict, s.Identity.Tampered, z.Name, z.BirthDate))
	}
}

// Percentile is the latency below which the share p (0–1) of reads
// finished.
func (r *Report) Percentile(p float64) time.Duration {
	if len(r.Latency) == 0 {
		return 0
	}
	return r.Latency[int(p*float64(len(r.Latency)-1)+0.5)]
}

// ExactRate is the share of readable photos read exactly.
func (r *Report) ExactRate() float64 {
	if r.Readable == 0 {
		return 0
	}
	return float64(r.Exact) / float64(r.Readable)
}

// Print writes the report as kycflow idscan eval shows it; verbose adds
// every miss.
func (r *Report) Print(w io.Writer, verbose bool) {
	fmt.Fprintf(w, "%s: %d photos, %d readable: read exactly %d (%.1f %%), wrong reads %d, unreadable yet read %d, refused %d\n",
		r.Profile, r.Photos, r.Readable, r.Exact, 100*r.ExactRate(), r.Wrong, r.UnreadableRead, r.Refused)
	if len(r.Retakes) > 0 {
		fmt.Fprint(w, "  readable photos sent back:")
		for _, k := range slices.Sorted(maps.Keys(r.Retakes)) {
			fmt.Fprintf(w, " %s %d", k, r.Retakes[k])
		}
		fmt.Fprintln(w)
	}
	for _, why := range slices.Sorted(maps.Keys(r.Unreadable)) {
		fmt.Fprintf(w, "  unreadable (%s) sent back as:", why)
		for _, k := range slices.Sorted(maps.Keys(r.Unreadable[why])) {
			fmt.Fprintf(w, " %s %d", k, r.Unreadable[why][k])
		}
		fmt.Fprintln(w)
	}
	for _, c := range []struct {
		what   string
		counts map[string]int
	}{{"printed pages", r.Zone}, {"tampered printed pages", r.ZoneTampered}} {
		if n := c.counts["clear"] + c.counts["consider"] + c.counts["not_read"]; n > 0 {
			fmt.Fprintf(w, "  %s (%d): clear %d, consider %d, not read %d\n", c.what, n, c.counts["clear"], c.counts["consider"], c.counts["not_read"])
		}
	}
	round := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	fmt.Fprintf(w, "  per photo: p50 %s p90 %s p99 %s max %s\n",
		round(r.Percentile(0.5)), round(r.Percentile(0.9)), round(r.Percentile(0.99)), round(r.Percentile(1)))
	if verbose {
		for _, m := range append(r.Misses, r.ZoneMisses...) {
			fmt.Fprintln(w, "  "+m)
		}
	}
}
