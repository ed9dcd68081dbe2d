package iban

import (
	"fmt"
	"strconv"
)

// entry is one country of the SWIFT IBAN Registry. Bank and branch
// identifier positions are 0-based offsets into the BBAN (the IBAN without
// its first four characters); a zero length means the registry defines none.
type entry struct {
	code, name           string
	length               int
	structure            string
	bankOff, bankLen     int
	branchOff, branchLen int
	sepa                 bool
}

// registry mirrors the SWIFT IBAN Registry, Release 102 (June 2026), sorted
// by country code. Territories that SWIFT lists inside a parent entry (e.g.
// GF, GP, RE under FR; IM, JE, GG under GB; AX under FI) use the parent's
// country code in their IBANs, so they have no entries of their own.
var registry = []entry{
	// code, name, IBAN length, BBAN structure, bank off/len, branch off/len, SEPA
	{"AD", "Andorra", 24, "4!n4!n12!c", 0, 4, 4, 4, true},
	{"AE", "United Arab Emirates", 23, "3!n16!n", 0, 3, 0, 0, false},
	{"AL", "Albania", 28, "8!n16!c", 0, 3, 3, 5, false},
	{"AT", "Austria", 20, "5!n11!n", 0, 5, 0, 0, true},
	{"AZ", "Azerbaijan", 28, "4!a20!c", 0, 4, 0, 0, false},
	{"BA", "Bosnia and Herzegovina", 20, "3!n3!n8!n2!n", 0, 3, 3, 3, false},
	{"BE", "Belgium", 16, "3!n7!n2!n", 0, 3, 0, 0, true},
	{"BG", "Bulgaria", 22, "4!a4!n2!n8!c", 0, 4, 4, 4, true},
	{"BH", "Bahrain", 22, "4!a14!c", 0, 4, 0, 0, false},
	{"BI", "Burundi", 27, "5!n5!n11!n2!n", 0, 5, 5, 5, false},
	{"BR", "Brazil", 29, "8!n5!n10!n1!a1!c", 0, 8, 8, 5, false},
	{"BY", "Belarus", 28, "4!c4!n16!c", 0, 4, 0, 0, false},
	{"CH", "Switzerland", 21, "5!n12!c", 0, 5, 0, 0, true},
	{"CR", "Costa Rica", 22, "4!n14!n", 0, 4, 0, 0, false},
	{"CY", "Cyprus", 28, "3!n5!n16!c", 0, 3, 3, 5, true},
	{"CZ", "Czechia", 24, "4!n16!n", 0, 4, 0, 0, true},
	{"DE", "Germany", 22, "8!n10!n", 0, 8, 0, 0, true},
	{"DJ", "Djibouti", 27, "5!n5!n11!n2!n", 0, 5, 5, 5, false},
	{"DK", "Denmark", 18, "4!n9!n1!n", 0, 4, 0, 0, true},
	{"DO", "Dominican Republic", 28, "4!c20!n", 0, 4, 0, 0, false},
	{"EE", "Estonia", 20, "2!n14!n", 0, 2, 0, 0, true},
	{"EG", "Egypt", 29, "4!n4!n17!n", 0, 4, 4, 4, false},
	{"ES", "Spain", 24, "4!n4!n1!n1!n10!n", 0, 4, 4, 4, true},
	{"FI", "Finland", 18, "3!n11!n", 0, 3, 0, 0, true},
	{"FK", "Falkland Islands", 18, "2!a12!n", 0, 2, 0, 0, false},
	{"FO", "Faroe Islands", 18, "4!n9!n1!n", 0, 4, 0, 0, false},
	{"FR", "France", 27, "5!n5!n11!c2!n", 0, 5, 0, 0, true},
	{"GB", "United Kingdom", 22, "4!a6!n8!n", 0, 4, 4, 6, true},
	{"GE", "Georgia", 22, "2!a16!n", 0, 2, 0, 0, false},
	{"GI", "Gibraltar", 23, "4!a15!c", 0, 4, 0, 0, true},
	{"GL", "Greenland", 18, "4!n9!n1!n", 0, 4, 0, 0, false},
	{"GR", "Greece", 27, "3!n4!n16!c", 0, 3, 3, 4, true},
	{"GT", "Guatemala", 28, "4!c20!c", 0, 4, 0, 0, false},
	{"HN", "Honduras", 28, "4!a20!n", 0, 4, 0, 0, false},
	{"HR", "Croatia", 21, "7!n10!n", 0, 7, 0, 0, true},
	{"HU", "Hungary", 28, "3!n4!n1!n15!n1!n", 0, 3, 3, 4, true},
	{"IE", "Ireland", 22, "4!a6!n8!n", 0, 4, 4, 6, true},
	{"IL", "Israel", 23, "3!n3!n13!n", 0, 3, 3, 3, false},
	{"IQ", "Iraq", 23, "4!a3!n12!n", 0, 4, 4, 3, false},
	{"IS", "Iceland", 26, "4!n2!n6!n10!n", 0, 2, 2, 2, true},
	{"IT", "Italy", 27, "1!a5!n5!n12!c", 1, 5, 6, 5, true},
	{"JO", "Jordan", 30, "4!a4!n18!c", 0, 4, 4, 4, false},
	{"KW", "Kuwait", 30, "4!a22!c", 0, 4, 0, 0, false},
	{"KZ", "Kazakhstan", 20, "3!n13!c", 0, 3, 0, 0, false},
	{"LB", "Lebanon", 28, "4!n20!c", 0, 4, 0, 0, false},
	{"LC", "Saint Lucia", 32, "4!a24!c", 0, 4, 0, 0, false},
	{"LI", "Liechtenstein", 21, "5!n12!c", 0, 5, 0, 0, true},
	{"LT", "Lithuania", 20, "5!n11!n", 0, 5, 0, 0, true},
	{"LU", "Luxembourg", 20, "3!n13!c", 0, 3, 0, 0, true},
	{"LV", "Latvia", 21, "4!a13!c", 0, 4, 0, 0, true},
	{"LY", "Libya", 25, "3!n3!n15!n", 0, 3, 3, 3, false},
	{"MC", "Monaco", 27, "5!n5!n11!c2!n", 0, 5, 5, 5, true},
	{"MD", "Moldova", 24, "2!c18!c", 0, 2, 0, 0, false},
	{"ME", "Montenegro", 22, "3!n13!n2!n", 0, 3, 0, 0, false},
	{"MK", "North Macedonia", 19, "3!n10!c2!n", 0, 3, 0, 0, false},
	{"MN", "Mongolia", 20, "4!n12!n", 0, 4, 0, 0, false},
	{"MR", "Mauritania", 27, "5!n5!n11!n2!n", 0, 5, 5, 5, false},
	{"MT", "Malta", 31, "4!a5!n18!c", 0, 4, 4, 5, true},
	{"MU", "Mauritius", 30, "4!a2!n2!n12!n3!n3!a", 0, 6, 6, 2, false},
	{"NI", "Nicaragua", 28, "4!a20!n", 0, 4, 0, 0, false},
	{"NL", "Netherlands", 18, "4!a10!n", 0, 4, 0, 0, true},
	{"NO", "Norway", 15, "4!n6!n1!n", 0, 4, 0, 0, true},
	{"OM", "Oman", 23, "3!n16!c", 0, 3, 0, 0, false},
	{"PK", "Pakistan", 24, "4!a16!c", 0, 4, 0, 0, false},
	{"PL", "Poland", 28, "8!n16!n", 0, 8, 0, 0, true},
	{"PS", "Palestine", 29, "4!a21!c", 0, 4, 0, 0, false},
	{"PT", "Portugal", 25, "4!n4!n11!n2!n", 0, 4, 0, 0, true},
	{"QA", "Qatar", 29, "4!a21!c", 0, 4, 0, 0, false},
	{"RO", "Romania", 24, "4!a16!c", 0, 4, 0, 0, true},
	{"RS", "Serbia", 22, "3!n13!n2!n", 0, 3, 0, 0, false},
	{"RU", "Russian Federation", 33, "9!n5!n15!c", 0, 9, 9, 5, false},
	{"SA", "Saudi Arabia", 24, "2!n18!c", 0, 2, 0, 0, false},
	{"SC", "Seychelles", 31, "4!a2!n2!n16!n3!a", 0, 6, 6, 2, false},
	{"SD", "Sudan", 18, "2!n12!n", 0, 2, 0, 0, false},
	{"SE", "Sweden", 24, "3!n16!n1!n", 0, 3, 0, 0, true},
	{"SI", "Slovenia", 19, "5!n8!n2!n", 0, 5, 0, 0, true},
	{"SK", "Slovakia", 24, "4!n6!n10!n", 0, 4, 0, 0, true},
	{"SM", "San Marino", 27, "1!a5!n5!n12!c", 1, 5, 6, 5, true},
	{"SO", "Somalia", 23, "4!n3!n12!n", 0, 4, 4, 3, false},
	{"ST", "Sao Tome and Principe", 25, "4!n4!n11!n2!n", 0, 4, 4, 4, false},
	{"SV", "El Salvador", 28, "4!a20!n", 0, 4, 0, 0, false},
	{"TL", "Timor-Leste", 23, "3!n14!n2!n", 0, 3, 0, 0, false},
	{"TN", "Tunisia", 24, "2!n3!n13!n2!n", 0, 2, 2, 3, false},
	{"TR", "Türkiye", 26, "5!n1!n16!c", 0, 5, 0, 0, false},
	{"UA", "Ukraine", 29, "6!n19!c", 0, 6, 0, 0, false},
	{"VA", "Holy See (Vatican City State)", 22, "3!n15!n", 0, 3, 0, 0, true},
	{"VG", "British Virgin Islands", 24, "4!a16!n", 0, 4, 0, 0, false},
	{"XK", "Kosovo", 20, "4!n10!n2!n", 0, 2, 2, 2, false},
	{"YE", "Yemen", 30, "4!a4!n18!c", 0, 4, 4, 4, false},
}

// charClass is a SWIFT character class of a BBAN structure segment.
type charClass uint8

const (
	classDigit charClass = iota + 1 // n: 0-9
	classUpper                      // a: A-Z
	classAlnum                      // c: A-Z, 0-9
	classSpace                      // e: blank space
)

// segment is one compiled element of a BBAN structure, e.g. "4!a".
type segment struct {
	count int
	class charClass
}

// matches reports whether b belongs to the class.
func (c charClass) matches(b byte) bool {
	switch c {
	case classDigit:
		return b >= '0' && b <= '9'
	case classUpper:
		return b >= 'A' && b <= 'Z'
	case classAlnum:
		return b >= '0' && b <= '9' || b >= 'A' && b <= 'Z'
	case classSpace:
		return b == ' '
	}
	return false
}

// describe names the class for error messages.
func (c charClass) describe() string {
	switch c {
	case classDigit:
		return "a digit"
	case classUpper:
		return "a letter"
	case classAlnum:
		return "a letter or digit"
	case classSpace:
		return "a space"
	}
	return "?"
}

// parseStructure compiles a SWIFT BBAN structure such as "4!a10!n". Only
// fixed-length ("!") elements are accepted: every registry entry is fixed
// length, so anything else is a data error.
func parseStructure(s string) ([]segment, error) {
	var segs []segment
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i || j+2 > len(s) || s[j] != '!' {
			return nil, fmt.Errorf("bad structure %q at %d", s, i)
		}
		n, err := strconv.Atoi(s[i:j])
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("bad count in structure %q at %d", s, i)
		}
		var c charClass
		switch s[j+1] {
		case 'n':
			c = classDigit
		case 'a':
			c = classUpper
		case 'c':
			c = classAlnum
		case 'e':
			c = classSpace
		default:
			return nil, fmt.Errorf("bad class %q in structure %q", s[j+1], s)
		}
		segs = append(segs, segment{n, c})
		i = j + 2
	}
	if len(segs) == 0 {
		return nil, fmt.Errorf("empty structure")
	}
	return segs, nil
}

var (
	countries []Country
	// index maps a two-letter code (as (c0-'A')*26 + c1-'A') to its
	// position in countries plus one; 0 means unknown. An array keeps
	// lookups allocation- and hash-free on the validation path.
	index [26 * 26]uint8
)

func init() {
	countries = make([]Country, len(registry))
	for i, e := range registry {
		if len(e.code) != 2 || !isUpper(e.code[0]) || !isUpper(e.code[1]) {
			panic("iban: bad country code " + strconv.Quote(e.code))
		}
		if i > 0 && registry[i-1].code >= e.code {
			panic("iban: registry not sorted or duplicate at " + e.code)
		}
		segs, err := parseStructure(e.structure)
		if err != nil {
			panic("iban: " + e.code + ": " + err.Error())
		}
		bbanLen := 0
		for _, s := range segs {
			bbanLen += s.count
		}
		if bbanLen+4 != e.length || e.length > 34 {
			panic(fmt.Sprintf("iban: %s: structure %s gives length %d, registry says %d",
				e.code, e.structure, bbanLen+4, e.length))
		}
		if e.bankLen <= 0 || e.bankOff < 0 || e.bankOff+e.bankLen > bbanLen ||
			e.branchLen < 0 || e.branchOff < 0 || e.branchOff+e.branchLen > bbanLen {
			panic("iban: " + e.code + ": bank/branch position outside BBAN")
		}
		countries[i] = Country{
			Code:         e.code,
			Name:         e.name,
			Length:       e.length,
			Structure:    e.structure,
			SEPA:         e.sepa,
			BankOffset:   e.bankOff,
			BankLength:   e.bankLen,
			BranchOffset: e.branchOff,
			BranchLength: e.branchLen,
			bban:         segs,
		}
		index[codeIndex(e.code[0], e.code[1])] = uint8(i + 1)
	}
}

func isUpper(b byte) bool { return b >= 'A' && b <= 'Z' }
func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// codeIndex assumes both bytes are A-Z.
func codeIndex(a, b byte) int { return int(a-'A')*26 + int(b-'A') }

// lookup returns the country for an upper-case two-letter code, or nil.
func lookup(a, b byte) *Country {
	if !isUpper(a) || !isUpper(b) {
		return nil
	}
	if i := index[codeIndex(a, b)]; i != 0 {
		return &countries[i-1]
	}
	return nil
}
