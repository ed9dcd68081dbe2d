// Package sandbox is a stand-in for VIES's REST service on loopback: the same
// JSON on the same paths, VIES's published test numbers on both endpoints, a
// small register of fictional traders, switches that make it fail or slow for
// a while, and a log of each member state's traffic (arrivals and calls in
// flight), so the real client can be exercised, outages rehearsed and the
// caller's limits checked from the provider's side.
package sandbox

import (
	"crypto/rand"
	"encoding/json"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/kycflow/kycflow/providers/internal/switches"
)

// Trader is a registered VAT number's holder.
type Trader struct {
	Name, Address string
}

// Server is the sandbox. Its zero value is not usable; call New.
type Server struct {
	mu       sync.Mutex
	register map[string]Trader // "NL" + number
	calls    int
	outage   switches.Timed[string]        // the error code every consultation answers
	slow     switches.Timed[time.Duration] // delay added to every consultation
	traffic  map[string]*traffic           // by member state
}

// traffic is what one member state's service saw.
type traffic struct {
	arrivals       []time.Time // the latest maxArrivals or more
	inFlight, peak int
}

// maxArrivals bounds each member state's log, so a long-running sandbox
// does not grow without end.
const maxArrivals = 100_000

// DemoTraders is the fictional register `kycflow dev` and the tests start
// with; the numbers pass the offline check. The first matches the KvK
// sandbox's test company 68750110.
var DemoTraders = map[string]Trader{
	"NL854750137B01": {Name: "TEST BV DONALD", Address: "HIGH STREET 00001\n1234AB TESTCITY"},
	"NL862042173B01": {Name: "FICTIONAL TRADING B.V.", Address: "MAIN STREET 00012\n5678CD EXAMPLEDAM"},
}

// testNumbers are VIES's test-service numbers and what they answer.
var testNumbers = map[string]string{
	"100": "", // valid
	"200": "", // invalid
	"201": "INVALID_INPUT", "202": "INVALID_REQUESTER_INFO",
	"300": "SERVICE_UNAVAILABLE", "301": "MS_UNAVAILABLE", "302": "TIMEOUT",
	"400": "VAT_BLOCKED", "401": "IP_BLOCKED",
	"500": "GLOBAL_MAX_CONCURRENT_REQ", "501": "GLOBAL_MAX_CONCURRENT_REQ_TIME",
	"600": "MS_MAX_CONCURRENT_REQ", "601": "MS_MAX_CONCURRENT_REQ_TIME",
}

// New returns a sandbox whose register holds the given traders, keyed by
// VIES prefix + national number (e.g. "NL123456789B01").
func New(register map[string]Trader) *Server {
	s := &Server{register: map[string]Trader{}, traffic: map[string]*traffic{}}
	for k, v := range register {
		s.register[strings.ToUpper(k)] = v
	}
	return s
}

// Fail makes every consultation answer code (e.g. MS_UNAVAILABLE) for d.
func (s *Server) Fail(code string, d time.Duration) { s.outage.Set(code, d) }

// Slow delays every consultation's answer by delay, for d.
func (s *Server) Slow(delay, d time.Duration) { s.slow.Set(delay, d) }

// Recover ends an outage and any slowness.
func (s *Server) Recover() {
	s.Fail("", 0)
	s.Slow(0, 0)
}

// Arrivals are the times consultations of member state cc arrived, oldest
// first (at least the latest 100 000).
func (s *Server) Arrivals(cc string) []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.traffic[cc]; t != nil {
		return append([]time.Time(nil), t.arrivals...)
	}
	return nil
}

// PeakInFlight is the most consultations of member state cc ever in
// progress at once.
func (s *Server) PeakInFlight(cc string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.traffic[cc]; t != nil {
		return t.peak
	}
	return 0
}

// arrive logs a consultation of cc arriving; the returned func logs it leaving.
func (s *Server) arrive(cc string) (leave func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.traffic[cc]
	if t == nil {
		t = &traffic{}
		s.traffic[cc] = t
	}
	if len(t.arrivals) == 2*maxArrivals { // keep the latest half: a copy per 100 000 arrivals
		t.arrivals = append(t.arrivals[:0], t.arrivals[maxArrivals:]...)
	}
	t.arrivals = append(t.arrivals, time.Now())
	t.inFlight++
	t.peak = max(t.peak, t.inFlight)
	return func() {
		s.mu.Lock()
		t.inFlight--
		s.mu.Unlock()
	}
}

// Calls counts consultations answered so far.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// Handler serves POST /check-vat-number and /check-vat-test-service, and the
// switches, from outside (kycflow dev, a tester's curl):
//
//	POST /sandbox/outage {"error":"MS_UNAVAILABLE","seconds":60}
//	POST /sandbox/slow   {"delayMs":2000,"seconds":60}
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /check-vat-number", s.check)
	mux.HandleFunc("POST /check-vat-test-service", s.check)
	mux.HandleFunc("POST /sandbox/outage", switches.Handler("error", "MS_UNAVAILABLE", nil, s.Fail))
	mux.HandleFunc("POST /sandbox/slow", switches.Handler("delayMs", 2000,
		func(ms int) bool { return ms >= 0 }, func(ms int, d time.Duration) { s.Slow(time.Duration(ms)*time.Millisecond, d) }))
	return mux
}

type request struct {
	CountryCode              string `json:"countryCode"`
	VATNumber                string `json:"vatNumber"`
	RequesterMemberStateCode string `json:"requesterMemberStateCode"`
	RequesterNumber          string `json:"requesterNumber"`
}

func (s *Server) check(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.calls++
	s.mu.Unlock()
	var in request
	err := json.NewDecoder(r.Body).Decode(&in)
	country, number := strings.ToUpper(in.CountryCode), strings.ToUpper(in.VATNumber)
	defer s.arrive(country)()
	if !switches.Delay(r, &s.slow) {
		return
	}
	if outage, _ := s.outage.Get(); outage != "" {
		fail(w, outage)
		return
	}
	if err != nil || country == "" || number == "" {
		fail(w, "INVALID_INPUT")
		return
	}
	out := map[string]any{
		"countryCode": country, "vatNumber": number, "valid": false,
		"requestDate":       time.Now().UTC().Format("2006-01-02T15:04:05.000Z"),
		"requestIdentifier": "", "name": "---", "address": "---",
	}
	if in.RequesterMemberStateCode != "" && in.RequesterNumber != "" {
		out["requestIdentifier"] = consultationNumber()
	}
	if code, isTest := testNumbers[number]; isTest {
		if code != "" {
			fail(w, code)
			return
		}
		if number == "100" {
			out["valid"], out["name"], out["address"] = true, "TEST TRADER", "TEST STREET 1\n1000 TEST CITY"
		}
	} else if t, ok := s.register[country+number]; ok {
		out["valid"], out["name"], out["address"] = true, t.Name, t.Address
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

// fail answers VIES's error envelope. VIES sends most with HTTP 200; the
// service-level ones come with 500.
func fail(w http.ResponseWriter, code string) {
	status := http.StatusOK
	if code == "SERVICE_UNAVAILABLE" || code == "TIMEOUT" {
		status = http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{
		"actionSucceed": false,
		"errorWrappers": []map[string]string{{"error": code}},
	})
}

// consultationNumber looks like VIES's: "WAPI" and 12 more characters.
func consultationNumber() string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"
	b := []byte("WAPI")
	for range 12 {
		n, _ := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		b = append(b, alphabet[n.Int64()])
	}
	return string(b)
}
