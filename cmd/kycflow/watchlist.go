package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/kycflow/kycflow/engines/sanctions"
	"github.com/kycflow/kycflow/engines/watchlist"
	"github.com/kycflow/kycflow/store"
)

// Watchlist formats the import command reads, and the list name each
// imports into unless --list says otherwise.
var watchlistFormats = map[string]string{
	"ftm":      "opensanctions",
	"eu-fsf":   "eu_fsf",
	"eu-xml":   "eu_fsf",
	"ofac-sdn": "us_ofac_sdn",
	"un-xml":   "un_sc",
}

func runWatchlist(ctx context.Context, cfg config, args []string) error {
	if len(args) == 0 {
		return errUsage
	}
	switch args[0] {
	case "import":
		return watchlistImport(ctx, cfg, args[1:])
	case "list":
		s, err := store.Open(ctx, cfg.DatabaseAdminURL, 2)
		if err != nil {
			return err
		}
		defer s.Close()
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
	case "eval":
		return watchlistEval(ctx, args[1:])
	case "generate":
		return watchlistGenerate(args[1:])
	}
	return errUsage
}

// watchlistImport reads a list file (or URL) and stores it as a new version
// of its list, unless that exact content is already the list's version.
func watchlistImport(ctx context.Context, cfg config, args []string) error {
	fs := flag.NewFlagSet("watchlist import", flag.ContinueOnError)
	format := fs.String("format", "", "ftm, eu-fsf, eu-xml, ofac-sdn or un-xml")
	list := fs.String("list", "", "list name (default by format: opensanctions, eu_fsf, us_ofac_sdn)")
	var dl download
	fs.Int64Var(&dl.maxBytes, "max-size", 2<<30, "largest list file a URL may deliver, in bytes (default 2 GiB); a larger download is refused")
	fs.DurationVar(&dl.timeout, "timeout", 10*time.Minute, "longest a URL's download may take")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	def, ok := watchlistFormats[*format]
	if !ok || fs.NArg() == 0 {
		return fmt.Errorf("watchlist import needs --format (ftm, eu-fsf, eu-xml, ofac-sdn, un-xml) and a file or URL (ofac-sdn: sdn.csv [alt.csv add.csv], or their directory)")
	}
	if *list == "" {
		*list = def
	}
	paths, cleanup, err := dl.fetchAll(ctx, fs.Args())
	defer cleanup()
	if err != nil {
		return err
	}
	if *format == "ofac-sdn" {
		if paths, err = ofacFiles(paths); err != nil {
			return err
		}
	}
	hash, size, err := hashFiles(paths)
	if err != nil {
		return err
	}
	s, err := store.Open(ctx, cfg.DatabaseAdminURL, 2)
	if err != nil {
		return err
	}
	defer s.Close()
	imp, existing, err := s.BeginWatchlistImport(ctx, *list, *format, hash)
	if errors.Is(err, store.ErrWatchlistUnchanged) {
		if existing != nil {
			fmt.Printf("unchanged: %s already has this content as version %d (imported %s); nothing to do\n",
				*list, existing.ID, existing.ImportedAt.Format(time.RFC3339))
		} else {
			fmt.Printf("unchanged: %s already has this content; nothing to do\n", *list)
		}
		return nil
	}
	if err != nil {
		return err
	}
	files, err := openAll(paths)
	if err != nil {
		imp.Rollback()
		return err
	}
	defer closeAll(files)
	prog := newProgress(os.Stderr, size, *list)
	readers := make([]io.Reader, len(files))
	for i, f := range files {
		readers[i] = prog.wrap(f)
	}
	add := func(e watchlist.Entity) error {
		raw, err := json.Marshal(e)
		if err != nil {
			return err
		}
		prog.entity()
		return imp.Add(ctx, e.ID, raw)
	}
	var stats watchlist.Stats
	switch *format {
	case "ftm":
		stats, err = watchlist.ParseFtM(readers[0], add)
	case "eu-fsf":
		stats, err = watchlist.ParseEUFSF(readers[0], add)
	case "eu-xml":
		stats, err = watchlist.ParseEUXML(readers[0], add)
	case "un-xml":
		stats, err = watchlist.ParseUNXML(readers[0], add)
	case "ofac-sdn":
		stats, err = watchlist.ParseOFAC(readers[0], readers[1], readers[2], add)
	}
	prog.done()
	if err != nil {
		imp.Rollback()
		return fmt.Errorf("%s: %w", strings.Join(fs.Args(), " "), err)
	}
	v, err := imp.Commit(ctx, stats.Entities, stats.Names)
	if err != nil {
		return err
	}
	fmt.Printf("imported %s version %d: %d entities, %d names (%d skipped), sha256 %s\n",
		v.List, v.ID, v.Entities, v.Names, stats.Dropped, hex.EncodeToString(v.ContentHash))
	for _, w := range stats.Warnings {
		fmt.Println("  warning:", w)
	}
	fmt.Println("the worker loads it and rescreens the customers it may concern")
	return nil
}

// download fetches list files from URLs, bounded in size and time: lists
// are large, but a server that sends without end, or never answers, must
// not fill the disk or hang the import.
type download struct {
	maxBytes int64
	timeout  time.Duration
	// dial is the dialer (tests inject one that only reaches loopback).
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

func (d download) client() *http.Client {
	dial := d.dial
	if dial == nil {
		dial = (&net.Dialer{Timeout: 10 * time.Second}).DialContext
	}
	return &http.Client{
		Timeout: d.timeout,
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           dial,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: 30 * time.Second,
		},
	}
}

// fetchAll downloads URLs to temporary files; paths pass through.
func (d download) fetchAll(ctx context.Context, args []string) ([]string, func(), error) {
	var tmp []string
	cleanup := func() {
		for _, p := range tmp {
			os.Remove(p)
		}
	}
	client := d.client()
	out := make([]string, 0, len(args))
	for _, a := range args {
		if !strings.HasPrefix(a, "http://") && !strings.HasPrefix(a, "https://") {
			out = append(out, a)
			continue
		}
		path, err := d.fetch(ctx, client, a, &tmp)
		if err != nil {
			return nil, cleanup, fmt.Errorf("download %s: %w", a, err)
		}
		out = append(out, path)
	}
	return out, cleanup, nil
}

func (d download) fetch(ctx context.Context, client *http.Client, u string, tmp *[]string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	if resp.ContentLength > d.maxBytes {
		return "", fmt.Errorf("%d bytes is over the %d-byte limit (--max-size)", resp.ContentLength, d.maxBytes)
	}
	f, err := os.CreateTemp("", "kycflow-list-*-"+filepath.Base(req.URL.Path))
	if err != nil {
		return "", err
	}
	*tmp = append(*tmp, f.Name())
	n, err := io.Copy(f, io.LimitReader(resp.Body, d.maxBytes+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > d.maxBytes {
		err = fmt.Errorf("more than the %d-byte limit (--max-size)", d.maxBytes)
	}
	return f.Name(), err
}

// ofacFiles finds sdn.csv, alt.csv and add.csv: given as three files, one
// sdn.csv with the others beside it, or their directory.
func ofacFiles(paths []string) ([]string, error) {
	if len(paths) == 3 {
		return paths, nil
	}
	if len(paths) != 1 {
		return nil, fmt.Errorf("ofac-sdn takes sdn.csv alt.csv add.csv, or their directory")
	}
	dir := paths[0]
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		dir = filepath.Dir(dir)
	}
	var out []string
	for _, name := range []string{"sdn.csv", "alt.csv", "add.csv"} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("ofac-sdn: %s not found beside the SDN file", p)
		}
		out = append(out, p)
	}
	return out, nil
}

// hashFiles is the SHA-256 of the files' contents in order, and their size.
func hashFiles(paths []string) ([]byte, int64, error) {
	h := sha256.New()
	var size int64
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, 0, err
		}
		n, err := io.Copy(h, f)
		f.Close()
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", p, err)
		}
		size += n
	}
	return h.Sum(nil), size, nil
}

func openAll(paths []string) ([]*os.File, error) {
	var out []*os.File
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			closeAll(out)
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

func closeAll(fs []*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// progress draws a progress bar on a terminal (and nothing elsewhere, so
// logs stay clean).
type progress struct {
	w        *os.File
	tty      bool
	total    int64
	read     atomic.Int64
	entities atomic.Int64
	label    string
	last     time.Time
}

func newProgress(w *os.File, total int64, label string) *progress {
	st, err := w.Stat()
	return &progress{w: w, tty: err == nil && st.Mode()&os.ModeCharDevice != 0, total: total, label: label}
}

type countingReader struct {
	r io.Reader
	p *progress
}

func (c countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.p.read.Add(int64(n))
	return n, err
}

func (p *progress) wrap(r io.Reader) io.Reader { return countingReader{r, p} }

func (p *progress) entity() {
	p.entities.Add(1)
	if !p.tty || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	p.draw()
}

func (p *progress) draw() {
	frac := 1.0
	if p.total > 0 {
		frac = min(1, float64(p.read.Load())/float64(p.total))
	}
	const width = 30
	bar := strings.Repeat("█", int(frac*width)) + strings.Repeat("░", width-int(frac*width))
	fmt.Fprintf(p.w, "\r%s %s %3.0f%% %d entities", p.label, bar, frac*100, p.entities.Load())
}

func (p *progress) done() {
	if p.tty {
		p.read.Store(p.total)
		p.draw()
		fmt.Fprintln(p.w)
	}
}

// watchlistGenerate writes the generated list eval uses as FtM JSON lines,
// so a list of any size can go through the real import, the worker's index
// and rescreening (docs/BENCHMARKS.md measures the worker with one).
func watchlistGenerate(args []string) error {
	fs := flag.NewFlagSet("watchlist generate", flag.ContinueOnError)
	n := fs.Int("entities", 50000, "entities to generate")
	seed := fs.Int64("seed", 1, "generator seed (the same seed gives the same list)")
	out := fs.String("out", "-", "file to write, - for standard output")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 || *n < 1 {
		return errUsage
	}
	f := os.Stdout
	if *out != "-" {
		var err error
		if f, err = os.Create(*out); err != nil {
			return err
		}
		defer f.Close() // after the Close below, a no-op; on errors, the cleanup
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	fw := watchlist.NewFtMWriter(bw)
	for _, e := range sanctions.GenerateList(*n, *seed) {
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
func watchlistEval(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("watchlist eval", flag.ContinueOnError)
	n := fs.Int("entities", 50000, "entities in the generated list")
	cases := fs.Int("cases", 5000, "evaluation queries")
	seed := fs.Int64("seed", 1, "generator seed")
	threshold := fs.Float64("threshold", 0.88, "alert threshold (the aml default)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	list := sanctions.GenerateList(*n, *seed)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	ix := sanctions.Build(list, sanctions.Options{})
	build := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&after)
	st := ix.Stats()
	fmt.Printf("list: %d entities, %d names (generated, seed %d)\n", *n, st.Names, *seed)
	fmt.Printf("index build: %s, heap %.1f MB\n", build.Round(time.Millisecond), float64(after.HeapAlloc-before.HeapAlloc)/(1<<20))

	evalCases := sanctions.GenerateEval(list, *cases, *seed+1)
	lat := make([]time.Duration, 0, len(evalCases))
	start = time.Now()
	for _, c := range evalCases {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		t0 := time.Now()
		ix.Search(c.Query, 10)
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
				ix.Search(evalCases[i].Query, 10)
			}
		}()
	}
	for range workers {
		<-done
	}
	fmt.Printf("queries: %d on %d goroutines in %s → %.0f/s\n", len(evalCases), workers, time.Since(start).Round(time.Millisecond),
		float64(len(evalCases))/time.Since(start).Seconds())

	rep := sanctions.Evaluate(ix, evalCases, *threshold)
	fmt.Print("quality: recall@10 per kind of variation; false alerts on people not listed\n", rep.String())
	return nil
}
