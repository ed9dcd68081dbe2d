package verify

import (
	_ "embed"
	"fmt"
	"html/template"
	"net/http"
	"strings"

	qrcode "github.com/skip2/go-qrcode"
)

// The idscan page's own scripts (the document's live camera view and its
// hints; the selfie's), served from the binary: no page loads anything
// from elsewhere.
var (
	//go:embed assets/capture.js
	captureJS []byte
	//go:embed assets/selfie.js
	selfieJS []byte
)

// The scripts' URLs.
const (
	captureScript = "/verify/assets/capture.js"
	selfieScript  = "/verify/assets/selfie.js"
)

// followKey is what the page's script compares the link's status by
// (capture.js, key): when it changes, the page reloads.
func followKey(ps photoStatus) string {
	k := fmt.Sprintf("%s/%d", ps.State, ps.Attempts)
	if ps.Selfie != nil {
		k += fmt.Sprintf("/%s/%d", ps.Selfie.State, ps.Selfie.Attempts)
	}
	return k
}

// photoHeaders loosen pageHeaders for the idscan page: its own script,
// posting the photo to its own origin, the camera's frames as blob images,
// and the camera for this origin only.
func photoHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; connect-src 'self'; img-src 'self' blob:; media-src 'self' blob:; "+
		"style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	w.Header().Set("Permissions-Policy", "camera=(self), microphone=(), geolocation=()")
}

// asset serves one of the pages' scripts.
func (h *Handler) asset(script []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Header().Set("Cache-Control", "public, max-age=3600")
		w.Write(script)
	}
}

// qrSVG draws link as a QR code in SVG, for a person on a computer to
// carry on on their phone; "" when it cannot be drawn.
func qrSVG(link string) template.HTML {
	q, err := qrcode.New(link, qrcode.Medium)
	if err != nil {
		return ""
	}
	bits := q.Bitmap() // with its quiet zone
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="168" height="168" shape-rendering="crispEdges" role="img" aria-labelledby="qr-hint"><rect width="100%%" height="100%%" fill="#fff"/><path fill="#000" d="`, len(bits), len(bits))
	for y, row := range bits {
		for x, on := range row {
			if on {
				fmt.Fprintf(&b, "M%d %dh1v1h-1z", x, y)
			}
		}
	}
	b.WriteString(`"/></svg>`)
	return template.HTML(b.String()) // numbers only: nothing of the link's text is in it
}
