// Package lang picks the language of the pages people open (the
// verification pages, the staff's console): English or Dutch.
package lang

import (
	"net/http"
	"strings"
)

// Of is the language a request asks for: ?lang=en|nl, else the first of
// English and Dutch in Accept-Language; "" when it asks for neither.
func Of(r *http.Request) string {
	if q := r.URL.Query().Get("lang"); q == "en" || q == "nl" {
		return q
	}
	for _, part := range strings.Split(r.Header.Get("Accept-Language"), ",") {
		tag, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		switch strings.ToLower(strings.SplitN(tag, "-", 2)[0]) {
		case "nl":
			return "nl"
		case "en":
			return "en"
		}
	}
	return ""
}
