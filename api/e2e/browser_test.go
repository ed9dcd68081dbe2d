package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kycflow/kycflow/providers/mail/sink"
)

// browser starts headless Chromium (Debian's `chromium`, which `make test`
// installs) and returns a tab's context. A missing browser fails the test.
func browser(t *testing.T) context.Context {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium not found (make test installs it): %v", err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.Flag("lang", "en-US"))
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
	sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	s, err := chromedp.Run(sctx, chromedp.Text(sel))
	if err != nil {
		t.Fatalf("browser: text of %s: %v", sel, err)
	}
	return strings.TrimSpace(s)
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
// mails: true, the mail is read from the SMTP server, its link opened, a
// typo corrected on the MRZ page, the MRZ accepted — and the customer read
// shows the check completed and the record enriched.
func TestBrowserJourney(t *testing.T) {
	ctx := browser(t)
	r := request(t, env.a, "POST", "/api/v1/customers/create", map[string]any{
		"name": "Anna de Wit", "firstname": "Anna", "lastname": "de Wit", "email": "anna.browser@example.nl",
		"country_code": "NLD", "birthdate": "1988-02-29", "checks": map[string]bool{"idin": false, "idscan": true, "iban": false},
	}).want(t, 201)
	id := r.body["id"].(string)
	m, err := env.mail.Wait(t.Context(), func(m sink.Message) bool { return slices.Contains(m.To, "anna.browser@example.nl") })
	if err != nil {
		t.Fatal(err)
	}
	link := regexp.MustCompile(regexp.QuoteMeta(env.publicURL) + `/verify/[A-Za-z0-9_-]{43}`).FindString(m.Text)
	if link == "" {
		t.Fatalf("no link in the mail: %s", m.Text)
	}
	waitStatus(t, env.a, id, "awaiting_input")

	good := td3(t, "DE WIT", "ANNA", "BW7K42LM1", "NLD", "880229", "F", time.Now().AddDate(4, 0, 0).Format("060102"))
	typo := strings.Replace(good, "880229", "880228", 1)
	do(t, ctx, chromedp.Navigate(link+"?lang=en"))
	if h := text(t, ctx, "h1"); h != "Verify your identity document" {
		t.Fatalf("heading %q", h)
	}
	shoot(t, ctx, "idscan-form")
	do(t, ctx, chromedp.SendKeys("#mrz", typo), chromedp.Click("button[type=submit]"), chromedp.WaitVisible("#mrz-errors"))
	if e := text(t, ctx, "#mrz-errors"); !strings.Contains(e, "date of birth") {
		t.Fatalf("errors shown: %q", e)
	}
	shoot(t, ctx, "idscan-errors")
	// Select what is there and type over it, as a person would.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("#mrz").select() === undefined`)); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, chromedp.SendKeys("#mrz", good), chromedp.Click("button[type=submit]"))
	eventually(t, 10*time.Second, "the thank-you page", func() bool { return text(t, ctx, "h1") == "Thank you" })
	shoot(t, ctx, "idscan-done")

	chk := waitStatus(t, env.a, id, "completed")
	if chk["validated"] != true {
		t.Fatalf("idscan check: %v", chk)
	}
	cu := request(t, env.a, "GET", "/api/v1/customers/"+id, nil).body
	if cu["document_number"] != "BW7K42LM1" || cu["gender"] != "female" || cu["nationality_id"] != float64(528) || cu["document_type"] != float64(1) {
		t.Fatalf("customer not enriched: %v", cu)
	}
	// The link works once: opening it again shows a clear page.
	do(t, ctx, chromedp.Navigate(link+"?lang=nl"))
	if h := text(t, ctx, "h1"); h != "Deze link is al gebruikt" {
		t.Fatalf("used link: %q", h)
	}
	shoot(t, ctx, "link-used-nl")
}
