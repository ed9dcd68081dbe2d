// Package catcher is a webhook receiver for developers: it accepts kycflow
// deliveries on any path under /hooks/, checks each signature against the
// secrets it knows, and shows what arrived on a page (like the mail
// catcher). It keeps the last few hundred events in memory. No
// authentication: serve it on loopback only.
package catcher

import (
	"bytes"
	"embed"
	"encoding/json"
	"html/template"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kycflow/kycflow/webhook"
)

// keep is how many deliveries the catcher remembers.
const keep = 500

// Received is one delivery as it arrived.
type Received struct {
	Seq       int       `json:"seq"`
	At        time.Time `json:"received_at"`
	Path      string    `json:"path"`
	EventID   string    `json:"event_id"`
	EventType string    `json:"event_type"`
	Signature string    `json:"signature"`
	Verified  bool      `json:"verified"`
	// VerifiedWith names the secret that verified it; Problem says why
	// none did.
	VerifiedWith string `json:"verified_with,omitempty"`
	Problem      string `json:"problem,omitempty"`
	// Answered is the status the catcher gave.
	Answered int    `json:"answered"`
	Body     string `json:"body"`
}

type secret struct{ label, value string }

// Catcher receives and shows webhook deliveries.
type Catcher struct {
	mu       sync.Mutex
	secrets  []secret
	received []Received // newest first
	seq      int
	// Now is the clock signatures are checked against; nil: time.Now.
	Now func() time.Time
}

// New returns an empty catcher.
func New() *Catcher { return &Catcher{} }

// AddSecret teaches the catcher a signing secret to verify with.
func (c *Catcher) AddSecret(label, value string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, s := range c.secrets {
		if s.value == value {
			c.secrets[i].label = label
			return
		}
	}
	c.secrets = append(c.secrets, secret{label, value})
}

// Received returns what arrived, newest first.
func (c *Catcher) Received() []Received {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Received(nil), c.received...)
}

//go:embed templates/*.html
var templateFS embed.FS

var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"time": func(t time.Time) string { return t.Format("2006-01-02 15:04:05.000") },
}).ParseFS(templateFS, "templates/*.html"))

// Handler serves the catcher:
//
//	POST /hooks/...         a delivery: recorded, answered 200 — or the
//	                        status NNN when the path ends in /status/NNN,
//	                        to try a receiver that fails
//	GET  /                  the page: deliveries newest first, each with
//	                        whether its signature verified
//	GET  /events.json       the same as JSON
//	POST /secrets           teach it a secret (form fields label, secret)
func (c *Catcher) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /hooks/", c.receive)
	mux.HandleFunc("GET /{$}", c.index)
	mux.HandleFunc("GET /events.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(c.Received())
	})
	mux.HandleFunc("POST /secrets", c.addSecret)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "no-store")
		mux.ServeHTTP(w, r)
	})
}

func (c *Catcher) receive(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, "unreadable body", http.StatusBadRequest)
		return
	}
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	rec := Received{At: now(), Path: r.URL.Path, EventID: r.Header.Get(webhook.HeaderEventID),
		EventType: r.Header.Get(webhook.HeaderEventType), Signature: r.Header.Get(webhook.HeaderSignature), Answered: http.StatusOK}
	if i := strings.LastIndex(r.URL.Path, "/status/"); i >= 0 {
		if n, err := strconv.Atoi(r.URL.Path[i+len("/status/"):]); err == nil && n >= 200 && n <= 599 {
			rec.Answered = n
		}
	}
	var pretty bytes.Buffer
	if json.Indent(&pretty, raw, "", "  ") == nil {
		rec.Body = pretty.String()
	} else {
		rec.Body = string(raw)
	}
	c.mu.Lock()
	rec.Problem = "no secret known: add the endpoint's secret below"
	for _, s := range c.secrets {
		err := webhook.Verify(rec.Signature, raw, s.value, rec.At)
		if err == nil {
			rec.Verified, rec.VerifiedWith, rec.Problem = true, s.label, ""
			break
		}
		rec.Problem = err.Error()
	}
	c.seq++
	rec.Seq = c.seq
	c.received = append([]Received{rec}, c.received[:min(len(c.received), keep-1)]...)
	c.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rec.Answered)
	io.WriteString(w, `{"received":true}`)
}

func (c *Catcher) index(w http.ResponseWriter, _ *http.Request) {
	c.mu.Lock()
	labels := make([]string, len(c.secrets))
	for i, s := range c.secrets {
		labels[i] = s.label
	}
	c.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	pages.ExecuteTemplate(w, "index.html", struct {
		Received []Received
		Secrets  []string
	}{c.Received(), labels})
}

func (c *Catcher) addSecret(w http.ResponseWriter, r *http.Request) {
	v := strings.TrimSpace(r.FormValue("secret"))
	if !strings.HasPrefix(v, webhook.SecretPrefix) {
		http.Error(w, "a signing secret starts with "+webhook.SecretPrefix, http.StatusUnprocessableEntity)
		return
	}
	label := strings.TrimSpace(r.FormValue("label"))
	if label == "" {
		label = v[:len(webhook.SecretPrefix)+4] + "…"
	}
	c.AddSecret(label, v)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}
