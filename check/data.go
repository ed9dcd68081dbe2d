package check

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"slices"
)

// The public `data` of each check type, as the API returns it and
// docs/openapi.yaml documents it: activities write these, nothing else
// defines them.

// Outcomes of coc and vat checks (data.outcome).
const (
	OutcomeChecked            = "checked"             // the register was consulted
	OutcomeUnsupportedCountry = "unsupported_country" // no register integrated: validated null
	OutcomeRejectedOffline    = "rejected_offline"    // vat: failed the offline check, VIES not asked
)

// Reasons a coc check is not validated (data.reason).
const (
	ReasonNotRegistered = "not_registered"
	ReasonInactive      = "inactive"
	ReasonNameMismatch  = "name_mismatch"
	ReasonInvalidNumber = "invalid_number"
)

// CoCData is the `data` of a coc check (see docs/openapi.yaml).
type CoCData struct {
	Outcome          string      `json:"outcome"`
	Reason           *string     `json:"reason"`
	Message          *string     `json:"message"`
	KvKNumber        *string     `json:"kvk_number"`
	RegisteredName   *string     `json:"registered_name"`
	StatutoryName    *string     `json:"statutory_name"`
	TradeNames       []string    `json:"trade_names"`
	LegalForm        *string     `json:"legal_form"`
	RegistrationDate *string     `json:"registration_date"`
	Active           *bool       `json:"active"`
	EndDate          *string     `json:"end_date"`
	Address          *CoCAddress `json:"address"`
	NameMatchScore   *float64    `json:"name_match_score"`
	MatchedName      *string     `json:"matched_name"`
}

// MarshalJSON writes trade_names as [] when there are none, as documented
// (an array, never null), whichever way the data was built.
func (d CoCData) MarshalJSON() ([]byte, error) {
	type plain CoCData
	if d.TradeNames == nil {
		d.TradeNames = []string{}
	}
	return json.Marshal(plain(d))
}

// CoCAddress is the register's address of the main branch. A shielded
// address (indAfgeschermd) carries no street parts and is not copied onto
// the business.
type CoCAddress struct {
	Type        string  `json:"type"` // KvK's: bezoekadres or correspondentieadres
	Address     *string `json:"address"`
	Street      *string `json:"street"`
	HouseNumber *string `json:"housenumber"`
	Addition    *string `json:"addition"`
	PostalCode  *string `json:"postalcode"`
	City        *string `json:"city"`
	Country     *string `json:"country"`
	Shielded    bool    `json:"shielded"`
}

// VATData is the `data` of a vat check. VIES's own fields keep VIES's names
// (valid, name, address, requestDate, requestIdentifier): the consultation
// number is the legal evidence and is quoted as VIES wrote it.
type VATData struct {
	Outcome           string   `json:"outcome"`
	Reason            *string  `json:"reason"`
	Message           *string  `json:"message"`
	CountryCode       *string  `json:"country_code"` // VIES prefix (EL for Greece)
	VATNumber         *string  `json:"vat_number"`   // national part, compact
	Valid             *bool    `json:"valid"`
	Name              *string  `json:"name"`
	Address           *string  `json:"address"`
	RequestDate       *string  `json:"requestDate"`
	RequestIdentifier *string  `json:"requestIdentifier"`
	NameMatchScore    *float64 `json:"name_match_score"`
	TestService       bool     `json:"test_service"`
}

// IBANData is the `data` of an iban check.
type IBANData struct {
	IBANMasked  string  `json:"iban_masked"`
	CountryCode *string `json:"country_code"`
	Country     *string `json:"country"`
	BankCode    *string `json:"bank_code"`
	BranchCode  *string `json:"branch_code"`
	SEPA        bool    `json:"sepa"`
	Valid       bool    `json:"valid"`
	Reason      *string `json:"reason"`
	Message     *string `json:"message"`
}

// RoundScore rounds a score to three decimals, as checks report them.
func RoundScore(f float64) float64 { return math.Round(f*1000) / 1000 }

// ReasonWatchlistHit: a listed entity scored at or above the threshold.
const ReasonWatchlistHit = "watchlist_hit"

// AMLData is the `data` of an aml check.
type AMLData struct {
	Outcome    string  `json:"outcome"`
	Reason     *string `json:"reason"`
	Message    *string `json:"message"`
	ScreenedAt string  `json:"screened_at"`
	Threshold  float64 `json:"threshold"`
	// HardConflict: hits contradicted by birth date or nationality were
	// dropped, not only scored lower (the tenant's setting).
	HardConflict bool      `json:"hard_conflict"`
	Lists        []AMLList `json:"lists"`
	Query        AMLQuery  `json:"query"`
	Hits         []AMLHit  `json:"hits"`
}

// AMLList is a list version the screening used.
type AMLList struct {
	List        string `json:"list"`
	Version     int64  `json:"version"`
	ContentHash string `json:"content_hash"` // SHA-256 of the imported file(s)
	ImportedAt  string `json:"imported_at"`
}

// AMLQuery is what was screened.
type AMLQuery struct {
	Name        string  `json:"name"`
	BirthDate   *string `json:"birth_date"`
	Nationality *string `json:"nationality"` // ISO 3166-1 alpha-2
}

// AMLHit is one listed entity resembling the customer, with why.
type AMLHit struct {
	EntityID string `json:"entity_id"`
	// EntityHash identifies the listed entity's data: a remembered false
	// positive holds only while it is unchanged.
	EntityHash string `json:"entity_hash"`
	// List is the list the entity was found on (absent in checks
	// screened before it was recorded).
	List           string  `json:"list,omitempty"`
	MatchedName    string  `json:"matched_name"`
	Score          float64 `json:"score"`
	NameScore      float64 `json:"name_score"`
	AboveThreshold bool    `json:"above_threshold"`
	// Alerting: above the threshold and not a remembered false positive;
	// it needs a decision.
	Alerting bool `json:"alerting"`
	// Review is the decision on the hit: this check's, or the remembered
	// one that keeps it from alerting; null while undecided.
	Review      *HitReview `json:"review"`
	Schema      string     `json:"schema"`
	Topics      []string   `json:"topics"`
	Programs    []string   `json:"programs"`
	Explanation []string   `json:"explanation"`
}

// HitKeys are the entity ids of a screening's hits above its threshold,
// each with its entity hash when withHash, sorted: what rescreening
// compares (a listed entity whose data changed screens anew).
func (d AMLData) HitKeys(withHash bool) []string {
	var ids []string
	for _, h := range d.Hits {
		if h.AboveThreshold {
			k := h.EntityID
			if withHash {
				k += "@" + h.EntityHash
			}
			ids = append(ids, k)
		}
	}
	slices.Sort(ids)
	return ids
}

// Hashed reports whether the screening recorded entity hashes (those
// before the review loop did not).
func (d AMLData) Hashed() bool {
	return len(d.Hits) == 0 || d.Hits[0].EntityHash != ""
}

// Alerting are the entity ids of the hits that need a decision, in hit order.
func (d AMLData) Alerting() []string {
	var ids []string
	for _, h := range d.Hits {
		if h.Alerting {
			ids = append(ids, h.EntityID)
		}
	}
	return ids
}

// QueryHash identifies what the customer was screened with: a remembered
// false positive holds only while it is unchanged.
func (q AMLQuery) Hash() string {
	h := sha256.New()
	for _, s := range []*string{&q.Name, q.BirthDate, q.Nationality} {
		if s != nil {
			h.Write([]byte(*s))
		}
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Reasons an idin check is not validated, besides the name and birthdate
// mismatches.
const (
	ReasonBankCancelled = "bank_cancelled" // the person cancelled at the bank
	ReasonBankExpired   = "bank_expired"   // the bank session timed out
	ReasonBankFailure   = "bank_failure"   // the bank or broker reported a failure
)

// IDINData is the `data` of an idin check: what the bank confirmed.
type IDINData struct {
	Outcome        string       `json:"outcome"`
	Reason         *string      `json:"reason"`
	Message        *string      `json:"message"`
	Status         string       `json:"status"` // the broker's transaction status
	BIN            *string      `json:"bin"`
	Initials       *string      `json:"initials"`
	LastName       *string      `json:"last_name"`
	LastNamePrefix *string      `json:"last_name_prefix"`
	DateOfBirth    *string      `json:"date_of_birth"`
	Gender         *string      `json:"gender"`
	Address        *IDINAddress `json:"address"`
	Is18OrOlder    *bool        `json:"is_18_or_older"`
	NameMatchScore *float64     `json:"name_match_score"`
	BirthdateMatch *bool        `json:"birthdate_match"`
	IssuerID       *string      `json:"issuer_id"`
	TransactionID  string       `json:"transaction_id"`
}

// IDINAddress is the address the bank has for the person.
type IDINAddress struct {
	Street      *string `json:"street"`
	HouseNumber *string `json:"housenumber"`
	Addition    *string `json:"addition"`
	PostalCode  *string `json:"postalcode"`
	City        *string `json:"city"`
	CountryCode *string `json:"country_code"`
}

// Document types written to a customer's document_type (see openapi.yaml).
const (
	DocumentTypeOther    = 0
	DocumentTypePassport = 1 // document code P…
	DocumentTypeIDCard   = 2 // I…, A…, C…: identity cards and other official travel documents
	DocumentTypeVisa     = 3 // V…
)

// Reasons an idscan check is not validated (data.reason), in the order they
// are decided; ReasonNameMismatch (above, with coc) comes before the birthdate.
const (
	ReasonUnreadable        = "unreadable"            // not an MRZ at all
	ReasonCheckDigit        = "check_digit"           // a check digit does not hold
	ReasonInvalidDocument   = "invalid_document"      // a field is malformed (bad date, character)
	ReasonDocumentExpired   = "document_expired"      // past its expiry date
	ReasonBirthdateMismatch = "birthdate_mismatch"    // the document's date of birth is not the customer's
	ReasonImageUnreadable   = "image_unreadable"      // every photo allowed was sent back for a retake
	ReasonDocumentRefused   = "document_not_accepted" // a document type or issuing state the tenant does not accept
)

// IDScanData is the `data` of an idscan check.
type IDScanData struct {
	// Source is how the MRZ reached kycflow: SourcePhoto or SourceTyped.
	Source         string          `json:"source"`
	Outcome        string          `json:"outcome"`
	Reason         *string         `json:"reason"`
	Message        *string         `json:"message"`
	Errors         []IDScanError   `json:"errors"`
	Format         *string         `json:"format"`
	DocumentCode   *string         `json:"document_code"`
	DocumentType   *int            `json:"document_type"`
	IssuingState   *string         `json:"issuing_state"`
	DocumentNumber *string         `json:"document_number"`
	Surname        *string         `json:"surname"`
	GivenNames     *string         `json:"given_names"`
	Nationality    *string         `json:"nationality"`
	BirthDate      *string         `json:"birth_date"`
	Sex            *string         `json:"sex"`
	ExpiryDate     *string         `json:"expiry_date"`
	Expired        *bool           `json:"expired"`
	NameMatchScore *float64        `json:"name_match_score"`
	BirthdateMatch *bool           `json:"birthdate_match"`
	Corrections    []MRZCorrection `json:"corrections"`
	// Checks are the sub-checks, each clear, consider or fail.
	Checks IDScanChecks `json:"checks"`
	// Attempts lists each photo upload's outcome (empty when typed).
	Attempts []IDScanAttempt `json:"attempts"`
	// SelfieAttempts lists each selfie attempt, when the tenant asks for
	// a selfie.
	SelfieAttempts []SelfieAttempt `json:"selfie_attempts,omitempty"`
}

// MRZCorrection is an OCR confusion corrected in an MRZ (engines/mrz's
// Correction; keys as that type has always been written).
type MRZCorrection struct {
	Field string `json:"Field"`
	Line  int    `json:"Line"`
	Pos   int    `json:"Pos"`
	From  rune   `json:"From"`
	To    rune   `json:"To"`
}

// IDScanError is one problem found in the MRZ.
type IDScanError struct {
	Field   string `json:"field"`
	Kind    string `json:"kind"`
	Message string `json:"message"`
}
