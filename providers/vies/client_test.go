package vies_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kycflow/kycflow/engines/vatnum"
	"github.com/kycflow/kycflow/providers/vies"
	"github.com/kycflow/kycflow/providers/vies/sandbox"
)

// The real client against the sandbox, over HTTP on loopback.
func TestClientAgainstSandbox(t *testing.T) {
	sb := sandbox.New(map[string]sandbox.Trader{"NL123456789B01": {Name: "ACME B.V.", Address: "DAMRAK 1\n1012LG AMSTERDAM"}})
	srv := httptest.NewServer(sb.Handler())
	defer srv.Close()
	c := &vies.Client{BaseURL: srv.URL}
	ctx := context.Background()

	r, err := c.Consult(ctx, vies.Request{CountryCode: "NL", VATNumber: "123456789B01", Requester: &vies.Requester{MemberStateCode: "NL", Number: "999999999B01"}})
	if err != nil || !r.Valid || r.Name != "ACME B.V." || !strings.HasPrefix(r.RequestIdentifier, "WAPI") || r.RequestDate == "" {
		t.Fatalf("registered number: %+v %v", r, err)
	}
	r, err = c.Consult(ctx, vies.Request{CountryCode: "NL", VATNumber: "000000000B01"})
	if err != nil || r.Valid || r.Name != "" || r.RequestIdentifier != "" {
		t.Fatalf("unknown number: %+v %v", r, err)
	}
	if r, err := c.Consult(ctx, vies.Request{CountryCode: "DE", VATNumber: "100"}); err != nil || !r.Valid {
		t.Fatalf("test number 100: %+v %v", r, err)
	}
	if r, err := c.Consult(ctx, vies.Request{CountryCode: "DE", VATNumber: "200"}); err != nil || r.Valid {
		t.Fatalf("test number 200: %+v %v", r, err)
	}
	for number, want := range map[string]struct {
		code      string
		retryable bool
	}{
		"201": {"INVALID_INPUT", false}, "202": {"INVALID_REQUESTER_INFO", false},
		"300": {"SERVICE_UNAVAILABLE", true}, "301": {"MS_UNAVAILABLE", true}, "302": {"TIMEOUT", true},
		"400": {"VAT_BLOCKED", false}, "401": {"IP_BLOCKED", false},
		"500": {"GLOBAL_MAX_CONCURRENT_REQ", true}, "501": {"GLOBAL_MAX_CONCURRENT_REQ_TIME", true},
		"600": {"MS_MAX_CONCURRENT_REQ", true}, "601": {"MS_MAX_CONCURRENT_REQ_TIME", true},
	} {
		_, err := c.Consult(ctx, vies.Request{CountryCode: "DE", VATNumber: number})
		var ve *vies.Error
		if !errors.As(err, &ve) || ve.Code != want.code || ve.Retryable() != want.retryable || vies.IsRetryable(err) != want.retryable {
			t.Errorf("test number %s: %v (retryable %v), want %s (retryable %v)", number, err, vies.IsRetryable(err), want.code, want.retryable)
		}
	}

	// An outage, then recovery.
	sb.Fail("MS_UNAVAILABLE", time.Minute)
	if _, err := c.Consult(ctx, vies.Request{CountryCode: "NL", VATNumber: "123456789B01"}); !vies.IsRetryable(err) {
		t.Fatalf("during outage: %v", err)
	}
	sb.Recover()
	if r, err := c.Consult(ctx, vies.Request{CountryCode: "NL", VATNumber: "123456789B01"}); err != nil || !r.Valid {
		t.Fatalf("after outage: %+v %v", r, err)
	}
	if sb.Calls() < 15 {
		t.Fatalf("sandbox saw %d calls", sb.Calls())
	}
}

func TestClientTransportFailureIsRetryable(t *testing.T) {
	srv := httptest.NewServer(nil)
	url := srv.URL
	srv.Close() // nothing listens any more
	_, err := (&vies.Client{BaseURL: url}).Consult(context.Background(), vies.Request{CountryCode: "NL", VATNumber: "1"})
	if !vies.IsRetryable(err) {
		t.Fatalf("connection refused: %v", err)
	}
}

// The test service path, and the demo register's numbers pass the offline check.
func TestTestServiceAndDemoTraders(t *testing.T) {
	srv := httptest.NewServer(sandbox.New(sandbox.DemoTraders).Handler())
	defer srv.Close()
	c := &vies.Client{BaseURL: srv.URL}
	if r, err := c.Consult(context.Background(), vies.Request{CountryCode: "NL", VATNumber: "100", TestService: true}); err != nil || !r.Valid {
		t.Fatalf("test service 100: %+v %v", r, err)
	}
	for in, want := range map[string]string{"DE301": "DE/301", "nl 100": "NL/100", "301": "EL/301", "NL854750137B01": "", "XX100": "", "NL1000": ""} {
		n, ok := vatnum.TestServiceNumber(in, "GR")
		if got := n.CountryCode + "/" + n.Number; ok != (want != "") || (ok && got != want) {
			t.Errorf("TestServiceNumber(%q) = %s %v, want %q", in, got, ok, want)
		}
	}
	for number, trader := range sandbox.DemoTraders {
		n, err := vatnum.Validate(number, "")
		if err != nil {
			t.Fatalf("%s: %v", number, err)
		}
		r, err := c.Consult(context.Background(), vies.Request{CountryCode: n.CountryCode, VATNumber: n.Number})
		if err != nil || !r.Valid || r.Name != trader.Name {
			t.Fatalf("%s: %+v %v", number, r, err)
		}
	}
}
