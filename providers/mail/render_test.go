package mail_test

import (
	htmlpkg "html"
	"strings"
	"testing"
	"time"

	"github.com/kycflow/kycflow/providers/mail"
)

const token = "tok_9fK2mQ7xZ"

func newMailer(t *testing.T) *mail.Mailer {
	t.Helper()
	m, err := mail.New(mail.Config{Host: "127.0.0.1", From: "kycflow <no-reply@kycflow.local>"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func linkMail() mail.LinkMail {
	return mail.LinkMail{
		To:         "jan@example.nl",
		Name:       "Jan de Vries",
		TenantName: "Acme <b>&</b> Co",
		Purpose:    mail.PurposeBank,
		URL:        "https://kyc.example/verify/" + token + "?src=mail&v=1",
		ExpiresAt:  time.Date(2026, 5, 17, 12, 30, 0, 0, time.UTC), // 14:30 summer time in Amsterdam
		Lang:       mail.LangEN,
	}
}

func contains(t *testing.T, what, s string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, s)
		}
	}
}

func TestRender(t *testing.T) {
	m := newMailer(t)
	const escapedURL = "https://kyc.example/verify/" + token + "?src=mail&amp;v=1"
	for _, tc := range []struct {
		lang    string
		purpose mail.Purpose
		subject string
		both    []string // in the text and, escaped as shown, in the HTML
		html    []string
	}{
		{
			mail.LangEN, mail.PurposeBank, "Verify your identity for Acme <b>&</b> Co",
			[]string{"Hello Jan de Vries,", "confirm your identity with your bank (iDIN)",
				"17 May 2026 at 14:30 CEST (Amsterdam time, UTC+02:00)", "If you did not expect this e-mail, you can ignore it"},
			[]string{`<html lang="en">`, ">Verify my identity</a>"},
		},
		{
			mail.LangEN, mail.PurposeDocument, "Verify your identity for Acme <b>&</b> Co",
			[]string{"take a photo of your passport's page with your photo, or of the back of your ID card"},
			[]string{`<html lang="en">`},
		},
		{
			mail.LangNL, mail.PurposeBank, "Bevestig uw identiteit voor Acme <b>&</b> Co",
			[]string{"Beste Jan de Vries,", "bevestigt uw identiteit via uw bank (iDIN)",
				"17 mei 2026 om 14:30 CEST (Nederlandse tijd, UTC+02:00)", "Dan kunt u hem negeren"},
			[]string{`<html lang="nl">`, ">Identiteit bevestigen</a>"},
		},
		{
			mail.LangNL, mail.PurposeDocument, "Bevestig uw identiteit voor Acme <b>&</b> Co",
			[]string{"achterkant van uw identiteitskaart: de kant met de machineleesbare zone (MRZ)"},
			[]string{`<html lang="nl">`},
		},
	} {
		t.Run(tc.lang+"/"+string(tc.purpose), func(t *testing.T) {
			lm := linkMail()
			lm.Lang, lm.Purpose = tc.lang, tc.purpose
			subject, text, html, err := m.Render(lm)
			if err != nil {
				t.Fatal(err)
			}
			if subject != tc.subject {
				t.Errorf("subject = %q, want %q", subject, tc.subject)
			}
			contains(t, "text", text, append([]string{lm.URL, "Acme <b>&</b> Co"}, tc.both...)...)
			contains(t, "HTML", html, `href="`+escapedURL+`"`, ">"+escapedURL+"<",
				"Acme &lt;b&gt;&amp;&lt;/b&gt; Co", `<meta name="viewport"`)
			contains(t, "HTML", html, tc.html...)
			// html/template writes "+" as "&#43;"; compare decoded text.
			contains(t, "HTML (unescaped)", htmlpkg.UnescapeString(html), tc.both...)
			if strings.Contains(html, "<b>&</b>") {
				t.Error("HTML has the tenant name unescaped")
			}
			if strings.Contains(html, "<script") || strings.Contains(html, "<link") || strings.Contains(html, "<style") {
				t.Error("HTML has scripts, external or non-inline CSS")
			}
			// One link only: the button. The raw URL is text beside it.
			if n := strings.Count(html, "<a "); n != 1 {
				t.Errorf("HTML has %d links, want 1", n)
			}
			// The token appears nowhere but inside the URL.
			for part, s := range map[string]string{"subject": subject, "text": text, "html": html} {
				urls := strings.Count(s, lm.URL) + strings.Count(s, escapedURL)
				if n := strings.Count(s, token); n != urls {
					t.Errorf("%s has the token %d times but the URL %d times", part, n, urls)
				}
			}
		})
	}
}

func TestRenderDetails(t *testing.T) {
	m := newMailer(t)

	t.Run("no name", func(t *testing.T) {
		lm := linkMail()
		lm.Name = ""
		_, text, html, _ := m.Render(lm)
		contains(t, "text", text, "Hello,\n")
		contains(t, "HTML", html, ">Hello,</p>")
		lm.Lang = mail.LangNL
		_, text, _, _ = m.Render(lm)
		contains(t, "text", text, "Goedendag,\n")
	})

	t.Run("winter time", func(t *testing.T) {
		lm := linkMail()
		lm.ExpiresAt = time.Date(2026, 1, 10, 8, 5, 0, 0, time.UTC)
		_, text, _, _ := m.Render(lm)
		contains(t, "text", text, "10 January 2026 at 09:05 CET (Amsterdam time, UTC+01:00)")
	})

	t.Run("language fallback", func(t *testing.T) {
		for lang, want := range map[string]string{"": "Verify", "NL-nl": "Bevestig", "nl_BE": "Bevestig", "de": "Verify"} {
			lm := linkMail()
			lm.Lang = lang
			if subject, _, _, _ := m.Render(lm); !strings.HasPrefix(subject, want) {
				t.Errorf("Lang %q: subject %q, want it to start with %q", lang, subject, want)
			}
		}
	})

	t.Run("line breaks in names", func(t *testing.T) {
		lm := linkMail()
		lm.TenantName = "Acme\r\nBcc: evil@example.com"
		lm.Name = "Jan\n\tde  Vries"
		subject, text, _, _ := m.Render(lm)
		if subject != "Verify your identity for Acme Bcc: evil@example.com" {
			t.Errorf("subject = %q", subject)
		}
		contains(t, "text", text, "Hello Jan de Vries,")
	})

	t.Run("invalid", func(t *testing.T) {
		lm := mail.LinkMail{Purpose: "passport", URL: "javascript:alert('" + token + "')"}
		_, _, _, err := m.Render(lm)
		if !mail.IsPermanent(err) {
			t.Fatalf("Render: %v, want a permanent error", err)
		}
		for _, field := range []string{"LinkMail.TenantName", `LinkMail.Purpose "passport"`, "LinkMail.URL", "LinkMail.ExpiresAt"} {
			contains(t, "error", err.Error(), field)
		}
		if strings.Contains(err.Error(), token) {
			t.Error("the error quotes the token")
		}
		lm = linkMail()
		lm.URL = "/verify/" + token
		if _, _, _, err := m.Render(lm); err == nil {
			t.Error("Render accepted a relative URL")
		}
	})
}

// A console invitation: its own words, the role, the link, the expiry,
// in both languages; the tenant's name escaped in the HTML.
func TestRenderConsoleInvitation(t *testing.T) {
	m := newMailer(t)
	lm := linkMail()
	lm.Purpose, lm.Role, lm.Name = mail.PurposeConsole, "reviewer", ""
	subject, text, html, err := m.Render(lm)
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "subject", subject, "Your account in Acme <b>&</b> Co's kycflow console")
	contains(t, "text", text, "as reviewer", lm.URL, "17 May 2026 at 14:30 CEST")
	contains(t, "html", html, "Set up my account", "Acme &lt;b&gt;&amp;&lt;/b&gt; Co", "as reviewer")
	if strings.Contains(text, "identity") {
		t.Errorf("an invitation speaks of identity verification: %s", text)
	}
	lm.Lang = mail.LangNL
	subject, text, _, err = m.Render(lm)
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "Dutch subject", subject, "Uw account in de kycflow-console van")
	contains(t, "Dutch text", text, "als reviewer", "17 mei 2026 om 14:30")
}
