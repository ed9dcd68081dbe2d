package sandbox

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
)

//go:embed templates/*.html
var templateFS embed.FS

// pages are the bank's templates; parsed once, they cannot fail at run
// time except by a bug in the embedded files, which the tests catch.
var pages = template.Must(template.ParseFS(templateFS, "templates/*.html"))

// outcomes a tester can choose, in the order the page offers them.
var outcomes = []struct{ value, label, hint string }{
	{"success", "Approve: share the data (success)", "The person authenticates and consents; the data above is delivered once."},
	{"cancelled", "Cancel (cancelled)", "The person cancels at the bank."},
	{"expired", "Let it expire (expired)", "The person took too long."},
	{"failure", "Fail (failure)", "The bank could not complete the transaction."},
}

func validOutcome(v string) bool {
	for _, o := range outcomes {
		if o.value == v {
			return true
		}
	}
	return false
}

// fieldSpec is one editable attribute on the bank page; name is CM's JSON
// field name, used as the form field name too.
type fieldSpec struct {
	name, label, hint string
	typ               string // text, email, tel, or select
	inmode            string // inputmode, for a phone's keyboard
	options           []option
	get               func(*person) *string
}

// fieldSets are the attribute groups, each shown only when requested.
var fieldSets = []struct {
	legend    string
	requested func(groups) bool
	fields    []fieldSpec
}{
	{"Identity (BIN)", func(g groups) bool { return g.Identity }, []fieldSpec{
		{name: "bin", label: "Bank identification number (BIN)", typ: "text",
			hint: "A stable pseudonym for this person at this merchant. Reuse a BIN to act as the same person again.",
			get:  func(p *person) *string { return &p.BIN }},
	}},
	{"Name", func(g groups) bool { return g.Name }, []fieldSpec{
		{name: "initials", label: "Initials", typ: "text", hint: "Letters only, e.g. JP.", get: func(p *person) *string { return &p.Initials }},
		{name: "last_name_prefix", label: "Last name prefix", typ: "text", hint: "Tussenvoegsel, e.g. van den; may be empty.", get: func(p *person) *string { return &p.LastNamePrefix }},
		{name: "last_name", label: "Legal last name", typ: "text", get: func(p *person) *string { return &p.LastName }},
		{name: "preferred_last_name", label: "Preferred last name (optional)", typ: "text",
			hint: "Not in CM's documentation; sent only when filled in.", get: func(p *person) *string { return &p.PreferredLastName }},
	}},
	{"Gender", func(g groups) bool { return g.Gender }, []fieldSpec{
		{name: "gender", label: "Gender", typ: "select", options: genderOptions, get: func(p *person) *string { return &p.Gender }},
	}},
	{"Date of birth", func(g groups) bool { return g.DateOfBirth }, []fieldSpec{
		{name: "date_of_birth", label: "Date of birth", typ: "text", inmode: "numeric",
			hint: "YYYY-MM-DD. For a partly unknown date write 00 (1970-00-00) or leave parts off (1970).",
			get:  func(p *person) *string { return &p.DateOfBirth }},
	}},
	{"Age (18+)", func(g groups) bool { return g.Over18 }, []fieldSpec{
		{name: "18y_or_older", label: "18 years or older", typ: "select", options: over18Options, get: func(p *person) *string { return &p.Over18 }},
	}},
	{"Address", func(g groups) bool { return g.Address }, []fieldSpec{
		{name: "street", label: "Street", typ: "text", get: func(p *person) *string { return &p.Street }},
		{name: "house_number", label: "House number", typ: "text", inmode: "numeric", get: func(p *person) *string { return &p.HouseNumber }},
		{name: "house_number_suffix", label: "House number suffix", typ: "text", hint: "May be empty.", get: func(p *person) *string { return &p.HouseNumberSuffix }},
		{name: "postal_code", label: "Postal code", typ: "text", get: func(p *person) *string { return &p.PostalCode }},
		{name: "city", label: "City", typ: "text", get: func(p *person) *string { return &p.City }},
		{name: "country", label: "Country code", typ: "text", hint: "ISO 3166 two letters, e.g. NL.", get: func(p *person) *string { return &p.Country }},
	}},
	{"Email address", func(g groups) bool { return g.Email }, []fieldSpec{
		{name: "email_address", label: "Email address", typ: "email", get: func(p *person) *string { return &p.Email }},
	}},
	{"Telephone number", func(g groups) bool { return g.Telephone }, []fieldSpec{
		{name: "telephone_number", label: "Telephone number", typ: "tel", hint: "E.164, e.g. +31612345678.", get: func(p *person) *string { return &p.Telephone }},
	}},
}

// Template data.
type (
	pageData struct {
		Title      string
		Banner     string // the issuer's name
		TxID       string
		Merchant   string // host of the return URL
		Language   string
		Requested  []string
		Fieldsets  []fieldset
		Outcomes   []outcomeButton
		Errors     []string
		Message    string
		Detail     string
		ReturnLink string
	}
	fieldset struct {
		Legend string
		Fields []field
	}
	field struct {
		Name, ID, Label, Hint, Type, Value, Error string
		InputMode                                 string
		Options                                   []option
	}
	option struct {
		Value, Label string
		Selected     bool
	}
	outcomeButton struct{ Value, Label, Hint string }
)

// form builds the page data for an open transaction, showing values and
// the problems found with them (by field name).
func form(tx transaction, values person, problems map[string]string) pageData {
	d := pageData{
		Title:    "Sandbox bank: confirm your identity",
		Banner:   issuerName(tx.issuerID),
		TxID:     tx.id,
		Merchant: hostOf(tx.returnURL),
		Language: tx.language,
	}
	for _, fs := range fieldSets {
		if !fs.requested(tx.groups) {
			continue
		}
		d.Requested = append(d.Requested, fs.legend)
		set := fieldset{Legend: fs.legend}
		for _, f := range fs.fields {
			v := *f.get(&values)
			fd := field{Name: f.name, ID: "f-" + f.name, Label: f.label, Hint: f.hint, Type: f.typ, Value: v,
				InputMode: f.inmode, Error: problems[f.name]}
			for _, o := range f.options {
				fd.Options = append(fd.Options, option{Value: o.Value, Label: o.Label, Selected: o.Value == v})
			}
			if fd.Error != "" {
				d.Errors = append(d.Errors, f.label+": "+fd.Error)
			}
			set.Fields = append(set.Fields, fd)
		}
		d.Fieldsets = append(d.Fieldsets, set)
	}
	for _, o := range outcomes {
		d.Outcomes = append(d.Outcomes, outcomeButton{o.value, o.label, o.hint})
	}
	return d
}

// lookup returns a copy of the transaction with the given id, so pages
// render without holding the lock.
func (s *Server) lookup(id string) (transaction, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tx := s.txs[id]
	if tx == nil {
		return transaction{}, false
	}
	return *tx, true
}

func (s *Server) bankPage(w http.ResponseWriter, r *http.Request) {
	tx, ok := s.lookup(r.PathValue("id"))
	switch {
	case !ok:
		unknown(w, r.PathValue("id"))
	case tx.status != "open":
		finished(w, tx)
	default:
		render(w, http.StatusOK, "bank", form(tx, tx.prefill, nil))
	}
}

// maxFormBody caps the bank form; a filled-in form is well under 4 KB.
const maxFormBody = 64 << 10

func (s *Server) bankSubmit(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBody)
	if err := r.ParseForm(); err != nil {
		message(w, http.StatusBadRequest, "The form could not be read", "Submit the form from the sandbox bank page.", "")
		return
	}
	outcome := r.PostForm.Get("outcome")

	s.mu.Lock()
	tx := s.txs[id]
	if tx == nil {
		s.mu.Unlock()
		unknown(w, id)
		return
	}
	if tx.status != "open" {
		done := *tx
		s.mu.Unlock()
		finished(w, done)
		return
	}
	if !validOutcome(outcome) {
		open := *tx
		s.mu.Unlock()
		d := form(open, open.prefill, nil)
		d.Errors = []string{"Choose one of the outcome buttons."}
		render(w, http.StatusBadRequest, "bank", d)
		return
	}
	if outcome == "success" {
		// A field left out keeps its prefilled value; one sent empty is
		// delivered empty, to test missing data.
		p := tx.prefill
		for _, fs := range fieldSets {
			for _, f := range fs.fields {
				if v, sent := r.PostForm[f.name]; sent && len(v) > 0 {
					*f.get(&p) = strings.TrimSpace(v[0])
				}
			}
		}
		if problems := p.check(); len(problems) > 0 {
			open := *tx
			s.mu.Unlock()
			render(w, http.StatusUnprocessableEntity, "bank", form(open, p, problems))
			return
		}
		tx.person = p
	}
	tx.status = outcome
	target := returnTo(tx.returnURL, tx.id, tx.ec)
	s.mu.Unlock()
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// returnTo is the merchant's return URL with trxid and ec appended, as the
// bank does at the end of the flow; the merchant's own query is kept as is.
func returnTo(returnURL, id, ec string) string {
	u, err := url.Parse(returnURL)
	if err != nil { // validated when the transaction was created
		return returnURL
	}
	extra := "trxid=" + url.QueryEscape(id) + "&ec=" + url.QueryEscape(ec)
	if u.RawQuery == "" {
		u.RawQuery = extra
	} else {
		u.RawQuery += "&" + extra
	}
	return u.String()
}

func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Host
	}
	return ""
}

func unknown(w http.ResponseWriter, id string) {
	message(w, http.StatusNotFound, "Unknown transaction",
		fmt.Sprintf("The sandbox bank has no transaction %q. Start a new one from the merchant: transactions live in memory for 24 hours and are gone when the sandbox restarts.", id), "")
}

func finished(w http.ResponseWriter, tx transaction) {
	message(w, http.StatusConflict, "This transaction is already completed",
		fmt.Sprintf("Transaction %s was completed with outcome %q. A transaction can be completed only once; start a new one from the merchant.", tx.id, tx.status),
		returnTo(tx.returnURL, tx.id, tx.ec))
}

func message(w http.ResponseWriter, status int, title, detail, returnLink string) {
	render(w, status, "message", pageData{Title: title, Message: title, Detail: detail, ReturnLink: returnLink})
}

// render executes a page into a buffer first, so a template error becomes
// a clean 500 rather than half a page.
func render(w http.ResponseWriter, status int, name string, d pageData) {
	var b bytes.Buffer
	if err := pages.ExecuteTemplate(&b, name, d); err != nil {
		http.Error(w, "sandbox: cannot render page", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	// No scripts, no external resources. form-action is left open on
	// purpose: the bank's answer redirects to the merchant's origin.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes()) // the browser went away; nothing to do
}
