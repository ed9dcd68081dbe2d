// Package sandbox is a stand-in for VIES's REST service on loopback: the same
// JSON on the same paths, VIES's published test numbers on both endpoints, a
// small register of fictional traders, and a switch that makes it fail for a
// while, so the real client can be exercised and outages rehearsed.
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
	outage   switches.Timed[string] // the error code every consultation answers
}

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
	s := &Server{register: map[string]Trader{}}
	for k, v := range register {
		s.register[strings.ToUpper(k)] = v
	}
	return s
}

// Fail makes every consultation answer code (e.g. MS_UNAVAILABLE) for d.
func (s *Server) Fail(code string, d time.Duration) { s.outage.Set(code, d) }

// Recover ends an outage.
func (s *Server) Recover() { s.Fail("", 0) }

// Calls counts consultations answered so far.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// Handler serves POST /check-vat-number and /check-vat-test-service, and
// POST /sandbox/outage {"error":"MS_UNAVAILABLE","seconds":60} to switch an
// outage on from outside (kycflow dev, a tester's curl).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /check-vat-number", s.check)
	mux.HandleFunc("POST /check-vat-test-service", s.check)
	mux.HandleFunc("POST /sandbox/outage", switches.Handler("error", "MS_UNAVAILABLE", nil, s.Fail))
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
	outage, _ := s.outage.Get()
	if outage != "" {
		fail(w, outage)
		return
	}
	var in request
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.CountryCode == "" || in.VATNumber == "" {
		fail(w, "INVALID_INPUT")
		return
	}
	country, number := strings.ToUpper(in.CountryCode), strings.ToUpper(in.VATNumber)
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
