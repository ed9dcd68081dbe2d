package sink_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kycflow/kycflow/providers/mail/sink"
)

func get(t *testing.T, h http.Handler, path string) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	res := rec.Result()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}

const hostileHTML = `<p onclick="steal()">Hi &amp; "bye"</p><script>alert(1)</script>` +
	`<a href="https://app.example/verify/tok?a=1&amp;b=2">Verify</a><a href='javascript:alert(2)'>x</a>`

func hostileMessage() string {
	return crlf(`From: a@example.com
To: b@example.com
Subject: <script>alert("subject")</script> Acme & Co
Content-Type: multipart/alternative; boundary=b

--b
Content-Type: text/plain

Text </pre><script>alert(3)</script>
--b
Content-Type: text/html

` + hostileHTML + `
--b--
`)
}

func TestHTTPPages(t *testing.T) {
	s := start(t)
	send(t, s, "a@example.com", []string{"b@example.com"}, simple("Plain hello"))
	raw := hostileMessage()
	send(t, s, "a@example.com", []string{"jan@example.nl"}, raw)
	h := s.Handler()

	t.Run("index", func(t *testing.T) {
		res, body := get(t, h, "/")
		if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("GET /: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
		}
		for _, want := range []string{
			`Plain hello`, `href="1"`, `href="2"`, `jan@example.nl`,
			`&lt;script&gt;alert(&#34;subject&#34;)&lt;/script&gt; Acme &amp; Co`,
		} {
			if !strings.Contains(body, want) {
				t.Errorf("index lacks %q", want)
			}
		}
		if strings.Contains(body, "<script>") {
			t.Error("index contains an unescaped <script>")
		}
		// Newest first.
		if strings.Index(body, `href="2"`) > strings.Index(body, `href="1"`) {
			t.Error("index is not newest first")
		}
		if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("CSP = %q", csp)
		}
	})

	t.Run("message", func(t *testing.T) {
		res, body := get(t, h, "/2")
		if res.StatusCode != 200 {
			t.Fatalf("GET /2: %d", res.StatusCode)
		}
		if strings.Contains(body, "<script>") || strings.Contains(body, `onclick="steal()"`) {
			t.Errorf("message page contains live markup from the mail:\n%s", body)
		}
		for _, want := range []string{
			// The HTML part only inside a sandboxed srcdoc, escaped.
			`<iframe sandbox="" srcdoc="&lt;p onclick=&#34;steal()&#34;&gt;Hi &amp;amp; &#34;bye&#34;&lt;/p&gt;&lt;script&gt;`,
			// The text part in a <pre>, escaped.
			`<pre>Text &lt;/pre&gt;&lt;script&gt;alert(3)&lt;/script&gt;</pre>`,
			// Links listed, entity-decoded once and re-escaped; javascript: neutralised.
			`<a href="https://app.example/verify/tok?a=1&amp;b=2" target="_blank" rel="noopener noreferrer">https://app.example/verify/tok?a=1&amp;b=2</a>`,
			`href="#ZgotmplZ"`,
			// Headers, and the way back and to the raw message.
			`<td>Subject</td><td>&lt;script&gt;`, `href="./"`, `href="2/raw"`,
		} {
			if !strings.Contains(body, want) {
				t.Errorf("message page lacks %q", want)
			}
		}
	})

	t.Run("raw", func(t *testing.T) {
		res, body := get(t, h, "/2/raw")
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Fatalf("GET /2/raw: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
		}
		if body != raw {
			t.Errorf("raw = %q, want %q", body, raw)
		}
		if res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Error("raw lacks nosniff: a browser could render it as HTML")
		}
	})

	t.Run("json", func(t *testing.T) {
		res, body := get(t, h, "/messages.json")
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("GET /messages.json: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
		}
		var msgs []sink.Message
		if err := json.Unmarshal([]byte(body), &msgs); err != nil {
			t.Fatal(err)
		}
		if len(msgs) != 2 || msgs[0].ID != 2 || msgs[1].Subject != "Plain hello" ||
			msgs[0].HTML != hostileHTML || msgs[0].To[0] != "jan@example.nl" || msgs[0].Received.IsZero() {
			t.Errorf("JSON = %+v", msgs)
		}
		if strings.Contains(body, `"Raw"`) {
			t.Error("JSON carries Raw; it is served by /{id}/raw")
		}
	})

	t.Run("not found", func(t *testing.T) {
		for _, path := range []string{"/3", "/abc", "/3/raw", "/0", "/1/nope"} {
			if res, _ := get(t, h, path); res.StatusCode != 404 {
				t.Errorf("GET %s: %d, want 404", path, res.StatusCode)
			}
		}
	})

	t.Run("under a prefix", func(t *testing.T) {
		mux := http.NewServeMux()
		mux.Handle("/mail/", http.StripPrefix("/mail", h))
		if res, body := get(t, mux, "/mail/"); res.StatusCode != 200 || !strings.Contains(body, "Plain hello") {
			t.Errorf("GET /mail/: %d", res.StatusCode)
		}
		if res, body := get(t, mux, "/mail/2/raw"); res.StatusCode != 200 || body != raw {
			t.Errorf("GET /mail/2/raw: %d", res.StatusCode)
		}
	})
}

func TestHTTPEmpty(t *testing.T) {
	s := start(t)
	res, body := get(t, s.Handler(), "/")
	if res.StatusCode != 200 || !strings.Contains(body, "No mail caught yet") || !strings.Contains(body, s.Addr()) {
		t.Errorf("GET / on an empty sink: %d\n%s", res.StatusCode, body)
	}
	_, body = get(t, s.Handler(), "/messages.json")
	if strings.TrimSpace(body) != "[]" {
		t.Errorf("empty JSON = %q, want []", body)
	}
}
