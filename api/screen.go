package api

import (
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	"golang.org/x/text/language"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/engines/sanctions"
	"github.com/kycflow/kycflow/screening"
	"github.com/kycflow/kycflow/store"
)

// Synchronous screening limits: a batch's queries; a name's length and
// words are the matcher's (sanctions.MaxQueryRunes, MaxQueryWords).
const maxScreenQueries = 100

// screenSchemas are the kinds of party a query may name.
var screenSchemas = map[string]string{"person": "Person", "organization": "Organization", "any": "Thing"}

type screenQueryJSON struct {
	Name        string  `json:"name"`
	BirthDate   *string `json:"birth_date"`
	Nationality *string `json:"nationality"`
	Type        string  `json:"type"`
}

type screenResultJSON struct {
	Query    screenQueryJSON `json:"query"`
	Alerting bool            `json:"alerting"`
	Hits     []check.AMLHit  `json:"hits"`
}

type screenJSON struct {
	Threshold    float64            `json:"threshold"`
	HardConflict bool               `json:"hard_conflict"`
	Lists        []check.AMLList    `json:"lists"`
	Results      []screenResultJSON `json:"results"`
}

// screen answers up to 100 queries against the tenant's watchlists at
// once. Nothing is stored but an audit row with the counts.
func (s *Server) screen(c echo.Context) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	var fe fieldErrors
	queries, shown := readScreenQueries(body, &fe)
	if !fe.empty() {
		return validationError(&fe)
	}
	if s.screener == nil {
		return newError(http.StatusServiceUnavailable, "Screening is not available on this server.")
	}
	ctx := c.Request().Context()
	p := principal(c)
	// The CPU the queries take is the tenant's to spend (cpuBudget).
	var used atomic.Int64
	if b := s.screenBudget; b != nil {
		est := screenEstimate(queries)
		if err := b.reserve(p.TenantID, est, time.Now()); err != nil {
			return err
		}
		defer func() { b.settle(p.TenantID, est, time.Duration(used.Load()), time.Now()) }()
	}
	set, err := s.store.AMLSettings(ctx, p.TenantID)
	if err != nil {
		return err
	}
	out := screenJSON{Threshold: set.Threshold, HardConflict: set.HardConflict, Results: make([]screenResultJSON, len(queries))}
	versions := make([][]store.WatchlistVersion, len(queries))
	// Queries are independent: the index serves them side by side.
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), len(queries)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Measured on the goroutine's own thread.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			start := threadCPU()
			defer func() { used.Add(int64(threadCPU() - start)) }()
			for i := range next {
				q := queries[i]
				q.HardConflict = set.HardConflict
				hits, vs := s.screener.Screen(q, screening.Limit, set.Lists)
				r := screenResultJSON{Query: shown[i], Hits: screening.Hits(hits, set.Threshold)}
				for j := range r.Hits {
					r.Hits[j].Alerting = r.Hits[j].AboveThreshold
					r.Alerting = r.Alerting || r.Hits[j].Alerting
				}
				out.Results[i], versions[i] = r, vs
			}
		}()
	}
	for i := range queries {
		next <- i
	}
	close(next)
	wg.Wait()
	if len(versions[0]) == 0 {
		return newError(http.StatusServiceUnavailable, "No watchlist is loaded yet: an operator imports one with kycflow watchlist import.")
	}
	out.Lists = screening.ListsUsed(versions[0])
	counts := store.ScreeningCounts{Queries: len(queries)}
	for _, r := range out.Results {
		counts.Hits += len(r.Hits)
		if r.Alerting {
			counts.Alerting++
		}
	}
	if err := s.store.RecordScreening(ctx, p, counts); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// screenEstimate is what a batch is reckoned to cost before it runs: about
// a millisecond a word and spelling, the costliest queries' rate
// (docs/BENCHMARKS.md); a name in another script than Latin is searched in
// two spellings.
func screenEstimate(qs []sanctions.Query) time.Duration {
	words := 0
	for _, q := range qs {
		w := max(1, sanctions.QueryWords(q.Name))
		if strings.IndexFunc(q.Name, func(r rune) bool { return unicode.IsLetter(r) && !unicode.Is(unicode.Latin, r) }) >= 0 {
			w *= 2
		}
		words += w
	}
	return time.Duration(words) * time.Millisecond
}

// readScreenQueries reads the queries: a name each (required), a birth
// date (YYYY, YYYY-MM or YYYY-MM-DD, not in the future), a nationality
// (ISO 3166-1 alpha-2 or alpha-3) and a type (person, the default;
// organization; any).
func readScreenQueries(body *object, fe *fieldErrors) ([]sanctions.Query, []screenQueryJSON) {
	items := body.objects("queries", fe)
	switch {
	case fe.has("queries"):
		return nil, nil
	case len(items) == 0:
		fe.add("queries", msg("queries", "is required."))
		return nil, nil
	case len(items) > maxScreenQueries:
		fe.add("queries", msg("queries", "must not have more than "+strconv.Itoa(maxScreenQueries)+" items."))
		return nil, nil
	}
	queries, shown := make([]sanctions.Query, len(items)), make([]screenQueryJSON, len(items))
	today := time.Now().UTC().Format(time.DateOnly)
	for i, it := range items {
		if it == nil {
			continue
		}
		q, sh := &queries[i], &shown[i]
		name := it.str("name", fe)
		switch {
		case name == nil && !fe.has(it.name("name")):
			fe.add(it.name("name"), msg(it.name("name"), "is required."))
		case name != nil && utf8.RuneCountInString(*name) > sanctions.MaxQueryRunes:
			fe.add(it.name("name"), msg(it.name("name"), "must not be greater than "+strconv.Itoa(sanctions.MaxQueryRunes)+" characters."))
		case name != nil && sanctions.QueryWords(*name) > sanctions.MaxQueryWords:
			fe.add(it.name("name"), msg(it.name("name"), "must not have more than "+strconv.Itoa(sanctions.MaxQueryWords)+" words."))
		case name != nil:
			q.Name, sh.Name = *name, *name
		}
		if d := it.str("birth_date", fe); d != nil {
			if !validPartialDate(*d) || *d > today {
				fe.add(it.name("birth_date"), msg(it.name("birth_date"), "must be a date in the past: YYYY-MM-DD, YYYY-MM or YYYY."))
			} else {
				q.BirthDate, sh.BirthDate = *d, d
			}
		}
		if n := it.str("nationality", fe); n != nil {
			r, err := language.ParseRegion(*n)
			// Letters only: ParseRegion also takes M49 numbers ("528").
			if err != nil || !r.IsCountry() || (len(*n) != 2 && len(*n) != 3) || strings.IndexFunc(*n, unicode.IsDigit) >= 0 {
				fe.add(it.name("nationality"), msg(it.name("nationality"), "must be an ISO 3166-1 country code, such as NL or NLD."))
			} else {
				code := strings.ToLower(r.String())
				q.Nationality, sh.Nationality = code, &code
			}
		}
		sh.Type = "person"
		if t := it.str("type", fe); t != nil {
			if _, ok := screenSchemas[*t]; !ok {
				fe.add(it.name("type"), msg(it.name("type"), "must be person, organization or any."))
			} else {
				sh.Type = *t
			}
		}
		q.Schema = screenSchemas[sh.Type]
	}
	return queries, shown
}

// validPartialDate: a birth date as lists give them, a year, a month or a day.
func validPartialDate(s string) bool {
	layout, ok := map[int]string{4: "2006", 7: "2006-01", 10: time.DateOnly}[len(s)]
	if !ok {
		return false
	}
	_, err := time.Parse(layout, s)
	return err == nil
}
