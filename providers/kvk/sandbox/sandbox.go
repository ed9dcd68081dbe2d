// Package sandbox is a stand-in for KvK's Handelsregister API on loopback:
// Basisprofiel v1 and a minimal Zoeken v2 on KvK's paths, with KvK's JSON
// field names and `fout` error bodies, seeded with the numbers of KvK's
// published test environment (seed.go), plus switches for outages and
// latency so the real client can be exercised and failures rehearsed.
package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kycflow/kycflow/providers/internal/switches"
)

// TestAPIKey is the key KvK publishes for its test environment; the sandbox
// accepts it by default, so one configuration works against both.
const TestAPIKey = "l7xx1f2691f2520d487b902f4e0b57a0b197"

// Basisprofiel is the answer of GET /api/v1/basisprofielen/{kvkNummer}.
// Links are filled in when served.
type Basisprofiel struct {
	KvKNummer               string                `json:"kvkNummer"`
	IndNonMailing           string                `json:"indNonMailing,omitempty"`
	Naam                    string                `json:"naam,omitempty"`
	FormeleRegistratiedatum string                `json:"formeleRegistratiedatum,omitempty"`
	MaterieleRegistratie    *MaterieleRegistratie `json:"materieleRegistratie,omitempty"`
	TotaalWerkzamePersonen  int                   `json:"totaalWerkzamePersonen,omitempty"`
	StatutaireNaam          string                `json:"statutaireNaam,omitempty"`
	Handelsnamen            []Handelsnaam         `json:"handelsnamen,omitempty"`
	SBIActiviteiten         []SBIActiviteit       `json:"sbiActiviteiten,omitempty"`
	Links                   []Link                `json:"links,omitempty"`
	Embedded                *Embedded             `json:"_embedded,omitempty"`
}

// MaterieleRegistratie holds start and (for ended registrations) end, YYYYMMDD.
type MaterieleRegistratie struct {
	DatumAanvang string `json:"datumAanvang,omitempty"`
	DatumEinde   string `json:"datumEinde,omitempty"`
}

// Handelsnaam is one trade name; volgorde is its rank.
type Handelsnaam struct {
	Naam     string `json:"naam"`
	Volgorde int    `json:"volgorde"`
}

// SBIActiviteit is one activity code.
type SBIActiviteit struct {
	SBICode            string `json:"sbiCode"`
	SBIOmschrijving    string `json:"sbiOmschrijving"`
	IndHoofdactiviteit string `json:"indHoofdactiviteit"`
}

// Link is KvK's HATEOAS link.
type Link struct {
	Rel  string `json:"rel"`
	Href string `json:"href"`
}

// Embedded is `_embedded`: the main branch and the owner.
type Embedded struct {
	Hoofdvestiging *Vestiging `json:"hoofdvestiging,omitempty"`
	Eigenaar       *Eigenaar  `json:"eigenaar,omitempty"`
}

// Vestiging is a branch.
type Vestiging struct {
	Vestigingsnummer        string                `json:"vestigingsnummer"`
	KvKNummer               string                `json:"kvkNummer"`
	FormeleRegistratiedatum string                `json:"formeleRegistratiedatum,omitempty"`
	MaterieleRegistratie    *MaterieleRegistratie `json:"materieleRegistratie,omitempty"`
	EersteHandelsnaam       string                `json:"eersteHandelsnaam,omitempty"`
	IndHoofdvestiging       string                `json:"indHoofdvestiging,omitempty"`
	IndCommercieleVestiging string                `json:"indCommercieleVestiging,omitempty"`
	TotaalWerkzamePersonen  int                   `json:"totaalWerkzamePersonen,omitempty"`
	Adressen                []Adres               `json:"adressen,omitempty"`
	Websites                []string              `json:"websites,omitempty"`
	Links                   []Link                `json:"links,omitempty"`
}

// Eigenaar is the owner: legal form, and the addresses when there is no
// main branch.
type Eigenaar struct {
	RSIN                  string   `json:"rsin,omitempty"`
	Rechtsvorm            string   `json:"rechtsvorm,omitempty"`
	UitgebreideRechtsvorm string   `json:"uitgebreideRechtsvorm,omitempty"`
	Adressen              []Adres  `json:"adressen,omitempty"`
	Websites              []string `json:"websites,omitempty"`
	Links                 []Link   `json:"links,omitempty"`
}

// Adres is an address; type is "bezoekadres" or "correspondentieadres".
type Adres struct {
	Type                 string `json:"type"`
	IndAfgeschermd       string `json:"indAfgeschermd,omitempty"`
	VolledigAdres        string `json:"volledigAdres,omitempty"`
	Straatnaam           string `json:"straatnaam,omitempty"`
	Huisnummer           int    `json:"huisnummer,omitempty"`
	Huisletter           string `json:"huisletter,omitempty"`
	HuisnummerToevoeging string `json:"huisnummerToevoeging,omitempty"`
	ToevoegingAdres      string `json:"toevoegingAdres,omitempty"`
	Postcode             string `json:"postcode,omitempty"`
	Postbusnummer        int    `json:"postbusnummer,omitempty"`
	Plaats               string `json:"plaats,omitempty"`
	Land                 string `json:"land,omitempty"`
}

// Fout is one entry of KvK's error body {"fout":[...]}.
type Fout struct {
	Code         string `json:"code"`
	Omschrijving string `json:"omschrijving"`
}

type failure struct {
	status int
	fout   Fout
}

// Server is the sandbox. Its zero value is not usable; call New.
type Server struct {
	mu       sync.Mutex
	profiles map[string]Basisprofiel
	failures map[string]failure // numbers that answer an error
	keys     map[string]bool
	calls    int
	outage   switches.Timed[int]           // HTTP status every call answers
	slow     switches.Timed[time.Duration] // delay added to every call
}

// New returns a sandbox seeded with KvK's test-environment numbers (seed.go)
// that accepts TestAPIKey.
func New() *Server {
	s := &Server{profiles: map[string]Basisprofiel{}, failures: map[string]failure{}, keys: map[string]bool{TestAPIKey: true}}
	for _, p := range seedProfiles() {
		s.AddProfile(p)
	}
	for number, f := range seedFailures {
		s.AddError(number, f.status, f.fout.Code, f.fout.Omschrijving)
	}
	return s
}

// AddProfile registers (or replaces) a company under p.KvKNummer.
func (s *Server) AddProfile(p Basisprofiel) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.profiles[p.KvKNummer] = p
	delete(s.failures, p.KvKNummer)
}

// AddError makes kvkNummer answer status with KvK's error body {code, omschrijving}.
func (s *Server) AddError(kvkNummer string, status int, code, omschrijving string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures[kvkNummer] = failure{status, Fout{code, omschrijving}}
	delete(s.profiles, kvkNummer)
}

// AllowKeys adds API keys the sandbox accepts besides TestAPIKey.
func (s *Server) AllowKeys(keys ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keys {
		s.keys[k] = true
	}
}

// Fail makes every API call answer status (e.g. 503) for d; status 0 or
// d <= 0 ends an outage.
func (s *Server) Fail(status int, d time.Duration) { s.outage.Set(status, d) }

// Recover ends an outage and any slowness.
func (s *Server) Recover() {
	s.Fail(0, 0)
	s.Slow(0, 0)
}

// Slow adds delay to every API call for the next window.
func (s *Server) Slow(delay, window time.Duration) { s.slow.Set(delay, window) }

// Calls counts API calls received so far (failed ones included).
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// Handler serves KvK's paths, under /api and the test environment's
// /test/api:
//
//	GET  /api/v1/basisprofielen/{kvkNummer}[?geoData=false]
//	GET  /api/v2/zoeken?kvkNummer=&naam=&plaats=&type=&pagina=&resultatenPerPagina=
//
// and the switches, from outside (kycflow dev, a tester's curl):
//
//	POST /sandbox/outage {"status":503,"seconds":60}   (status 0 ends it)
//	POST /sandbox/slow   {"delayMs":2000,"seconds":60}
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	for _, prefix := range []string{"", "/test"} {
		mux.HandleFunc("GET "+prefix+"/api/v1/basisprofielen/{kvkNummer}", s.api(s.basisprofiel))
		mux.HandleFunc("GET "+prefix+"/api/v2/zoeken", s.api(s.zoeken))
	}
	mux.HandleFunc("POST /sandbox/outage", switches.Handler("status", 503,
		func(status int) bool { return status == 0 || (status >= 400 && status <= 599) }, s.Fail))
	mux.HandleFunc("POST /sandbox/slow", switches.Handler("delayMs", 2000,
		func(ms int) bool { return ms >= 0 }, func(ms int, d time.Duration) { s.Slow(time.Duration(ms)*time.Millisecond, d) }))
	return mux
}

// api wraps an endpoint with what every KvK call goes through: counting,
// latency, outage, the `apikey` check.
func (s *Server) api(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.calls++
		keyOK := s.keys[r.Header.Get("apikey")]
		s.mu.Unlock()
		outage, _ := s.outage.Get()
		if !switches.Delay(r, &s.slow) {
			return
		}
		switch {
		case outage != 0:
			fail(w, outage)
		case !keyOK:
			// KvK's gateway refuses before the API sees the call. Its exact
			// body is not documented; this one follows the API's shape.
			writeFout(w, http.StatusUnauthorized, Fout{Omschrijving: "Geen geldige API-key opgegeven in header 'apikey'."})
		default:
			next(w, r)
		}
	}
}

func (s *Server) basisprofiel(w http.ResponseWriter, r *http.Request) {
	// KvK rejects unknown query parameters (Basisprofiel release 1.1.1).
	if !allowedParams(w, r, "geodata") {
		return
	}
	number := r.PathValue("kvkNummer")
	if !validNumber(number) {
		writeFout(w, http.StatusBadRequest, Fout{"IPD0004", fmt.Sprintf("Het KVK-nummer %s is niet geldig.", number)})
		return
	}
	s.mu.Lock()
	f, failing := s.failures[number]
	p, found := s.profiles[number]
	s.mu.Unlock()
	switch {
	case failing:
		writeFout(w, f.status, f.fout)
	case !found:
		writeFout(w, http.StatusNotFound, Fout{"IPD0005", fmt.Sprintf("Op basis van het KVK-nummer %s kan het product niet worden geleverd.", number)})
	default:
		writeJSON(w, http.StatusOK, withLinks(p, apiBase(r)))
	}
}

// withLinks returns a copy of p with KvK-style links; p is not modified.
func withLinks(p Basisprofiel, base string) Basisprofiel {
	self := base + "/v1/basisprofielen/" + p.KvKNummer
	p.Links = []Link{{"self", self}, {"vestigingen", self + "/vestigingen"}}
	if p.Embedded != nil {
		e := *p.Embedded
		if e.Hoofdvestiging != nil {
			hv := *e.Hoofdvestiging
			hv.Links = []Link{{"self", self + "/hoofdvestiging"}, {"basisprofiel", self},
				{"vestigingsprofiel", base + "/v1/vestigingsprofielen/" + hv.Vestigingsnummer}}
			e.Hoofdvestiging = &hv
		}
		if e.Eigenaar != nil {
			o := *e.Eigenaar
			o.Links = []Link{{"self", self + "/eigenaar"}, {"basisprofiel", self}}
			e.Eigenaar = &o
		}
		p.Embedded = &e
	}
	return p
}

// zoekParams are Zoeken v2's query parameters (KvK matches them without
// regard to case); the sandbox filters on a few and accepts the rest.
var zoekParams = []string{"kvknummer", "rsin", "vestigingsnummer", "naam", "straatnaam", "plaats", "postcode",
	"huisnummer", "huisletter", "postbusnummer", "type", "inclusiefinactieveregistraties", "pagina", "resultatenperpagina"}

type zoekResultaat struct {
	KvKNummer        string     `json:"kvkNummer"`
	Vestigingsnummer string     `json:"vestigingsnummer,omitempty"`
	Naam             string     `json:"naam"`
	Adres            *zoekAdres `json:"adres,omitempty"`
	Type             string     `json:"type"`
	Actief           string     `json:"actief,omitempty"`
	Links            []Link     `json:"links"`
}

type zoekAdres struct {
	BinnenlandsAdres struct {
		Type       string `json:"type"`
		Straatnaam string `json:"straatnaam,omitempty"`
		Plaats     string `json:"plaats,omitempty"`
	} `json:"binnenlandsAdres"`
}

func (s *Server) zoeken(w http.ResponseWriter, r *http.Request) {
	if !allowedParams(w, r, zoekParams...) {
		return
	}
	q := map[string]string{}
	for k, v := range r.URL.Query() {
		q[strings.ToLower(k)] = strings.TrimSpace(v[0])
	}
	page, perPage := atoiOr(q["pagina"], 1), atoiOr(q["resultatenperpagina"], 10)
	if page < 1 || perPage < 1 || perPage > 100 {
		writeFout(w, http.StatusBadRequest, Fout{"IPD1999", "De volgende opgegeven parameter(s) is (zijn) ongeldig: [pagina, resultatenPerPagina]"})
		return
	}
	inactiveToo := strings.EqualFold(q["inclusiefinactieveregistraties"], "true")
	base := apiBase(r)

	s.mu.Lock()
	numbers := make([]string, 0, len(s.profiles))
	for n := range s.profiles {
		numbers = append(numbers, n)
	}
	slices.Sort(numbers)
	var all []zoekResultaat
	for _, n := range numbers {
		p := s.profiles[n]
		active := p.MaterieleRegistratie == nil || p.MaterieleRegistratie.DatumEinde == ""
		if (!active && !inactiveToo) || (q["kvknummer"] != "" && q["kvknummer"] != n) || !nameMatches(p, q["naam"]) {
			continue
		}
		for _, res := range searchEntries(p, base) {
			if q["type"] != "" && !strings.EqualFold(q["type"], res.Type) {
				continue
			}
			if q["plaats"] != "" && (res.Adres == nil || !strings.EqualFold(res.Adres.BinnenlandsAdres.Plaats, q["plaats"])) {
				continue
			}
			if inactiveToo {
				res.Actief = map[bool]string{true: "Ja", false: "Nee"}[active]
			}
			all = append(all, res)
		}
	}
	s.mu.Unlock()

	if len(all) == 0 {
		writeFout(w, http.StatusNotFound, Fout{"IPD5200", "Er zijn geen gegevens gevonden die voldoen aan de opgegeven zoekparameters."})
		return
	}
	from := min((page-1)*perPage, len(all))
	to := min(from+perPage, len(all))
	writeJSON(w, http.StatusOK, map[string]any{
		"pagina": page, "resultatenPerPagina": perPage, "totaal": len(all), "resultaten": all[from:to],
		"links": []Link{{"self", base + "/v2/zoeken?" + r.URL.RawQuery}},
	})
}

// searchEntries are a company's Zoeken rows: the legal entity (not for an
// eenmanszaak, whose owner is a person) and its main branch.
func searchEntries(p Basisprofiel, base string) []zoekResultaat {
	profile := []Link{{"basisprofiel", base + "/v1/basisprofielen/" + p.KvKNummer}}
	name := p.StatutaireNaam
	if name == "" {
		name = p.Naam
	}
	var out []zoekResultaat
	var eigenaar *Eigenaar
	var hv *Vestiging
	if p.Embedded != nil {
		eigenaar, hv = p.Embedded.Eigenaar, p.Embedded.Hoofdvestiging
	}
	if eigenaar == nil || !strings.EqualFold(eigenaar.Rechtsvorm, "Eenmanszaak") {
		res := zoekResultaat{KvKNummer: p.KvKNummer, Naam: name, Type: "rechtspersoon", Links: profile}
		if hv == nil && eigenaar != nil {
			res.Adres = searchAddress(eigenaar.Adressen)
		}
		out = append(out, res)
	}
	if hv != nil {
		hvName := hv.EersteHandelsnaam
		if hvName == "" {
			hvName = p.Naam
		}
		out = append(out, zoekResultaat{
			KvKNummer: p.KvKNummer, Vestigingsnummer: hv.Vestigingsnummer, Naam: hvName, Type: "hoofdvestiging",
			Adres: searchAddress(hv.Adressen),
			Links: []Link{profile[0], {"vestigingsprofiel", base + "/v1/vestigingsprofielen/" + hv.Vestigingsnummer}},
		})
	}
	return out
}

// searchAddress picks the visiting address, else the first; a shielded one
// shows no street.
func searchAddress(list []Adres) *zoekAdres {
	if len(list) == 0 {
		return nil
	}
	a := list[0]
	for _, x := range list {
		if x.Type == "bezoekadres" {
			a = x
			break
		}
	}
	out := &zoekAdres{}
	out.BinnenlandsAdres.Type, out.BinnenlandsAdres.Plaats = a.Type, a.Plaats
	if !strings.EqualFold(a.IndAfgeschermd, "ja") {
		out.BinnenlandsAdres.Straatnaam = a.Straatnaam
	}
	return out
}

func nameMatches(p Basisprofiel, q string) bool {
	if q == "" {
		return true
	}
	q = strings.ToLower(q)
	names := []string{p.Naam, p.StatutaireNaam}
	for _, h := range p.Handelsnamen {
		names = append(names, h.Naam)
	}
	for _, n := range names {
		if n != "" && strings.Contains(strings.ToLower(n), q) {
			return true
		}
	}
	return false
}

// allowedParams answers KvK's 400 IPD1999 for query parameters outside allowed
// (lower case) and reports whether the call may proceed.
func allowedParams(w http.ResponseWriter, r *http.Request, allowed ...string) bool {
	var bad []string
	for k := range r.URL.Query() {
		if !slices.Contains(allowed, strings.ToLower(k)) {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return true
	}
	slices.Sort(bad)
	writeFout(w, http.StatusBadRequest, Fout{"IPD1999", "De volgende opgegeven parameter(s) is (zijn) ongeldig: [" + strings.Join(bad, ", ") + "]"})
	return false
}

// fail answers an outage: KvK's general technical error for a 500, the bare
// status text (as a gateway would) otherwise.
func fail(w http.ResponseWriter, status int) {
	if status == http.StatusInternalServerError {
		writeFout(w, status, Fout{"IPD9999", "Algemene technische fout."})
		return
	}
	if status == http.StatusServiceUnavailable || status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "30")
	}
	http.Error(w, http.StatusText(status), status)
}

func writeFout(w http.ResponseWriter, status int, f Fout) {
	writeJSON(w, status, map[string][]Fout{"fout": {f}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// apiBase is the served API root as KvK writes it in links, e.g.
// http://127.0.0.1:1234/test/api.
func apiBase(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	prefix := "/api"
	if strings.HasPrefix(r.URL.Path, "/test/") {
		prefix = "/test/api"
	}
	return scheme + "://" + r.Host + prefix
}

func validNumber(s string) bool {
	if len(s) != 8 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func atoiOr(s string, def int) int {
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}
