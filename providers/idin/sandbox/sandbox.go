// Package sandbox is a stand-in for CM.com's iDIN API on loopback: the
// directory, transaction and status calls on CM's paths with CM's JSON
// field names, transactions kept in memory, and a server-rendered
// "SANDBOX bank" page where a tester (or a test over net/http) picks the
// outcome, so the real client and the return page can be exercised end to
// end. It also has an outage switch to rehearse broker failures.
//
// # API
//
// Every call is a POST with a JSON body carrying merchant_token, served
// under "", "/idin/v1.0" and BasePath ("/idin/v1.0/test"):
//
//	POST {base}/directory    → [{"country","issuers":[{"issuer_id","issuer_name"}]}]
//	POST {base}/transaction  → {"transaction_id","issuer_authentication_url","merchant_reference"}
//	POST {base}/status       → {"status","transaction_id","transaction_reference","issuer_id","bin",
//	                            "name":{...},"address":{...},"age":{...},"email_address","telephone_number"}
//
// Errors are CM's shape, {"status":<http status>,"message":"...","code":n};
// CM does not publish its codes, so the sandbox sets code to the HTTP status.
// A token it does not accept gets 403 (CM's "authorization required"), a
// malformed or invalid request 400, an unknown transaction 404.
//
// Like CM, the status call returns personal data once: asked again after
// success, it answers success with a notice and no data.
//
// # Sandbox-only extension
//
// The transaction request may carry "sandbox_attributes", an object of the
// status answer's shape (bin, name, address, age, email_address,
// telephone_number), to preset what the bank page is prefilled with; an
// automated test can then complete the transaction by POSTing only
// outcome=success to the bank page. It is not part of CM's API: never send
// it to CM.
//
// # Bank page
//
//	GET  /bank/{transactionID}   the SANDBOX bank: requested attributes, editable, and the outcomes
//	POST /bank/{transactionID}   outcome=success|cancelled|expired|failure (+ attribute fields);
//	                             303 to merchant_return_url with trxid and ec appended
//
// Form fields are named as in CM's JSON (last_name, date_of_birth,
// 18y_or_older, ...); a field left out of the POST keeps its prefilled
// value, one sent empty is delivered empty. A transaction is completed
// once; the page for an unknown or finished one says so.
//
// # Switches
//
//	POST /sandbox/outage {"status":503,"seconds":60}   every API call answers 503 for 60 s (status 0 ends it)
//
// The sandbox has no authentication on its pages and switches: serve it
// on loopback or a private network only.
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

// TestMerchantToken is the merchant token New accepts when given none. It
// is a sandbox value shaped like CM's GUID tokens; CM publishes no public
// test token, so a real test token comes from CM's dashboard.
const TestMerchantToken = "5a4db0c5-1d1a-4e5a-8bd0-000000000001"

// BasePath is where the API is served in the shape of CM's test
// environment; a client's BaseURL is the server's URL plus BasePath.
const BasePath = "/idin/v1.0/test"

// Server is the sandbox. Its zero value is not usable; call New.
type Server struct {
	mu        sync.Mutex
	tokens    map[string]bool
	txs       map[string]*transaction
	calls     int
	publicURL string

	outage switches.Timed[int] // HTTP status every API call answers
}

// New returns an empty sandbox that accepts exactly the given merchant
// tokens, or TestMerchantToken when none are given.
func New(merchantTokens ...string) *Server {
	if len(merchantTokens) == 0 {
		merchantTokens = []string{TestMerchantToken}
	}
	s := &Server{tokens: map[string]bool{}, txs: map[string]*transaction{}}
	for _, t := range merchantTokens {
		s.tokens[t] = true
	}
	return s
}

// SetPublicURL sets the base URL the person's browser reaches the sandbox
// at (e.g. "http://localhost:8085", or with a path prefix if the handler is
// mounted under one), used to build issuer_authentication_url. Unset, it
// is taken from each transaction request's Host, which is wrong when the
// API client reaches the sandbox under another name than the browser does.
func (s *Server) SetPublicURL(u string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.publicURL = strings.TrimSuffix(u, "/")
}

// Fail makes every API call (not the bank page or the switches) answer
// status, e.g. 503 or 429, with CM's error body for d; status 0 or d <= 0
// ends an outage.
func (s *Server) Fail(status int, d time.Duration) { s.outage.Set(status, d) }

// Recover ends an outage.
func (s *Server) Recover() { s.Fail(0, 0) }

// Calls counts API calls received so far, failed ones included; bank page
// and switch requests are not counted.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// Handler serves the API, the bank page and the switches (see the package
// comment).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	for _, prefix := range []string{"", "/idin/v1.0", BasePath} {
		mux.HandleFunc("POST "+prefix+"/directory", s.api(s.directory))
		mux.HandleFunc("POST "+prefix+"/transaction", s.api(s.transaction))
		mux.HandleFunc("POST "+prefix+"/status", s.api(s.status))
	}
	mux.HandleFunc("GET /bank/{id}", s.bankPage)
	mux.HandleFunc("POST /bank/{id}", s.bankSubmit)
	mux.HandleFunc("POST /sandbox/outage", switches.Handler("status", 503,
		func(status int) bool { return status == 0 || (status >= 400 && status <= 599) }, s.Fail))
	return recoverPanics(mux)
}

// maxAPIBody caps an API request body; CM's requests are a few hundred bytes.
const maxAPIBody = 64 << 10

// api wraps an endpoint with what every CM call goes through: counting
// and the outage. The token is checked by each endpoint, since it travels
// in the body.
func (s *Server) api(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.calls++
		s.mu.Unlock()
		if status, on := s.outage.Get(); on && status != 0 {
			writeError(w, status, "service unavailable (sandbox outage)")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxAPIBody)
		next(w, r)
	}
}

// decode reads the JSON body into v and checks its merchant token; on
// failure it has answered and returns false.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any, token func() string) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "request body is not a JSON object of the expected shape")
		return false
	}
	s.mu.Lock()
	ok := s.tokens[token()]
	s.mu.Unlock()
	if !ok {
		// Deliberately does not echo the token back.
		writeError(w, http.StatusForbidden, "authorization required: merchant_token is missing or not valid")
		return false
	}
	return true
}

// apiError is CM's error body.
type apiError struct {
	Status  int    `json:"status"`
	Message string `json:"message"`
	Code    int    `json:"code"`
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, apiError{Status: status, Message: msg, Code: status})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the client went away; nothing to do
}

// recoverPanics turns a panic into a plain 500 so no stack trace reaches a
// browser or client; net/http would otherwise drop the connection.
func recoverPanics(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				http.Error(w, "sandbox: internal error", http.StatusInternalServerError)
			}
		}()
		h.ServeHTTP(w, r)
	})
}

// randomString returns n characters drawn from alphabet with crypto/rand,
// so ids and references cannot be guessed from one another.
func randomString(n int, alphabet string) string {
	b := make([]byte, n)
	max := big.NewInt(int64(len(alphabet)))
	for i := range b {
		k, err := rand.Int(rand.Reader, max)
		if err != nil {
			panic(err) // crypto/rand does not fail on supported platforms
		}
		b[i] = alphabet[k.Int64()]
	}
	return string(b)
}
