// Package screening turns watchlist matches into the hits kycflow reports:
// the aml check's, and the synchronous screening API's. It holds what both
// share, so a hit reads the same wherever it comes from.
package screening

import (
	"encoding/hex"
	"time"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/engines/sanctions"
	"github.com/kycflow/kycflow/store"
)

// Screener answers watchlist queries from the lists a process holds in
// memory (Lists).
type Screener interface {
	// Screen searches the loaded lists named in lists (all when nil);
	// versions are the list versions that answered (none: no list of
	// those is loaded).
	Screen(q sanctions.Query, limit int, lists []string) (hits []sanctions.Hit, versions []store.WatchlistVersion)
	// Versions are the list versions loaded now.
	Versions() []store.WatchlistVersion
}

// Limit is how many hits a screening keeps.
const Limit = 10

// Hits are the matches as reported: scores rounded to three places, above
// the threshold or not (whether one alerts is the caller's call: an aml
// check also weighs past reviews).
func Hits(hs []sanctions.Hit, threshold float64) []check.AMLHit {
	out := make([]check.AMLHit, 0, len(hs))
	for _, h := range hs {
		hit := check.AMLHit{EntityID: h.EntityID, MatchedName: h.MatchedName, Score: check.RoundScore(h.Score), NameScore: check.RoundScore(h.NameScore),
			AboveThreshold: h.Score >= threshold, Explanation: h.Explanation, Topics: []string{}, Programs: []string{}}
		if e := h.Entity; e != nil {
			hit.EntityHash, hit.List, hit.Schema, hit.Topics, hit.Programs = e.Hash(), e.List, e.Schema, nonNil(e.Topics), nonNil(e.Programs)
		}
		out = append(out, hit)
	}
	return out
}

// ListsUsed are the list versions a screening used, as reported.
func ListsUsed(vs []store.WatchlistVersion) []check.AMLList {
	out := make([]check.AMLList, 0, len(vs))
	for _, v := range vs {
		out = append(out, check.AMLList{List: v.List, Version: v.ID, ContentHash: hex.EncodeToString(v.ContentHash),
			ImportedAt: v.ImportedAt.UTC().Format(time.RFC3339)})
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Stale names the loaded lists whose version was imported more than
// maxAge ago (none when maxAge is 0): a list nobody refreshes misses
// every designation since. It makes health checks report degraded.
func Stale(vs []store.WatchlistVersion, now time.Time, maxAge time.Duration) []string {
	var out []string
	for _, v := range vs {
		if maxAge > 0 && now.Sub(v.ImportedAt) > maxAge {
			out = append(out, v.List)
		}
	}
	return out
}
