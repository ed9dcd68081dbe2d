package mail

import (
	"embed"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"net/url"
	"strings"
	texttemplate "text/template"
	"time"
	"unicode"
)

// Purpose is what the person does on the link.
type Purpose string

// Purposes for LinkMail.Purpose.
const (
	PurposeBank     Purpose = "bank"     // confirm identity with the person's bank (iDIN)
	PurposeDocument Purpose = "document" // photograph a passport or ID card (or type its MRZ)
	// PurposeConsole: set up an account in the tenant's staff console
	// (LinkMail.Role names the role; Name is not used).
	PurposeConsole Purpose = "console"
)

// Languages for LinkMail.Lang.
const (
	LangEN = "en"
	LangNL = "nl"
)

// LinkMail is one verification-link e-mail to send.
type LinkMail struct {
	To         string    // recipient address, e.g. "jan@example.nl"; required by SendLink
	Name       string    // the person's name for the greeting; may be empty
	TenantName string    // the company asking for the check; required
	Purpose    Purpose   // PurposeBank or PurposeDocument
	URL        string    // the single-use link, {PUBLIC_URL}/verify/{token}; absolute http(s)
	ExpiresAt  time.Time // when the link stops working; required
	Lang       string    // "en" or "nl"; empty or anything else means "en"
	Role       string    // PurposeConsole: the role the account gets
}

//go:embed templates/link.*.txt templates/link.*.html templates/invite.*.txt templates/invite.*.html
var templateFS embed.FS

// langTemplates holds one language's parsed templates. The text template
// also defines "subject", so all wording of a language lives in its files.
type langTemplates struct {
	text *texttemplate.Template
	html *htmltemplate.Template
}

// linkData is what the templates see.
type linkData struct {
	Name       string
	TenantName string
	Bank       bool // the link is for identification through the person's bank
	URL        string
	Expires    string // ExpiresAt in Europe/Amsterdam, worded for the language
	Role       string // a console invitation's role
}

// parseTemplates reads each purpose's templates by language, keyed
// "link.en", "invite.nl", ….
func parseTemplates() (map[string]langTemplates, error) {
	out := make(map[string]langTemplates, 4)
	for _, set := range []string{"link", "invite"} {
		for _, lang := range []string{LangEN, LangNL} {
			t, err := parseSet(set, lang)
			if err != nil {
				return nil, err
			}
			out[set+"."+lang] = t
		}
	}
	return out, nil
}

func parseSet(set, lang string) (langTemplates, error) {
	txt, err := texttemplate.ParseFS(templateFS, "templates/"+set+"."+lang+".txt")
	if err != nil {
		return langTemplates{}, fmt.Errorf("mail: parse %s %s text template: %w", set, lang, err)
	}
	if txt.Lookup("subject") == nil {
		return langTemplates{}, fmt.Errorf("mail: %s %s text template defines no subject", set, lang)
	}
	html, err := htmltemplate.ParseFS(templateFS, "templates/"+set+"."+lang+".html")
	if err != nil {
		return langTemplates{}, fmt.Errorf("mail: parse %s %s HTML template: %w", set, lang, err)
	}
	return langTemplates{text: txt, html: html}, nil
}

// Render returns the subject and both bodies SendLink would send for lm,
// without sending anything; for tests and previews. lm.To is not needed.
// An invalid lm gives a permanent *Error naming the field.
func (m *Mailer) Render(lm LinkMail) (subject, text, html string, err error) {
	lang := normalizeLang(lm.Lang)
	data, err := m.linkData(lm, lang)
	if err != nil {
		return "", "", "", err
	}
	set := "link."
	if lm.Purpose == PurposeConsole {
		set = "invite."
	}
	t := m.templates[set+lang]

	var sb, tb, hb strings.Builder
	if err := t.text.ExecuteTemplate(&sb, "subject", data); err != nil {
		return "", "", "", permanent(fmt.Errorf("render subject: %w", err))
	}
	if err := t.text.Execute(&tb, data); err != nil {
		return "", "", "", permanent(fmt.Errorf("render text: %w", err))
	}
	if err := t.html.Execute(&hb, data); err != nil {
		return "", "", "", permanent(fmt.Errorf("render HTML: %w", err))
	}
	// A header is one line, whatever the template's layout.
	subject = strings.Join(strings.Fields(sb.String()), " ")
	return subject, tb.String(), hb.String(), nil
}

// linkData validates lm and prepares it for the templates. Errors never
// quote the URL: it holds the token.
func (m *Mailer) linkData(lm LinkMail, lang string) (linkData, error) {
	var errs []error
	tenant := oneLine(lm.TenantName)
	if tenant == "" {
		errs = append(errs, errors.New("LinkMail.TenantName is required"))
	}
	if lm.Purpose != PurposeBank && lm.Purpose != PurposeDocument && lm.Purpose != PurposeConsole {
		errs = append(errs, fmt.Errorf("LinkMail.Purpose %q is not %s, %s or %s", lm.Purpose, PurposeBank, PurposeDocument, PurposeConsole))
	}
	if u, err := url.Parse(strings.TrimSpace(lm.URL)); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		errs = append(errs, errors.New("LinkMail.URL is not an absolute http(s) URL"))
	}
	if lm.ExpiresAt.IsZero() {
		errs = append(errs, errors.New("LinkMail.ExpiresAt is required"))
	}
	if err := errors.Join(errs...); err != nil {
		return linkData{}, permanent(err)
	}
	return linkData{
		Name:       oneLine(lm.Name),
		TenantName: tenant,
		Bank:       lm.Purpose == PurposeBank,
		URL:        strings.TrimSpace(lm.URL),
		Expires:    formatExpiry(lm.ExpiresAt.In(m.zone), lang),
		Role:       oneLine(lm.Role),
	}, nil
}

// normalizeLang maps "nl", "NL", "nl-BE", "nl_NL" to "nl" and everything
// else to "en": a person should get a mail in some language rather than
// none.
func normalizeLang(lang string) string {
	lang = strings.ToLower(strings.TrimSpace(lang))
	if i := strings.IndexAny(lang, "-_"); i >= 0 {
		lang = lang[:i]
	}
	if lang == LangNL {
		return LangNL
	}
	return LangEN
}

// oneLine collapses runs of white space and control characters into single
// spaces, so names from user input cannot break a header or the layout.
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}), " ")
}

var dutchMonths = [...]string{
	"januari", "februari", "maart", "april", "mei", "juni",
	"juli", "augustus", "september", "oktober", "november", "december",
}

// formatExpiry words t (already in Europe/Amsterdam) with its zone, as the
// abbreviation (CET/CEST) and the UTC offset, since readers may be abroad.
func formatExpiry(t time.Time, lang string) string {
	if lang == LangNL {
		return fmt.Sprintf("%d %s %d om %s %s (Nederlandse tijd, UTC%s)",
			t.Day(), dutchMonths[t.Month()-1], t.Year(), t.Format("15:04"), t.Format("MST"), t.Format("-07:00"))
	}
	return fmt.Sprintf("%d %s %d at %s %s (Amsterdam time, UTC%s)",
		t.Day(), t.Month(), t.Year(), t.Format("15:04"), t.Format("MST"), t.Format("-07:00"))
}
