// Package kvk reads a company's basic profile from the Dutch Chamber of
// Commerce (Kamer van Koophandel) Handelsregister: Basisprofiel API v1,
// GET {base}/api/v1/basisprofielen/{kvkNummer}, authenticated by an `apikey`
// header. The sandbox subpackage speaks the same protocol on loopback.
//
// Only what KYC needs is kept (names, legal form, dates, main-branch
// addresses); the raw answer is dropped, and shielded ("afgeschermd")
// addresses lose their street parts even if a server sent them.
package kvk

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// DefaultBaseURL is KvK's production API. KvK's test environment (fictitious
// data, public test key, same paths) is TestBaseURL, i.e. the same host
// under /test; KvK's newer APIs (Zoeken v3, Organisatie) test under
// https://api.preprod.kvk.nl instead. Both production and /test are served
// under the "Staat der Nederlanden Private Root CA – G1" chain, which is not
// in every system pool: see NewRootCAs.
const DefaultBaseURL = "https://api.kvk.nl"

// TestBaseURL is KvK's test environment for the Basisprofiel and Zoeken v2 APIs.
const TestBaseURL = "https://api.kvk.nl/test"

// Client calls the Basisprofiel API. The zero value uses DefaultBaseURL.
type Client struct {
	BaseURL string         // e.g. a sandbox URL; "" means DefaultBaseURL
	APIKey  string         // sent as header `apikey`
	HTTP    *http.Client   // nil: a client with Timeout (and RootCAs)
	RootCAs *x509.CertPool // extra roots for the default client; ignored when HTTP is set
	Timeout time.Duration  // per call, for the default client; 0 means 15s

	once sync.Once
	def  *http.Client
}

// NewRootCAs returns the system pool plus the certificates in the given PEM
// files (KvK's private root, for a system that lacks it).
func NewRootCAs(pemFiles ...string) (*x509.CertPool, error) {
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	for _, f := range pemFiles {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("kvk: root CAs: %w", err)
		}
		if !pool.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("kvk: root CAs: no PEM certificate in %s", f)
		}
	}
	return pool, nil
}

// Address is one address of the main branch.
type Address struct {
	Type                string // KvK's value: "bezoekadres" or "correspondentieadres" (postal)
	Street              string // straatnaam ("Postbus" for a PO box)
	HouseNumber         string // huisnummer (the box number for a PO box)
	HouseNumberAddition string // huisnummerToevoeging
	HouseLetter         string // huisletter
	PostalCode          string // postcode
	City                string // plaats
	Country             string // land
	Shielded            bool   // indAfgeschermd == "Ja": street parts and Full are withheld
	Full                string // volledigAdres, whitespace collapsed
}

// Profile is what KYC keeps of a Basisprofiel.
type Profile struct {
	KvKNumber        string
	Name             string   // statutaireNaam if present, else naam
	StatutoryName    string   // statutaireNaam ("" for an eenmanszaak)
	TradeNames       []string // handelsnamen by volgorde
	LegalForm        string   // eigenaar.rechtsvorm, else uitgebreideRechtsvorm
	RegistrationDate string   // formeleRegistratiedatum, else materieleRegistratie.datumAanvang; see isoDate
	Active           bool     // false once materieleRegistratie.datumEinde is set
	EndDate          string   // materieleRegistratie.datumEinde; see isoDate
	Addresses        []Address
}

// ValidNumber reports whether s is a KvK number: exactly 8 ASCII digits.
// KvK numbers carry no check digit, so this is all that can be checked offline.
func ValidNumber(s string) bool {
	if len(s) != 8 {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// maxBody caps what is read of an answer; a basisprofiel is a few KB.
const maxBody = 4 << 20

// Profile fetches the basisprofiel of kvkNumber.
func (c *Client) Profile(ctx context.Context, kvkNumber string) (Profile, error) {
	if !ValidNumber(kvkNumber) {
		return Profile{}, fmt.Errorf("%w: %q", ErrInvalidNumber, kvkNumber)
	}
	base := strings.TrimSuffix(c.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/v1/basisprofielen/"+kvkNumber, nil)
	if err != nil {
		return Profile{}, err
	}
	req.Header.Set("Accept", "application/json")
	if c.APIKey != "" {
		req.Header.Set("apikey", c.APIKey)
	}
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return Profile{}, transportError(ctx.Err(), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		e := transportError(ctx.Err(), err)
		e.Status = resp.StatusCode
		return Profile{}, e
	}
	if resp.StatusCode != http.StatusOK {
		return Profile{}, httpError(resp.StatusCode, resp.Header, body)
	}
	var bp basisprofiel
	if err := json.Unmarshal(body, &bp); err != nil {
		return Profile{}, &Error{Status: resp.StatusCode, Code: "DECODE", Message: "undecodable basisprofiel: " + err.Error(), cause: err}
	}
	// KvK delivers one registration; anything else must not be attributed
	// to the number asked about.
	if bp.KvKNummer != kvkNumber {
		return Profile{}, &Error{Status: resp.StatusCode, Code: "MISMATCH", Message: fmt.Sprintf("asked for %s, got %q", kvkNumber, bp.KvKNummer)}
	}
	return bp.profile(), nil
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	c.once.Do(func() {
		// The default transport's settings (proxy, timeouts), unless a
		// program replaced it with one of another kind.
		t := &http.Transport{Proxy: http.ProxyFromEnvironment}
		if dt, ok := http.DefaultTransport.(*http.Transport); ok {
			t = dt.Clone()
		}
		t.TLSClientConfig = &tls.Config{RootCAs: c.RootCAs, MinVersion: tls.VersionTLS12}
		timeout := c.Timeout
		if timeout <= 0 {
			timeout = 15 * time.Second
		}
		c.def = &http.Client{Timeout: timeout, Transport: t}
	})
	return c.def
}

// The wire shape of GET /api/v1/basisprofielen/{kvkNummer}, as far as used
// (field names from KvK's API Basisprofiel OpenAPI spec and test answers).
type basisprofiel struct {
	KvKNummer               string        `json:"kvkNummer"`
	Naam                    string        `json:"naam"`
	StatutaireNaam          string        `json:"statutaireNaam"`
	FormeleRegistratiedatum string        `json:"formeleRegistratiedatum"`
	MaterieleRegistratie    registratie   `json:"materieleRegistratie"`
	Handelsnamen            []handelsnaam `json:"handelsnamen"`
	Embedded                struct {
		Hoofdvestiging *struct {
			Adressen []adres `json:"adressen"`
		} `json:"hoofdvestiging"`
		Eigenaar *struct {
			Rechtsvorm            string  `json:"rechtsvorm"`
			UitgebreideRechtsvorm string  `json:"uitgebreideRechtsvorm"`
			Adressen              []adres `json:"adressen"`
		} `json:"eigenaar"`
	} `json:"_embedded"`
}

type registratie struct {
	DatumAanvang string `json:"datumAanvang"`
	DatumEinde   string `json:"datumEinde"`
}

type handelsnaam struct {
	Naam     string `json:"naam"`
	Volgorde int    `json:"volgorde"`
}

type adres struct {
	Type                 string     `json:"type"`
	IndAfgeschermd       string     `json:"indAfgeschermd"`
	VolledigAdres        string     `json:"volledigAdres"`
	Straatnaam           string     `json:"straatnaam"`
	Huisnummer           flexString `json:"huisnummer"`
	Huisletter           string     `json:"huisletter"`
	HuisnummerToevoeging string     `json:"huisnummerToevoeging"`
	Postbusnummer        flexString `json:"postbusnummer"`
	Postcode             string     `json:"postcode"`
	Plaats               string     `json:"plaats"`
	StraatHuisnummer     string     `json:"straatHuisnummer"`   // foreign addresses
	PostcodeWoonplaats   string     `json:"postcodeWoonplaats"` // foreign addresses
	Land                 string     `json:"land"`
}

// flexString takes KvK's integer fields (huisnummer, postbusnummer) and
// tolerates them quoted.
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		err := json.Unmarshal(b, &s)
		*f = flexString(strings.TrimSpace(s))
		return err
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	*f = flexString(n.String())
	return nil
}

func (bp *basisprofiel) profile() Profile {
	p := Profile{
		KvKNumber:     bp.KvKNummer,
		StatutoryName: strings.TrimSpace(bp.StatutaireNaam),
		Name:          strings.TrimSpace(bp.Naam),
		EndDate:       isoDate(bp.MaterieleRegistratie.DatumEinde),
	}
	if p.StatutoryName != "" {
		p.Name = p.StatutoryName
	}
	// datumEinde is the registration's end; its presence, not its
	// parseability, is what makes the registration inactive.
	p.Active = strings.TrimSpace(bp.MaterieleRegistratie.DatumEinde) == ""
	if p.RegistrationDate = isoDate(bp.FormeleRegistratiedatum); p.RegistrationDate == "" {
		p.RegistrationDate = isoDate(bp.MaterieleRegistratie.DatumAanvang)
	}
	names := slices.Clone(bp.Handelsnamen)
	slices.SortStableFunc(names, func(a, b handelsnaam) int { return a.Volgorde - b.Volgorde })
	for _, h := range names {
		if n := strings.TrimSpace(h.Naam); n != "" {
			p.TradeNames = append(p.TradeNames, n)
		}
	}
	var adressen []adres
	if hv := bp.Embedded.Hoofdvestiging; hv != nil {
		adressen = hv.Adressen
	}
	if e := bp.Embedded.Eigenaar; e != nil {
		p.LegalForm = strings.TrimSpace(e.Rechtsvorm)
		if p.LegalForm == "" {
			p.LegalForm = strings.TrimSpace(e.UitgebreideRechtsvorm)
		}
		// Without a main branch KvK puts the legal entity's addresses in
		// the eigenaar block (Basisprofiel release 1.2/1.3).
		if bp.Embedded.Hoofdvestiging == nil {
			adressen = e.Adressen
		}
	}
	for _, a := range adressen {
		p.Addresses = append(p.Addresses, a.address())
	}
	return p
}

func (a adres) address() Address {
	out := Address{
		Type:     strings.TrimSpace(a.Type),
		Shielded: strings.EqualFold(strings.TrimSpace(a.IndAfgeschermd), "ja"),
		City:     strings.TrimSpace(a.Plaats),
		Country:  strings.TrimSpace(a.Land),
	}
	if out.City == "" {
		out.City = strings.TrimSpace(a.PostcodeWoonplaats)
	}
	if out.Shielded {
		// Withheld by law (e.g. a sole trader's home): never pass street
		// parts on, whatever the server sent.
		return out
	}
	out.Street = strings.TrimSpace(a.Straatnaam)
	out.HouseNumber = string(a.Huisnummer)
	if out.HouseNumber == "" && a.Postbusnummer != "" {
		if out.Street == "" {
			out.Street = "Postbus"
		}
		out.HouseNumber = string(a.Postbusnummer)
	}
	if out.Street == "" {
		out.Street = strings.TrimSpace(a.StraatHuisnummer)
	}
	out.HouseNumberAddition = strings.TrimSpace(a.HuisnummerToevoeging)
	out.HouseLetter = strings.TrimSpace(a.Huisletter)
	out.PostalCode = strings.TrimSpace(a.Postcode)
	out.Full = strings.Join(strings.Fields(a.VolledigAdres), " ")
	return out
}

// isoDate turns KvK's YYYYMMDD into YYYY-MM-DD. KvK writes unknown parts as
// zeros; those become reduced ISO 8601 precision ("2015-06", "2015"), and
// "00000000" or anything unparsable becomes "".
func isoDate(s string) string {
	s = strings.TrimSpace(s)
	if !ValidNumber(s) {
		return ""
	}
	y, m, d := s[:4], s[4:6], s[6:]
	switch {
	case y == "0000":
		return ""
	case m == "00":
		return y
	case d == "00":
		return y + "-" + m
	}
	if _, err := time.Parse("20060102", s); err != nil {
		return ""
	}
	return y + "-" + m + "-" + d
}
