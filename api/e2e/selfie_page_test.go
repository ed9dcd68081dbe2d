package e2e

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/kycflow/kycflow/check"
	"github.com/kycflow/kycflow/engines/mrz"
)

// otherNonce is a nonce of the same form that is not n (its first digit
// changed: a fixed one would be n itself one time in sixteen).
func otherNonce(n string) string {
	if n[0] == 'f' {
		return "0" + n[1:]
	}
	return "f" + n[1:]
}

// selfieForm is a multipart body of frames and fields, as the page's form
// sends it.
func selfieForm(t *testing.T, fields map[string]string, frames ...[]byte) ([]byte, string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	for i, f := range frames {
		w, err := mw.CreateFormFile("frame", fmt.Sprintf("frame-%d.jpg", i))
		if err != nil {
			t.Fatal(err)
		}
		w.Write(f)
	}
	mw.Close()
	return body.Bytes(), mw.FormDataContentType()
}

// The hosted page's selfie, as a person with a phone meets it: the
// document's page asks for a card's front too; after the document, a page
// that asks consent in the tenant's name, says what is
// compared and how long it is kept, and lists the challenge's steps. The
// camera waits for the consent; the live view's guidance says what it sees
// (a wall: no face), the frames are taken by hand and sent, and the page
// says why the selfie must be taken again. The same in Dutch, without
// JavaScript (the form's file inputs): refused without consent, taken with
// it; after the last attempt the page says the selfie could not be used,
// never "thank you". The look at the live view keeps nothing, and neither
// it nor the selfie's upload takes a post from another site.
func TestBrowserSelfie(t *testing.T) {
	tn := selfieTenant(t, "Selfie Page BV", "selfie-page")
	photo, id := docPhoto(t, 812, mrz.TD3, sharp)
	file := filepath.Join(t.TempDir(), "passport.jpg")
	if err := os.WriteFile(file, photo, 0o644); err != nil {
		t.Fatal(err)
	}
	cid, path := photoCustomer(t, tn, id)
	waitStatus(t, tn, cid, "awaiting_input")
	// The document's page asks for a card's front too, where the portrait
	// is; a passport's page alone is sent with that input left empty.
	cam := browser(t, fakeCamera(t, wall(t))...)
	do(t, cam, chromedp.EmulateViewport(390, 844), chromedp.Navigate(env.publicURL+path+"?lang=en"))
	waitHeading(t, cam, "Verify your identity document")
	if s := text(t, cam, "#photo-form"); !strings.Contains(s, "Identity card? Add its front, with your photo") {
		t.Fatalf("the upload form: %q", s)
	}
	do(t, cam, chromedp.SetUploadFiles("#image", []string{file}), chromedp.Click(`#photo-form button[type=submit]`))
	st := photoState(t, path, "selfie", "retake", "done")
	nonce, _ := obj(st["selfie"])["nonce"].(string)
	if st["state"] != "selfie" || nonce == "" {
		t.Fatalf("status after the document: %v", st)
	}

	// Other sites' posts are refused before anything is looked at.
	c := from("127.0.0.11")
	post := func(p string, header map[string]string, body []byte, ct string) edgeResponse {
		header["Content-Type"] = ct
		return send(t, c, http.MethodPost, path+p, "", header, string(body))
	}
	body, ct := selfieForm(t, map[string]string{"nonce": nonce, "consent": "yes"}, wall(t), wall(t), wall(t))
	for _, p := range []string{"/selfie", "/selfie/look"} {
		if r := post(p, map[string]string{"Origin": "http://evil.example"}, body, ct); r.status != http.StatusForbidden {
			t.Fatalf("%s from another site: %d %s", p, r.status, r.body)
		}
	}
	// A look needs the challenge's nonce, and answers what it sees.
	lb, lct := selfieForm(t, map[string]string{"nonce": otherNonce(nonce)}, wall(t))
	if r := requestWith(t, http.MethodPost, path+"/selfie/look", "anything.test", "", lct, lb); r.status != http.StatusConflict {
		t.Fatalf("a look with another nonce: %d %s", r.status, r.raw)
	}
	lb, lct = selfieForm(t, map[string]string{"nonce": nonce}, wall(t))
	if r := requestWith(t, http.MethodPost, path+"/selfie/look", "anything.test", "", lct, lb); r.status != http.StatusOK ||
		r.body["hint"] != "face_not_found" || r.body["message"] != "We cannot see your face: look at the camera." || r.body["pose"] != nil {
		t.Fatalf("a look at a wall: %d %s", r.status, r.raw)
	}

	// The page's scripts come from the binary; without JavaScript its file
	// inputs open the front camera.
	resp, err := http.Get(env.apiURL + "/verify/assets/selfie.js")
	if err != nil {
		t.Fatal(err)
	}
	script, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") || !bytes.Contains(script, []byte(`facingMode: "user"`)) {
		t.Fatalf("selfie.js: %d %v", resp.StatusCode, resp.Header)
	}
	if code, page := getPage(t, path+"?lang=en"); code != http.StatusOK || strings.Count(page, `capture="user"`) != 3 ||
		!strings.Contains(page, `<script src="/verify/assets/capture.js"`) || !strings.Contains(page, `<script src="/verify/assets/selfie.js"`) {
		t.Fatalf("selfie page %d: %s", code, page)
	}

	do(t, cam, chromedp.Navigate(env.publicURL+path+"?lang=en"))
	waitHeading(t, cam, "Take a selfie")
	page := text(t, cam, ".card")
	for _, want := range []string{"Selfie Page BV also asks for a selfie", "compared with the photo in your document",
		"kept, encrypted, for 30 days after the check ends", "I agree that Selfie Page BV compares my selfie", "Look straight at the camera."} {
		if !strings.Contains(page, want) {
			t.Fatalf("the selfie page does not say %q: %q", want, page)
		}
	}
	steps, err := chromedp.Run(cam, chromedp.Evaluate[int](`document.querySelectorAll("#selfie-steps li").length`))
	if err != nil || steps != 3 {
		t.Fatalf("steps listed: %d %v", steps, err)
	}
	shoot(t, cam, "selfie-consent")
	accessible(t, cam, "the selfie page")
	// No camera before the consent.
	do(t, cam, chromedp.WaitVisible("#selfie-start"), chromedp.Click("#selfie-start"))
	if hidden, err := chromedp.Run(cam, chromedp.Evaluate[bool](`document.getElementById("selfie-camera").hidden`)); err != nil || !hidden {
		t.Fatal("the camera started without the consent")
	}
	do(t, cam, chromedp.Click("#consent"), chromedp.Click("#selfie-start"), chromedp.WaitVisible("#selfie-video"))
	eventually(t, readStall, "the live view's hint", func() bool {
		h, err := tryText(cam, "#selfie-hint")
		return err == nil && h == "We cannot see your face: look at the camera."
	})
	if s := text(t, cam, "#selfie-instruction"); s != "Look straight at the camera." {
		t.Fatalf("the first instruction: %q", s)
	}
	shoot(t, cam, "selfie-camera")
	if chk := customerCheck(t, tn, cid); obj(obj(chk["data"])["selfie_attempts"].([]any)[0])["frames"] != 0.0 {
		t.Fatalf("a look kept a frame: %v", chk)
	}
	for range 3 {
		do(t, cam, chromedp.Click("#selfie-take"))
	}
	whileReading(t, "the selfie's retake page", func() bool {
		s, err := tryText(cam, "#selfie-state")
		return err == nil && strings.Contains(s, "Please take the selfie again")
	})
	if s := text(t, cam, "#selfie-state"); !strings.Contains(s, "Your face was not found in every frame") || !strings.Contains(s, "Selfie 2 of at most 2") {
		t.Fatalf("the retake says: %q", s)
	}
	accessible(t, cam, "the selfie's retake page")

	// Without JavaScript, in Dutch: the form's own post.
	st = photoState(t, path, "selfie")
	nonce = obj(st["selfie"])["nonce"].(string)
	html := func() map[string]string { return map[string]string{"Origin": env.publicURL, "Accept": "text/html"} }
	body, ct = selfieForm(t, map[string]string{"nonce": nonce}, wall(t), wall(t), wall(t))
	if r := post("/selfie?lang=nl", html(), body, ct); r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, "Vink eerst het vakje aan") {
		t.Fatalf("the form without consent: %d %s", r.status, r.body)
	}
	body, ct = selfieForm(t, map[string]string{"nonce": nonce, "consent": "yes"}, wall(t), wall(t), wall(t))
	if r := post("/selfie?lang=nl", html(), body, ct); r.status != http.StatusSeeOther || r.header.Get("Location") != path+"?lang=nl" {
		t.Fatalf("the form with consent: %d %v %s", r.status, r.header, r.body)
	}
	chk := waitRead(t, tn, cid, "completed")
	if d := obj(chk["data"]); d["reason"] != check.ReasonSelfieMissing || chk["validated"] != false {
		t.Fatalf("the check after the last selfie: %v", chk)
	}
	do(t, cam, chromedp.Navigate(env.publicURL+path+"?lang=nl"))
	waitHeading(t, cam, "Uw selfie kon niet worden gebruikt")
	if s := text(t, cam, ".card"); strings.Contains(s, "Dank u wel") || !strings.Contains(s, "hoe het verder gaat") {
		t.Fatalf("the last page: %q", s)
	}
	shoot(t, cam, "selfie-not-used-nl")
	if st := photoState(t, path, "done"); obj(st["selfie"])["state"] != check.SelfieRetake || obj(st["selfie"])["reason"] != check.SelfieNoFace {
		t.Fatalf("the status after the last selfie: %v", st)
	}
}
