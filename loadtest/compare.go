package loadtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	neturl "net/url"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kycflow/kycflow/engines/docgen"
	"github.com/kycflow/kycflow/engines/mrz"
	"github.com/kycflow/kycflow/engines/screeneval"
	"github.com/kycflow/kycflow/engines/watchlist"
)

// screenCompare sends the queries engines/screeneval makes from the real
// lists (--ofac, --un) through POST /screen one at a time, and, with
// --watchman, the OFAC ones to moov-io/watchman's GET /v2/search: the same
// queries, the same machine, the same hour (docs/BENCHMARKS.md has the
// recipe).
// The tenant screens the lists imported from the same files. A case is
// found when its entity is among the hits (watchman: at --watchman-min or
// more), alerted when kycflow's hit on it is above the tenant's threshold;
// for people not listed (peopleNotListed), any hit on the list compared
// counts (the tenant may screen others beside it). Watchman reads no UN list: UN cases go to
// kycflow alone.
func (b *bencher) screenCompare(ctx context.Context, o Options) error {
	var w *watchman
	if o.Watchman != "" {
		w = &watchman{base: strings.TrimRight(o.Watchman, "/"), min: o.WatchmanMin, http: &http.Client{Timeout: 30 * time.Second}}
	}
	var lists []comparedList
	if o.OFAC != "" {
		es, err := screeneval.LoadOFAC(o.OFAC)
		if err != nil {
			return err
		}
		lists = append(lists, comparedList{"OFAC", "us_ofac_sdn", es, w})
	}
	if o.UN != "" {
		es, err := screeneval.LoadUN(o.UN)
		if err != nil {
			return err
		}
		lists = append(lists, comparedList{"UN", "un_sc", es, nil})
	}
	if len(lists) == 0 {
		return errors.New("screen-compare needs --ofac DIR or --un FILE")
	}
	notListed := peopleNotListed(500)
	var everyone [][]watchlist.Entity
	for _, l := range lists {
		everyone = append(everyone, l.entities)
	}
	people := screeneval.CountPeople(everyone...)
	for _, l := range lists {
		cases := byRarity(screeneval.Cases(l.entities, 1), people)
		cases[screeneval.NotListed] = notListed
		var rows []compareRow
		var ours, theirs []time.Duration
		for _, kind := range compareKinds {
			for _, split := range []bool{false, true} {
				r := compareRow{kind: kind, heldOut: split}
				for _, c := range cases[kind] {
					if c.HeldOut() != split {
						continue
					}
					r.cases++
					t := time.Now()
					found, alerted, err := b.screenOne(ctx, c, l.list)
					if err != nil {
						return err
					}
					took := time.Since(t)
					r.ours, ours = append(r.ours, took), append(ours, took)
					r.found, r.alerted = r.found+boolInt(found), r.alerted+boolInt(alerted)
					if l.watchman != nil {
						t := time.Now()
						found, err := l.watchman.finds(ctx, c)
						if err != nil {
							return err
						}
						theirs = append(theirs, time.Since(t))
						r.theirs += boolInt(found)
					}
				}
				if r.cases > 0 {
					rows = append(rows, r)
				}
			}
		}
		printCompare(os.Stdout, l, rows, ours, theirs)
	}
	return nil
}

// compareKinds are the kinds of case compared, in report order: a title
// or a kunya with one name apart by whether that name is rare (fewer than
// three listed people use it, counted over the lists given), where an
// alert is due, or common, where finding the person among others is all
// one may ask — each again without the cases made from names the list
// calls weak, which are shown but never alert alone.
var compareKinds = []string{screeneval.Exact, screeneval.Reordered, screeneval.Alias, screeneval.ArabicScript, screeneval.MiddleDropped, screeneval.AliasMiddleDropped, screeneval.OneDropped, screeneval.ShortTypo, screeneval.Typo,
	screeneval.TitleName + ", rare", screeneval.TitleName + ", rare, strong", screeneval.TitleName + ", common", screeneval.TitleName + ", common, strong",
	screeneval.KunyaSplit + ", rare", screeneval.KunyaSplit + ", rare, strong", screeneval.KunyaSplit + ", common", screeneval.KunyaSplit + ", common, strong",
	screeneval.NotListed}

// byRarity files the title and kunya cases under their kind and ", rare"
// or ", common", by the last word of the query, and those made from a
// strong name under that and ", strong" too.
func byRarity(cases map[string][]screeneval.Case, people screeneval.People) map[string][]screeneval.Case {
	for _, kind := range []string{screeneval.TitleName, screeneval.KunyaSplit} {
		for _, c := range cases[kind] {
			ws := strings.Fields(c.Name)
			k := kind + ", common"
			if people.Rare(ws[len(ws)-1]) {
				k = kind + ", rare"
			}
			if !c.Weak {
				cases[k+", strong"] = append(cases[k+", strong"], c)
			}
			cases[k] = append(cases[k], c)
		}
		delete(cases, kind)
	}
	return cases
}

// peopleNotListed is n distinct made-up people, given names and surname
// as the document generator draws them (engines/docgen: its own pools,
// nothing of the matcher's), the same for every list; a namesake of a
// real listed person among them alerts both engines alike.
func peopleNotListed(n int) []screeneval.Case {
	rng := rand.New(rand.NewPCG(5, 31))
	seen := map[string]bool{}
	var out []screeneval.Case
	for len(out) < n {
		f := docgen.RandomIdentity(rng, mrz.TD3).Fields
		name := f.GivenNames + " " + f.Surname
		if !seen[name] {
			seen[name] = true
			out = append(out, screeneval.Case{Name: name, Kind: screeneval.NotListed})
		}
	}
	return out
}

type comparedList struct {
	name     string
	list     string // as imported (the format's default name)
	entities []watchlist.Entity
	watchman *watchman // nil: kycflow alone
}

// compareRow is one kind of case in one split.
type compareRow struct {
	kind                          string
	heldOut                       bool
	cases, found, alerted, theirs int
	ours                          []time.Duration // kycflow's latency, case by case
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// screenOne screens c's name alone: whether its entity (any on list, for
// a case that names no one) is among the hits, and above the threshold.
func (b *bencher) screenOne(ctx context.Context, c screeneval.Case, list string) (found, alerted bool, err error) {
	var out struct {
		Results []struct {
			Hits []struct {
				EntityID       string `json:"entity_id"`
				List           string `json:"list"`
				AboveThreshold bool   `json:"above_threshold"`
			} `json:"hits"`
		} `json:"results"`
	}
	body := map[string]any{"queries": []map[string]string{{"name": c.Name}}}
	if _, err := b.do(ctx, http.MethodPost, b.base+"/screen", body, &out); err != nil {
		return false, false, err
	}
	if len(out.Results) != 1 {
		return false, false, fmt.Errorf("POST /screen: %d results for one query", len(out.Results))
	}
	for _, h := range out.Results[0].Hits {
		if c.WantID == "" && h.List == list {
			found, alerted = true, alerted || h.AboveThreshold
		} else if h.EntityID == c.WantID {
			return true, h.AboveThreshold, nil
		}
	}
	return found, alerted, nil
}

// watchman is a moov-io/watchman server holding the same OFAC snapshot.
type watchman struct {
	base string
	min  float64
	http *http.Client
}

// finds reports whether watchman's first ten people for c's name at its
// minimum match hold c's entity (kycflow's OFAC ids are "ofac-" and the
// list's ent_num, watchman's sourceID) — any person, for a case that names
// no one.
func (w *watchman) finds(ctx context.Context, c screeneval.Case) (bool, error) {
	q := neturl.Values{"name": {c.Name}, "type": {"person"}, "limit": {"10"}, "minMatch": {fmt.Sprintf("%.2f", w.min)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.base+"/v2/search?"+q.Encode(), nil)
	if err != nil {
		return false, err
	}
	resp, err := w.http.Do(req)
	if err != nil {
		return false, fmt.Errorf("watchman: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return false, fmt.Errorf("watchman: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("watchman: GET /v2/search: %d %s", resp.StatusCode, raw)
	}
	var out struct {
		Entities []watchmanEntity `json:"entities"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return false, fmt.Errorf("watchman: %w", err)
	}
	return slices.ContainsFunc(out.Entities, func(e watchmanEntity) bool {
		return (c.WantID == "" || "ofac-"+e.SourceID == c.WantID) && e.Match >= w.min
	}), nil
}

type watchmanEntity struct {
	SourceID string  `json:"sourceID"`
	Match    float64 `json:"match"`
}

func printCompare(out io.Writer, l comparedList, rows []compareRow, ours, theirs []time.Duration) {
	fmt.Fprintf(out, "%s (%d entities), one query a request:\n", l.name, len(l.entities))
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	head := "kind\tsplit\tcases\tkycflow found\tkycflow alerted\tkycflow p50"
	if l.watchman != nil {
		head += fmt.Sprintf("\twatchman ≥ %.2f", l.watchman.min)
	}
	fmt.Fprintln(tw, head)
	pct := func(n, of int) string { return fmt.Sprintf("%d (%.1f %%)", n, 100*float64(n)/float64(max(of, 1))) }
	for _, r := range rows {
		split := "tuning"
		if r.heldOut {
			split = "held out"
		}
		line := fmt.Sprintf("%s\t%s\t%d\t%s\t%s\t%.1fms", r.kind, split, r.cases, pct(r.found, r.cases), pct(r.alerted, r.cases), quantile(r.ours, 0.5))
		if l.watchman != nil {
			line += "\t" + pct(r.theirs, r.cases)
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	fmt.Fprintf(out, "latency: kycflow p50 %.1fms p90 %.1fms p99 %.1fms", quantile(ours, 0.5), quantile(ours, 0.9), quantile(ours, 0.99))
	if len(theirs) > 0 {
		fmt.Fprintf(out, "; watchman p50 %.1fms p90 %.1fms p99 %.1fms", quantile(theirs, 0.5), quantile(theirs, 0.9), quantile(theirs, 0.99))
	}
	fmt.Fprintln(out)
}
