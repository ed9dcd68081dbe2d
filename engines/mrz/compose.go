package mrz

import (
	"errors"
	"fmt"
	"strings"
)

// Fields are what a document's MRZ says, for Compose: text in the MRZ's
// alphabet (A–Z, 0–9; spaces in names become '<'), dates as YYMMDD.
type Fields struct {
	Format         Format // TD1 (ID cards) or TD3 (passports)
	DocumentCode   string // "P", "I", "ID", …
	IssuingState   string // "NLD", "D", "UTO", …
	Surname        string
	GivenNames     string
	DocumentNumber string // at most 9 characters
	Nationality    string
	BirthDate      string // YYMMDD
	Sex            string // "M", "F" or "X"
	ExpiryDate     string // YYMMDD
	// OptionalData is TD3's personal number (a Dutch passport's BSN) or
	// TD1's optional data of line 1.
	OptionalData string
}

// Compose writes the MRZ of f with its check digits, lines joined by
// "\n": how a document printed it. Names too long for their field are cut.
func Compose(f Fields) (string, error) {
	pad := func(s string, n int) string {
		if len(s) > n {
			return s[:n]
		}
		return s + strings.Repeat("<", n-len(s))
	}
	var bad error
	cd := func(s string) string {
		d, ok := CheckDigit(s)
		if !ok {
			bad = fmt.Errorf("mrz: %q is not in the MRZ alphabet", s)
		}
		return string(d)
	}
	for _, v := range []string{f.DocumentNumber, f.BirthDate, f.ExpiryDate} {
		if strings.ContainsAny(v, " ") || len(v) == 0 {
			return "", fmt.Errorf("mrz: empty or spaced field %q", v)
		}
	}
	if len(f.DocumentNumber) > 9 {
		return "", errors.New("mrz: a document number of more than 9 characters overflows, which Compose does not write")
	}
	name := strings.ReplaceAll(f.Surname, " ", "<") + "<<" + strings.ReplaceAll(f.GivenNames, " ", "<")
	num, birth, expiry := pad(f.DocumentNumber, 9), f.BirthDate, f.ExpiryDate
	sex := f.Sex
	if sex == "X" || sex == "" {
		sex = "<"
	}
	var lines []string
	switch f.Format {
	case TD3:
		personal := pad(f.OptionalData, 14)
		l1 := pad(pad(f.DocumentCode, 2)+pad(f.IssuingState, 3)+name, 44)
		partial := num + cd(num) + pad(f.Nationality, 3) + birth + cd(birth) + sex + expiry + cd(expiry) + personal + cd(personal)
		composite := num + cd(num) + birth + cd(birth) + expiry + cd(expiry) + personal + cd(personal)
		lines = []string{l1, partial + cd(composite)}
	case TD1:
		opt1 := pad(f.OptionalData, 15)
		l1 := pad(f.DocumentCode, 2) + pad(f.IssuingState, 3) + num + cd(num) + opt1
		opt2 := pad("", 11)
		l2 := birth + cd(birth) + sex + expiry + cd(expiry) + pad(f.Nationality, 3) + opt2
		composite := l1[5:30] + l2[0:7] + l2[8:15] + l2[18:29]
		lines = []string{l1, l2 + cd(composite), pad(name, 30)}
	default:
		return "", fmt.Errorf("mrz: Compose writes TD1 and TD3, not %q", f.Format)
	}
	if bad != nil {
		return "", bad
	}
	return strings.Join(lines, "\n"), nil
}
