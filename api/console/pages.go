package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"html/template"
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/store"
)

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	// when shows a time to the minute, in UTC (staff work across zones;
	// the audit's times are UTC too).
	"when": func(t any) string {
		switch v := t.(type) {
		case time.Time:
			return v.UTC().Format("2006-01-02 15:04 UTC")
		case *time.Time:
			if v != nil {
				return v.UTC().Format("2006-01-02 15:04 UTC")
			}
		}
		return ""
	},
	"join": strings.Join,
	"text": shownText,
}

// shownText is a name or a value as a page shows it: isolated from the
// text around it (<bdi>), and every character that would act rather than
// show — a bidirectional control that turns the text around, a zero-width
// space or joiner, a byte-order mark — shown as its code point, so that
// what a customer or a list wrote cannot pass for something else.
func shownText(s string) template.HTML {
	var b strings.Builder
	b.WriteString("<bdi>")
	for _, r := range s {
		if unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Cc, r) {
			fmt.Fprintf(&b, `<span class="cp">U+%04X</span>`, r)
			continue
		}
		b.WriteString(html.EscapeString(string(r)))
	}
	b.WriteString("</bdi>")
	return template.HTML(b.String()) //nolint:gosec // every rune escaped above
}

// page is the view every signed-in page starts from.
func (h *Handler) page(rq *request, title string) view {
	return view{Lang: rq.lang, T: texts[rq.lang], W: words[rq.lang], Title: title, CSRF: rq.session.CSRF,
		Email: rq.session.Staff.Email, Role: string(rq.session.Staff.Role)}
}

// allowed answers 403 unless the signed-in member's role may do a: the
// role is checked here, on the server, whatever the page sent.
func (h *Handler) allowed(w http.ResponseWriter, rq *request, a check.StaffAction) bool {
	if rq.session.Staff.Role.Can(a) {
		return true
	}
	h.message(w, http.StatusForbidden, rq.lang, words[rq.lang]["deniedTitle"], words[rq.lang]["deniedBody"])
	return false
}

// actor is the signed-in member as the store records their actions.
func actor(rq *request) store.Principal {
	return store.Principal{TenantID: rq.tenant, StaffID: rq.session.Staff.ID}
}

// pathID reads the {id} of a path; an id that is not one is a 404.
func (h *Handler) pathID(w http.ResponseWriter, r *http.Request, rq *request) (uuid.UUID, bool) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		h.notFound(w, rq)
		return uuid.Nil, false
	}
	return id, true
}

// failed answers an error, ErrNotFound as a 404 and any other as a 500,
// and reports whether there was one.
func (h *Handler) failed(w http.ResponseWriter, rq *request, err error) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, store.ErrNotFound):
		h.notFound(w, rq)
	default:
		h.fail(w, rq, err)
	}
	return true
}

func (h *Handler) notFound(w http.ResponseWriter, rq *request) {
	h.message(w, http.StatusNotFound, rq.lang, words[rq.lang]["notFoundTitle"], words[rq.lang]["notFoundBody"])
}

// back sends the browser to a page after a form was handled (POST,
// redirect, GET: a reload never sends the form again), with a notice
// code the page words.
func back(w http.ResponseWriter, r *http.Request, path, notice string) {
	if notice != "" {
		if strings.Contains(path, "?") {
			path += "&done=" + notice
		} else {
			path += "?done=" + notice
		}
	}
	http.Redirect(w, r, path, http.StatusSeeOther)
}

// notice is the word for a page's ?done= code, if it names one.
func notice(rq *request, r *http.Request) string {
	if code := r.URL.Query().Get("done"); code != "" {
		return words[rq.lang]["done_"+code]
	}
	return ""
}

// pretty indents a JSON document for a page (a check's data, an error).
func pretty(raw []byte) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	out, _ := json.MarshalIndent(v, "", "  ")
	return string(out)
}
