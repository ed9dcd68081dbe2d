package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// person is the attribute values the sandbox bank discloses, as the bank
// page edits them: text, keyed by CM's field names (see fields).
type person struct {
	BIN               string
	Initials          string
	LastName          string
	LastNamePrefix    string
	PreferredLastName string
	Gender            string // male, female, unknown, not_applicable
	DateOfBirth       string // YYYY-MM-DD, or partial (see checkDate)
	Over18            string // yes, no
	Street            string
	HouseNumber       string
	HouseNumberSuffix string
	PostalCode        string
	City              string
	Country           string
	Email             string
	Telephone         string
}

// defaultPerson is the fictional person the bank page is prefilled with,
// and a fresh BIN of the shape iDIN uses: the bank's country and code from
// its issuer id, then a bank-specific part.
func defaultPerson(issuerID string) person {
	return person{
		BIN:               newBIN(issuerID),
		Initials:          "JP",
		LastName:          "Berg",
		LastNamePrefix:    "van den",
		Gender:            "male",
		DateOfBirth:       "1985-07-14",
		Over18:            "yes",
		Street:            "Sandboxstraat",
		HouseNumber:       "42",
		HouseNumberSuffix: "B",
		PostalCode:        "9999ZZ",
		City:              "Testdorp",
		Country:           "NL",
		Email:             "j.p.vandenberg@example.com",
		Telephone:         "+31612345678",
	}
}

// newBIN makes a BIN: iDIN's is the issuer's country (2) and bank code
// (4), then up to 1020 bank-specific characters; CM's pattern is
// /[a-zA-Z]{6}.*/.
func newBIN(issuerID string) string {
	prefix := "NLSNDB"
	if len(issuerID) >= 6 {
		prefix = issuerID[4:6] + issuerID[:4]
	}
	return prefix + randomString(20, "abcdefghijklmnopqrstuvwxyz0123456789")
}

// The options of the page's select fields.
var (
	genderOptions = []option{
		{Value: "male", Label: "Male (ISO 5218 code 1)"},
		{Value: "female", Label: "Female (code 2)"},
		{Value: "unknown", Label: "Unknown (code 0)"},
		{Value: "not_applicable", Label: "Not applicable (code 9)"},
	}
	over18Options = []option{
		{Value: "yes", Label: "Yes, 18 or older"},
		{Value: "no", Label: "No, younger than 18"},
	}
)

var (
	datePattern = regexp.MustCompile(`^[0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?$`)
	binPattern  = regexp.MustCompile(`^[A-Za-z]{6}[!-~]{0,250}$`)
)

// check reports, by field name, values the real bank could never send.
func (p person) check() map[string]string {
	problems := map[string]string{}
	if !binPattern.MatchString(p.BIN) {
		problems["bin"] = "must start with 6 letters (country and bank code), no spaces, at most 256 characters"
	}
	if p.DateOfBirth != "" && !datePattern.MatchString(p.DateOfBirth) {
		problems["date_of_birth"] = "use YYYY-MM-DD; write 00 for an unknown month or day, or leave them off (YYYY, YYYY-MM)"
	}
	if p.Gender != "" && !hasOption(genderOptions, p.Gender) {
		problems["gender"] = "choose one of the listed values"
	}
	if p.Over18 != "" && !hasOption(over18Options, p.Over18) {
		problems["18y_or_older"] = "choose yes or no"
	}
	return problems
}

func hasOption(opts []option, v string) bool {
	for _, o := range opts {
		if o.Value == v {
			return true
		}
	}
	return false
}

// wirePerson is the personal part of CM's status answer; sandbox_attributes
// has the same shape.
type wirePerson struct {
	BIN             string       `json:"bin,omitempty"`
	Name            *wireName    `json:"name,omitempty"`
	Address         *wireAddress `json:"address,omitempty"`
	Age             *wireAge     `json:"age,omitempty"`
	TelephoneNumber string       `json:"telephone_number,omitempty"`
	EmailAddress    string       `json:"email_address,omitempty"`
}

type wireName struct {
	Gender         string `json:"gender,omitempty"`
	Initials       string `json:"initials,omitempty"`
	LastName       string `json:"last_name,omitempty"`
	LastNamePrefix string `json:"last_name_prefix,omitempty"`
	// Not in CM's docs; sent only when the tester fills it in.
	PreferredLastName string `json:"preferred_last_name,omitempty"`
}

type wireAddress struct {
	Street            string      `json:"street,omitempty"`
	HouseNumber       houseNumber `json:"house_number,omitempty"`
	HouseNumberSuffix string      `json:"house_number_suffix,omitempty"`
	PostalCode        string      `json:"postal_code,omitempty"`
	City              string      `json:"city,omitempty"`
	Country           string      `json:"country,omitempty"`
}

type wireAge struct {
	DateOfBirth string `json:"date_of_birth,omitempty"`
	Over18      *bool  `json:"18y_or_older,omitempty"`
}

// houseNumber is sent as a JSON number when it is one, as in CM's status
// example, and read from either a number or a string (CM's swagger type).
type houseNumber string

// MarshalJSON implements json.Marshaler.
func (h houseNumber) MarshalJSON() ([]byte, error) {
	s := string(h)
	if s != "" && s[0] != '0' && len(s) < 10 && strings.Trim(s, "0123456789") == "" {
		return []byte(s), nil
	}
	return json.Marshal(s)
}

// UnmarshalJSON implements json.Unmarshaler.
func (h *houseNumber) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		err := json.Unmarshal(b, &s)
		*h = houseNumber(s)
		return err
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("house_number: want a string or number")
	}
	*h = houseNumber(n.String())
	return nil
}

// wire is what the status call discloses of p for the requested groups.
// The BIN is always sent, as CM does; without the identity group it is a
// fresh one each time, so it identifies nobody.
func (p person) wire(g groups, issuerID string) wirePerson {
	w := wirePerson{BIN: p.BIN}
	if !g.Identity {
		w.BIN = newBIN(issuerID)
	}
	if g.Name || g.Gender {
		n := &wireName{}
		if g.Name {
			n.Initials, n.LastName, n.LastNamePrefix, n.PreferredLastName = p.Initials, p.LastName, p.LastNamePrefix, p.PreferredLastName
		}
		if g.Gender {
			n.Gender = p.Gender
		}
		w.Name = n
	}
	if g.Address {
		w.Address = &wireAddress{Street: p.Street, HouseNumber: houseNumber(p.HouseNumber), HouseNumberSuffix: p.HouseNumberSuffix,
			PostalCode: p.PostalCode, City: p.City, Country: p.Country}
	}
	if g.DateOfBirth || g.Over18 {
		a := &wireAge{}
		if g.DateOfBirth {
			a.DateOfBirth = p.DateOfBirth
		}
		if g.Over18 && p.Over18 != "" {
			v := p.Over18 == "yes"
			a.Over18 = &v
		}
		w.Age = a
	}
	if g.Email {
		w.EmailAddress = p.Email
	}
	if g.Telephone {
		w.TelephoneNumber = p.Telephone
	}
	return w
}

// overlay returns base with every value w sets replacing base's.
func (w wirePerson) overlay(base person) person {
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&base.BIN, w.BIN)
	if n := w.Name; n != nil {
		set(&base.Gender, n.Gender)
		set(&base.Initials, n.Initials)
		set(&base.LastName, n.LastName)
		set(&base.LastNamePrefix, n.LastNamePrefix)
		set(&base.PreferredLastName, n.PreferredLastName)
	}
	if a := w.Address; a != nil {
		set(&base.Street, a.Street)
		set(&base.HouseNumber, string(a.HouseNumber))
		set(&base.HouseNumberSuffix, a.HouseNumberSuffix)
		set(&base.PostalCode, a.PostalCode)
		set(&base.City, a.City)
		set(&base.Country, a.Country)
	}
	if a := w.Age; a != nil {
		set(&base.DateOfBirth, a.DateOfBirth)
		if a.Over18 != nil {
			base.Over18 = map[bool]string{true: "yes", false: "no"}[*a.Over18]
		}
	}
	set(&base.Email, w.EmailAddress)
	set(&base.Telephone, w.TelephoneNumber)
	return base
}
