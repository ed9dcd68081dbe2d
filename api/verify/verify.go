// Package verify serves the pages a person opens from a verification link,
// {PUBLIC_URL}/verify/{token}, and their JSON twin for app integrations.
// The token is the only credential: no tenant key is involved or shown.
// Pages are server-rendered, in English and Dutch, and work without
// JavaScript on a phone.
package verify

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/kycflow/kycflow/api/lang"
	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/documents"
	"github.com/kycflow/kycflow/engines/eu"
	"github.com/kycflow/kycflow/engines/face"
	"github.com/kycflow/kycflow/engines/mrz"
	"github.com/kycflow/kycflow/providers/idin"
	"github.com/kycflow/kycflow/store"
)

//go:embed templates/*.html
var files embed.FS

// pages are the page templates: a link check type's own page, and "message".
var pages = map[string]*template.Template{
	string(check.IDScan): template.Must(template.ParseFS(files, "templates/layout.html", "templates/idscan.html")),
	"selfie":             template.Must(template.ParseFS(files, "templates/layout.html", "templates/selfie.html")),
	"message":            template.Must(template.ParseFS(files, "templates/layout.html", "templates/message.html")),
	string(check.IDIN):   template.Must(template.ParseFS(files, "templates/layout.html", "templates/idin.html")),
}

// maxLooks is how many live-view frames are judged at once (each takes a
// core for a tenth of a second); more wait for the next tick.
const maxLooks = 2

// maxMRZ bounds a submission: an MRZ is at most 90 characters plus line
// breaks; anything much longer is not one.
const maxMRZ = 400

// Handler serves the link pages: GET/POST /verify/{token} (the page; for
// idscan the MRZ form), POST /verify/{token}/mrz (idscan for apps), POST
// /verify/{token}/idin (off to the bank) and GET /verify/{token}/return
// (back from the bank).
type Handler struct {
	Store *store.Store
	Log   *slog.Logger
	// IDIN is the iDIN broker; nil: idin links show "not available".
	IDIN idin.Broker
	// PublicURL is this service's public base URL (the bank's return URL).
	PublicURL string
	// Images seal uploaded photos; nil: photo uploads are off (503).
	Images *documents.Keys
	// Faces is the face engine the selfie's live view is guided with,
	// loaded when first asked; nil: no guidance (the person takes each
	// frame by hand).
	Faces func() (*face.Engine, error)
	mux   *http.ServeMux
	// looks bounds the guidance's frames judged at once.
	looks     chan struct{}
	facesOnce sync.Once

	issuerMu   sync.Mutex
	issuerList []idin.Issuer
	issuerAt   time.Time
}

// New returns the verification pages' handler.
func New(s *store.Store, log *slog.Logger, broker idin.Broker, publicURL string, images *documents.Keys, faces func() (*face.Engine, error)) *Handler {
	h := &Handler{Store: s, Log: log, IDIN: broker, PublicURL: strings.TrimSuffix(publicURL, "/"), Images: images, Faces: faces,
		mux: http.NewServeMux(), looks: make(chan struct{}, maxLooks)}
	h.mux.HandleFunc("GET /verify/{token}", h.page)
	h.mux.HandleFunc("POST /verify/{token}", h.submitForm)
	h.mux.HandleFunc("POST /verify/{token}/mrz", h.submitJSON)
	h.mux.HandleFunc("POST /verify/{token}/idin", h.startIDIN)
	h.mux.HandleFunc("GET /verify/{token}/return", h.idinReturn)
	h.mux.HandleFunc("POST /verify/{token}/document", h.upload)
	h.mux.HandleFunc("POST /verify/{token}/selfie", h.selfieUpload)
	h.mux.HandleFunc("POST /verify/{token}/selfie/look", h.look)
	h.mux.HandleFunc("GET /verify/{token}/status", h.status)
	h.mux.HandleFunc("GET "+captureScript, h.asset(captureJS))
	h.mux.HandleFunc("GET "+selfieScript, h.asset(selfieJS))
	return h
}

// pageHeaders: the token is in the URL, so keep it out of other sites'
// referrers and out of caches, and the page out of frames. (same-origin,
// not no-referrer: under no-referrer a browser sends "Origin: null" with the
// page's own form posts, which the origin check must refuse.)
func pageHeaders(w http.ResponseWriter) {
	w.Header().Set("Referrer-Policy", "same-origin")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	pageHeaders(w)
	// An app's upload carries neither Origin nor Referer; a browser's
	// always does, and must come from our pages. (The typed MRZ's JSON
	// cannot be sent across sites without a preflight.)
	upload := strings.HasSuffix(r.URL.Path, "/document") || strings.HasSuffix(r.URL.Path, "/selfie") || strings.HasSuffix(r.URL.Path, "/look")
	app := strings.HasSuffix(r.URL.Path, "/mrz") || upload && fromApp(r)
	if r.Method == http.MethodPost && !app && !h.sameOrigin(r) {
		// A form post from another site (cross-site request forgery, or a
		// page that copied ours): refused before the token is looked up.
		t := english
		lang := language(r, nil)
		if lang == "nl" {
			t = dutch
		}
		h.message(w, r, http.StatusForbidden, lang, "✕", t.ForeignTitle, t.ForeignBody, "")
		return
	}
	h.mux.ServeHTTP(w, r)
}

// Busy answers a client past its request budget (the API's limiter calls
// it, after setting Retry-After): a page for people, JSON for the app endpoint.
func (h *Handler) Busy(w http.ResponseWriter, r *http.Request) {
	pageHeaders(w)
	if strings.HasSuffix(r.URL.Path, "/mrz") || strings.HasSuffix(r.URL.Path, "/status") || strings.HasSuffix(r.URL.Path, "/look") ||
		(strings.HasSuffix(r.URL.Path, "/document") || strings.HasSuffix(r.URL.Path, "/selfie")) && !wantsHTML(r) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		json.NewEncoder(w).Encode(map[string]string{"message": "Too many requests."})
		return
	}
	lang := language(r, nil)
	t := english
	if lang == "nl" {
		t = dutch
	}
	h.message(w, r, http.StatusTooManyRequests, lang, "…", t.BusyTitle, t.BusyBody, "")
}

// fromApp: a request with neither Origin nor Referer, which no browser
// sends with a POST.
func fromApp(r *http.Request) bool {
	return r.Header.Get("Origin") == "" && r.Header.Get("Referer") == ""
}

// sameOrigin reports whether a form post comes from a page of PublicURL's
// origin: its Origin header, or without one its Referer. Neither: refused
// (browsers send Origin with every POST).
func (h *Handler) sameOrigin(r *http.Request) bool {
	want, err := url.Parse(h.PublicURL)
	if err != nil {
		return false
	}
	from := r.Header.Get("Origin")
	if from == "" || from == "null" {
		from = r.Header.Get("Referer")
	}
	got, err := url.Parse(from)
	if err != nil || from == "" {
		return false
	}
	return strings.EqualFold(got.Scheme, want.Scheme) && canonicalHost(got) == canonicalHost(want)
}

// canonicalHost is host:port in lower case with the scheme's default port
// made explicit, so https://a.example and https://a.example:443 compare equal.
func canonicalHost(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Hostname()) + ":" + port
}

// view is what the templates render.
type view struct {
	Lang, Title string
	T           texts
	Langs       []langLink
	// idscan: the photo's state and upload form, the typed form
	Intro, Action, MRZ string
	Errors             []string
	Photo              photoStatus
	UploadAction       string
	StatusURL          string // GET /verify/{token}/status, which the page follows
	UploadError        string
	Typed, TypedOpen   bool
	AttemptText        string
	Refresh            bool          // reload while the photo is read
	QR                 template.HTML // the link as a QR code (SVG), for a desktop
	Scripts            []string      // the page's scripts' URLs
	SelfieNext         bool          // a selfie follows the document: a card's front is asked too
	FollowKey          string        // the status as the page's script compares it (followKey)
	// the selfie: consent, the frames to take, where to send them
	Selfie                                *selfieStatus
	SelfieWhat, SelfieKept, SelfieConsent string
	SelfieSteps                           []selfieStep
	SelfieAction, LookURL                 string
	// message pages
	Icon, Heading, Body string
	// idin bank choice
	IssuerGroups []issuerGroup
}

type langLink struct{ Code, Name, URL string }

// language picks the page language: ?lang=, else the browser's preference
// between English and Dutch, else Dutch for Dutch customers.
func language(r *http.Request, customer *store.Customer) string {
	if l := lang.Of(r); l != "" {
		return l
	}
	if customer != nil && customer.CountryID == eu.NetherlandsNumeric {
		return "nl"
	}
	return "en"
}

func (h *Handler) newView(r *http.Request, lang string) view {
	t := english
	if lang == "nl" {
		t = dutch
	}
	v := view{Lang: lang, T: t}
	for _, l := range []langLink{{"en", "English", ""}, {"nl", "Nederlands", ""}} {
		u := *r.URL
		u.RawQuery = url.Values{"lang": {l.Code}}.Encode()
		l.URL = u.String()
		v.Langs = append(v.Langs, l)
	}
	return v
}

func (h *Handler) render(w http.ResponseWriter, status int, page string, v view) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if err := pages[page].ExecuteTemplate(w, "layout", v); err != nil {
		h.Log.Error("render verification page", "page", page, "error", err)
	}
}

// message renders a one-message page (done, used, expired, ...).
func (h *Handler) message(w http.ResponseWriter, r *http.Request, status int, lang, icon, title, body, tenant string) {
	v := h.newView(r, lang)
	v.Title, v.Icon, v.Heading, v.Body = title, icon, title, sprintf(body, tenant)
	h.render(w, status, "message", v)
}

// closed renders the page for a link that can no longer be used.
func (h *Handler) closed(w http.ResponseWriter, r *http.Request, lang string, st store.LinkState, tenant string) {
	t := english
	if lang == "nl" {
		t = dutch
	}
	switch st {
	case store.LinkUsed:
		h.message(w, r, http.StatusGone, lang, "✓", t.UsedTitle, t.UsedBody, tenant)
	case store.LinkExpired:
		h.message(w, r, http.StatusGone, lang, "⌛", t.ExpiredTitle, t.ExpiredBody, tenant)
	default:
		h.message(w, r, http.StatusGone, lang, "✕", t.RevokedTitle, t.RevokedBody, tenant)
	}
}

// lookup finds the link; it renders the unknown-link page when there is none.
func (h *Handler) lookup(w http.ResponseWriter, r *http.Request) (store.LinkView, bool) {
	v, err := h.Store.LinkByToken(r.Context(), r.PathValue("token"))
	if err == nil {
		return v, true
	}
	lang := language(r, nil)
	if errors.Is(err, store.ErrNotFound) {
		t := english
		if lang == "nl" {
			t = dutch
		}
		h.message(w, r, http.StatusNotFound, lang, "?", t.UnknownTitle, t.UnknownBody, "")
	} else {
		h.Log.Error("verification link lookup", "error", err)
		http.Error(w, "Service temporarily unavailable; please try again in a minute.", http.StatusServiceUnavailable)
	}
	return v, false
}

func (h *Handler) page(w http.ResponseWriter, r *http.Request) {
	lv, ok := h.lookup(w, r)
	if !ok {
		return
	}
	lang := language(r, &lv.Customer)
	if lv.Type == check.IDScan {
		h.idscanPage(w, r, http.StatusOK, lang, lv, func(*view) {}) // it tells closed links apart from done ones
		return
	}
	if st := lv.State(lv.Check.Status, time.Now()); st != store.LinkOpen {
		h.closed(w, r, lang, st, lv.TenantName)
		return
	}
	if lv.Type == check.IDIN {
		h.idinForm(w, r, lang, lv)
		return
	}
	h.message(w, r, http.StatusServiceUnavailable, lang, "…", english.UnavailableTitle, english.UnavailableBody, lv.TenantName)
}

// sprintf fills the tenant into a text that names it.
func sprintf(text, tenant string) string {
	if strings.Contains(text, "%s") {
		return fmt.Sprintf(text, tenant)
	}
	return text
}

// form renders the idscan page with the typed form's text and problems.
func (h *Handler) form(w http.ResponseWriter, r *http.Request, status int, lang string, lv store.LinkView, mrzText string, problems []string) {
	h.idscanPage(w, r, status, lang, lv, func(v *view) { v.MRZ, v.Errors, v.TypedOpen = mrzText, problems, true })
}

// photoForm renders the idscan page with an upload's problem.
func (h *Handler) photoForm(w http.ResponseWriter, r *http.Request, status int, lang string, lv store.LinkView, uploadErr string) {
	h.idscanPage(w, r, status, lang, lv, func(v *view) { v.UploadError = uploadErr })
}

// idscanPage renders the link's page: the photo's state (being read, a
// retake and why, done), the upload form, and the typed form when the
// tenant accepts typed MRZs.
func (h *Handler) idscanPage(w http.ResponseWriter, r *http.Request, status int, lang string, lv store.LinkView, with func(*view)) {
	v := h.newView(r, lang)
	if lv.Type != check.IDScan {
		h.message(w, r, http.StatusServiceUnavailable, lang, "…", v.T.UnavailableTitle, v.T.UnavailableBody, lv.TenantName)
		return
	}
	ps, closed, err := h.photoState(r, lv, v.T)
	switch {
	case err != nil:
		h.Log.Error("verification status", "error", err)
		http.Error(w, "Service temporarily unavailable; please try again in a minute.", http.StatusServiceUnavailable)
		return
	case closed != "":
		h.closed(w, r, lang, closed, lv.TenantName)
		return
	case ps.State == stateDone && ps.Selfie != nil && ps.Selfie.State == check.SelfieRetake:
		h.message(w, r, http.StatusOK, lang, "!", v.T.SelfieNotUsedTitle, v.T.SelfieNotUsedBody, lv.TenantName)
		return
	case ps.State == stateDone:
		h.message(w, r, http.StatusOK, lang, "✓", v.T.DoneTitle, v.T.DoneBody, lv.TenantName)
		return
	case ps.State == stateNotRead:
		h.message(w, r, http.StatusOK, lang, "!", v.T.NotReadTitle, v.T.NotReadBody, lv.TenantName)
		return
	}
	token := r.PathValue("token")
	v.StatusURL, v.FollowKey = "/verify/"+token+"/status", followKey(ps)
	v.QR = qrSVG(h.PublicURL + "/verify/" + token)
	if ps.State == stateSelfie {
		selfieView(&v, ps, lv.TenantName, token)
		v.Selfie = ps.Selfie
		with(&v)
		photoHeaders(w)
		h.render(w, status, "selfie", v)
		return
	}
	v.Title, v.Intro = v.T.IDScanTitle, sprintf(v.T.IDScanIntro, lv.TenantName)
	v.Action, v.UploadAction = "/verify/"+token+"?lang="+lang, "/verify/"+token+"/document?lang="+lang
	v.Photo, v.Typed, v.Refresh, v.SelfieNext = ps, ps.TypedAllowed, ps.State == stateReading, ps.selfieAsked
	if ps.Attempts > 0 {
		v.AttemptText = fmt.Sprintf(v.T.AttemptOf, ps.Attempts, ps.MaxAttempts)
	}
	v.Scripts = []string{captureScript}
	with(&v)
	photoHeaders(w)
	h.render(w, status, string(check.IDScan), v)
}

// typedAllowed reports whether the link's tenant accepts a typed MRZ.
func (h *Handler) typedAllowed(r *http.Request, lv store.LinkView) (bool, error) {
	st, err := h.Store.IDScanSettings(r.Context(), lv.TenantID)
	if err != nil {
		h.Log.Error("idscan settings", "error", err)
	}
	return st.Typed, err
}

// mrzProblems validates an MRZ for the person: nil when it may be submitted.
func mrzProblems(t texts, text string) []string {
	if len(text) > maxMRZ {
		return []string{t.Unreadable}
	}
	doc, err := mrz.Parse(text)
	if err != nil {
		return []string{t.Unreadable}
	}
	var out []string
	for _, e := range doc.Validate() {
		out = append(out, t.problem(e))
	}
	return out
}

func (h *Handler) submitForm(w http.ResponseWriter, r *http.Request) {
	lv, ok := h.lookup(w, r)
	if !ok {
		return
	}
	lang := language(r, &lv.Customer)
	t := h.newView(r, lang).T
	if st := lv.State(lv.Check.Status, time.Now()); st != store.LinkOpen {
		h.closed(w, r, lang, st, lv.TenantName)
		return
	}
	if lv.Type != check.IDScan {
		h.form(w, r, http.StatusServiceUnavailable, lang, lv, "", nil)
		return
	}
	if typed, err := h.typedAllowed(r, lv); err != nil || !typed {
		h.photoForm(w, r, http.StatusForbidden, lang, lv, t.TypedOff)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	text := r.PostFormValue("mrz")
	if problems := mrzProblems(t, text); problems != nil {
		h.form(w, r, http.StatusUnprocessableEntity, lang, lv, text, problems)
		return
	}
	if !h.submit(w, r, lang, lv, text) {
		return
	}
	h.message(w, r, http.StatusOK, lang, "✓", t.DoneTitle, t.DoneBody, lv.TenantName)
}

// submit stores the MRZ, sealed, and signals the workflow; false when it
// answered.
func (h *Handler) submit(w http.ResponseWriter, r *http.Request, lang string, lv store.LinkView, text string) bool {
	if h.Images == nil {
		h.Log.Warn("a typed MRZ refused: IMAGE_KEYS is not set")
		http.Error(w, "Service temporarily unavailable; please try again in a minute.", http.StatusServiceUnavailable)
		return false
	}
	raw, _ := json.Marshal(h.Images.SealMRZ(lv.Check.Ref(), text))
	err := h.Store.SubmitLink(r.Context(), r.PathValue("token"), raw)
	if err != nil {
		h.submitFailed(w, r, lang, lv, err)
	}
	return err == nil
}

// submitFailed answers a submission the store refused.
func (h *Handler) submitFailed(w http.ResponseWriter, r *http.Request, lang string, lv store.LinkView, err error) {
	var closed *store.LinkClosedError
	switch {
	case errors.As(err, &closed):
		h.closed(w, r, lang, closed.State, lv.TenantName)
	case errors.Is(err, store.ErrNotFound):
		h.lookup(w, r)
	default:
		h.Log.Error("verification submission", "error", err)
		http.Error(w, "Service temporarily unavailable; please try again in a minute.", http.StatusServiceUnavailable)
	}
}

// submitJSON is the app integration: POST {"mrz": "..."} →
// 202 {"status":"submitted"}, 422 with the problems per field, 404 for an
// unknown link, 410 {"state": "used"|"expired"|"revoked"} for a closed one.
func (h *Handler) submitJSON(w http.ResponseWriter, r *http.Request) {
	reply := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	// JSON only, declared as such: a browser cannot send this content type
	// cross-origin without a CORS preflight, which this endpoint never grants.
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		reply(http.StatusUnsupportedMediaType, map[string]string{"message": "Unsupported media type: send application/json."})
		return
	}
	lv, err := h.Store.LinkByToken(r.Context(), r.PathValue("token"))
	switch {
	case errors.Is(err, store.ErrNotFound):
		reply(http.StatusNotFound, map[string]string{"message": "Unknown verification link."})
		return
	case err != nil:
		h.Log.Error("verification link lookup", "error", err)
		reply(http.StatusServiceUnavailable, map[string]string{"message": "Service temporarily unavailable."})
		return
	}
	if st := lv.State(lv.Check.Status, time.Now()); st != store.LinkOpen {
		reply(http.StatusGone, gone(st))
		return
	}
	if lv.Type != check.IDScan {
		reply(http.StatusConflict, map[string]string{"message": "This link is not for an identity document."})
		return
	}
	if typed, err := h.typedAllowed(r, lv); err != nil || !typed {
		reply(http.StatusForbidden, map[string]string{"message": english.TypedOff})
		return
	}
	var in struct {
		MRZ *string `json:"mrz"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&in); err != nil {
		reply(http.StatusBadRequest, map[string]string{"message": "Malformed JSON body."})
		return
	}
	fieldErrs := map[string][]string{}
	switch {
	case in.MRZ == nil || strings.TrimSpace(*in.MRZ) == "":
		fieldErrs["mrz"] = []string{"The mrz field is required."}
	case len(*in.MRZ) > maxMRZ:
		fieldErrs["mrz"] = []string{english.Unreadable}
	default:
		doc, err := mrz.Parse(*in.MRZ)
		if err != nil {
			fieldErrs["mrz"] = []string{english.Unreadable}
			break
		}
		for _, e := range doc.Validate() {
			key := "mrz." + string(e.Field)
			fieldErrs[key] = append(fieldErrs[key], english.problem(e))
		}
	}
	if len(fieldErrs) > 0 {
		reply(http.StatusUnprocessableEntity, map[string]any{"message": "The MRZ does not verify.", "errors": fieldErrs})
		return
	}
	if h.Images == nil {
		h.Log.Warn("a typed MRZ refused: IMAGE_KEYS is not set")
		reply(http.StatusServiceUnavailable, map[string]string{"message": "Service temporarily unavailable."})
		return
	}
	raw, _ := json.Marshal(h.Images.SealMRZ(lv.Check.Ref(), *in.MRZ))
	err = h.Store.SubmitLink(r.Context(), r.PathValue("token"), raw)
	var closed *store.LinkClosedError
	switch {
	case err == nil:
		reply(http.StatusAccepted, map[string]string{"status": "submitted"})
	case errors.As(err, &closed):
		reply(http.StatusGone, gone(closed.State))
	default:
		h.Log.Error("verification submission", "error", err)
		reply(http.StatusServiceUnavailable, map[string]string{"message": "Service temporarily unavailable."})
	}
}
