// Package iban validates International Bank Account Numbers (ISO 13616).
//
// Validate checks, in order, the character set, the country code against the
// registry, the country's fixed IBAN length, the country's BBAN structure
// (SWIFT notation, e.g. "4!a10!n") and the ISO 7064 MOD 97-10 check digits.
// It returns a machine-readable Reason plus an English message, and on
// success the bank and branch identifiers defined by the registry.
//
// The country table (registry.go) mirrors the SWIFT IBAN Registry, Release
// 102 (June 2026): 89 countries. National check digits inside the BBAN are
// not verified; a valid IBAN is well formed, not necessarily an open account.
// The package uses only the standard library.
package iban

import (
	"strconv"
	"strings"
	"unicode"
)

// Reason is a machine-readable cause of invalidity.
type Reason string

// Reasons returned in Result.Reason.
const (
	ReasonNone           Reason = ""
	ReasonBadFormat      Reason = "bad_format"      // characters not allowed / BBAN structure mismatch / not starting with 2 letters + 2 digits
	ReasonUnknownCountry Reason = "unknown_country" // country code not in the IBAN registry
	ReasonBadLength      Reason = "bad_length"      // length differs from the country's IBAN length
	ReasonBadChecksum    Reason = "bad_checksum"    // ISO 7064 mod-97 check failed
)

// Country describes one IBAN country of the SWIFT IBAN Registry.
type Country struct {
	Code      string // ISO 3166-1 alpha-2, as used in the IBAN
	Name      string // English name
	Length    int    // total IBAN length
	Structure string // BBAN structure in SWIFT notation, e.g. "4!a10!n"
	SEPA      bool   // SEPA country according to the registry

	// Positions of the bank and branch identifiers as 0-based offsets into
	// the BBAN; BranchLength is 0 when the registry defines no branch.
	BankOffset, BankLength     int
	BranchOffset, BranchLength int

	bban []segment // Structure compiled at init
}

// Lookup returns the registry entry for a two-letter country code
// (case-insensitive).
func Lookup(code string) (Country, bool) {
	if len(code) != 2 {
		return Country{}, false
	}
	if c := lookup(toUpperASCII(code[0]), toUpperASCII(code[1])); c != nil {
		return *c, true
	}
	return Country{}, false
}

// Countries returns every registry entry, sorted by code. The slice is a
// copy; callers may modify it.
func Countries() []Country {
	out := make([]Country, len(countries))
	copy(out, countries)
	return out
}

func toUpperASCII(b byte) byte {
	if b >= 'a' && b <= 'z' {
		return b - 'a' + 'A'
	}
	return b
}

// Normalize removes spaces (any Unicode space), '-' and '.', a leading
// "IBAN" prefix (case-insensitive, optionally followed by ':'), and
// upper-cases. It never fails, and Normalize(Normalize(s)) == Normalize(s).
func Normalize(s string) string {
	if isElectronic(s) {
		return s // common case: already normalised, no allocation
	}
	s = strings.ToUpper(s)
	s = strings.Map(func(r rune) rune {
		if r == '-' || r == '.' || unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
	// Strip repeatedly so that the result never starts with "IBAN" and
	// normalising twice changes nothing. No country code is "IB".
	for strings.HasPrefix(s, "IBAN") {
		s = strings.TrimPrefix(s[4:], ":")
	}
	return s
}

// isElectronic reports whether s is already in normalised form: only A-Z
// and 0-9, and no "IBAN" prefix.
func isElectronic(s string) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i]; !isUpper(b) && !isDigit(b) {
			return false
		}
	}
	return !strings.HasPrefix(s, "IBAN")
}

// Result is the outcome of Validate.
type Result struct {
	IBAN        string // normalised electronic form (even when invalid)
	Valid       bool
	Reason      Reason
	Message     string // human English sentence explaining Reason ("" when valid)
	CountryCode string // "" when the first two chars are not letters
	CountryName string // "" when unknown
	BankCode    string // "" when invalid or not defined
	BranchCode  string // "" when invalid or not defined
	SEPA        bool
}

// Validate normalises s and checks it as an IBAN.
func Validate(s string) Result {
	n := Normalize(s)
	r := Result{IBAN: n}

	if n == "" {
		return r.fail(ReasonBadFormat, "The IBAN is empty.")
	}
	for i := 0; i < len(n); i++ {
		if b := n[i]; !isUpper(b) && !isDigit(b) {
			return r.withCountry(n).fail(ReasonBadFormat,
				"The IBAN may contain only letters A-Z and digits 0-9.")
		}
	}
	r = r.withCountry(n)
	if r.CountryCode == "" {
		return r.fail(ReasonBadFormat, "An IBAN must start with a two-letter country code.")
	}
	c := lookup(n[0], n[1])
	if c == nil {
		// Unknown country wins over the remaining format checks: it is the
		// more useful explanation for e.g. "US12".
		return r.fail(ReasonUnknownCountry, "Country code "+r.CountryCode+
			" does not use IBANs (it is not in the SWIFT IBAN Registry).")
	}
	if len(n) < 5 {
		return r.fail(ReasonBadFormat, "The IBAN is too short.")
	}
	if !isDigit(n[2]) || !isDigit(n[3]) {
		return r.fail(ReasonBadFormat, "The country code must be followed by two check digits.")
	}
	if len(n) != c.Length {
		return r.fail(ReasonBadLength, "An IBAN for "+c.Name+" must be "+
			strconv.Itoa(c.Length)+" characters long, not "+strconv.Itoa(len(n))+".")
	}
	if pos, want, ok := matchBBAN(n[4:], c.bban); !ok {
		return r.fail(ReasonBadFormat, "The IBAN does not match the account format for "+
			c.Name+": character "+strconv.Itoa(pos+5)+" must be "+want.describe()+".")
	}
	// The mod-97 check accepts 00, 01 and 99 whenever 97, 98 and 02 would
	// be correct, but ISO 7064 never produces them (98 - x, x in 0..96), so
	// they are rejected explicitly.
	if cd := n[2:4]; cd == "00" || cd == "01" || cd == "99" || mod97(n) != 1 {
		return r.fail(ReasonBadChecksum,
			"The IBAN check digits are wrong; the IBAN probably contains a typo.")
	}

	r.Valid = true
	bban := n[4:]
	r.BankCode = bban[c.BankOffset : c.BankOffset+c.BankLength]
	if c.BranchLength > 0 {
		r.BranchCode = bban[c.BranchOffset : c.BranchOffset+c.BranchLength]
	}
	return r
}

// withCountry fills the country fields from the first two characters.
func (r Result) withCountry(n string) Result {
	if len(n) < 2 || !isUpper(n[0]) || !isUpper(n[1]) {
		return r
	}
	r.CountryCode = n[:2]
	if c := lookup(n[0], n[1]); c != nil {
		r.CountryName = c.Name
		r.SEPA = c.SEPA
	}
	return r
}

func (r Result) fail(reason Reason, msg string) Result {
	r.Valid = false
	r.Reason = reason
	r.Message = msg
	return r
}

// matchBBAN checks bban (already of the right length) against the compiled
// structure; on mismatch it returns the 0-based position and expected class.
func matchBBAN(bban string, segs []segment) (int, charClass, bool) {
	i := 0
	for _, s := range segs {
		for k := 0; k < s.count; k++ {
			if i >= len(bban) || !s.class.matches(bban[i]) {
				return i, s.class, false
			}
			i++
		}
	}
	return 0, 0, i == len(bban)
}

// mod97 computes the ISO 7064 MOD 97-10 remainder of the IBAN with its first
// four characters moved to the end and letters expanded to 10..35. It works
// digit by digit, so no big integers are needed. n must be [A-Z0-9]*.
func mod97(n string) int {
	r := 0
	add := func(b byte) {
		if isDigit(b) {
			r = (r*10 + int(b-'0')) % 97
		} else {
			r = (r*100 + int(b-'A') + 10) % 97
		}
	}
	for i := 4; i < len(n); i++ {
		add(n[i])
	}
	for i := 0; i < 4 && i < len(n); i++ {
		add(n[i])
	}
	return r
}

// Masked returns the IBAN with every character but the last four replaced
// by '*', e.g. "**************0417". Input is normalised first; shorter than
// 5 characters gives all '*'.
func Masked(s string) string {
	rs := []rune(Normalize(s))
	if len(rs) < 5 {
		return strings.Repeat("*", len(rs))
	}
	return strings.Repeat("*", len(rs)-4) + string(rs[len(rs)-4:])
}
