// Package vatnum validates EU VAT numbers offline: per-country format and
// check digits, written after python-stdnum (stdnum.eu.vat and the country
// modules it dispatches to), so that a number is rejected here exactly when
// stdnum rejects it and VIES is only asked about numbers that can exist.
package vatnum

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Reason is a machine-readable cause of an offline rejection.
type Reason string

// Reasons carried by ValidationError.
const (
	ReasonUnknownCountry Reason = "unknown_country" // prefix not an EU member state or XI
	ReasonBadFormat      Reason = "bad_format"      // characters/length/structure wrong
	ReasonBadChecksum    Reason = "bad_checksum"    // check digit(s) wrong
)

// Number is a VAT number split the way VIES wants it.
type Number struct {
	CountryCode string // VIES prefix: AT BE BG CY CZ DE DK EE EL ES FI FR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK XI
	Number      string // the national part, compact (no spaces, dots, dashes, slashes; upper case)
}

// ValidationError is an offline rejection. (It is not called Error because
// client.go's Error already is VIES's own error answer.)
type ValidationError struct {
	Reason  Reason
	Message string // an English sentence naming the rule that failed
}

func (e *ValidationError) Error() string { return "vies: " + string(e.Reason) + ": " + e.Message }

// Normalize compacts a VAT number as python-stdnum's compact() does: removes
// spaces, dots, dashes, slashes, commas and colons, upper-cases, and splits
// off the two-letter prefix ("GR" is read as "EL"). Without a prefix the
// number is taken as national to defaultCountry (a VIES prefix or "GR"; may be
// ""). The national part gets its country's padding (BE 9→10 digits, EL 8→9,
// NL RSIN to 9 digits), as stdnum's compact does. An error (with
// ReasonUnknownCountry) only when no country can be determined; an
// unsupported prefix such as GB is returned as is for Check to reject.
func Normalize(vat, defaultCountry string) (Number, error) {
	s := vatClean(vat)
	def := vatCanonCountry(defaultCountry)
	cc, rest := "", s
	if len(s) >= 2 && vatIsLetter(s[0]) && vatIsLetter(s[1]) {
		p := vatCanonCountry(s[:2])
		if _, ok := vatRules[p]; ok || def == "" || !vatNationalMayStartWith(def, s) {
			cc, rest = p, s[2:]
		}
	}
	if cc == "" {
		cc = def
	}
	if cc == "" {
		return Number{}, &ValidationError{ReasonUnknownCountry,
			"The VAT number has no two-letter country prefix and no default country was given."}
	}
	return Number{CountryCode: cc, Number: vatCompactNational(cc, rest)}, nil
}

// Check validates the national part for its country offline, as
// python-stdnum's country module does. nil when valid, else a
// *ValidationError.
func Check(n Number) error {
	cc := vatCanonCountry(n.CountryCode)
	rule, ok := vatRules[cc]
	if !ok {
		return &ValidationError{ReasonUnknownCountry, fmt.Sprintf(
			"%q is not the VAT prefix of an EU member state or of Northern Ireland (XI).", n.CountryCode)}
	}
	// A nil *ValidationError must not become a non-nil error.
	if err := rule(vatCompactNational(cc, n.Number)); err != nil {
		return err
	}
	return nil
}

// Validate is Normalize followed by Check; the Number is returned even when
// Check rejects it.
func Validate(vat, defaultCountry string) (Number, error) {
	n, err := Normalize(vat, defaultCountry)
	if err != nil {
		return n, err
	}
	return n, Check(n)
}

// vatRules maps each supported VIES prefix to its check; the keys are the
// supported prefixes.
var vatRules = map[string]func(string) *ValidationError{
	"AT": vatCheckAT, "BE": vatCheckBE, "BG": vatCheckBG, "CY": vatCheckCY,
	"CZ": vatCheckCZ, "DE": vatCheckDE, "DK": vatCheckDK, "EE": vatCheckEE,
	"EL": vatCheckEL, "ES": vatCheckES, "FI": vatCheckFI, "FR": vatCheckFR,
	"HR": vatCheckHR, "HU": vatCheckHU, "IE": vatCheckIE, "IT": vatCheckIT,
	"LT": vatCheckLT, "LU": vatCheckLU, "LV": vatCheckLV, "MT": vatCheckMT,
	"NL": vatCheckNL, "PL": vatCheckPL, "PT": vatCheckPT, "RO": vatCheckRO,
	"SE": vatCheckSE, "SI": vatCheckSI, "SK": vatCheckSK, "XI": vatCheckXI,
}

// vatPrefixes lists the supported VIES prefixes, sorted.
func vatPrefixes() []string {
	out := make([]string, 0, len(vatRules))
	for cc := range vatRules {
		out = append(out, cc)
	}
	sort.Strings(out)
	return out
}

// --- normalisation ---------------------------------------------------------

// vatClean drops separators (as stdnum's clean() does, including the Unicode
// look-alikes it maps), turns full-width digits into ASCII and upper-cases
// ASCII letters.
func vatClean(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r), unicode.Is(unicode.Pd, r), strings.ContainsRune(vatSeparators, r):
			return -1
		case r >= '０' && r <= '９':
			return '0' + (r - '０')
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		}
		return r
	}, s)
}

// vatSeparators are the non-space, non-dash characters removed: full stop,
// comma, solidus, colon and their Unicode variants.
const vatSeparators = ".,/:\u00b7\u2024\ufe52\uff0e\u30fb\u3001\uff0c\ufe50\uff0f\u2044\u2215\u2236\uff1a\ufe55\u2212"

// vatCanonCountry upper-cases a two-letter code and maps ISO's GR to VIES's
// EL; anything that is not two ASCII letters becomes "".
func vatCanonCountry(cc string) string {
	cc = strings.TrimSpace(cc)
	if len(cc) != 2 || !vatIsLetter(cc[0]) || !vatIsLetter(cc[1]) {
		return ""
	}
	cc = strings.ToUpper(cc)
	if cc == "GR" {
		return "EL"
	}
	return cc
}

// vatNationalMayStartWith tells whether s, starting with two letters that are
// no supported prefix, can still be a national number of cc: French keys may
// be two letters, UK government departments and health authorities start
// with GD and HA. Otherwise the letters are a (foreign) prefix.
func vatNationalMayStartWith(cc, s string) bool {
	switch cc {
	case "FR":
		return strings.IndexByte(vatFRAlphabet, s[0]) >= 0 && strings.IndexByte(vatFRAlphabet, s[1]) >= 0
	case "XI":
		return strings.HasPrefix(s, "GD") || strings.HasPrefix(s, "HA")
	}
	return false
}

// vatCompactNational applies a country's own compaction to an already cleaned
// national part; it is idempotent.
func vatCompactNational(cc, s string) string {
	s = vatClean(s)
	switch cc {
	case "BE":
		if strings.HasPrefix(s, "(0)") {
			s = "0" + s[3:]
		}
		if len(s) == 9 { // the old format had 9 digits
			s = "0" + s
		}
	case "EL":
		if len(s) == 8 { // the old format had 8 digits
			s = "0" + s
		}
	case "NL":
		// the RSIN/BSN before "Bnn" is commonly written without leading zeros
		head, tail := "", s
		if len(s) > 3 {
			head, tail = s[:len(s)-3], s[len(s)-3:]
		}
		if len(head) < 9 {
			head = strings.Repeat("0", 9-len(head)) + head
		}
		s = head + tail
	}
	return s
}

// --- helpers ---------------------------------------------------------------

func vatBad(format string, a ...any) *ValidationError {
	return &ValidationError{ReasonBadFormat, fmt.Sprintf(format, a...)}
}

func vatBadSum(format string, a ...any) *ValidationError {
	return &ValidationError{ReasonBadChecksum, fmt.Sprintf(format, a...)}
}

func vatIsLetter(c byte) bool { return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }

// vatDigits reports whether s is non-empty and all ASCII digits (stdnum's
// isdigits, which also rejects "").
func vatDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// vatInt parses a short digit string (callers have checked vatDigits).
func vatInt(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// vatMod is Python's %, never negative for m > 0.
func vatMod(a, m int) int { return ((a % m) + m) % m }

// vatWeighted is sum(w[i] * digit[i]) over the shorter of the two.
func vatWeighted(s string, w ...int) int {
	sum := 0
	for i := 0; i < len(s) && i < len(w); i++ {
		sum += w[i] * int(s[i]-'0')
	}
	return sum
}

// vatLuhn is the Luhn checksum of a digit string (0 when valid).
func vatLuhn(s string) int {
	sum := 0
	for i := len(s) - 1; i >= 0; i-- {
		d := int(s[i] - '0')
		if (len(s)-1-i)%2 == 1 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum % 10
}

// vatMod11_10 is the ISO 7064 Mod 11,10 checksum (1 when valid).
func vatMod11_10(s string) int {
	check := 5
	for i := 0; i < len(s); i++ {
		if check == 0 {
			check = 10
		}
		check = (check*2%11 + int(s[i]-'0')) % 10
	}
	return check
}

// vatMod97_10 is the ISO 7064 Mod 97,10 checksum of digits and letters
// (letters count as 10..35; 1 when valid); -1 for any other character.
func vatMod97_10(s string) int {
	r := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			r = (r*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			r = (r*100 + int(c-'A') + 10) % 97
		default:
			return -1
		}
	}
	return r
}

// vatDate reports whether y-m-d is a real calendar date (Python's date()).
func vatDate(y, m, d int) bool {
	if y < 1 || y > 9999 || m < 1 || m > 12 || d < 1 {
		return false
	}
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
	if m == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		days = 29
	}
	return d <= days
}

// --- countries -------------------------------------------------------------

// AT (stdnum.at.uid): 'U' + 8 digits, the last (6 - Luhn of digits 1-7) mod 10.
func vatCheckAT(s string) *ValidationError {
	if !strings.HasPrefix(s, "U") || !vatDigits(s[1:]) {
		return vatBad("An Austrian UID must be the letter U followed by 8 digits.")
	}
	if len(s) != 9 {
		return vatBad("An Austrian UID must be the letter U followed by 8 digits, not %d.", len(s)-1)
	}
	if vatMod(6-vatLuhn(s[1:8]), 10) != int(s[8]-'0') {
		return vatBadSum("The check digit of the Austrian UID is wrong.")
	}
	return nil
}

// BE (stdnum.be.vat): 10 digits, not all zero, starting 0 or 1, and the first
// 8 digits plus the last 2 divisible by 97.
func vatCheckBE(s string) *ValidationError {
	if !vatDigits(s) || strings.Trim(s, "0") == "" {
		return vatBad("A Belgian enterprise number must be digits, not all zero.")
	}
	if len(s) != 10 {
		return vatBad("A Belgian enterprise number must have 10 digits (or 9 in the old format).")
	}
	if s[0] != '0' && s[0] != '1' {
		return vatBad("A Belgian enterprise number must start with 0 or 1.")
	}
	if (vatInt(s[:8])+vatInt(s[8:]))%97 != 0 {
		return vatBadSum("The mod 97 check digits of the Belgian enterprise number are wrong.")
	}
	return nil
}

// BG (stdnum.bg.vat): 9 digits for legal entities; 10 digits for persons,
// valid as an EGN, a PNF or an "other" number.
func vatCheckBG(s string) *ValidationError {
	if !vatDigits(s) {
		return vatBad("A Bulgarian VAT number must be digits only.")
	}
	switch len(s) {
	case 9:
		c := vatWeighted(s, 1, 2, 3, 4, 5, 6, 7, 8) % 11
		if c == 10 {
			c = vatWeighted(s, 3, 4, 5, 6, 7, 8, 9, 10) % 11
		}
		if c%10 != int(s[8]-'0') {
			return vatBadSum("The check digit of the Bulgarian legal-entity VAT number is wrong.")
		}
	case 10:
		other := vatMod(11-vatWeighted(s, 4, 3, 2, 7, 6, 5, 4, 3, 2), 11)
		if !vatBGEGN(s) && !vatBGPNF(s) && other != int(s[9]-'0') {
			return vatBadSum("The 10-digit Bulgarian VAT number is not a valid EGN, PNF or other number.")
		}
	default:
		return vatBad("A Bulgarian VAT number must have 9 or 10 digits.")
	}
	return nil
}

// vatBGEGN is stdnum.bg.egn.is_valid for a 10-digit string: a birth date
// (month +20 for the 1800s, +40 for the 2000s) and a weighted mod 11 digit.
func vatBGEGN(s string) bool {
	y, m, d := 1900+vatInt(s[0:2]), vatInt(s[2:4]), vatInt(s[4:6])
	if m > 40 {
		y, m = y+100, m-40
	} else if m > 20 {
		y, m = y-100, m-20
	}
	return vatDate(y, m, d) && vatWeighted(s, 2, 4, 8, 5, 10, 9, 7, 3, 6)%11%10 == int(s[9]-'0')
}

// vatBGPNF is stdnum.bg.pnf.is_valid for a 10-digit string.
func vatBGPNF(s string) bool {
	return vatWeighted(s, 21, 19, 17, 13, 11, 9, 7, 3, 1)%10 == int(s[9]-'0')
}

// CY (stdnum.cy.vat): 8 digits, not starting 12, and a check letter.
func vatCheckCY(s string) *ValidationError {
	if len(s) == 0 || !vatDigits(s[:len(s)-1]) {
		return vatBad("A Cypriot VAT number must be 8 digits followed by a letter.")
	}
	if len(s) != 9 {
		return vatBad("A Cypriot VAT number must be 8 digits followed by a letter.")
	}
	if s[:2] == "12" {
		return vatBad("A Cypriot VAT number cannot start with 12.")
	}
	even := [...]int{1, 0, 5, 7, 9, 13, 15, 17, 19, 21} // value of a digit at index 0, 2, 4, 6
	sum := 0
	for i := 0; i < 8; i++ {
		if i%2 == 0 {
			sum += even[s[i]-'0']
		} else {
			sum += int(s[i] - '0')
		}
	}
	if s[8] != byte('A'+sum%26) {
		return vatBadSum("The check letter of the Cypriot VAT number is wrong.")
	}
	return nil
}

// CZ (stdnum.cz.dic): 8 digits for legal entities, 9 digits starting 6 for
// "special" cases, else a 9- or 10-digit birth number (RČ).
func vatCheckCZ(s string) *ValidationError {
	if !vatDigits(s) {
		return vatBad("A Czech DIČ must be digits only.")
	}
	switch {
	case len(s) == 8:
		if s[0] == '9' {
			return vatBad("An 8-digit Czech DIČ cannot start with 9.")
		}
		c := vatMod(11-vatWeighted(s, 8, 7, 6, 5, 4, 3, 2), 11)
		if c == 0 {
			c = 1
		}
		if c%10 != int(s[7]-'0') {
			return vatBadSum("The check digit of the Czech legal-entity DIČ is wrong.")
		}
	case len(s) == 9 && s[0] == '6':
		c := vatWeighted(s[1:], 8, 7, 6, 5, 4, 3, 2) % 11
		if vatMod(8-vatMod(10-c, 11), 10) != int(s[8]-'0') {
			return vatBadSum("The check digit of the special Czech DIČ is wrong.")
		}
	case len(s) == 9 || len(s) == 10:
		return vatCheckBirthNumber(s, "Czech DIČ")
	default:
		return vatBad("A Czech DIČ must have 8, 9 or 10 digits.")
	}
	return nil
}

// vatCheckBirthNumber is stdnum.cz.rc (also sk.rc) for 9 or 10 digits: a
// birth date (month +50 for women, +20 on serial overflow), 9 digits only
// before 1954, and for 10 digits the first 9 mod 11 mod 10 as check digit.
func vatCheckBirthNumber(s, what string) *ValidationError {
	y, m, d := 1900+vatInt(s[0:2]), vatInt(s[2:4])%50%20, vatInt(s[4:6])
	if len(s) == 9 {
		if y >= 1980 {
			y -= 100
		}
		if y > 1953 {
			return vatBad("A 9-digit birth number in a %s must be from before 1954.", what)
		}
	} else if y < 1954 {
		y += 100
	}
	if !vatDate(y, m, d) {
		return vatBad("The birth number in a %s does not start with a valid date.", what)
	}
	if len(s) == 10 && vatInt(s[:9])%11%10 != int(s[9]-'0') {
		return vatBadSum("The check digit of the birth number in a %s is wrong.", what)
	}
	return nil
}

// DE (stdnum.de.vat): 9 digits, not starting 0, ISO 7064 Mod 11,10.
func vatCheckDE(s string) *ValidationError {
	if !vatDigits(s) || s[0] == '0' {
		return vatBad("A German VAT number must be digits not starting with 0.")
	}
	if len(s) != 9 {
		return vatBad("A German VAT number must have 9 digits.")
	}
	if vatMod11_10(s) != 1 {
		return vatBadSum("The ISO 7064 Mod 11,10 check digit of the German VAT number is wrong.")
	}
	return nil
}

// DK (stdnum.dk.cvr): 8 digits, not starting 0, weighted sum divisible by 11.
func vatCheckDK(s string) *ValidationError {
	if !vatDigits(s) || s[0] == '0' {
		return vatBad("A Danish CVR number must be digits not starting with 0.")
	}
	if len(s) != 8 {
		return vatBad("A Danish CVR number must have 8 digits.")
	}
	if vatWeighted(s, 2, 7, 6, 5, 4, 3, 2, 1)%11 != 0 {
		return vatBadSum("The weighted mod 11 check of the Danish CVR number fails.")
	}
	return nil
}

// EE (stdnum.ee.kmkr): 9 digits, weights 3,7,1 repeated, sum divisible by 10.
// (stdnum does not require the leading "10".)
func vatCheckEE(s string) *ValidationError {
	if !vatDigits(s) {
		return vatBad("An Estonian KMKR number must be digits only.")
	}
	if len(s) != 9 {
		return vatBad("An Estonian KMKR number must have 9 digits.")
	}
	if vatWeighted(s, 3, 7, 1, 3, 7, 1, 3, 7, 1)%10 != 0 {
		return vatBadSum("The weighted mod 10 check of the Estonian KMKR number fails.")
	}
	return nil
}

// EL (stdnum.gr.vat): 9 digits (8 padded), binary-weighted mod 11 digit.
func vatCheckEL(s string) *ValidationError {
	if !vatDigits(s) {
		return vatBad("A Greek VAT number must be digits only.")
	}
	if len(s) != 9 {
		return vatBad("A Greek VAT number must have 9 digits (or 8 in the old format).")
	}
	sum := 0
	for i := 0; i < 8; i++ {
		sum = sum*2 + int(s[i]-'0')
	}
	if sum*2%11%10 != int(s[8]-'0') {
		return vatBadSum("The check digit of the Greek VAT number is wrong.")
	}
	return nil
}

// ES (stdnum.es.nif): 9 characters, the middle 7 digits; DNI, NIE (X/Y/Z),
// K/L/M personal numbers (DNI letter over the 7 digits) or CIF.
func vatCheckES(s string) *ValidationError {
	if len(s) < 2 || !vatDigits(s[1:len(s)-1]) {
		return vatBad("A Spanish NIF must have 7 digits between its first and last character.")
	}
	if len(s) != 9 {
		return vatBad("A Spanish NIF must have 9 characters.")
	}
	const dniLetters = "TRWAGMYFPDXBNJZSQVHLCKE"
	switch c := s[0]; {
	case c == 'K' || c == 'L' || c == 'M':
		if s[8] != dniLetters[vatInt(s[1:8])%23] {
			return vatBadSum("The check letter of the Spanish K/L/M NIF is wrong.")
		}
	case c >= '0' && c <= '9':
		if s[8] != dniLetters[vatInt(s[:8])%23] {
			return vatBadSum("The check letter of the Spanish DNI is wrong.")
		}
	case c == 'X' || c == 'Y' || c == 'Z':
		if s[8] != dniLetters[vatInt(string('0'+c-'X')+s[1:8])%23] {
			return vatBadSum("The check letter of the Spanish NIE is wrong.")
		}
	case strings.IndexByte("ABCDEFGHJNPQRSUVW", c) >= 0:
		check := vatMod(10-vatLuhn(s[1:8]+"0"), 10)
		if s[8] != byte('0'+check) && s[8] != "JABCDEFGHI"[check] {
			return vatBadSum("The check character of the Spanish CIF is wrong.")
		}
	default:
		return vatBad("A Spanish NIF cannot start with %q.", string(c))
	}
	return nil
}

// FI (stdnum.fi.alv): 8 digits, weighted sum divisible by 11.
func vatCheckFI(s string) *ValidationError {
	if !vatDigits(s) {
		return vatBad("A Finnish ALV number must be digits only.")
	}
	if len(s) != 8 {
		return vatBad("A Finnish ALV number must have 8 digits.")
	}
	if vatWeighted(s, 7, 9, 10, 5, 8, 4, 2, 1)%11 != 0 {
		return vatBadSum("The weighted mod 11 check of the Finnish ALV number fails.")
	}
	return nil
}

// vatFRAlphabet is the French key alphabet (no I, no O).
const vatFRAlphabet = "0123456789ABCDEFGHJKLMNPQRSTUVWXYZ"

// FR (stdnum.fr.tva): a 2-character key and a 9-digit SIREN (Luhn, except
// Monaco's 000 numbers); a numeric key is (SIREN·100 + 12) mod 97, an
// alphanumeric key follows the old or new system.
func vatCheckFR(s string) *ValidationError {
	for i := 0; i < len(s) && i < 2; i++ {
		if strings.IndexByte(vatFRAlphabet, s[i]) < 0 {
			return vatBad("The key of a French TVA number must be two digits or letters other than I and O.")
		}
	}
	if len(s) < 3 || !vatDigits(s[2:]) {
		return vatBad("A French TVA number must be a 2-character key followed by a 9-digit SIREN.")
	}
	if len(s) != 11 {
		return vatBad("A French TVA number must have 11 characters.")
	}
	if s[2:5] != "000" && vatLuhn(s[2:]) != 0 { // Monaco numbers are no SIREN
		return vatBadSum("The SIREN in the French TVA number fails the Luhn check.")
	}
	siren := vatInt(s[2:])
	if vatDigits(s[:2]) {
		if vatInt(s[:2]) != (siren*100+12)%97 {
			return vatBadSum("The numeric key of the French TVA number does not match its SIREN.")
		}
		return nil
	}
	a, b := strings.IndexByte(vatFRAlphabet, s[0]), strings.IndexByte(vatFRAlphabet, s[1])
	check := a*34 + b - 100 // new system: the key starts with a letter
	if a < 10 {
		check = a*24 + b - 10 // old system: digit then letter
	}
	if (siren+1+check/11)%11 != check%11 {
		return vatBadSum("The alphanumeric key of the French TVA number does not match its SIREN.")
	}
	return nil
}

// HR (stdnum.hr.oib): 11 digits, ISO 7064 Mod 11,10.
func vatCheckHR(s string) *ValidationError {
	if !vatDigits(s) {
		return vatBad("A Croatian OIB must be digits only.")
	}
	if len(s) != 11 {
		return vatBad("A Croatian OIB must have 11 digits.")
	}
	if vatMod11_10(s) != 1 {
		return vatBadSum("The ISO 7064 Mod 11,10 check digit of the Croatian OIB is wrong.")
	}
	return nil
}

// HU (stdnum.hu.anum): 8 digits, weights 9,7,3,1 repeated, sum divisible by 10.
func vatCheckHU(s string) *ValidationError {
	if !vatDigits(s) {
		return vatBad("A Hungarian ANUM must be digits only.")
	}
	if len(s) != 8 {
		return vatBad("A Hungarian ANUM must have 8 digits.")
	}
	if vatWeighted(s, 9, 7, 3, 1, 9, 7, 3, 1)%10 != 0 {
		return vatBadSum("The weighted mod 10 check of the Hungarian ANUM fails.")
	}
	return nil
}

// vatIEAlphabet holds the Irish check letters by value (W is 0).
const vatIEAlphabet = "WABCDEFGHIJKLMNOPQRSTUV"

// IE (stdnum.ie.vat): 7 digits + check letter (+ optional second letter, W
// or since 2013 A-I, weighted 9), or the old form digit, letter/+/*, 5 digits,
// check letter.
func vatCheckIE(s string) *ValidationError {
	if len(s) < 3 || !vatDigits(s[:1]) || !vatDigits(s[2:min(len(s), 7)]) {
		return vatBad("An Irish VAT number must be 7 digits (or the old digit-letter-5-digit form) and check letters.")
	}
	for i := 7; i < len(s); i++ {
		if strings.IndexByte(vatIEAlphabet, s[i]) < 0 {
			return vatBad("The letters of an Irish VAT number must be A to W.")
		}
	}
	if len(s) != 8 && len(s) != 9 {
		return vatBad("An Irish VAT number must have 8 or 9 characters.")
	}
	var sum int
	switch {
	case vatDigits(s[:7]):
		sum = vatWeighted(s, 8, 7, 6, 5, 4, 3, 2)
		if len(s) == 9 {
			sum += 9 * strings.IndexByte(vatIEAlphabet, s[8])
		}
	case strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZ+*", s[1]) >= 0:
		// old form: the digits are read as 0, s[2:7], s[0]
		sum = vatWeighted("0"+s[2:7]+s[:1], 8, 7, 6, 5, 4, 3, 2)
	default:
		return vatBad("The second character of an old-style Irish VAT number must be a letter, + or *.")
	}
	if s[7] != vatIEAlphabet[sum%23] {
		return vatBadSum("The check letter of the Irish VAT number is wrong.")
	}
	return nil
}

// IT (stdnum.it.iva): 11 digits, the first 7 not all zero, an office code
// 001-100, 120, 121, 888 or 999, and Luhn.
func vatCheckIT(s string) *ValidationError {
	if !vatDigits(s) || strings.Trim(s[:min(len(s), 7)], "0") == "" {
		return vatBad("An Italian partita IVA must be digits, the first 7 not all zero.")
	}
	if len(s) != 11 {
		return vatBad("An Italian partita IVA must have 11 digits.")
	}
	if o := s[7:10]; !(o >= "001" && o <= "100" || o == "120" || o == "121" || o == "888" || o == "999") {
		return vatBad("The office code %s of the Italian partita IVA is not 001-100, 120, 121, 888 or 999.", o)
	}
	if vatLuhn(s) != 0 {
		return vatBadSum("The Italian partita IVA fails the Luhn check.")
	}
	return nil
}

// LT (stdnum.lt.pvm): 9 digits with 1 as 8th, or 12 digits with 1 as 11th;
// weights 1-9 cycling, and on a remainder of 10 a second pass shifted by 2.
func vatCheckLT(s string) *ValidationError {
	if !vatDigits(s) {
		return vatBad("A Lithuanian PVM code must be digits only.")
	}
	switch len(s) {
	case 9, 12:
		if s[len(s)-2] != '1' {
			return vatBad("The second-to-last digit of a Lithuanian PVM code must be 1.")
		}
	default:
		return vatBad("A Lithuanian PVM code must have 9 or 12 digits.")
	}
	body, c := s[:len(s)-1], 0
	for i := 0; i < len(body); i++ {
		c += (1 + i%9) * int(body[i]-'0')
	}
	if c%11 == 10 {
		c = 0
		for i := 0; i < len(body); i++ {
			c += (1 + (i+2)%9) * int(body[i]-'0')
		}
	}
	if c%11%10 != int(s[len(s)-1]-'0') {
		return vatBadSum("The check digit of the Lithuanian PVM code is wrong.")
	}
	return nil
}

// LU (stdnum.lu.tva): 8 digits, the last two the first six mod 89.
func vatCheckLU(s string) *ValidationError {
	if !vatDigits(s) {
		return vatBad("A Luxembourg TVA number must be digits only.")
	}
	if len(s) != 8 {
		return vatBad("A Luxembourg TVA number must have 8 digits.")
	}
	if vatInt(s[:6])%89 != vatInt(s[6:]) {
		return vatBadSum("The mod 89 check digits of the Luxembourg TVA number are wrong.")
	}
	return nil
}

// LV (stdnum.lv.pvn): 11 digits; first digit above 3 a legal entity (weighted
// mod 11 = 3), else a personal code (starting 32, or with a ddmmyy birth date
// whose century is in the 7th digit) with a weighted mod 11 check digit.
func vatCheckLV(s string) *ValidationError {
	if !vatDigits(s) {
		return vatBad("A Latvian PVN number must be digits only.")
	}
	if len(s) != 11 {
		return vatBad("A Latvian PVN number must have 11 digits.")
	}
	if s[0] > '3' {
		if vatWeighted(s, 9, 1, 4, 8, 3, 10, 2, 5, 7, 6, 1)%11 != 3 {
			return vatBadSum("The check digit of the Latvian legal-entity PVN number is wrong.")
		}
		return nil
	}
	if !strings.HasPrefix(s, "32") {
		y := vatInt(s[4:6]) + 1800 + int(s[6]-'0')*100
		if !vatDate(y, vatInt(s[2:4]), vatInt(s[0:2])) {
			return vatBad("The Latvian personal code does not start with a valid ddmmyy birth date.")
		}
	}
	if (1+vatWeighted(s, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9))%11%10 != int(s[10]-'0') {
		return vatBadSum("The check digit of the Latvian personal code is wrong.")
	}
	return nil
}

// MT (stdnum.mt.vat): 8 digits, not starting 0, weighted sum divisible by 37.
func vatCheckMT(s string) *ValidationError {
	if !vatDigits(s) || s[0] == '0' {
		return vatBad("A Maltese VAT number must be digits not starting with 0.")
	}
	if len(s) != 8 {
		return vatBad("A Maltese VAT number must have 8 digits.")
	}
	if vatWeighted(s, 3, 4, 6, 7, 8, 9, 10, 1)%37 != 0 {
		return vatBadSum("The weighted mod 37 check of the Maltese VAT number fails.")
	}
	return nil
}

// NL (stdnum.nl.btw): 9 digits, B, 2 digits (not 00); valid when the 9 digits
// are a BSN/RSIN (mod 11) or, since 2020, the whole "NL…" passes ISO 7064
// Mod 97,10.
func vatCheckNL(s string) *ValidationError {
	if len(s) < 9 || !vatDigits(s[:9]) || strings.Trim(s[:9], "0") == "" {
		return vatBad("A Dutch btw number must start with 9 digits, not all zero.")
	}
	if len(s) < 11 || !vatDigits(s[10:]) || strings.Trim(s[10:], "0") == "" {
		return vatBad("A Dutch btw number must end in a 2-digit suffix other than 00.")
	}
	if len(s) != 12 {
		return vatBad("A Dutch btw number must have 12 characters (9 digits, B, 2 digits).")
	}
	if s[9] != 'B' {
		return vatBad("A Dutch btw number must have the letter B after its 9 digits.")
	}
	bsn := vatMod(vatWeighted(s, 9, 8, 7, 6, 5, 4, 3, 2)-int(s[8]-'0'), 11) == 0
	if !bsn && vatMod97_10("NL"+s) != 1 {
		return vatBadSum("The Dutch btw number passes neither the mod 11 (RSIN) nor the mod 97 check.")
	}
	return nil
}

// PL (stdnum.pl.nip): 10 digits, weights 6,5,7,2,3,4,5,6,7,-1, sum divisible by 11.
func vatCheckPL(s string) *ValidationError {
	if !vatDigits(s) {
		return vatBad("A Polish NIP must be digits only.")
	}
	if len(s) != 10 {
		return vatBad("A Polish NIP must have 10 digits.")
	}
	if vatMod(vatWeighted(s, 6, 5, 7, 2, 3, 4, 5, 6, 7, -1), 11) != 0 {
		return vatBadSum("The weighted mod 11 check of the Polish NIP fails.")
	}
	return nil
}

// PT (stdnum.pt.nif): 9 digits, not starting 0, weighted mod 11 check digit.
func vatCheckPT(s string) *ValidationError {
	if !vatDigits(s) || s[0] == '0' {
		return vatBad("A Portuguese NIF must be digits not starting with 0.")
	}
	if len(s) != 9 {
		return vatBad("A Portuguese NIF must have 9 digits.")
	}
	if vatMod(11-vatWeighted(s, 9, 8, 7, 6, 5, 4, 3, 2), 11)%10 != int(s[8]-'0') {
		return vatBadSum("The check digit of the Portuguese NIF is wrong.")
	}
	return nil
}

// RO (stdnum.ro.cf): a 13-digit CNP, or a 2-10 digit CUI/CIF not starting 0
// whose last digit is 10·(weighted sum) mod 11 mod 10.
func vatCheckRO(s string) *ValidationError {
	switch {
	case len(s) == 13:
		return vatCheckROCNP(s)
	case len(s) < 2 || len(s) > 10:
		return vatBad("A Romanian CIF must have 2 to 10 digits (or be a 13-digit CNP).")
	}
	if !vatDigits(s) || s[0] == '0' {
		return vatBad("A Romanian CIF must be digits not starting with 0.")
	}
	body := strings.Repeat("0", 10-len(s)) + s[:len(s)-1]
	if 10*vatWeighted(body, 7, 5, 3, 2, 1, 7, 5, 3, 2)%11%10 != int(s[len(s)-1]-'0') {
		return vatBadSum("The check digit of the Romanian CIF is wrong.")
	}
	return nil
}

// vatROCounties are the CNP county codes stdnum.ro.cnp knows.
var vatROCounties = func() map[string]bool {
	m := map[string]bool{"51": true, "52": true, "70": true, "80": true, "81": true, "82": true, "83": true}
	for i := 1; i <= 48; i++ {
		m[fmt.Sprintf("%02d", i)] = true
	}
	return m
}()

// vatCheckROCNP is stdnum.ro.cnp: sex/century digit 1-9, a birth date, a
// known county and a weighted mod 11 check digit (10 counts as 1).
func vatCheckROCNP(s string) *ValidationError {
	if !vatDigits(s) {
		return vatBad("A Romanian CNP must be digits only.")
	}
	if s[0] == '0' {
		return vatBad("A Romanian CNP cannot start with 0.")
	}
	century := map[byte]int{'1': 1900, '2': 1900, '3': 1800, '4': 1800, '5': 2000, '6': 2000}[s[0]]
	if century == 0 {
		century = 1900 // foreigners (7-9): stdnum assumes the 1900s
	}
	if !vatDate(century+vatInt(s[1:3]), vatInt(s[3:5]), vatInt(s[5:7])) {
		return vatBad("The Romanian CNP does not contain a valid birth date.")
	}
	if !vatROCounties[s[7:9]] {
		return vatBad("The county code %s of the Romanian CNP is unknown.", s[7:9])
	}
	c := vatWeighted(s, 2, 7, 9, 1, 4, 6, 3, 5, 8, 2, 7, 9) % 11
	if c == 10 {
		c = 1
	}
	if c != int(s[12]-'0') {
		return vatBadSum("The check digit of the Romanian CNP is wrong.")
	}
	return nil
}

// SE (stdnum.se.vat): a 10-digit organisation number (Luhn) followed by 01.
func vatCheckSE(s string) *ValidationError {
	if !vatDigits(s) || !strings.HasSuffix(s, "01") {
		return vatBad("A Swedish VAT number must be digits ending in 01.")
	}
	if len(s) != 12 {
		return vatBad("A Swedish VAT number must have 12 digits (10 plus 01).")
	}
	if vatLuhn(s[:10]) != 0 {
		return vatBadSum("The organisation number in the Swedish VAT number fails the Luhn check.")
	}
	return nil
}

// SI (stdnum.si.ddv): 8 digits, not starting 0, check digit 11 - weighted
// sum mod 11 (10 written 0, 11 impossible).
func vatCheckSI(s string) *ValidationError {
	if !vatDigits(s) || s[0] == '0' {
		return vatBad("A Slovenian DDV number must be digits not starting with 0.")
	}
	if len(s) != 8 {
		return vatBad("A Slovenian DDV number must have 8 digits.")
	}
	check := 11 - vatWeighted(s, 8, 7, 6, 5, 4, 3, 2)%11
	if check == 10 {
		check = 0
	}
	if check != int(s[7]-'0') {
		return vatBadSum("The check digit of the Slovenian DDV number is wrong.")
	}
	return nil
}

// SK (stdnum.sk.dph): 10 digits; a valid birth number, or not starting 0,
// third digit 2, 3, 4, 7, 8 or 9, and divisible by 11.
func vatCheckSK(s string) *ValidationError {
	if !vatDigits(s) {
		return vatBad("A Slovak IČ DPH must be digits only.")
	}
	if len(s) != 10 {
		return vatBad("A Slovak IČ DPH must have 10 digits.")
	}
	if vatCheckBirthNumber(s, "Slovak IČ DPH") == nil {
		return nil
	}
	if s[0] == '0' || !strings.ContainsRune("234789", rune(s[2])) {
		return vatBad("A Slovak IČ DPH cannot start with 0 and its third digit must be 2, 3, 4, 7, 8 or 9.")
	}
	n, _ := strconv.ParseInt(s, 10, 64)
	if n%11 != 0 {
		return vatBadSum("The Slovak IČ DPH is not divisible by 11.")
	}
	return nil
}

// XI (stdnum.gb.vat, UK numbers for Northern Ireland): 9 digits, or 12 with a
// branch, weighted mod 97 of 0 (or 42/55 from 100 up, the 9755 scheme);
// GDnnn (below 500) and HAnnn (500 and up), also as GD8888nnnCC/HA8888nnnCC.
func vatCheckXI(s string) *ValidationError {
	switch {
	case len(s) == 5:
		if !vatDigits(s[2:]) {
			return vatBad("A UK government department or health authority number must be GD or HA and 3 digits.")
		}
		return vatCheckGDHA(s[:2], vatInt(s[2:]))
	case len(s) == 11 && (strings.HasPrefix(s, "GD8888") || strings.HasPrefix(s, "HA8888")):
		if !vatDigits(s[6:]) {
			return vatBad("A UK GD8888/HA8888 number must end in 5 digits.")
		}
		if err := vatCheckGDHA(s[:2], vatInt(s[6:9])); err != nil {
			return err
		}
		if vatInt(s[6:9])%97 != vatInt(s[9:]) {
			return vatBadSum("The mod 97 check digits of the UK GD8888/HA8888 number are wrong.")
		}
	case len(s) == 9 || len(s) == 12:
		if !vatDigits(s) {
			return vatBad("A UK VAT number must be digits only.")
		}
		sum := vatWeighted(s, 8, 7, 6, 5, 4, 3, 2, 10, 1) % 97
		if sum != 0 && (vatInt(s[:3]) < 100 || sum != 42 && sum != 55) {
			return vatBadSum("The weighted mod 97 check of the UK VAT number fails.")
		}
	default:
		return vatBad("A UK VAT number must have 9 or 12 digits, or be GDnnn/HAnnn.")
	}
	return nil
}

// vatCheckGDHA: government departments are numbered below 500, health
// authorities from 500.
func vatCheckGDHA(kind string, n int) *ValidationError {
	if kind == "GD" && n < 500 || kind == "HA" && n >= 500 {
		return nil
	}
	return vatBad("A UK GD number must be below 500 and an HA number 500 or above.")
}

// TestServiceNumber recognises a number of VIES's test service (100, 200,
// 201–601 after a country prefix, e.g. "DE301"). No real VAT number is that
// short, so the offline check rejects them; they are for sandboxes.
func TestServiceNumber(vat, defaultCountry string) (Number, bool) {
	s := vatClean(vat)
	cc := vatCanonCountry(defaultCountry)
	if len(s) >= 2 && vatIsLetter(s[0]) && vatIsLetter(s[1]) {
		cc, s = vatCanonCountry(s[:2]), s[2:]
	}
	if _, ok := vatRules[cc]; !ok {
		return Number{}, false
	}
	switch s {
	case "100", "200", "201", "202", "300", "301", "302", "400", "401", "500", "501", "600", "601":
		return Number{CountryCode: cc, Number: s}, true
	}
	return Number{}, false
}
