package screening

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kycflow/kycflow/engines/watchlist"
	"github.com/kycflow/kycflow/store"
)

// Import is `kycflow watchlist import`: a list file (or URL) stored as a
// new version of its list, unless that exact content is already the
// list's version. The worker loads it and rescreens from there.
type Import struct {
	Format string // ftm, eu-fsf, eu-xml, ofac-sdn or un-xml
	List   string // "": the format's (Formats)
	// Download bounds what a URL may deliver.
	Download Download
	// Out is where the outcome is told; progress goes to standard error
	// when it is a terminal.
	Out io.Writer
}

// Formats are the list formats Import reads, each with the list name it
// imports into unless told otherwise.
var Formats = map[string]string{
	"ftm":      "opensanctions",
	"eu-fsf":   "eu_fsf",
	"eu-xml":   "eu_fsf",
	"ofac-sdn": "us_ofac_sdn",
	"un-xml":   "un_sc",
}

// Run imports sources (files, URLs; ofac-sdn: sdn.csv [alt.csv add.csv], or
// their directory) into s (as the owner).
func (im Import) Run(ctx context.Context, s *store.Store, sources []string) error {
	def, ok := Formats[im.Format]
	if !ok || len(sources) == 0 {
		return fmt.Errorf("watchlist import needs --format (ftm, eu-fsf, eu-xml, ofac-sdn, un-xml) and a file or URL (ofac-sdn: sdn.csv [alt.csv add.csv], or their directory)")
	}
	format, list := &im.Format, &im.List
	if *list == "" {
		*list = def
	}
	paths, cleanup, err := im.Download.fetchAll(ctx, sources)
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
	imp, existing, err := s.BeginWatchlistImport(ctx, *list, *format, watchlist.Reader, hash)
	if errors.Is(err, store.ErrWatchlistUnchanged) {
		if existing != nil {
			fmt.Fprintf(im.Out, "unchanged: %s already has this content, read this way, as version %d (imported %s); nothing to do\n",
				*list, existing.ID, existing.ImportedAt.Format(time.RFC3339))
		} else {
			fmt.Fprintf(im.Out, "unchanged: %s already has this content; nothing to do\n", *list)
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
		return fmt.Errorf("%s: %w", strings.Join(sources, " "), err)
	}
	v, err := imp.Commit(ctx, stats.Entities, stats.Names)
	if err != nil {
		return err
	}
	fmt.Fprintf(im.Out, "imported %s version %d: %d entities, %d names (%d skipped), sha256 %s\n",
		v.List, v.ID, v.Entities, v.Names, stats.Dropped, hex.EncodeToString(v.ContentHash))
	for _, w := range stats.Warnings {
		fmt.Fprintln(im.Out, "  warning:", w)
	}
	fmt.Fprintln(im.Out, "the worker loads it and rescreens the customers it may concern")
	return nil
}

// Download fetches list files from URLs, bounded in size and time: lists
// are large, but a server that sends without end, or never answers, must
// not fill the disk or hang the import.
type Download struct {
	MaxBytes int64
	Timeout  time.Duration
	// Dial is the dialer (tests inject one that only reaches loopback).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

func (d Download) client() *http.Client {
	dial := d.Dial
	if dial == nil {
		dial = (&net.Dialer{Timeout: 10 * time.Second}).DialContext
	}
	return &http.Client{
		Timeout: d.Timeout,
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           dial,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: 30 * time.Second,
		},
	}
}

// fetchAll downloads URLs to temporary files; paths pass through.
func (d Download) fetchAll(ctx context.Context, args []string) ([]string, func(), error) {
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

func (d Download) fetch(ctx context.Context, client *http.Client, u string, tmp *[]string) (string, error) {
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
	if resp.ContentLength > d.MaxBytes {
		return "", fmt.Errorf("%d bytes is over the %d-byte limit (--max-size)", resp.ContentLength, d.MaxBytes)
	}
	f, err := os.CreateTemp("", "kycflow-list-*-"+filepath.Base(req.URL.Path))
	if err != nil {
		return "", err
	}
	*tmp = append(*tmp, f.Name())
	n, err := io.Copy(f, io.LimitReader(resp.Body, d.MaxBytes+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > d.MaxBytes {
		err = fmt.Errorf("more than the %d-byte limit (--max-size)", d.MaxBytes)
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
