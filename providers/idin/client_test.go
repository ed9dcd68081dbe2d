package idin_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kycflow/kycflow/providers/idin"
	"github.com/kycflow/kycflow/providers/idin/sandbox"
)

// start runs a fresh sandbox on loopback and a client pointed at it the
// way it would point at CM's test environment.
func start(t *testing.T) (*sandbox.Server, *httptest.Server, *idin.Client) {
	t.Helper()
	sb := sandbox.New()
	srv := httptest.NewServer(sb.Handler())
	t.Cleanup(srv.Close)
	return sb, srv, &idin.Client{BaseURL: srv.URL + sandbox.BasePath, MerchantToken: sandbox.TestMerchantToken}
}

// everything requests every attribute group.
var everything = idin.AttributeGroups{Identity: true, Name: true, Gender: true, Address: true,
	DateOfBirth: true, Over18: true, Email: true, Telephone: true}

func request(returnURL string, groups idin.AttributeGroups) idin.StartRequest {
	return idin.StartRequest{
		IssuerID:          "BANKNL2Y",
		EntranceCode:      "ec4check42",
		MerchantReference: "check-42",
		ReturnURL:         returnURL,
		Language:          "en",
		Attributes:        groups,
	}
}

// browser acts as the person's browser, without following the bank's
// redirect so the test can read it.
var browser = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// atBank opens the bank page like a browser and submits form (an outcome
// and any attribute fields), returning the bank's redirect target.
func atBank(t *testing.T, redirectURL string, form url.Values) *url.URL {
	t.Helper()
	resp, err := browser.Get(redirectURL)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), "SANDBOX BANK") {
		t.Fatalf("bank page: %d\n%s", resp.StatusCode, page)
	}
	resp, err = browser.PostForm(redirectURL, form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("bank submit: %d, want 303", resp.StatusCode)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestIssuers(t *testing.T) {
	_, _, c := start(t)
	got, err := c.Issuers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []idin.Issuer{
		{ID: "BANKNL2Y", Name: "Sandbox Bank", Country: "Nederland"},
		{ID: "SNDBNL2A", Name: "Sandbox Spaarbank", Country: "Nederland"},
		{ID: "SNDBBE2B", Name: "Sandbox Bank België", Country: "België"},
	}
	if len(got) != len(want) {
		t.Fatalf("issuers: %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("issuer %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// The whole flow: start, open before the person acts, the bank page, the
// return with trxid and ec, success with the edited attributes, and the
// data only once.
func TestFlowSuccess(t *testing.T) {
	_, srv, c := start(t)
	ctx := context.Background()
	tx, err := c.Start(ctx, request("https://kyc.example/idin/return?check=42", everything))
	if err != nil {
		t.Fatal(err)
	}
	if tx.ID == "" || tx.MerchantReference == "" || !strings.HasPrefix(tx.RedirectURL, srv.URL+"/bank/") {
		t.Fatalf("transaction: %+v", tx)
	}

	res, err := c.Status(ctx, tx.ID)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != idin.StatusOpen || res.Attributes != nil || res.Status.Final() {
		t.Fatalf("before the bank: %+v", res)
	}

	back := atBank(t, tx.RedirectURL, url.Values{
		"outcome":       {"success"},
		"last_name":     {"Jansen"},
		"date_of_birth": {"1970-00-00"}, // partly unknown, as iDIN allows
		"gender":        {"female"},
		"house_number":  {"7"},
	})
	if back.Host != "kyc.example" || back.Path != "/idin/return" {
		t.Errorf("returned to %s", back)
	}
	q := back.Query()
	if q.Get("trxid") != tx.ID || q.Get("ec") != "ec4check42" || q.Get("check") != "42" {
		t.Errorf("return query %q", back.RawQuery)
	}

	res, err = c.StatusWithReference(ctx, tx.ID, tx.MerchantReference)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != idin.StatusSuccess || res.Attributes == nil || res.TransactionID != tx.ID ||
		res.IssuerID != "BANKNL2Y" || res.Reference != "check-42" {
		t.Fatalf("after the bank: %+v", res)
	}
	a := *res.Attributes
	if !strings.HasPrefix(a.BIN, "NLBANK") || a.Initials != "JP" || a.LegalLastName != "Jansen" ||
		a.LegalLastNamePrefix != "van den" || a.DateOfBirth != "1970-00-00" || a.Gender != idin.GenderFemale ||
		a.Street != "Sandboxstraat" || a.HouseNumber != "7" || a.HouseNumberSuffix != "B" ||
		a.PostalCode != "9999ZZ" || a.City != "Testdorp" || a.CountryCode != "NL" ||
		a.Is18OrOlder == nil || !*a.Is18OrOlder || a.Email == "" || a.Telephone != "+31612345678" {
		t.Errorf("attributes: %+v", a)
	}

	// CM returns personal data once.
	again, err := c.Status(ctx, tx.ID)
	if err != nil {
		t.Fatal(err)
	}
	if again.Status != idin.StatusSuccess || again.Attributes != nil || again.Notice == "" {
		t.Errorf("second status: %+v", again)
	}
}

// Only the requested groups come back: an age check sees 18+ and nothing
// else (the BIN CM always sends is then a throwaway).
func TestOnlyRequestedAttributes(t *testing.T) {
	_, _, c := start(t)
	ctx := context.Background()
	tx, err := c.Start(ctx, request("https://kyc.example/r", idin.AttributeGroups{Over18: true}))
	if err != nil {
		t.Fatal(err)
	}
	atBank(t, tx.RedirectURL, url.Values{"outcome": {"success"}, "18y_or_older": {"no"}})
	res, err := c.Status(ctx, tx.ID)
	if err != nil {
		t.Fatal(err)
	}
	a := res.Attributes
	if a == nil || a.Is18OrOlder == nil || *a.Is18OrOlder {
		t.Fatalf("attributes: %+v", a)
	}
	if a.LegalLastName != "" || a.DateOfBirth != "" || a.Street != "" || a.Email != "" || a.Gender != "" {
		t.Errorf("unrequested data delivered: %+v", a)
	}
}

func TestFlowOtherOutcomes(t *testing.T) {
	_, _, c := start(t)
	ctx := context.Background()
	for _, want := range []idin.Status{idin.StatusCancelled, idin.StatusExpired, idin.StatusFailure} {
		t.Run(string(want), func(t *testing.T) {
			tx, err := c.Start(ctx, request("https://kyc.example/r", everything))
			if err != nil {
				t.Fatal(err)
			}
			back := atBank(t, tx.RedirectURL, url.Values{"outcome": {string(want)}})
			if back.Query().Get("trxid") != tx.ID || back.Query().Get("ec") != "ec4check42" {
				t.Errorf("return %s", back)
			}
			res, err := c.Status(ctx, tx.ID)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != want || !res.Status.Final() || res.Attributes != nil {
				t.Errorf("status: %+v", res)
			}
		})
	}
}

// An outage is retryable and ends when the sandbox recovers, whether
// switched from Go or over HTTP.
func TestOutageRetryable(t *testing.T) {
	sb, srv, c := start(t)
	ctx := context.Background()
	for _, status := range []int{http.StatusServiceUnavailable, http.StatusInternalServerError, http.StatusTooManyRequests} {
		sb.Fail(status, time.Minute)
		_, err := c.Issuers(ctx)
		var e *idin.Error
		if !errors.As(err, &e) || e.Status != status || !idin.IsRetryable(err) {
			t.Errorf("outage %d: %v", status, err)
		}
	}
	sb.Recover()
	if _, err := c.Issuers(ctx); err != nil {
		t.Fatalf("after recover: %v", err)
	}

	resp, err := http.Post(srv.URL+"/sandbox/outage", "application/json", strings.NewReader(`{"status":503,"seconds":60}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, err := c.Start(ctx, request("https://kyc.example/r", everything)); !idin.IsRetryable(err) {
		t.Errorf("start during outage: %v", err)
	}
	if _, err := c.Status(ctx, "1234567890123456"); !idin.IsRetryable(err) {
		t.Errorf("status during outage: %v", err)
	}
	sb.Recover()
	if sb.Calls() != 6 {
		t.Errorf("calls = %d, want 6", sb.Calls())
	}
}

func TestBadMerchantTokenFinal(t *testing.T) {
	_, srv, _ := start(t)
	const wrong = "0badbad0-0000-4000-8000-000000000000"
	c := &idin.Client{BaseURL: srv.URL + sandbox.BasePath, MerchantToken: wrong}
	_, err := c.Issuers(context.Background())
	var e *idin.Error
	if !errors.As(err, &e) || e.Status != http.StatusForbidden || idin.IsRetryable(err) || !errors.Is(err, idin.ErrUnauthorized) {
		t.Fatalf("got %v", err)
	}
	if strings.Contains(err.Error(), wrong) {
		t.Errorf("error leaks the token: %v", err)
	}
}

func TestUnknownTransactionFinal(t *testing.T) {
	_, _, c := start(t)
	ctx := context.Background()
	_, err := c.Status(ctx, "9999999999999999")
	if !errors.Is(err, idin.ErrNotFound) || idin.IsRetryable(err) {
		t.Errorf("unknown: %v", err)
	}
	// A wrong merchant reference does not reveal the transaction either.
	tx, err := c.Start(ctx, request("https://kyc.example/r", everything))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.StatusWithReference(ctx, tx.ID, "not-the-reference"); !errors.Is(err, idin.ErrNotFound) {
		t.Errorf("wrong reference: %v", err)
	}
}

// A transaction is visible only to the merchant token that started it.
func TestOtherMerchantCannotSeeTransaction(t *testing.T) {
	sb := sandbox.New("merchant-a", "merchant-b")
	srv := httptest.NewServer(sb.Handler())
	defer srv.Close()
	a := &idin.Client{BaseURL: srv.URL + sandbox.BasePath, MerchantToken: "merchant-a"}
	b := &idin.Client{BaseURL: srv.URL + sandbox.BasePath, MerchantToken: "merchant-b"}
	ctx := context.Background()
	tx, err := a.Start(ctx, request("https://kyc.example/r", everything))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Status(ctx, tx.ID); !errors.Is(err, idin.ErrNotFound) {
		t.Errorf("other merchant: %v", err)
	}
	if _, err := a.Status(ctx, tx.ID); err != nil {
		t.Errorf("own merchant: %v", err)
	}
	// New with tokens accepts exactly those.
	d := &idin.Client{BaseURL: srv.URL + sandbox.BasePath, MerchantToken: sandbox.TestMerchantToken}
	if _, err := d.Issuers(ctx); !errors.Is(err, idin.ErrUnauthorized) {
		t.Errorf("default token on a sandbox with its own tokens: %v", err)
	}
}

func TestStartValidation(t *testing.T) {
	sb, _, c := start(t)
	ok := request("https://kyc.example/r", everything)
	tests := []struct {
		name   string
		change func(*idin.StartRequest)
		want   string
	}{
		{"issuer", func(r *idin.StartRequest) { r.IssuerID = "bank" }, "issuer id"},
		{"empty entrance code", func(r *idin.StartRequest) { r.EntranceCode = "" }, "entrance code"},
		{"entrance code charset", func(r *idin.StartRequest) { r.EntranceCode = "abc-def" }, "entrance code"},
		{"entrance code length", func(r *idin.StartRequest) { r.EntranceCode = strings.Repeat("a", 41) }, "entrance code"},
		{"return URL missing", func(r *idin.StartRequest) { r.ReturnURL = "" }, "return URL is required"},
		{"return URL relative", func(r *idin.StartRequest) { r.ReturnURL = "/idin/return" }, "absolute http or https"},
		{"return URL scheme", func(r *idin.StartRequest) { r.ReturnURL = "javascript:alert(1)" }, "absolute http or https"},
		{"return URL has trxid", func(r *idin.StartRequest) { r.ReturnURL = "https://kyc.example/r?trxid=1" }, "trxid or ec"},
		{"return URL credentials", func(r *idin.StartRequest) { r.ReturnURL = "https://u:p@kyc.example/r" }, "credentials"},
		{"language", func(r *idin.StartRequest) { r.Language = "de" }, "language"},
		{"reference", func(r *idin.StartRequest) { r.MerchantReference = "has space" }, "merchant reference"},
		{"no attributes", func(r *idin.StartRequest) { r.Attributes = idin.AttributeGroups{} }, "at least one attribute"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ok
			tt.change(&r)
			_, err := c.Start(context.Background(), r)
			if !errors.Is(err, idin.ErrInvalidRequest) || idin.IsRetryable(err) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an invalid request about %q", err, tt.want)
			}
		})
	}
	if err := ok.Validate(); err != nil {
		t.Errorf("valid request: %v", err)
	}
	if sb.Calls() != 0 {
		t.Errorf("invalid requests reached the broker: %d calls", sb.Calls())
	}
	if _, err := c.Status(context.Background(), ""); !errors.Is(err, idin.ErrInvalidRequest) {
		t.Errorf("empty transaction id: %v", err)
	}
}

func TestTransportErrorsRetryable(t *testing.T) {
	// Nothing listens any more: connection refused.
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close()
	c := &idin.Client{BaseURL: base, MerchantToken: sandbox.TestMerchantToken}
	_, err := c.Issuers(context.Background())
	var e *idin.Error
	if !errors.As(err, &e) || e.Code != "TRANSPORT" || !idin.IsRetryable(err) {
		t.Errorf("refused: %v", err)
	}

	// A broker slower than the client's timeout.
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(release)
	c = &idin.Client{BaseURL: slow.URL, MerchantToken: sandbox.TestMerchantToken, HTTP: &http.Client{Timeout: 50 * time.Millisecond}}
	_, err = c.Issuers(context.Background())
	if !errors.As(err, &e) || e.Code != "TIMEOUT" || !idin.IsRetryable(err) {
		t.Errorf("timeout: %v", err)
	}

	// The caller cancelling is not a reason to retry.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Issuers(ctx); !errors.As(err, &e) || e.Code != "CANCELED" || idin.IsRetryable(err) {
		t.Errorf("canceled: %v", err)
	}
}

// Whatever a broker or gateway says back, the merchant token does not
// reach an error message.
func TestErrorsNeverContainToken(t *testing.T) {
	const token = "5ec2e7aa-1111-4222-8333-444455556666"
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"status":400,"code":17,"message":"bad request ` + strings.ReplaceAll(string(body), `"`, `'`) + `"}`))
	}))
	defer echo.Close()
	c := &idin.Client{BaseURL: echo.URL, MerchantToken: token}
	_, err := c.Issuers(context.Background())
	var e *idin.Error
	if !errors.As(err, &e) || e.Code != "17" || idin.IsRetryable(err) {
		t.Fatalf("got %v", err)
	}
	if strings.Contains(err.Error(), token) || !strings.Contains(err.Error(), "[merchant token]") {
		t.Errorf("token not redacted: %v", err)
	}
}

// A redirect is not followed, so the token in the body is not resent to
// wherever it points.
func TestRedirectNotFollowed(t *testing.T) {
	var leaked atomic.Bool
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { leaked.Store(true) }))
	defer elsewhere.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/directory", http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	c := &idin.Client{BaseURL: redirector.URL, MerchantToken: sandbox.TestMerchantToken, HTTP: &http.Client{}}
	_, err := c.Issuers(context.Background())
	var e *idin.Error
	if !errors.As(err, &e) || e.Status != http.StatusTemporaryRedirect || idin.IsRetryable(err) {
		t.Errorf("got %v", err)
	}
	if leaked.Load() {
		t.Error("the request was resent to the redirect target")
	}
}

func TestNoToken(t *testing.T) {
	sb, srv, _ := start(t)
	c := &idin.Client{BaseURL: srv.URL + sandbox.BasePath}
	_, err := c.Issuers(context.Background())
	var e *idin.Error
	if !errors.As(err, &e) || e.Code != "CONFIG" || idin.IsRetryable(err) || sb.Calls() != 0 {
		t.Errorf("got %v (calls %d)", err, sb.Calls())
	}
}

// Answers that cannot be trusted are final errors, not data.
func TestUnusableAnswers(t *testing.T) {
	tests := []struct {
		name, body, code string
		call             func(*idin.Client) error
	}{
		{"unknown status", `{"status":"done","transaction_id":"1"}`, "DECODE",
			func(c *idin.Client) error { _, err := c.Status(context.Background(), "1"); return err }},
		{"other transaction", `{"status":"success","transaction_id":"2","bin":"NLBANKx"}`, "MISMATCH",
			func(c *idin.Client) error { _, err := c.Status(context.Background(), "1"); return err }},
		{"script redirect", `{"transaction_id":"1","issuer_authentication_url":"javascript:alert(1)","merchant_reference":"m"}`, "DECODE",
			func(c *idin.Client) error {
				_, err := c.Start(context.Background(), request("https://kyc.example/r", everything))
				return err
			}},
		{"not JSON", `<html>oops</html>`, "DECODE",
			func(c *idin.Client) error { _, err := c.Issuers(context.Background()); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			err := tt.call(&idin.Client{BaseURL: srv.URL, MerchantToken: "t"})
			var e *idin.Error
			if !errors.As(err, &e) || e.Code != tt.code || idin.IsRetryable(err) {
				t.Errorf("got %v, want a final %s error", err, tt.code)
			}
		})
	}
}
