package main

import (
	"bufio"
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/kycflow/kycflow/app"
	"github.com/kycflow/kycflow/engines/sanctions"
	"github.com/kycflow/kycflow/engines/screeneval"
	"github.com/kycflow/kycflow/engines/watchlist"
	"github.com/kycflow/kycflow/screening"
	"github.com/kycflow/kycflow/store"
)

func watchlistImport(fs *flag.FlagSet) runFunc {
	im := screening.Import{Out: os.Stdout}
	fs.StringVar(&im.Format, "format", "", "ftm, eu-fsf, eu-xml, ofac-sdn or un-xml")
	fs.StringVar(&im.List, "list", "", "list name (default by format: opensanctions, eu_fsf, us_ofac_sdn, un_sc)")
	fs.Int64Var(&im.Download.MaxBytes, "max-size", 2<<30, "largest list file a URL may deliver, in bytes; a larger download is refused")
	fs.DurationVar(&im.Download.Timeout, "timeout", 10*time.Minute, "longest a URL's download may take")
	return func(ctx context.Context, cfg app.Config, args []string) error {
		return withAdmin(ctx, cfg, func(s *store.Store) error { return im.Run(ctx, s, args) })
	}
}

func watchlistList(ctx context.Context, cfg app.Config, _ []string) error {
	return withAdmin(ctx, cfg, func(s *store.Store) error {
		vs, err := s.Watchlists(ctx)
		if err != nil {
			return err
		}
		w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "VERSION\tLIST\tFORMAT\tENTITIES\tNAMES\tSHA256\tIMPORTED\tRESCREENED")
		for _, v := range vs {
			fmt.Fprintf(w, "%d\t%s\t%s\t%d\t%d\t%s\t%s\t%s\n", v.ID, v.List, v.Format, v.Entities, v.Names,
				hex.EncodeToString(v.ContentHash)[:12], v.ImportedAt.Format("2006-01-02 15:04"), fmtTime(v.RescreenedAt))
		}
		return w.Flush()
	})
}

// watchlistGenerate writes the generated list eval uses as FtM JSON lines,
// so a list of any size can go through the real import, the worker's index
// and rescreening (docs/BENCHMARKS.md measures the worker with one).
func watchlistGenerate(fs *flag.FlagSet) runFunc {
	n := fs.Int("entities", 50000, "entities to generate")
	seed := fs.Int64("seed", 1, "generator seed (the same seed gives the same list)")
	out := fs.String("out", "-", "file to write, - for standard output")
	return func(ctx context.Context, _ app.Config, args []string) error {
		if len(args) > 0 || *n < 1 {
			return errors.New("watchlist generate takes --entities N (1 or more), --seed and --out")
		}
		return generate(*n, *seed, *out)
	}
}

func generate(n int, seed int64, out string) error {
	f := os.Stdout
	if out != "-" {
		var err error
		if f, err = os.Create(out); err != nil {
			return err
		}
		defer f.Close() // after the Close below, a no-op; on errors, the cleanup
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	fw := watchlist.NewFtMWriter(bw)
	for _, e := range screeneval.GenerateList(n, seed).Entities {
		if err := fw.Write(e); err != nil {
			return fmt.Errorf("write list: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write list: %w", err)
	}
	if f != os.Stdout {
		return f.Close()
	}
	return nil
}

// watchlistEval measures the matcher on a generated list: index build
// time and size, query latency and throughput, and quality (recall@10 per
// kind of variation, false alerts on people not listed). docs/BENCHMARKS.md
// quotes its output.
func watchlistEval(fs *flag.FlagSet) runFunc {
	n := fs.Int("entities", 50000, "entities in the generated list")
	cases := fs.Int("cases", 5000, "evaluation queries")
	seed := fs.Int64("seed", 1, "generator seed")
	threshold := fs.Float64("threshold", 0.88, "alert threshold (the aml default)")
	return func(ctx context.Context, _ app.Config, _ []string) error {
		return evaluate(ctx, *n, *cases, *seed, *threshold)
	}
}

func evaluate(ctx context.Context, entities, cases int, seed int64, threshold float64) error {
	list := screeneval.GenerateList(entities, seed)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	ix := sanctions.Build(list.Entities, sanctions.Options{})
	build := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&after)
	st := ix.Stats()
	fmt.Printf("list: %d entities, %d names (generated, seed %d)\n", entities, st.Names, seed)
	fmt.Printf("index build: %s, heap %.1f MB\n", build.Round(time.Millisecond), float64(after.HeapAlloc-before.HeapAlloc)/(1<<20))

	evalCases := list.Queries(cases, seed+1)
	lat := make([]time.Duration, 0, len(evalCases))
	start = time.Now()
	for _, c := range evalCases {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		t0 := time.Now()
		ix.Search(sanctions.Query{Name: c.Name}, 10)
		lat = append(lat, time.Since(t0))
	}
	wall := time.Since(start)
	slices.Sort(lat)
	pct := func(p float64) time.Duration { return lat[int(p*float64(len(lat)-1))] }
	fmt.Printf("queries: %d sequential in %s → %.0f/s; p50 %s p90 %s p99 %s max %s\n", len(lat), wall.Round(time.Millisecond),
		float64(len(lat))/wall.Seconds(), pct(0.5), pct(0.9), pct(0.99), lat[len(lat)-1])

	// Throughput with one goroutine per core, as the worker screens.
	workers := runtime.GOMAXPROCS(0)
	var next atomic.Int64
	start = time.Now()
	done := make(chan struct{})
	for range workers {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := next.Add(1) - 1; i < int64(len(evalCases)); i = next.Add(1) - 1 {
				ix.Search(sanctions.Query{Name: evalCases[i].Name}, 10)
			}
		}()
	}
	for range workers {
		<-done
	}
	fmt.Printf("queries: %d on %d goroutines in %s → %.0f/s\n", len(evalCases), workers, time.Since(start).Round(time.Millisecond),
		float64(len(evalCases))/time.Since(start).Seconds())

	rep := screeneval.Evaluate(evalCases, func(c screeneval.Case) []screeneval.Hit {
		var out []screeneval.Hit
		for _, h := range ix.Search(sanctions.Query{Name: c.Name}, 10) {
			out = append(out, screeneval.Hit{ID: h.EntityID, Score: h.Score})
		}
		return out
	}, threshold)
	fmt.Print("quality: recall@10 per kind of variation; false alerts on people not listed\n", rep.String())
	return nil
}

// watchlistTune screens the real lists' own cases (screeneval's, made
// from the UN and OFAC files) over the tuning splits of many seeds — never
// a held-out case — each list alone, and counts per kind what is found
// and what alerts, listing with --misses what does not alert: the wider
// tuning set a matcher rule is judged on beside the gates, whose held-out
// splits no tuning looks at (docs/BENCHMARKS.md). --held-out counts the
// held-out splits of those seeds instead, as figures only: their cases
// are never listed.
func watchlistTune(fs *flag.FlagSet) runFunc {
	var tn tuning
	fs.StringVar(&tn.un, "un", "engines/watchlist/testdata/real/un-consolidated-2026-02.xml", "the UN consolidated list (XML)")
	fs.StringVar(&tn.ofac, "ofac", "engines/watchlist/testdata/real/ofac-sdn-2021", "the OFAC SDN list (the directory of its CSV files)")
	fs.Uint64Var(&tn.from, "from", 2, "first seed of the cases")
	fs.Uint64Var(&tn.to, "to", 11, "last seed of the cases")
	fs.StringVar(&tn.kind, "kind", "", "one kind of case (default: every kind)")
	fs.BoolVar(&tn.misses, "misses", false, "list the cases that do not alert")
	fs.BoolVar(&tn.heldOut, "held-out", false, "count the held-out splits instead (figures only; not with --misses)")
	fs.Float64Var(&tn.threshold, "threshold", 0.88, "alert threshold (the aml default)")
	return func(ctx context.Context, _ app.Config, args []string) error {
		if len(args) > 0 || tn.to < tn.from || tn.kind != "" && !slices.Contains(screeneval.Kinds, tn.kind) || tn.heldOut && tn.misses {
			return fmt.Errorf("watchlist tune takes --un, --ofac, --from ≤ --to, --kind (one of %q), --misses or --held-out, and --threshold", screeneval.Kinds)
		}
		return tn.run(ctx, os.Stdout)
	}
}

// tuning is what watchlist tune screens.
type tuning struct {
	un, ofac, kind string
	from, to       uint64
	misses         bool
	heldOut        bool
	threshold      float64
}

func (tn tuning) run(ctx context.Context, w io.Writer) error {
	un, err := screeneval.LoadUN(tn.un)
	if err != nil {
		return fmt.Errorf("UN list: %w", err)
	}
	ofac, err := screeneval.LoadOFAC(tn.ofac)
	if err != nil {
		return fmt.Errorf("OFAC list: %w", err)
	}
	// The UN list's Arabic-script names are its cases, not its index: they
	// are asked against its Latin names, as the gates ask them.
	for _, l := range []struct {
		name      string
		cases, ix []watchlist.Entity
	}{{"UN", un, screeneval.LatinOnly(un)}, {"OFAC", ofac, ofac}} {
		ix := sanctions.Build(l.ix, sanctions.Options{})
		tallies := map[string]*screeneval.Tally{}
		seen := map[screeneval.Case]bool{}
		for seed := tn.from; seed <= tn.to; seed++ {
			for kind, cs := range screeneval.Cases(l.cases, seed) {
				if tn.kind != "" && kind != tn.kind {
					continue
				}
				for _, c := range cs {
					if c.HeldOut() != tn.heldOut || seen[c] {
						continue
					}
					if ctx.Err() != nil {
						return ctx.Err()
					}
					seen[c] = true
					hits := ix.Search(sanctions.Query{Name: c.Name}, 10)
					rank := slices.IndexFunc(hits, func(h sanctions.Hit) bool { return h.EntityID == c.WantID })
					score, matched := 0.0, ""
					if rank >= 0 {
						score, matched = hits[rank].Score, hits[rank].MatchedName
					}
					if tallies[kind] == nil {
						tallies[kind] = &screeneval.Tally{}
					}
					tallies[kind].Add(c, rank, score, matched, tn.threshold)
				}
			}
		}
		split := "tuning"
		if tn.heldOut {
			split = "held out"
		}
		for _, kind := range screeneval.Kinds {
			t := tallies[kind]
			if t == nil {
				continue
			}
			found, alerted := t.Rates()
			fmt.Fprintf(w, "%-5s %-21s seeds %d–%d, %s: %5d cases, found %5.1f %%, alerted %5.1f %%, %d not alerting\n",
				l.name, kind, tn.from, tn.to, split, t.Cases, 100*found, 100*alerted, t.Cases-t.Alerted)
			if tn.misses {
				for _, m := range t.Misses {
					fmt.Fprintln(w, "     ", m)
				}
			}
		}
	}
	return nil
}
