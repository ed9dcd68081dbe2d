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
	waitHeading(t, ctx, "Thank you")
	shoot(t, ctx, "idscan-done")

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
