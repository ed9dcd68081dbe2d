package e2e

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/kycflow/kycflow/engines/mrz"
	"github.com/kycflow/kycflow/providers/mail/sink"
)

// browser starts headless Chromium (Debian's `chromium`, which `make test`
// installs), with flags, and returns a tab's context. A missing browser
// fails the test.
func browser(t *testing.T, flags ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium not found (make test installs it): %v", err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.Flag("lang", "en-US"))
	opts = append(opts, flags...)
	actx, cancelAlloc := chromedp.NewExecAllocator(t.Context(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	// The first call starts the browser and must not carry a timeout.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// do runs browser steps, each run bounded so a missing element fails fast.
func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(sctx, steps...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

// text reads an element's visible text.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := tryText(ctx, sel)
	if err != nil {
		t.Fatalf("browser: text of %s: %v", sel, err)
	}
	return s
}

// tryText is text for polling while a page may be navigating away (its
// nodes vanish under the query).
func tryText(ctx context.Context, sel string) (string, error) {
	sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	s, err := chromedp.Run(sctx, chromedp.Text(sel))
	return strings.TrimSpace(s), err
}

// waitHeading waits until the page's h1 reads want.
func waitHeading(t *testing.T, ctx context.Context, want string) {
	t.Helper()
	eventually(t, 15*time.Second, "the page "+want, func() bool {
		h, err := tryText(ctx, "h1")
		return err == nil && h == want
	})
}

// accessible runs axe-core (AXE_JS, which make test fetches from npm) in
// the current page and fails on any serious or critical violation of WCAG
// 2 A/AA — what the page itself offers every visitor, whatever the screen
// reader or keyboard.
func accessible(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	path := os.Getenv("AXE_JS")
	if path == "" {
		t.Fatal("AXE_JS is not set: run the tests with make test (it fetches axe-core)")
	}
	script, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("axe-core: %v", err)
	}
	type violation struct {
		ID, Impact, Help string
		Nodes            []struct{ Target []any }
	}
	// The page's Content-Security-Policy allows no script: the checker is
	// the test's, let in by the browser's debugging protocol only.
	run := `axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}})
		.then(r => ({passes: r.passes.length, violations: r.violations.filter(v => v.impact === "serious" || v.impact === "critical")}))`
	type report struct {
		Passes     int
		Violations []violation
	}
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	bypass := func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, page.SetBypassCSP, page.SetBypassCSPParams{Enabled: true})
		return chromedp.Void{}, err
	}
	rep, err := chromedp.Run(sctx, func(ctx context.Context, tg *chromedp.Target) (report, error) {
		if _, err := bypass(ctx, tg); err != nil {
			return report{}, err
		}
		if _, err := chromedp.Evaluate[bool](string(script)+";true")(ctx, tg); err != nil {
			return report{}, err
		}
		return chromedp.Evaluate[report](run, chromedp.EvalAwaitPromise)(ctx, tg)
	})
	if err != nil || rep.Passes == 0 {
		t.Fatalf("axe-core on %s: %d rules passed, %v", what, rep.Passes, err)
	}
	if what == "a control page" {
		if len(rep.Violations) == 0 {
			t.Fatal("axe-core found nothing wrong with a control page made to fail")
		}
		return
	}
	for _, v := range rep.Violations {
		t.Errorf("%s: %s (%s): %s, at %v", what, v.ID, v.Impact, v.Help, v.Nodes)
	}
}

// shoot saves desktop and phone-width screenshots of the current page when
// KYCFLOW_SCREENSHOTS names a directory (`make screenshots` → docs/screenshots).
func shoot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("KYCFLOW_SCREENSHOTS")
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, size := range []struct {
		suffix        string
		width, height int64
	}{{"desktop", 1280, 900}, {"phone", 390, 844}} {
		do(t, ctx, chromedp.EmulateViewport(size.width, size.height))
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+"-"+size.suffix+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	do(t, ctx, chromedp.EmulateViewport(1280, 900))
}

// A person's whole journey in a real browser: the customer is created with
// mails: true and both link checks; both mails are read from the SMTP
// server; the iDIN link leads to the sandbox bank and back; the ID-scan
// link's page catches a typo, then takes the MRZ — and the customer read
// shows both checks completed and the record enriched.
func TestBrowserJourney(t *testing.T) {
	ctx := browser(t)
	r := request(t, env.a, "POST", "/api/v1/customers/create", map[string]any{
		"name": "Jan Pieter van den Berg", "firstname": "Jan Pieter", "lastname": "van den Berg", "email": "jp.browser@example.nl",
		"country_code": "NLD", "birthdate": "1985-07-14", "checks": map[string]bool{"idin": true, "idscan": true, "iban": false},
	}).want(t, 201)
	if string(field(t, r.raw, "mails")) != `{"idin":true,"idscan":true}` {
		t.Fatalf("mails: %s", r.raw)
	}
	id := r.body["id"].(string)
	links := map[string]string{}
	linkRE := regexp.MustCompile(regexp.QuoteMeta(env.publicURL) + `/verify/[A-Za-z0-9_-]{43}`)
	for _, subject := range []string{"iDIN", "MRZ"} {
		m, err := env.mail.Wait(t.Context(), func(m sink.Message) bool {
			return slices.Contains(m.To, "jp.browser@example.nl") && strings.Contains(m.Text, subject)
		})
		if err != nil {
			t.Fatal(err)
		}
		links[subject] = linkRE.FindString(m.Text)
	}
	if links["iDIN"] == "" || links["MRZ"] == "" || links["iDIN"] == links["MRZ"] {
		t.Fatalf("links from the mails: %v", links)
	}
	mails := 0
	for _, m := range env.mail.Messages() {
		if slices.Contains(m.To, "jp.browser@example.nl") {
			mails++
		}
	}
	if mails != 2 {
		t.Fatalf("%d mails for two links", mails)
	}

	// iDIN: choose a bank, confirm at the (sandbox) bank, come back.
	eventually(t, 15*time.Second, "both checks awaiting input", func() bool {
		cu := request(t, env.a, "GET", "/api/v1/customers/"+id, nil).body
		return obj(cu["idin_check"])["status"] == "awaiting_input" && obj(cu["idscan_check"])["status"] == "awaiting_input"
	})
	do(t, ctx, chromedp.Navigate(links["iDIN"]+"?lang=en"))
	waitHeading(t, ctx, "Confirm your identity with your bank")
	shoot(t, ctx, "idin-bank-choice")
	accessible(t, ctx, "the iDIN bank choice")
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelector("#issuer").selectedIndex = 1`)); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, chromedp.Click("button[type=submit]"), chromedp.WaitVisible(`button[value="success"]`))
	shoot(t, ctx, "idin-sandbox-bank")
	do(t, ctx, chromedp.Click(`button[value="success"]`))
	waitHeading(t, ctx, "Thank you")
	shoot(t, ctx, "idin-returned")

	good := td3(t, "VAN DEN BERG", "JAN PIETER", "BW7K42LM1", "NLD", "850714", "M", time.Now().AddDate(4, 0, 0).Format("060102"))
	typo := strings.Replace(good, "850714", "850715", 1)
	do(t, ctx, chromedp.Navigate(links["MRZ"]+"?lang=en"))
	waitHeading(t, ctx, "Verify your identity document")
	shoot(t, ctx, "idscan-form")
	accessible(t, ctx, "the typed-MRZ page")
	// The typed form, for people who cannot take a photo, is one click away.
	do(t, ctx, chromedp.Click("details summary"), chromedp.WaitVisible("#mrz"))
	do(t, ctx, chromedp.SendKeys("#mrz", typo), chromedp.Click(`form[action*="?lang"]:not(#photo-form) button[type=submit]`), chromedp.WaitVisible("#mrz-errors"))
	if e := text(t, ctx, "#mrz-errors"); !strings.Contains(e, "date of birth") {
		t.Fatalf("errors shown: %q", e)
	}
	shoot(t, ctx, "idscan-errors")
	accessible(t, ctx, "the typed-MRZ page with errors")
	// Select what is there and type over it, as a person would.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("#mrz").select() === undefined`)); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, chromedp.SendKeys("#mrz", good), chromedp.Click(`form[action*="?lang"]:not(#photo-form) button[type=submit]`))
	waitHeading(t, ctx, "Thank you")
	shoot(t, ctx, "idscan-typed-done")

	var cu map[string]any
	eventually(t, 15*time.Second, "both checks completed", func() bool {
		cu = request(t, env.a, "GET", "/api/v1/customers/"+id, nil).body
		return obj(cu["idin_check"])["status"] == "completed" && obj(cu["idscan_check"])["status"] == "completed"
	})
	if obj(cu["idin_check"])["validated"] != true || obj(cu["idscan_check"])["validated"] != true {
		t.Fatalf("checks: %v / %v", cu["idin_check"], cu["idscan_check"])
	}
	if cu["document_number"] != "BW7K42LM1" || cu["gender"] != "male" || cu["nationality_id"] != float64(528) || cu["document_type"] != float64(1) ||
		cu["street"] != "Sandboxstraat" || cu["city"] != "Testdorp" || cu["birthdate"] != "1985-07-14" {
		t.Fatalf("customer not enriched: %v", cu)
	}
	// A link works once: opening it again shows a clear page.
	do(t, ctx, chromedp.Navigate(links["MRZ"]+"?lang=nl"))
	waitHeading(t, ctx, "Deze link is al gebruikt")
	shoot(t, ctx, "link-used-nl")
}

// fakeCamera writes photo as a Y4M video (4:2:0, a few frames) for
// Chromium's fake camera, and returns the flags that make it the camera
// (permission granted, as a person would tap "allow").
func fakeCamera(t *testing.T, photo []byte) []chromedp.ExecAllocatorOption {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(photo))
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	w, h := b.Dx()&^1, b.Dy()&^1
	yuv := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	for y := range h {
		for x := range w {
			r, g, bl, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			yy, cb, cr := color.RGBToYCbCr(uint8(r>>8), uint8(g>>8), uint8(bl>>8))
			yuv.Y[yuv.YOffset(x, y)] = yy
			if x%2 == 0 && y%2 == 0 {
				yuv.Cb[yuv.COffset(x, y)], yuv.Cr[yuv.COffset(x, y)] = cb, cr
			}
		}
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "YUV4MPEG2 W%d H%d F10:1 Ip A1:1 C420jpeg\n", w, h)
	for range 3 {
		out.WriteString("FRAME\n")
		out.Write(yuv.Y)
		out.Write(yuv.Cb)
		out.Write(yuv.Cr)
	}
	file := filepath.Join(t.TempDir(), "camera.y4m")
	if err := os.WriteFile(file, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return []chromedp.ExecAllocatorOption{
		chromedp.Flag("use-fake-device-for-media-stream", true),
		chromedp.Flag("use-fake-ui-for-media-stream", true),
		chromedp.Flag("use-file-for-fake-video-capture", file),
	}
}

// readMail waits for the mail to addr carrying a verification link, and
// returns the link.
func readMail(t *testing.T, addr string) string {
	t.Helper()
	linkRE := regexp.MustCompile(regexp.QuoteMeta(env.publicURL) + `/verify/[A-Za-z0-9_-]{43}`)
	m, err := env.mail.Wait(t.Context(), func(m sink.Message) bool { return slices.Contains(m.To, addr) && linkRE.MatchString(m.Text) })
	if err != nil {
		t.Fatal(err)
	}
	return linkRE.FindString(m.Text)
}

// A person with a phone, in Dutch, from the mailed link: the page says
// which side to photograph; the first photo (through the phone's own
// camera, the file input) has a reflection over the code and the page asks
// for a retake with the attempt count; the second completes the check.
// Then in English with the live camera view (Chromium's fake camera fed a
// generated card): the hints, the photo taken by the page itself once the
// frame is steady and sharp, done. Both
// checks end validated, read from the photo.
func TestBrowserPhotoJourney(t *testing.T) {
	good, id := docPhoto(t, 404, mrz.TD3, sharp)
	shiny := glarePhoto(t, id)
	dir := t.TempDir()
	files := map[string]string{"glare": filepath.Join(dir, "glare.jpg"), "good": filepath.Join(dir, "good.jpg")}
	for name, b := range map[string][]byte{"glare": shiny, "good": good} {
		if err := os.WriteFile(files[name], b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	given, surname := strings.ToLower(id.Fields.GivenNames), strings.ToLower(id.Fields.Surname)
	r := request(t, env.a, "POST", "/api/v1/customers/create", map[string]any{
		"name": given + " " + surname, "firstname": given, "lastname": surname, "email": "photo.nl@example.nl", "country_code": "NLD",
		"birthdate": id.Birth.Format(time.DateOnly), "checks": map[string]bool{"idin": false, "idscan": true, "iban": false},
	}).want(t, 201)
	cid, link := r.body["id"].(string), readMail(t, "photo.nl@example.nl")

	ctx := browser(t)
	do(t, ctx, chromedp.EmulateViewport(390, 844))
	do(t, ctx, chromedp.Navigate(link+"?lang=nl")) // the browser asks for English; the person picks Nederlands
	waitHeading(t, ctx, "Bevestig uw identiteitsbewijs")
	if page := text(t, ctx, ".card"); !strings.Contains(page, "Paspoort: de pagina met uw foto") || !strings.Contains(page, "Identiteitskaart: de achterkant") {
		t.Fatalf("page does not say which side: %q", page)
	}
	shoot(t, ctx, "idscan-photo-nl")
	accessible(t, ctx, "the photo page")
	do(t, ctx, chromedp.SetUploadFiles("#image", []string{files["glare"]}), chromedp.Click(`#photo-form button[type=submit]`))
	whileReading(t, "the retake page", func() bool {
		s, err := tryText(ctx, "#photo-state")
		return err == nil && strings.Contains(s, "Maak de foto opnieuw")
	})
	if s := text(t, ctx, "#photo-state"); !strings.Contains(s, "Foto 1 van maximaal 5") {
		t.Fatalf("retake: %q", s)
	}
	shoot(t, ctx, "idscan-retake-nl")
	accessible(t, ctx, "the retake page")
	do(t, ctx, chromedp.SetUploadFiles("#image", []string{files["good"]}), chromedp.Click(`#photo-form button[type=submit]`))
	whileReading(t, "the thank-you page", func() bool {
		h, err := tryText(ctx, "h1")
		return err == nil && h == "Dank u wel"
	})
	shoot(t, ctx, "idscan-photo-done-nl")
	chk := waitStatusWithin(t, env.a, cid, "completed", time.Minute)
	if chk["validated"] != true || obj(chk["data"])["source"] != "photo" || len(obj(chk["data"])["attempts"].([]any)) != 2 {
		t.Fatalf("check: %v", chk)
	}

	// The live camera, in English.
	card, cardID := docPhoto(t, 505, mrz.TD1, sharp)
	given, surname = strings.ToLower(cardID.Fields.GivenNames), strings.ToLower(cardID.Fields.Surname)
	r = request(t, env.a, "POST", "/api/v1/customers/create", map[string]any{
		"name": given + " " + surname, "firstname": given, "lastname": surname, "email": "photo.en@example.com", "country_code": "BEL",
		"birthdate": cardID.Birth.Format(time.DateOnly), "checks": map[string]bool{"idin": false, "idscan": true, "iban": false},
	}).want(t, 201)
	cid, link = r.body["id"].(string), readMail(t, "photo.en@example.com")
	cam := browser(t, fakeCamera(t, card)...)
	do(t, cam, chromedp.EmulateViewport(390, 844))
	do(t, cam, chromedp.Navigate(link+"?lang=en"))
	waitHeading(t, cam, "Verify your identity document")
	do(t, cam, chromedp.WaitVisible("#camera-start"), chromedp.Click("#camera-start"), chromedp.WaitVisible("#camera-video"))
	eventually(t, 30*time.Second, "a hint", func() bool {
		h, err := tryText(cam, "#camera-hint")
		return err == nil && h != ""
	})
	shoot(t, cam, "idscan-camera")
	// Steady and sharp: the page takes the photo by itself.
	whileReading(t, "the thank-you page", func() bool {
		h, err := tryText(cam, "h1")
		return err == nil && h == "Thank you"
	})
	chk = waitStatusWithin(t, env.a, cid, "completed", time.Minute)
	if chk["validated"] != true || obj(chk["data"])["source"] != "photo" {
		t.Fatalf("camera check: %v", chk)
	}
}

// The end of a link, as the person sees it. At phone width, five photos
// without the code: each is a retake that says why, and after the fifth
// the page says the document could not be read — no thank-you — and so
// does the link's status. On a computer, the page shows the QR code
// before the upload controls and follows the phone: when the phone's
// photo is read, the computer's page says done. A camera in the dark holds
// the shutter and takes nothing by itself.
func TestBrowserPhotoEnds(t *testing.T) {
	_, id := docPhoto(t, 707, mrz.TD3, sharp)
	back := filepath.Join(t.TempDir(), "front.jpg")
	if err := os.WriteFile(back, frontSide(t, id), 0o644); err != nil {
		t.Fatal(err)
	}
	cid, path := photoCustomer(t, env.a, id)
	waitStatus(t, env.a, cid, "awaiting_input")
	phone := browser(t)
	do(t, phone, chromedp.EmulateViewport(390, 844), chromedp.Navigate(env.publicURL+path+"?lang=en"))
	waitHeading(t, phone, "Verify your identity document")
	for n := 1; n <= 5; n++ {
		do(t, phone, chromedp.SetUploadFiles("#image", []string{back}), chromedp.Click(`#photo-form button[type=submit]`))
		if n == 5 {
			break
		}
		whileReading(t, fmt.Sprintf("retake %d", n), func() bool {
			s, err := tryText(phone, "#photo-state")
			return err == nil && strings.Contains(s, "Please take the photo again") && strings.Contains(s, fmt.Sprintf("Photo %d of at most 5", n))
		})
		if s := text(t, phone, "#photo-state"); !strings.Contains(s, "The code at the bottom of the document is not in the photo") {
			t.Fatalf("retake %d says: %q", n, s)
		}
	}
	whileReading(t, "the could-not-be-read page", func() bool {
		h, err := tryText(phone, "h1")
		return err == nil && h == "Your document could not be read"
	})
	if body := text(t, phone, ".card"); strings.Contains(body, "Thank you") || !strings.Contains(body, "will tell you how to go on") {
		t.Fatalf("the last page: %q", body)
	}
	shoot(t, phone, "idscan-not-read")
	accessible(t, phone, "the could-not-be-read page")
	st := photoState(t, path, "not_read")
	if msg, _ := st["message"].(string); strings.Contains(msg, "was read") || st["reason"] != "mrz_not_found" {
		t.Fatalf("status after the last attempt: %v", st)
	}
	if chk := waitStatusWithin(t, env.a, cid, "completed", time.Minute); obj(chk["data"])["reason"] != "image_unreadable" {
		t.Fatalf("check: %v", chk)
	}

	// A computer shows the QR code; the phone sends the photo.
	good, id := docPhoto(t, 708, mrz.TD3, sharp)
	cid, path = photoCustomer(t, env.a, id)
	waitStatus(t, env.a, cid, "awaiting_input")
	desk := browser(t)
	do(t, desk, chromedp.Navigate(env.publicURL+path+"?lang=en"))
	waitHeading(t, desk, "Verify your identity document")
	do(t, desk, chromedp.WaitVisible(".qr svg"))
	qrFirst, err := chromedp.Run(desk, chromedp.Evaluate[bool](
		`!!(document.querySelector(".qr").compareDocumentPosition(document.getElementById("photo-form")) & Node.DOCUMENT_POSITION_FOLLOWING)`))
	if err != nil || !qrFirst {
		t.Fatal("on a wide screen the QR code should come before the upload controls")
	}
	shoot(t, desk, "idscan-desktop-qr")
	if r := upload(t, path, good); r.status != http.StatusAccepted {
		t.Fatalf("the phone's upload: %d %s", r.status, r.raw)
	}
	whileReading(t, "the computer's page says done", func() bool {
		h, err := tryText(desk, "h1")
		return err == nil && h == "Thank you"
	})
	if chk := waitStatusWithin(t, env.a, cid, "completed", time.Minute); chk["validated"] != true {
		t.Fatalf("check: %v", chk)
	}

	// The camera in the dark: the hint says so and the shutter waits.
	var dark bytes.Buffer
	if err := jpeg.Encode(&dark, image.NewGray(image.Rect(0, 0, 640, 480)), nil); err != nil {
		t.Fatal(err)
	}
	_, id = docPhoto(t, 709, mrz.TD3, sharp)
	_, path = photoCustomer(t, env.a, id)
	cam := browser(t, fakeCamera(t, dark.Bytes())...)
	do(t, cam, chromedp.EmulateViewport(390, 844), chromedp.Navigate(env.publicURL+path+"?lang=en"))
	do(t, cam, chromedp.WaitVisible("#camera-start"), chromedp.Click("#camera-start"), chromedp.WaitVisible("#camera-video"))
	eventually(t, 30*time.Second, "the dark hint", func() bool {
		h, err := tryText(cam, "#camera-hint")
		return err == nil && h == "Too dark: find more light."
	})
	time.Sleep(2 * time.Second) // looks that would have taken a steady frame
	disabled, err := chromedp.Run(cam, chromedp.Evaluate[bool](`document.getElementById("camera-take").disabled`))
	if err != nil || !disabled {
		t.Fatal("the shutter should wait while the hint says too dark")
	}
	if st := photoState(t, path, "awaiting_photo"); st["attempts"] != float64(0) {
		t.Fatalf("a dark frame was sent: %v", st)
	}
}
