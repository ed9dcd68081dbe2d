package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kycflow/kycflow/providers/mail/sink"
	"github.com/kycflow/kycflow/workflows"
)

// STARTTLS is mandatory for link mails: while the mail server does not
// offer it (as when an attacker strips the offer), nothing is sent, in clear
// or otherwise, and the check waits rather than fails; once the server
// offers it, the mail goes out over TLS and the check carries on.
func TestLinkMailWaitsForSTARTTLS(t *testing.T) {
	const to = "tls.wait@example.nl"
	env.mail.SetSTARTTLS(false)
	t.Cleanup(func() { env.mail.SetSTARTTLS(true) })
	left := env.mail.LeftWithoutTLS()
	r := request(t, env.a, http.MethodPost, "/api/v1/customers/create", map[string]any{
		"name": "Tess Wait", "email": to, "country_code": "NLD",
		"checks": map[string]bool{"idin": false, "idscan": true, "iban": false},
	}).want(t, http.StatusCreated)
	id := r.body["id"].(string)
	checkID := mustUUID(t, fmt.Sprint(customerCheck(t, env.a, id)["id"]))
	// An attempt was made and refused, not merely nothing sent yet: the
	// check's mail step failed on the missing offer, and the mail server
	// saw a session end without a message where it offered no STARTTLS.
	// (Within the harness's 25 s provider retry window, after which the
	// check would fail.)
	eventually(t, 15*time.Second, "a refused attempt to send the link mail", func() bool {
		d, err := env.client.DescribeWorkflowExecution(t.Context(), workflows.WorkflowID(checkID), "")
		if err != nil { // not started yet
			return false
		}
		for _, pa := range d.PendingActivities {
			for f := pa.LastFailure; f != nil; f = f.Cause {
				if strings.Contains(f.Message, "STARTTLS") {
					return env.mail.LeftWithoutTLS() > left
				}
			}
		}
		return false
	})
	if st := customerCheck(t, env.a, id)["status"]; st != "queued" && st != "running" {
		t.Fatalf("check %s after a refused attempt, want it waiting (queued or running)", st)
	}
	for _, m := range env.mail.Messages() {
		if slices.Contains(m.To, to) {
			t.Fatalf("a mail was sent without STARTTLS: %+v", m)
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
