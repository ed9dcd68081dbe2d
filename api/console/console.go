// Package console serves the tenant's staff their console under
// /console/ on the tenant's own host: sign-in with a password and a
// second factor, invitations, sessions (docs/CONSOLE.md). Pages are
// server-rendered, in English and Dutch, usable without JavaScript, and
// load nothing but their own stylesheet (a strict Content-Security-Policy,
// no inline script or style).
package console

import (
	"context"
	"crypto/cipher"
	"crypto/hmac"
	"embed"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/documents"
	"github.com/kycflow/kycflow/sealing"
	"github.com/kycflow/kycflow/signin"
	"github.com/kycflow/kycflow/store"
)

//go:embed templates/*.html
var files embed.FS

//go:embed assets/console.css
var stylesheet []byte

var pages = map[string]*template.Template{}

func init() {
	for _, p := range []string{"signin", "invite", "home", "message", "reviews", "review", "facereview", "case", "image", "support", "deliveries", "staff"} {
		pages[p] = template.Must(template.New(p).Funcs(funcs).Option("missingkey=error").ParseFS(files, "templates/layout.html", "templates/"+p+".html"))
	}
}

// Cookies: the session's, and before a session the one a form's CSRF
// token is checked against. __Host-: set by this host only, Secure, for
// every path.
const (
	sessionCookie = "__Host-kycflow-console"
	formCookie    = "__Host-kycflow-form"
)

// Reviewer sends a review to the workflow of the check awaiting it, as
// the staff member signed in (the one path decisions take, API and console
// alike: the workflow keeps four eyes, by who authenticated each review),
// and audits it; a review the workflow rejects is a check.ReviewProblems.
type Reviewer interface {
	Review(ctx context.Context, by store.Principal, checkID uuid.UUID, req check.ReviewRequest) (check.ReviewOutcome, error)
}

// Config is what the console is built from.
type Config struct {
	Store *store.Store
	Log   *slog.Logger
	// Key (STAFF_KEY, 32 bytes as hex or base64) seals staff members'
	// second-factor secrets; empty: the console answers 503 on every page.
	Key string
	// Reviews records decisions; nil: deciding answers 503.
	Reviews Reviewer
	// Images open idscan photos; nil: they cannot be shown.
	Images *documents.Keys
	// Invitations mails invitation links; nil: the admin passes the link
	// on.
	Invitations Inviter
	// PublicURL gives links their scheme and port (the host is the
	// tenant's).
	PublicURL *url.URL
}

// Handler serves /console/.
type Handler struct {
	store *store.Store
	log   *slog.Logger
	cfg   Config
	// seal seals second-factor secrets at rest; key keys the hashes of
	// tokens and passwords, and derives an invitation's secret before it
	// is accepted (both STAFF_KEY).
	seal cipher.AEAD
	key  *signin.Key
	mux  *http.ServeMux
}

// New returns the console's handler.
func New(cfg Config) (*Handler, error) {
	h := &Handler{store: cfg.Store, log: cfg.Log, cfg: cfg, mux: http.NewServeMux()}
	if key := cfg.Key; key != "" {
		raw, err := sealing.Decode(key)
		if err != nil {
			return nil, err
		}
		aead, err := sealing.NewGCM(key)
		if err != nil {
			return nil, err
		}
		if h.key, err = signin.NewKey(raw); err != nil {
			return nil, err
		}
		h.seal = aead
	}
	h.mux.HandleFunc("GET /console", h.authed(h.home))
	h.mux.HandleFunc("GET /console/reviews", h.authed(h.reviews))
	h.mux.HandleFunc("GET /console/find", h.authed(h.find))
	h.mux.HandleFunc("GET /console/reviews/{id}", h.authed(h.reviewPage))
	h.mux.HandleFunc("POST /console/reviews/{id}/assign", h.authed(h.assign))
	h.mux.HandleFunc("POST /console/reviews/{id}/decide", h.authed(h.decide))
	h.mux.HandleFunc("GET /console/customers/{id}", h.authed(h.casePage(check.Customer)))
	h.mux.HandleFunc("GET /console/businesses/{id}", h.authed(h.casePage(check.Business)))
	h.mux.HandleFunc("POST /console/customers/{id}/checks", h.authed(h.queue(check.Customer)))
	h.mux.HandleFunc("POST /console/businesses/{id}/checks", h.authed(h.queue(check.Business)))
	h.mux.HandleFunc("GET /console/checks/{id}/images/{n}", h.authed(h.imagePage))
	h.mux.HandleFunc("GET /console/checks/{id}/images/{n}/photo", h.authed(h.photo))
	h.mux.HandleFunc("GET /console/checks/{id}/selfies/{a}/{n}/photo", h.authed(h.selfieFrame))
	h.mux.HandleFunc("POST /console/checks/retry", h.authed(h.retry))
	h.mux.HandleFunc("GET /console/support", h.authed(h.support))
	h.mux.HandleFunc("GET /console/support/webhooks/{id}", h.authed(h.deliveries))
	h.mux.HandleFunc("POST /console/support/webhooks/{id}/redeliver", h.authed(h.redeliver))
	h.mux.HandleFunc("GET /console/staff", h.authed(h.staffPage))
	h.mux.HandleFunc("POST /console/staff", h.authed(h.staffInvite))
	h.mux.HandleFunc("POST /console/staff/{id}", h.authed(h.staffChange))
	h.mux.HandleFunc("GET /console/sign-in", h.signInPage)
	h.mux.HandleFunc("POST /console/sign-in", h.signIn)
	h.mux.HandleFunc("POST /console/sign-out", h.authed(h.signOut))
	h.mux.HandleFunc("GET /console/invite/{token}", h.invitePage)
	h.mux.HandleFunc("POST /console/invite/{token}", h.acceptInvite)
	return h, nil
}

// stylesheetPath is the console's one asset, served before any tenant or
// session is looked up: it is the same for everyone, and every page loads
// it.
const stylesheetPath = "/console/assets/console.css"

func serveStylesheet(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Write(stylesheet)
}

// headers: the console's pages load their own stylesheet and images
// drawn inline (the QR code), nothing else; never framed, never cached,
// no referrer beyond the host.
func headers(w http.ResponseWriter) {
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "same-origin")
	w.Header().Set("Cache-Control", "no-store")
}

// request is what every handler knows of a request: its tenant (from the
// host), its language, and the signed-in session if any.
type request struct {
	tenant  uuid.UUID
	lang    string
	session *store.Session
	token   []byte // the session cookie's hash
}

type ctxKey struct{}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	headers(w)
	if r.Method == http.MethodGet && r.URL.Path == stylesheetPath {
		serveStylesheet(w)
		return
	}
	lang := language(r)
	if h.seal == nil {
		h.message(w, http.StatusServiceUnavailable, lang, texts[lang].OffTitle, texts[lang].OffBody)
		return
	}
	tenant, err := h.store.TenantByHost(r.Context(), store.NormalizeHost(r.Host))
	if err != nil {
		if !errors.Is(err, store.ErrUnknownTenant) {
			h.log.Error("console: tenant by host", "error", err)
		}
		h.message(w, http.StatusNotFound, lang, texts[lang].UnknownTitle, texts[lang].UnknownBody)
		return
	}
	// A form from another site (cross-site request forgery) is refused
	// before anything else: browsers send Origin with every POST.
	if r.Method == http.MethodPost && !sameOrigin(r, h.scheme()) {
		h.message(w, http.StatusForbidden, lang, texts[lang].ForeignTitle, texts[lang].ForeignBody)
		return
	}
	rq := &request{tenant: tenant, lang: lang}
	if c, err := r.Cookie(sessionCookie); err == nil && c.Value != "" {
		rq.token = h.key.HashToken(c.Value)
		ses, err := h.store.SessionByToken(r.Context(), tenant, rq.token)
		switch {
		case err == nil:
			rq.session = &ses
		case !errors.Is(err, store.ErrNotFound):
			h.fail(w, rq, err)
			return
		}
	}
	h.mux.ServeHTTP(w, r.WithContext(withRequest(r.Context(), rq)))
}

// sameOrigin reports whether a POST comes from a page of the origin it is
// sent to — the console's scheme and the request's host: its Origin (a
// scheme and a host, nothing else), or without one its Referer (a page's
// address at that origin, without credentials).
func sameOrigin(r *http.Request, scheme string) bool {
	from, origin := r.Header.Get("Origin"), true
	if from == "" || from == "null" {
		from, origin = r.Header.Get("Referer"), false
	}
	u, err := url.Parse(from)
	if err != nil || from == "" || u.User != nil || u.Opaque != "" || !strings.EqualFold(u.Scheme, scheme) || !strings.EqualFold(u.Host, r.Host) {
		return false
	}
	return !origin || u.Path == "" && u.RawQuery == "" && u.Fragment == ""
}

// scheme is the scheme the console's pages are reached at: PUBLIC_URL's,
// else https.
func (h *Handler) scheme() string {
	if h.cfg.PublicURL != nil && h.cfg.PublicURL.Scheme != "" {
		return h.cfg.PublicURL.Scheme
	}
	return "https"
}

// authed serves signed-in staff only; others go to the sign-in page. A
// POST must carry the session's CSRF token.
func (h *Handler) authed(next func(http.ResponseWriter, *http.Request, *request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rq := fromContext(r.Context())
		if rq.session == nil {
			if r.Method != http.MethodGet {
				h.message(w, http.StatusUnauthorized, rq.lang, texts[rq.lang].SignedOutTitle, texts[rq.lang].SignedOutBody)
				return
			}
			http.Redirect(w, r, "/console/sign-in", http.StatusSeeOther)
			return
		}
		if r.Method == http.MethodPost && !hmac.Equal([]byte(r.PostFormValue("csrf")), []byte(rq.session.CSRF)) {
			h.message(w, http.StatusForbidden, rq.lang, texts[rq.lang].ForeignTitle, texts[rq.lang].ForeignBody)
			return
		}
		next(w, r, rq)
	}
}

// fail answers an error the person cannot act on, logged with no detail
// of the request beyond its path.
func (h *Handler) fail(w http.ResponseWriter, rq *request, err error) {
	h.log.Error("console", "error", err)
	lang := "en"
	if rq != nil {
		lang = rq.lang
	}
	h.message(w, http.StatusInternalServerError, lang, texts[lang].ErrorTitle, texts[lang].ErrorBody)
}

// view is what a page template is given.
type view struct {
	Lang   string
	T      text
	Title  string
	Body   string
	Errors []string
	CSRF   string
	Email  string
	Role   string
	Form   map[string]string
	// The invitation's second factor: its secret as typed, its QR code.
	Secret, QR template.URL
	Path       string
	// The review inbox: its rows, the tenant's review window, the next
	// page.
	Inbox  []inboxRow
	Window string
	Next   string
	// W: the words of the pages built on the inbox (words.go); Data: the
	// page's own.
	W    map[string]string
	Data any
}

func (h *Handler) render(w http.ResponseWriter, status int, page string, v view) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if err := pages[page].ExecuteTemplate(w, "layout", v); err != nil {
		h.log.Error("console: render", "page", page, "error", err)
	}
}

func (h *Handler) message(w http.ResponseWriter, status int, lang, title, body string) {
	h.render(w, status, "message", view{Lang: lang, T: texts[lang], Title: title, Body: body})
}

// setCookie sets a __Host- cookie: Secure, HttpOnly, SameSite=Strict, the
// whole host; maxAge 0 for the browser's session, < 0 to delete it.
func setCookie(w http.ResponseWriter, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/", MaxAge: maxAge, Secure: true, HttpOnly: true, SameSite: http.SameSiteStrictMode})
}
