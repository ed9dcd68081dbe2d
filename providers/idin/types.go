package idin

import "context"

// Broker is what kycflow needs from an iDIN broker; Client implements it
// against CM.com, and tests may substitute a fake.
type Broker interface {
	// Issuers lists the banks a person may choose from.
	Issuers(ctx context.Context) ([]Issuer, error)
	// Start begins a transaction; send the person to its RedirectURL.
	Start(ctx context.Context, req StartRequest) (Transaction, error)
	// Status reports where a transaction stands and, once, its attributes.
	Status(ctx context.Context, transactionID string) (Result, error)
}

// Issuer is a bank in the broker's directory.
type Issuer struct {
	ID      string // issuer_id, a BIC such as "RABONL2U"; what StartRequest.IssuerID takes
	Name    string // issuer_name, for display in the bank chooser
	Country string // the directory group it is listed under: CM's readable country name, e.g. "Nederland"
}

// AttributeGroups says which iDIN attribute groups to ask the bank for;
// the person sees the list at their bank and consents to it. Each field is
// one of CM's request flags.
type AttributeGroups struct {
	Identity    bool // "identity": a BIN that stays the same for this person across transactions
	Name        bool // "name": initials and last name(s)
	Gender      bool // "gender"
	Address     bool // "address": street, number, postal code, city, country
	DateOfBirth bool // "date_of_birth"
	Over18      bool // "18y_or_older": only whether the person is an adult
	Email       bool // "email_address"
	Telephone   bool // "telephone_number"
}

// anySet reports whether at least one group is requested.
func (g AttributeGroups) anySet() bool {
	return g.Identity || g.Name || g.Gender || g.Address || g.DateOfBirth || g.Over18 || g.Email || g.Telephone
}

// StartRequest starts a transaction. Validate reports what is wrong with it.
type StartRequest struct {
	// IssuerID is the chosen bank's Issuer.ID.
	IssuerID string
	// EntranceCode is our opaque state, [A-Za-z0-9]{1,40} (CM's rule): the
	// bank hands it back as `ec` on the return URL so the returning browser
	// can be joined to its session. Use it once, and make it unguessable.
	EntranceCode string
	// MerchantReference is our own reference for the transaction (e.g. the
	// check id), sent as CM's optional `transaction_reference` and echoed
	// in the status as Result.Reference. Optional; up to 64 characters of
	// [A-Za-z0-9._:-] (our limit: CM documents none).
	MerchantReference string
	// ReturnURL is where the bank sends the person back; `trxid` and `ec`
	// are appended to its query, so it must not already carry them.
	// Absolute http or https, at most 512 characters.
	ReturnURL string
	// Language is "nl" or "en", the bank's preferred language; "" means "nl".
	Language string
	// Attributes lists what to request; at least one group.
	Attributes AttributeGroups
}

// Transaction is a started transaction.
type Transaction struct {
	// ID is CM's transaction_id: the bank returns it as `trxid`, and Status
	// takes it. Store it before redirecting: the person may never return.
	ID string
	// RedirectURL is CM's issuer_authentication_url, where the person
	// authenticates at their bank. Always absolute http(s).
	RedirectURL string
	// MerchantReference is CM's merchant_reference, a private reference CM
	// returns for this transaction; StatusWithReference sends it back.
	// (Not StartRequest.MerchantReference, which is ours.)
	MerchantReference string
}

// Status is where a transaction stands.
type Status string

// The statuses. CM documents open, success, cancelled, failure and expired;
// pending is iDIN's state for "the person is at the bank" and is mapped in
// case CM passes it on.
const (
	StatusOpen      Status = "open"      // the person has not finished at the bank yet
	StatusPending   Status = "pending"   // the bank is still processing; ask again
	StatusSuccess   Status = "success"   // the person authenticated and consented
	StatusCancelled Status = "cancelled" // the person cancelled at the bank
	StatusExpired   Status = "expired"   // the person did not finish in time
	StatusFailure   Status = "failure"   // the bank or broker could not complete it
)

// Final reports whether s will not change any more.
func (s Status) Final() bool {
	switch s {
	case StatusSuccess, StatusCancelled, StatusExpired, StatusFailure:
		return true
	}
	return false
}

// Result is the answer to a status request.
type Result struct {
	TransactionID string
	Status        Status
	// Attributes holds the person's data, only on success and only the
	// first time it is asked for (CM returns personal data once). A
	// success without Attributes means the data is gone: see Notice.
	Attributes *Attributes
	IssuerID   string // the bank, when the broker says
	Reference  string // StartRequest.MerchantReference echoed back, when the broker says
	Notice     string // CM's notice (and notice_code) when it withheld data, e.g. "already retrieved"
}

// Gender values, from iDIN's ISO 5218 code.
const (
	GenderMale          = "male"           // ISO 5218 code 1
	GenderFemale        = "female"         // ISO 5218 code 2
	GenderUnknown       = "unknown"        // ISO 5218 code 0 (and anything unrecognised)
	GenderNotApplicable = "not_applicable" // ISO 5218 code 9
)

// Attributes is what the bank disclosed about the person. Fields of groups
// that were not requested are empty.
type Attributes struct {
	// BIN is the bank identification number: a pseudonym for this person
	// at this merchant, stable across transactions when Identity was
	// requested (and random otherwise). Prefixed with the bank's country
	// and code, e.g. "NLINGB...". Store it to recognise returning people.
	BIN string

	Initials            string // letters of the first names, e.g. "JP"
	LegalLastName       string // legal last name without prefix, e.g. "Berg"
	LegalLastNamePrefix string // tussenvoegsel of the legal last name, e.g. "van den"
	PreferredLastName   string // last name the person uses, if the broker delivers it (CM does not document it)

	// DateOfBirth is YYYY-MM-DD. iDIN may know a birth date only in part;
	// then it is kept as given, with unknown parts as zeros (e.g.
	// "1970-00-00") or left off (e.g. "1970"), never guessed.
	DateOfBirth string
	// Gender is GenderMale, GenderFemale, GenderUnknown or GenderNotApplicable.
	Gender string

	Street            string
	HouseNumber       string
	HouseNumberSuffix string
	PostalCode        string
	City              string
	CountryCode       string // e.g. "NL"

	// Is18OrOlder is nil when the age group was not requested or not known.
	Is18OrOlder *bool

	Email     string
	Telephone string // as the bank has it, typically E.164 ("+316...")
}
