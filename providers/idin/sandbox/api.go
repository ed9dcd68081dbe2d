package sandbox

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// The directory: fictional banks with identifiers of CM's issuer_id shape,
// in two country groups so that grouping is visible to clients.
var directory = []directoryGroup{
	{Country: "Nederland", Issuers: []issuer{
		{IssuerID: "BANKNL2Y", IssuerName: "Sandbox Bank"},
		{IssuerID: "SNDBNL2A", IssuerName: "Sandbox Spaarbank"},
	}},
	{Country: "België", Issuers: []issuer{
		{IssuerID: "SNDBBE2B", IssuerName: "Sandbox Bank België"},
	}},
}

type directoryGroup struct {
	Country string   `json:"country"`
	Issuers []issuer `json:"issuers"`
}

type issuer struct {
	IssuerID   string `json:"issuer_id"`
	IssuerName string `json:"issuer_name"`
}

// issuerName returns the display name of a directory bank, or "".
func issuerName(id string) string {
	for _, g := range directory {
		for _, is := range g.Issuers {
			if is.IssuerID == id {
				return is.IssuerName
			}
		}
	}
	return ""
}

func (s *Server) directory(w http.ResponseWriter, r *http.Request) {
	var in struct {
		MerchantToken string `json:"merchant_token"`
	}
	if !s.decode(w, r, &in, func() string { return in.MerchantToken }) {
		return
	}
	writeJSON(w, http.StatusOK, directory)
}

// groups are the attribute groups a transaction requested.
type groups struct {
	Identity    bool `json:"identity"`
	Name        bool `json:"name"`
	Gender      bool `json:"gender"`
	Address     bool `json:"address"`
	DateOfBirth bool `json:"date_of_birth"`
	Over18      bool `json:"18y_or_older"`
	Email       bool `json:"email_address"`
	Telephone   bool `json:"telephone_number"`
}

type transactionIn struct {
	MerchantToken string `json:"merchant_token"`
	groups
	IssuerID             string      `json:"issuer_id"`
	EntranceCode         string      `json:"entrance_code"`
	MerchantReturnURL    string      `json:"merchant_return_url"`
	Language             string      `json:"language"`
	TransactionReference string      `json:"transaction_reference"`
	SandboxAttributes    *wirePerson `json:"sandbox_attributes"` // sandbox-only; see the package comment
}

type transactionOut struct {
	TransactionID           string `json:"transaction_id"`
	IssuerAuthenticationURL string `json:"issuer_authentication_url"`
	MerchantReference       string `json:"merchant_reference"`
}

// transaction is one iDIN transaction as the sandbox keeps it.
type transaction struct {
	id, merchantRef, txRef string
	token                  string // the merchant token that started it; others cannot see it
	issuerID, ec           string
	returnURL, language    string
	groups                 groups
	prefill                person // what the bank page offers: defaults, overlaid by sandbox_attributes

	status    string // open, success, cancelled, expired, failure
	person    person // what was disclosed, on success
	delivered bool   // personal data already returned once
	created   time.Time
}

// CM's documented patterns.
var (
	issuerIDPattern     = regexp.MustCompile(`^[A-Z]{6}[A-Z2-9][A-NP-Z0-9]([A-Z0-9]{3})?$`)
	entranceCodePattern = regexp.MustCompile(`^[A-Za-z0-9]{1,40}$`)
)

func (s *Server) transaction(w http.ResponseWriter, r *http.Request) {
	var in transactionIn
	if !s.decode(w, r, &in, func() string { return in.MerchantToken }) {
		return
	}
	var problems []string
	switch {
	case !issuerIDPattern.MatchString(in.IssuerID):
		problems = append(problems, "issuer_id does not match the issuer pattern")
	case issuerName(in.IssuerID) == "":
		problems = append(problems, "issuer_id is not in the directory")
	}
	if !entranceCodePattern.MatchString(in.EntranceCode) {
		problems = append(problems, "entrance_code must be 1 to 40 characters of a-z, A-Z, 0-9")
	}
	// CM falls back to a return URL configured with CM; the sandbox has
	// none, so the field is required here.
	if u, err := url.Parse(in.MerchantReturnURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		problems = append(problems, "merchant_return_url must be an absolute http or https URL")
	}
	if in.Language != "" && in.Language != "nl" && in.Language != "en" {
		problems = append(problems, "language must be nl or en")
	}
	if in.groups == (groups{}) {
		problems = append(problems, "no attributes requested")
	}
	prefill := defaultPerson(in.IssuerID)
	if in.SandboxAttributes != nil {
		prefill = in.SandboxAttributes.overlay(prefill)
		for name, msg := range prefill.check() {
			problems = append(problems, fmt.Sprintf("sandbox_attributes: %s: %s", name, msg))
		}
	}
	if len(problems) > 0 {
		writeError(w, http.StatusBadRequest, strings.Join(problems, "; "))
		return
	}

	tx := &transaction{
		merchantRef: randomString(32, "0123456789abcdef"),
		txRef:       in.TransactionReference,
		token:       in.MerchantToken,
		issuerID:    in.IssuerID,
		ec:          in.EntranceCode,
		returnURL:   in.MerchantReturnURL,
		language:    in.Language,
		groups:      in.groups,
		prefill:     prefill,
		status:      "open",
		created:     time.Now(),
	}
	s.mu.Lock()
	s.prune(tx.created)
	for tx.id == "" || s.txs[tx.id] != nil {
		tx.id = randomString(16, "0123456789") // CM's ids are 16 digits
	}
	s.txs[tx.id] = tx
	base := s.publicURL
	s.mu.Unlock()
	if base == "" {
		base = requestBase(r)
	}
	writeJSON(w, http.StatusOK, transactionOut{
		TransactionID:           tx.id,
		IssuerAuthenticationURL: base + "/bank/" + tx.id,
		MerchantReference:       tx.merchantRef,
	})
}

// keepFor is how long transactions are kept, so a long-running sandbox
// does not grow without bound; real iDIN transactions expire in minutes.
const keepFor = 24 * time.Hour

// prune forgets transactions created more than keepFor before now; the
// caller holds s.mu.
func (s *Server) prune(now time.Time) {
	for id, tx := range s.txs {
		if now.Sub(tx.created) > keepFor {
			delete(s.txs, id)
		}
	}
}

// requestBase is scheme://host of the request, honouring a proxy's
// X-Forwarded-Proto.
func requestBase(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if p := r.Header.Get("X-Forwarded-Proto"); p == "https" || p == "http" {
		scheme = p
	}
	return scheme + "://" + r.Host
}

type statusIn struct {
	MerchantToken     string `json:"merchant_token"`
	TransactionID     string `json:"transaction_id"`
	MerchantReference string `json:"merchant_reference"`
}

type statusOut struct {
	Status               string `json:"status"`
	TransactionID        string `json:"transaction_id"`
	TransactionReference string `json:"transaction_reference,omitempty"`
	IssuerID             string `json:"issuer_id"`
	wirePerson
	Notice     string `json:"notice,omitempty"`
	NoticeCode int    `json:"notice_code,omitempty"`
}

// noticeDelivered is the sandbox's notice_code for "data already
// returned"; CM documents the field but not its values.
const noticeDelivered = 1

func (s *Server) status(w http.ResponseWriter, r *http.Request) {
	var in statusIn
	if !s.decode(w, r, &in, func() string { return in.MerchantToken }) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	tx := s.txs[in.TransactionID]
	// Another merchant's transaction, or a wrong reference, is as unknown
	// as a missing one: the answer must not confirm it exists.
	if tx == nil || tx.token != in.MerchantToken || (in.MerchantReference != "" && in.MerchantReference != tx.merchantRef) {
		writeError(w, http.StatusNotFound, "transaction not found")
		return
	}
	out := statusOut{Status: tx.status, TransactionID: tx.id, TransactionReference: tx.txRef, IssuerID: tx.issuerID}
	if tx.status == "success" {
		if tx.delivered {
			out.Notice = "personal data for this transaction was already returned; start a new transaction to retrieve it again"
			out.NoticeCode = noticeDelivered
		} else {
			out.wirePerson = tx.person.wire(tx.groups, tx.issuerID)
			tx.delivered = true
		}
	}
	writeJSON(w, http.StatusOK, out)
}
