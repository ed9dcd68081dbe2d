package sink

import (
	"bytes"
	"embed"
	"encoding/json"
	"html"
	"html/template"
	"net/http"
	"net/mail"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

//go:embed templates/*.html
var templateFS embed.FS

// pages are the web UI's templates; parsed once, they cannot fail at run
// time except by a bug in the embedded files, which the tests catch.
var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"time": func(m Message) string { return m.Received.Format("2006-01-02 15:04:05") },
}).ParseFS(templateFS, "templates/*.html"))

// Handler returns the developer web UI:
//
//	GET /               the messages, newest first (time, to, subject, link)
//	GET /{id}           one message: headers, text part, HTML part in a sandboxed iframe
//	GET /{id}/raw       the message as received, as text/plain
//	GET /messages.json  the messages as JSON (without Raw), newest first
//
// Its links are relative, so it works mounted under a prefix with
// http.StripPrefix, provided the index is reached with a trailing slash.
// It has no authentication and shows every caught link, tokens included:
// serve it on loopback only.
func (s *Sink) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.serveIndex)
	mux.HandleFunc("GET /messages.json", s.serveJSON)
	mux.HandleFunc("GET /{id}", s.serveMessage)
	mux.HandleFunc("GET /{id}/raw", s.serveRaw)
	return securityHeaders(mux)
}

// securityHeaders keeps caught mail inert: the HTML part is shown in an
// iframe with srcdoc, which inherits this policy, so it can load no remote
// images (no tracking pixels), run no scripts and submit no forms.
func securityHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy",
			"default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-src 'self'; frame-ancestors 'self'; base-uri 'none'; form-action 'none'")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		w.Header().Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}

func (s *Sink) serveIndex(w http.ResponseWriter, _ *http.Request) {
	render(w, "index.html", struct {
		Title    string
		Refresh  bool
		Addr     string
		Messages []Message
	}{"Messages", true, s.Addr(), s.Messages()})
}

func (s *Sink) serveJSON(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(s.Messages()) // the client went away; nothing to do
}

// header is one header field.
type header struct{ Name, Value string }

func (s *Sink) serveMessage(w http.ResponseWriter, r *http.Request) {
	m, ok := s.lookup(w, r)
	if !ok {
		return
	}
	title := m.Subject
	if title == "" {
		title = "(no subject)"
	}
	render(w, "message.html", struct {
		Title   string
		Refresh bool
		Message Message
		Headers []header
		Links   []string
	}{title, false, m, headers(m.Raw), links(m.HTML)})
}

func (s *Sink) serveRaw(w http.ResponseWriter, r *http.Request) {
	m, ok := s.lookup(w, r)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write(m.Raw)
}

// lookup finds the message named by the {id} path value, or answers 404.
func (s *Sink) lookup(w http.ResponseWriter, r *http.Request) (Message, bool) {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil {
		http.NotFound(w, r)
		return Message{}, false
	}
	m, ok := s.Message(id)
	if !ok {
		http.Error(w, "no such message (it may have been dropped: the sink keeps the newest "+
			strconv.Itoa(s.opts.capacity)+")", http.StatusNotFound)
	}
	return m, ok
}

// headers lists the top-level header fields of raw, RFC 2047 words
// decoded, sorted by name so related fields are easy to find.
func headers(raw []byte) []header {
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return nil
	}
	var out []header
	for name, values := range msg.Header {
		for _, v := range values {
			out = append(out, header{name, decodeHeader(v)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// hrefPattern finds link targets in an HTML part. A regular expression is
// enough for listing links to a developer; html/template sanitizes what it
// finds (javascript: URLs become "#ZgotmplZ") before it is shown.
var hrefPattern = regexp.MustCompile(`(?i)<a\s[^>]*?href\s*=\s*(?:"([^"]*)"|'([^']*)')`)

// links lists the distinct link targets of an HTML part in order, so they
// can be followed even though the sandboxed iframe blocks navigation.
func links(htmlPart string) []string {
	var out []string
	seen := map[string]bool{}
	for _, sub := range hrefPattern.FindAllStringSubmatch(htmlPart, -1) {
		u := html.UnescapeString(strings.TrimSpace(sub[1] + sub[2]))
		if u != "" && !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	return out
}

// render executes a page into a buffer first, so a template error becomes
// a clean 500 instead of half a page.
func render(w http.ResponseWriter, name string, data any) {
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, name, data); err != nil {
		http.Error(w, "sink: render "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = buf.WriteTo(w)
}
