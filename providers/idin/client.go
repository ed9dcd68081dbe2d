package idin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// ProductionBaseURL is CM's iDIN API as its published clients address it.
// CM's current docs write the same paths under https://api.cm.com/idin/v1.0;
// use whichever host CM's contract names.
const ProductionBaseURL = "https://idin.cmtelecom.com/idin/v1.0"

// TestBaseURL is CM's test environment: the same paths under /test, with
// a simulated bank and dummy data (https://api.cm.com/idin/v1.0/test on
// the newer host).
const TestBaseURL = "https://idin.cmtelecom.com/idin/v1.0/test"

// defaultTimeout bounds a call made with the default HTTP client.
const defaultTimeout = 15 * time.Second

// maxBody caps what is read of an answer; CM's are a few KB.
const maxBody = 1 << 20

// Client calls CM.com's iDIN API. It is safe for concurrent use.
type Client struct {
	BaseURL       string       // "" means ProductionBaseURL; e.g. TestBaseURL or a sandbox URL
	MerchantToken string       // CM's merchant_token (a GUID), sent in each request body; keep it secret
	HTTP          *http.Client // nil: a client with a 15 s timeout
}

var _ Broker = (*Client)(nil)

// Issuers returns CM's directory, flattened in CM's order, each bank
// tagged with the country group it is listed under.
func (c *Client) Issuers(ctx context.Context) ([]Issuer, error) {
	var groups []directoryGroup
	if err := c.call(ctx, "directory", directoryRequest{MerchantToken: c.MerchantToken}, &groups); err != nil {
		return nil, err
	}
	var out []Issuer
	for _, g := range groups {
		for _, is := range g.Issuers {
			if is.IssuerID == "" {
				continue
			}
			out = append(out, Issuer{ID: is.IssuerID, Name: is.IssuerName, Country: g.Country})
		}
	}
	return out, nil
}

// Start validates req, then starts a transaction at CM.
func (c *Client) Start(ctx context.Context, req StartRequest) (Transaction, error) {
	const op = "transaction"
	if err := req.Validate(); err != nil {
		return Transaction{}, err
	}
	lang := req.Language
	if lang == "" {
		lang = "nl"
	}
	in := transactionRequest{
		MerchantToken:        c.MerchantToken,
		Identity:             req.Attributes.Identity,
		Name:                 req.Attributes.Name,
		Gender:               req.Attributes.Gender,
		Address:              req.Attributes.Address,
		DateOfBirth:          req.Attributes.DateOfBirth,
		Over18:               req.Attributes.Over18,
		EmailAddress:         req.Attributes.Email,
		TelephoneNumber:      req.Attributes.Telephone,
		IssuerID:             req.IssuerID,
		EntranceCode:         req.EntranceCode,
		MerchantReturnURL:    req.ReturnURL,
		Language:             lang,
		TransactionReference: req.MerchantReference,
	}
	var out transactionResponse
	if err := c.call(ctx, op, in, &out); err != nil {
		return Transaction{}, err
	}
	id := strings.TrimSpace(string(out.TransactionID))
	if !validTransactionID(id) {
		return Transaction{}, &Error{Op: op, Status: http.StatusOK, Code: "DECODE", Message: "answer has no usable transaction_id"}
	}
	// The person's browser is sent here: anything but an absolute web
	// URL (javascript:, a relative path) must not reach a redirect.
	u, err := url.Parse(out.IssuerAuthenticationURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return Transaction{}, &Error{Op: op, Status: http.StatusOK, Code: "DECODE", Message: "issuer_authentication_url is not an absolute http(s) URL"}
	}
	return Transaction{ID: id, RedirectURL: out.IssuerAuthenticationURL, MerchantReference: out.MerchantReference}, nil
}

// Status asks CM where transactionID stands. It sends no merchant
// reference, as CM's own client does; use StatusWithReference where CM
// requires one.
func (c *Client) Status(ctx context.Context, transactionID string) (Result, error) {
	return c.StatusWithReference(ctx, transactionID, "")
}

// StatusWithReference is Status sending Transaction.MerchantReference
// along, as CM's current docs ask ("" sends none).
func (c *Client) StatusWithReference(ctx context.Context, transactionID, merchantReference string) (Result, error) {
	const op = "status"
	if !validTransactionID(transactionID) {
		return Result{}, invalid(op, "transaction id must be 1 to 128 printable characters")
	}
	var out statusResponse
	in := statusRequest{MerchantToken: c.MerchantToken, TransactionID: transactionID, MerchantReference: merchantReference}
	if err := c.call(ctx, op, in, &out); err != nil {
		return Result{}, err
	}
	// An answer about another transaction must not be attributed to this one.
	if got := strings.TrimSpace(string(out.TransactionID)); got != "" && got != transactionID {
		return Result{}, &Error{Op: op, Status: http.StatusOK, Code: "MISMATCH", Message: fmt.Sprintf("asked for transaction %s, got %q", transactionID, got)}
	}
	st, ok := parseStatus(out.Status)
	if !ok {
		return Result{}, &Error{Op: op, Status: http.StatusOK, Code: "DECODE", Message: fmt.Sprintf("unknown status %q", out.Status)}
	}
	res := Result{
		TransactionID: transactionID,
		Status:        st,
		IssuerID:      out.IssuerID,
		Reference:     out.TransactionReference,
		Notice:        strings.TrimSpace(out.Notice),
	}
	if res.Notice != "" && out.NoticeCode != "" {
		res.Notice = fmt.Sprintf("%s (notice_code %s)", res.Notice, out.NoticeCode)
	}
	// Data only counts on success: a broker that sent some with another
	// status would otherwise turn a cancelled check into evidence.
	if st == StatusSuccess {
		res.Attributes = out.attributes()
	}
	return res, nil
}

// call POSTs in as JSON to {base}/{op} and decodes a 2xx answer into out.
func (c *Client) call(ctx context.Context, op string, in, out any) error {
	if strings.TrimSpace(c.MerchantToken) == "" {
		return &Error{Op: op, Code: "CONFIG", Message: "no merchant token configured"}
	}
	base := strings.TrimSuffix(c.BaseURL, "/")
	if base == "" {
		base = ProductionBaseURL
	}
	body, err := json.Marshal(in)
	if err != nil {
		return &Error{Op: op, Code: "CONFIG", Message: "cannot encode request: " + err.Error()}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/"+op, bytes.NewReader(body))
	if err != nil {
		return &Error{Op: op, Code: "CONFIG", Message: c.redact(err.Error())}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "kycflow-idin/1")
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return transportError(op, ctx.Err(), err, c.redact)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		e := transportError(op, ctx.Err(), err, c.redact)
		e.Status = resp.StatusCode
		return e
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return httpError(op, resp.StatusCode, resp.Header, data, c.redact)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return &Error{Op: op, Status: resp.StatusCode, Code: "DECODE", Message: "undecodable answer: " + c.redact(err.Error()), cause: err}
	}
	return nil
}

// httpClient is c.HTTP (or a default) that does not follow redirects: the
// token travels in the body, and a 307/308 would resend it to wherever the
// redirect points. A redirect is reported as an HTTP_3xx error instead.
func (c *Client) httpClient() *http.Client {
	hc := http.Client{Timeout: defaultTimeout}
	if c.HTTP != nil {
		hc = *c.HTTP
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &hc
}

// redact removes the merchant token from text that came from elsewhere.
func (c *Client) redact(s string) string {
	if t := strings.TrimSpace(c.MerchantToken); t != "" {
		s = strings.ReplaceAll(s, t, "[merchant token]")
	}
	return s
}
