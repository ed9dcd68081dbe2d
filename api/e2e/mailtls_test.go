package e2e

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/kycflow/kycflow/providers/mail/sink"
)

// STARTTLS is mandatory for link mails: while the mail server does not
// offer it (as when an attacker strips the offer), nothing is sent, in clear
// or otherwise, and the check waits rather than fails; once the server
// offers it, the mail goes out over TLS and the check carries on.
func TestLinkMailWaitsForSTARTTLS(t *testing.T) {
	const to = "tls.wait@example.nl"
	env.mail.SetSTARTTLS(false)
	t.Cleanup(func() { env.mail.SetSTARTTLS(true) })
	r := request(t, env.a, http.MethodPost, "/api/v1/customers/create", map[string]any{
		"name": "Tess Wait", "email": to, "country_code": "NLD",
		"checks": map[string]bool{"idin": false, "idscan": true, "iban": false},
	}).want(t, http.StatusCreated)
	id := r.body["id"].(string)
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		switch st := customerCheck(t, env.a, id)["status"]; st {
		case "queued", "running":
		default:
			t.Fatalf("check %s while the mail server offers no STARTTLS, want it waiting (queued or running)", st)
		}
		for _, m := range env.mail.Messages() {
			if slices.Contains(m.To, to) {
				t.Fatalf("a mail was sent without STARTTLS: %+v", m)
			}
		}
	}
	env.mail.SetSTARTTLS(true)
	waitStatus(t, env.a, id, "awaiting_input")
	m, err := env.mail.Wait(t.Context(), func(m sink.Message) bool { return slices.Contains(m.To, to) })
	if err != nil {
		t.Fatal(err)
	}
	if !m.TLS {
		t.Fatal("the link mail did not come over TLS")
	}
}
