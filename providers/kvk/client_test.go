package kvk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kycflow/kycflow/providers/kvk"
	"github.com/kycflow/kycflow/providers/kvk/sandbox"
)

// start runs a fresh sandbox over HTTP on loopback with a client holding
// KvK's public test key, so the same client config works against KvK's
// test environment.
func start(t *testing.T) (*sandbox.Server, *httptest.Server, *kvk.Client) {
	t.Helper()
	sb := sandbox.New()
	srv := httptest.NewServer(sb.Handler())
	t.Cleanup(srv.Close)
	return sb, srv, &kvk.Client{BaseURL: srv.URL, APIKey: sandbox.TestAPIKey}
}

func address(p kvk.Profile, typ string) (kvk.Address, bool) {
	for _, a := range p.Addresses {
		if a.Type == typ {
			return a, true
		}
	}
	return kvk.Address{}, false
}

// Each seeded test-environment company, mapped the way KYC needs it.
func TestProfileSeeded(t *testing.T) {
	_, _, c := start(t)
	tests := []struct {
		number string
		check  func(t *testing.T, p kvk.Profile)
	}{
		{"68750110", func(t *testing.T, p kvk.Profile) { // BV, active
			if p.Name != "Test BV Donald" || p.StatutoryName != "Test BV Donald" || !p.Active || p.EndDate != "" {
				t.Errorf("identity: %+v", p)
			}
			if !strings.HasPrefix(p.LegalForm, "Besloten Vennootschap") || p.RegistrationDate != "2017-05-19" {
				t.Errorf("legal form/date: %q %q", p.LegalForm, p.RegistrationDate)
			}
			if !slices.Equal(p.TradeNames, []string{"Test BV Donald", "Test BV Donald Nevenvestiging"}) {
				t.Errorf("trade names: %q", p.TradeNames)
			}
			want := kvk.Address{Type: "bezoekadres", Street: "Hizzaarderlaan", HouseNumber: "3", HouseNumberAddition: "A",
				PostalCode: "8823SJ", City: "Lollum", Country: "Nederland", Full: "Hizzaarderlaan 3 A 8823SJ Lollum"}
			if a, _ := address(p, "bezoekadres"); a != want {
				t.Errorf("visiting address:\n got %+v\nwant %+v", a, want)
			}
			if a, _ := address(p, "correspondentieadres"); a.Street != "Postbus" || a.HouseNumber != "200" || a.City != "Rommeldam" {
				t.Errorf("PO box: %+v", a)
			}
		}},
		{"69599084", func(t *testing.T, p kvk.Profile) { // eenmanszaak: no statutory name
			if p.Name != "Test EMZ Dagobert" || p.StatutoryName != "" || p.LegalForm != "Eenmanszaak" || !p.Active {
				t.Errorf("eenmanszaak: %+v", p)
			}
			if a, ok := address(p, "bezoekadres"); !ok || a.City != "Amsterdam" || a.PostalCode != "1034WL" {
				t.Errorf("address: %+v", p.Addresses)
			}
		}},
		{"96354429", func(t *testing.T, p kvk.Profile) { // Coöperatie, inactive
			if p.Active || p.EndDate != "2023-06-30" || p.LegalForm != "Coöperatie" {
				t.Errorf("inactive: %+v", p)
			}
		}},
		{"90001354", func(t *testing.T, p kvk.Profile) { // BV, shielded visiting address
			a, ok := address(p, "bezoekadres")
			if !ok || !a.Shielded || a.Street != "" || a.HouseNumber != "" || a.PostalCode != "" || a.Full != "" {
				t.Errorf("shielded: %+v", p.Addresses)
			}
			if post, _ := address(p, "correspondentieadres"); post.Shielded || post.HouseNumber == "" {
				t.Errorf("public postal address: %+v", post)
			}
		}},
		{"90004760", func(t *testing.T, p kvk.Profile) { // NV without main branch: addresses from eigenaar
			if p.LegalForm != "Naamloze Vennootschap" || len(p.Addresses) != 2 {
				t.Errorf("NV: %+v", p)
			}
		}},
		{"69599068", func(t *testing.T, p kvk.Profile) {
			if a, _ := address(p, "bezoekadres"); p.LegalForm != "Stichting" || a.Street != "Oosterwal" || a.City != "Lochem" {
				t.Errorf("stichting: %+v", p)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.number, func(t *testing.T) {
			p, err := c.Profile(context.Background(), tt.number)
			if err != nil {
				t.Fatal(err)
			}
			if p.KvKNumber != tt.number {
				t.Fatalf("number %q", p.KvKNumber)
			}
			tt.check(t, p)
		})
	}
}

// A server that sends street parts with indAfgeschermd "Ja" must not get
// them through; trade names follow volgorde, not array order; KvK's zero
// date parts become reduced precision.
func TestProfileDefensiveMapping(t *testing.T) {
	sb, _, c := start(t)
	sb.AddProfile(sandbox.Basisprofiel{
		KvKNummer: "12345670", Naam: "Handelsnaam Eerst", FormeleRegistratiedatum: "20150600",
		MaterieleRegistratie: &sandbox.MaterieleRegistratie{DatumAanvang: "20150600", DatumEinde: "20240000"},
		Handelsnamen:         []sandbox.Handelsnaam{{Naam: "Derde", Volgorde: 2}, {Naam: "Eerste", Volgorde: 0}, {Naam: "Tweede", Volgorde: 1}},
		Embedded: &sandbox.Embedded{
			Hoofdvestiging: &sandbox.Vestiging{Vestigingsnummer: "000000000001", KvKNummer: "12345670", Adressen: []sandbox.Adres{{
				Type: "bezoekadres", IndAfgeschermd: "Ja", Straatnaam: "Geheimstraat", Huisnummer: 1, Huisletter: "b",
				Postcode: "1234AB", Plaats: "Utrecht", VolledigAdres: "Geheimstraat 1b 1234AB Utrecht",
			}}},
			Eigenaar: &sandbox.Eigenaar{UitgebreideRechtsvorm: "Eenmanszaak met meer dan één eigenaar"},
		},
	})
	p, err := c.Profile(context.Background(), "12345670")
	if err != nil {
		t.Fatal(err)
	}
	want := kvk.Address{Type: "bezoekadres", City: "Utrecht", Shielded: true}
	if len(p.Addresses) != 1 || p.Addresses[0] != want {
		t.Errorf("shielded address leaked: %+v", p.Addresses)
	}
	if !slices.Equal(p.TradeNames, []string{"Eerste", "Tweede", "Derde"}) {
		t.Errorf("trade names: %q", p.TradeNames)
	}
	if p.RegistrationDate != "2015-06" || p.EndDate != "2024" || p.Active {
		t.Errorf("dates: %q %q active=%v", p.RegistrationDate, p.EndDate, p.Active)
	}
	if p.LegalForm != "Eenmanszaak met meer dan één eigenaar" {
		t.Errorf("legal form fallback: %q", p.LegalForm)
	}
}

// What each failure looks like to a caller, and whether it is worth retrying.
func TestProfileErrors(t *testing.T) {
	sb, _, c := start(t)
	sb.AddError("11112222", http.StatusNotFound, "IPD1002", "Gegevens tijdelijk niet beschikbaar.")
	tests := []struct {
		name, number string
		client       func(*kvk.Client)
		status       int
		code         string
		retryable    bool
		is           error
	}{
		{"unknown number", "12345678", nil, 404, "IPD0005", false, kvk.ErrNotFound},
		{"error number (final)", "90002903", nil, 400, "IPD1998", false, nil},
		{"error number (technical)", "90004973", nil, 500, "IPD9999", true, nil},
		{"temporarily unavailable despite 404", "11112222", nil, 404, "IPD1002", true, nil},
		{"missing apikey", "68750110", func(c *kvk.Client) { c.APIKey = "" }, 401, "HTTP_401", false, nil},
		{"bad apikey", "68750110", func(c *kvk.Client) { c.APIKey = "not-a-key" }, 401, "HTTP_401", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cc := &kvk.Client{BaseURL: c.BaseURL, APIKey: c.APIKey}
			if tt.client != nil {
				tt.client(cc)
			}
			_, err := cc.Profile(context.Background(), tt.number)
			var e *kvk.Error
			if !errors.As(err, &e) || e.Status != tt.status || e.Code != tt.code || e.Retryable != tt.retryable || kvk.IsRetryable(err) != tt.retryable {
				t.Fatalf("got %v (%+v), want %d %s retryable=%v", err, e, tt.status, tt.code, tt.retryable)
			}
			if e.Message == "" {
				t.Error("no message")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("%v is not %v", err, tt.is)
			}
			if tt.is == nil && errors.Is(err, kvk.ErrNotFound) {
				t.Errorf("%v must not read as not found", err)
			}
		})
	}
}

// Malformed numbers never reach KvK (each call costs money in production).
func TestInvalidNumberMakesNoCall(t *testing.T) {
	sb, _, c := start(t)
	for _, n := range []string{"123", "", "6875011", "687501100", "6875011a", " 68750110", "６８７５０１１０"} {
		if _, err := c.Profile(context.Background(), n); !errors.Is(err, kvk.ErrInvalidNumber) || kvk.IsRetryable(err) {
			t.Errorf("%q: %v", n, err)
		}
		if kvk.ValidNumber(n) {
			t.Errorf("ValidNumber(%q)", n)
		}
	}
	if sb.Calls() != 0 {
		t.Fatalf("sandbox saw %d calls", sb.Calls())
	}
	if !kvk.ValidNumber("68750110") || !kvk.ValidNumber("00000000") {
		t.Fatal("8 digits must be valid")
	}
}

// An outage switched from outside, then ended; calls are counted throughout.
func TestOutage(t *testing.T) {
	sb, srv, c := start(t)
	post := func(body string) {
		t.Helper()
		resp, err := http.Post(srv.URL+"/sandbox/outage", "application/json", strings.NewReader(body))
		if err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("switch %s: %v %v", body, resp, err)
		}
		resp.Body.Close()
	}
	post(`{"status":503,"seconds":60}`)
	_, err := c.Profile(context.Background(), "68750110")
	var e *kvk.Error
	if !errors.As(err, &e) || e.Status != 503 || !e.Retryable || e.RetryAfter != 30*time.Second {
		t.Fatalf("during outage: %v %+v", err, e)
	}
	sb.Fail(http.StatusInternalServerError, time.Minute)
	if _, err := c.Profile(context.Background(), "68750110"); !errors.As(err, &e) || e.Code != "IPD9999" || !e.Retryable {
		t.Fatalf("500: %v", err)
	}
	post(`{"status":0,"seconds":0}`)
	if p, err := c.Profile(context.Background(), "68750110"); err != nil || p.Name != "Test BV Donald" {
		t.Fatalf("after outage: %+v %v", p, err)
	}
	if sb.Calls() != 3 {
		t.Fatalf("calls %d, want 3", sb.Calls())
	}
}

// Latency past the client's timeout is a retryable timeout, whether the
// limit is the http.Client's or the caller's context; a caller who cancels
// is not retried on their behalf.
func TestSlow(t *testing.T) {
	sb, _, c := start(t)
	sb.Slow(2*time.Second, time.Minute)

	short := &kvk.Client{BaseURL: c.BaseURL, APIKey: c.APIKey, HTTP: &http.Client{Timeout: 100 * time.Millisecond}}
	_, err := short.Profile(context.Background(), "68750110")
	var e *kvk.Error
	if !errors.As(err, &e) || e.Code != "TIMEOUT" || !e.Retryable {
		t.Fatalf("client timeout: %v", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := c.Profile(ctx, "68750110"); !errors.As(err, &e) || e.Code != "TIMEOUT" || !kvk.IsRetryable(err) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("context deadline: %v", err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	if _, err := c.Profile(ctx, "68750110"); !errors.As(err, &e) || e.Code != "CANCELED" || kvk.IsRetryable(err) {
		t.Fatalf("canceled: %v", err)
	}

	sb.Slow(0, 0)
	// The client without the 100 ms timeout: on a loaded machine an answer
	// at once can take longer than that.
	if _, err := c.Profile(context.Background(), "68750110"); err != nil {
		t.Fatalf("after slowness: %v", err)
	}
}

func TestConnectionRefusedIsRetryable(t *testing.T) {
	srv := httptest.NewServer(nil)
	url := srv.URL
	srv.Close() // nothing listens any more
	_, err := (&kvk.Client{BaseURL: url, APIKey: "k"}).Profile(context.Background(), "68750110")
	var e *kvk.Error
	if !errors.As(err, &e) || e.Code != "TRANSPORT" || !kvk.IsRetryable(err) {
		t.Fatalf("connection refused: %v", err)
	}
}

// KvK serves a private root: without it TLS fails for good (not retryable);
// with NewRootCAs loading it from PEM, the default client gets through.
func TestRootCAs(t *testing.T) {
	srv := httptest.NewTLSServer(sandbox.New().Handler())
	defer srv.Close()

	_, err := (&kvk.Client{BaseURL: srv.URL, APIKey: sandbox.TestAPIKey}).Profile(context.Background(), "68750110")
	var e *kvk.Error
	if !errors.As(err, &e) || e.Code != "TLS" || kvk.IsRetryable(err) {
		t.Fatalf("unknown root: %v", err)
	}

	file := filepath.Join(t.TempDir(), "root.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(file, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	roots, err := kvk.NewRootCAs(file)
	if err != nil {
		t.Fatal(err)
	}
	c := &kvk.Client{BaseURL: srv.URL, APIKey: sandbox.TestAPIKey, RootCAs: roots}
	if p, err := c.Profile(context.Background(), "68750110"); err != nil || p.Name != "Test BV Donald" {
		t.Fatalf("with root: %+v %v", p, err)
	}

	if _, err := kvk.NewRootCAs(filepath.Join(t.TempDir(), "missing.pem")); err == nil {
		t.Error("missing file accepted")
	}
	empty := filepath.Join(t.TempDir(), "empty.pem")
	os.WriteFile(empty, []byte("not pem"), 0o600)
	if _, err := kvk.NewRootCAs(empty); err == nil {
		t.Error("file without certificates accepted")
	}
}

// The sandbox's wire behaviour beyond what the client uses: KvK's test
// environment path, strict query parameters, invalid numbers, Zoeken v2.
func TestSandboxWire(t *testing.T) {
	_, srv, _ := start(t)
	get := func(path string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		req.Header.Set("apikey", sandbox.TestAPIKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		json.NewDecoder(resp.Body).Decode(&body)
		return resp.StatusCode, body
	}
	foutCode := func(body map[string]any) string {
		list, _ := body["fout"].([]any)
		if len(list) == 0 {
			return ""
		}
		code, _ := list[0].(map[string]any)["code"].(string)
		return code
	}

	// The /test prefix mirrors KvK's test host, so kvk.TestBaseURL-style
	// configs point at the sandbox by changing the host only.
	c := &kvk.Client{BaseURL: srv.URL + "/test", APIKey: sandbox.TestAPIKey}
	if p, err := c.Profile(context.Background(), "69599084"); err != nil || p.Name != "Test EMZ Dagobert" {
		t.Fatalf("/test prefix: %+v %v", p, err)
	}
	if status, body := get("/api/v1/basisprofielen/68750110?geoData=false"); status != 200 || body["kvkNummer"] != "68750110" || body["_embedded"] == nil {
		t.Errorf("geoData=false: %d %v", status, body)
	}
	if status, body := get("/api/v1/basisprofielen/68750110?foo=1"); status != 400 || foutCode(body) != "IPD1999" {
		t.Errorf("unknown parameter: %d %v", status, body)
	}
	if status, body := get("/api/v1/basisprofielen/123"); status != 400 || foutCode(body) != "IPD0004" {
		t.Errorf("invalid number: %d %v", status, body)
	}

	tests := []struct {
		query  string
		status int
		names  []string
	}{
		{"kvkNummer=68750110", 200, []string{"Test BV Donald", "Test BV Donald"}},
		{"naam=dagobert", 200, []string{"Test EMZ Dagobert"}}, // eenmanszaak: branch only
		{"naam=donald&type=hoofdvestiging", 200, []string{"Test BV Donald"}},
		{"kvkNummer=96354429", 404, nil}, // inactive: hidden by default
		{"kvkNummer=96354429&inclusiefInactieveRegistraties=true", 200, []string{"Test Coöperatie De Slapende Molen U.A.", "Test Coöperatie De Slapende Molen U.A."}},
		{"naam=bestaat-niet", 404, nil},
		{"bogus=1", 400, nil},
	}
	for _, tt := range tests {
		status, body := get("/api/v2/zoeken?" + tt.query)
		var got []string
		results, _ := body["resultaten"].([]any)
		for _, r := range results {
			got = append(got, r.(map[string]any)["naam"].(string))
		}
		if status != tt.status || !slices.Equal(got, tt.names) {
			t.Errorf("zoeken?%s: %d %q, want %d %q (%v)", tt.query, status, got, tt.status, tt.names, body)
		}
	}
	// A shielded street never shows in search results either.
	if _, body := get("/api/v2/zoeken?kvkNummer=90001354&type=hoofdvestiging"); bytes.Contains(mustJSON(body), []byte("straatnaam")) {
		t.Errorf("shielded street in search: %v", body)
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
