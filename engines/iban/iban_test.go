package iban

import (
	"math/big"
	"strconv"
	"strings"
	"testing"
)

// registryExamples holds the example IBAN of every country in the SWIFT IBAN
// Registry with the bank and branch identifiers it contains.
var registryExamples = []struct {
	iban, bank, branch string
}{
	{"AD1200012030200359100100", "0001", "2030"},
	{"AE070331234567890123456", "033", ""},
	{"AL47212110090000000235698741", "212", "11009"},
	{"AT611904300234573201", "19043", ""},
	{"AZ21NABZ00000000137010001944", "NABZ", ""},
	{"BA391290079401028494", "129", "007"},
	{"BE68539007547034", "539", ""},
	{"BG80BNBG96611020345678", "BNBG", "9661"},
	{"BH67BMAG00001299123456", "BMAG", ""},
	{"BI4210000100010000332045181", "10000", "10001"},
	{"BR1800360305000010009795493C1", "00360305", "00001"},
	{"BY13NBRB3600900000002Z00AB00", "NBRB", ""},
	{"CH9300762011623852957", "00762", ""},
	{"CR05015202001026284066", "0152", ""},
	{"CY17002001280000001200527600", "002", "00128"},
	{"CZ6508000000192000145399", "0800", ""},
	{"DE89370400440532013000", "37040044", ""},
	{"DJ2100010000000154000100186", "00010", "00000"},
	{"DK5000400440116243", "0040", ""},
	{"DO28BAGR00000001212453611324", "BAGR", ""},
	{"EE382200221020145685", "22", ""},
	{"EG380019000500000000263180002", "0019", "0005"},
	{"ES9121000418450200051332", "2100", "0418"},
	{"FI2112345600000785", "123", ""},
	{"FK88SC123456789012", "SC", ""},
	{"FO6264600001631634", "6460", ""},
	{"FR1420041010050500013M02606", "20041", ""},
	{"GB29NWBK60161331926819", "NWBK", "601613"},
	{"GE29NB0000000101904917", "NB", ""},
	{"GI75NWBK000000007099453", "NWBK", ""},
	{"GL8964710001000206", "6471", ""},
	{"GR1601101250000000012300695", "011", "0125"},
	{"GT82TRAJ01020000001210029690", "TRAJ", ""},
	{"HN88CABF00000000000250005469", "CABF", ""},
	{"HR1210010051863000160", "1001005", ""},
	{"HU42117730161111101800000000", "117", "7301"},
	{"IE29AIBK93115212345678", "AIBK", "931152"},
	{"IL620108000000099999999", "010", "800"},
	{"IQ98NBIQ850123456789012", "NBIQ", "850"},
	{"IS140159260076545510730339", "01", "59"},
	{"IT60X0542811101000000123456", "05428", "11101"},
	{"JO94CBJO0010000000000131000302", "CBJO", "0010"},
	{"KW81CBKU0000000000001234560101", "CBKU", ""},
	{"KZ86125KZT5004100100", "125", ""},
	{"LB62099900000001001901229114", "0999", ""},
	{"LC55HEMM000100010012001200023015", "HEMM", ""},
	{"LI21088100002324013AA", "08810", ""},
	{"LT121000011101001000", "10000", ""},
	{"LU280019400644750000", "001", ""},
	{"LV80BANK0000435195001", "BANK", ""},
	{"LY83002048000020100120361", "002", "048"},
	{"MC5811222000010123456789030", "11222", "00001"},
	{"MD24AG000225100013104168", "AG", ""},
	{"ME25505000012345678951", "505", ""},
	{"MK07250120000058984", "250", ""},
	{"MN121234123456789123", "1234", ""},
	{"MR1300020001010000123456753", "00020", "00101"},
	{"MT84MALT011000012345MTLCAST001S", "MALT", "01100"},
	{"MU17BOMM0101101030300200000MUR", "BOMM01", "01"},
	{"NI45BAPR00000013000003558124", "BAPR", ""},
	{"NL91ABNA0417164300", "ABNA", ""},
	{"NO9386011117947", "8601", ""},
	{"OM810180000001299123456", "018", ""},
	{"PK36SCBL0000001123456702", "SCBL", ""},
	{"PL61109010140000071219812874", "10901014", ""},
	{"PS92PALS000000000400123456702", "PALS", ""},
	{"PT50000201231234567890154", "0002", ""},
	{"QA58DOHB00001234567890ABCDEFG", "DOHB", ""},
	{"RO49AAAA1B31007593840000", "AAAA", ""},
	{"RS35260005601001611379", "260", ""},
	{"RU0304452522540817810538091310419", "044525225", "40817"},
	{"SA0380000000608010167519", "80", ""},
	{"SC18SSCB11010000000000001497USD", "SSCB11", "01"},
	{"SD2129010501234001", "29", ""},
	{"SE4550000000058398257466", "500", ""},
	{"SI56263300012039086", "26330", ""},
	{"SK3112000000198742637541", "1200", ""},
	{"SM86U0322509800000000270100", "03225", "09800"},
	{"SO211000001001000100141", "1000", "001"},
	{"ST23000100010051845310146", "0001", "0001"},
	{"SV62CENR00000000000000700025", "CENR", ""},
	{"TL380080012345678910157", "008", ""},
	{"TN5910006035183598478831", "10", "006"},
	{"TR330006100519786457841326", "00061", ""},
	{"UA213223130000026007233566001", "322313", ""},
	{"VA59001123000012345678", "001", ""},
	{"VG96VPVG0000012345678901", "VPVG", ""},
	{"XK051212012345678906", "12", "12"},
	{"YE15CBYE0001018861234567891234", "CBYE", "0001"},
}

// bigMod97 is an independent oracle for the ISO 7064 check using math/big.
func bigMod97(iban string) int64 {
	var sb strings.Builder
	for _, r := range iban[4:] + iban[:4] {
		if r >= 'A' && r <= 'Z' {
			sb.WriteString(strconv.Itoa(int(r-'A') + 10))
		} else {
			sb.WriteRune(r)
		}
	}
	n, ok := new(big.Int).SetString(sb.String(), 10)
	if !ok {
		panic("bad number " + sb.String())
	}
	return new(big.Int).Mod(n, big.NewInt(97)).Int64()
}

// withCheckDigits builds an IBAN with correct check digits for cc+bban.
func withCheckDigits(cc, bban string) string {
	cd := 98 - bigMod97(cc+"00"+bban)
	return cc + twoDigits(cd) + bban
}

func twoDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	if len(s) == 1 {
		s = "0" + s
	}
	return s
}

func TestExamplesCoverRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, ex := range registryExamples {
		seen[ex.iban[:2]] = true
	}
	for _, c := range Countries() {
		if !seen[c.Code] {
			t.Errorf("no example IBAN for %s", c.Code)
		}
	}
	if len(seen) != len(Countries()) {
		t.Errorf("%d examples for %d countries", len(seen), len(Countries()))
	}
}

func TestValidExamples(t *testing.T) {
	for _, ex := range registryExamples {
		t.Run(ex.iban[:2], func(t *testing.T) {
			r := Validate(ex.iban)
			if !r.Valid || r.Reason != ReasonNone || r.Message != "" {
				t.Fatalf("Validate(%s) = %+v, want valid", ex.iban, r)
			}
			c, ok := Lookup(ex.iban[:2])
			if !ok {
				t.Fatalf("Lookup(%s) failed", ex.iban[:2])
			}
			if r.IBAN != ex.iban || r.CountryCode != c.Code || r.CountryName != c.Name || r.SEPA != c.SEPA {
				t.Errorf("got %+v", r)
			}
			if r.BankCode != ex.bank || r.BranchCode != ex.branch {
				t.Errorf("bank/branch = %q/%q, want %q/%q", r.BankCode, r.BranchCode, ex.bank, ex.branch)
			}
			if bigMod97(ex.iban) != 1 {
				t.Errorf("oracle disagrees on %s", ex.iban)
			}

			// Print format (groups of four) must validate too.
			var sb strings.Builder
			for i := 0; i < len(ex.iban); i += 4 {
				sb.WriteString(ex.iban[i:min(i+4, len(ex.iban))])
				sb.WriteByte(' ')
			}
			if r2 := Validate(sb.String()); r2 != r {
				t.Errorf("print format %q: %+v", sb.String(), r2)
			}

			// Any single-digit substitution is caught by mod 97.
			b := []byte(ex.iban)
			for i := len(b) - 1; i >= 4; i-- {
				if isDigit(b[i]) {
					b[i] = '0' + (b[i]-'0'+1)%10
					break
				}
			}
			if r := Validate(string(b)); r.Reason != ReasonBadChecksum || r.Valid {
				t.Errorf("flipped %s: %+v, want bad_checksum", b, r)
			}
			if r := Validate(ex.iban[:len(ex.iban)-1]); r.Reason != ReasonBadLength {
				t.Errorf("truncated: %+v, want bad_length", r)
			}
			if r := Validate(ex.iban + "0"); r.Reason != ReasonBadLength {
				t.Errorf("extended: %+v, want bad_length", r)
			}
		})
	}
}

func TestBankAndBranch(t *testing.T) {
	tests := []struct{ iban, bank, branch string }{
		{"NL91ABNA0417164300", "ABNA", ""},
		{"DE89370400440532013000", "37040044", ""},
		{"GB29NWBK60161331926819", "NWBK", "601613"},
		// The registry defines only the FR bank code (1-5); the French
		// "code guichet" 01005 is not a registry branch identifier.
		{"FR1420041010050500013M02606", "20041", ""},
		{"IT60X0542811101000000123456", "05428", "11101"},
		{"ES9121000418450200051332", "2100", "0418"},
		{"BE68539007547034", "539", ""},
	}
	for _, tt := range tests {
		r := Validate(tt.iban)
		if !r.Valid || r.BankCode != tt.bank || r.BranchCode != tt.branch {
			t.Errorf("Validate(%s) = %+v, want bank %q branch %q", tt.iban, r, tt.bank, tt.branch)
		}
	}
}

func TestInvalid(t *testing.T) {
	tests := []struct {
		in      string
		reason  Reason
		country string
	}{
		{"", ReasonBadFormat, ""},
		{"   ", ReasonBadFormat, ""},
		{"IBAN", ReasonBadFormat, ""},
		{"N", ReasonBadFormat, ""},
		{"NL", ReasonBadFormat, "NL"},
		{"NL9", ReasonBadFormat, "NL"},
		{"NL91", ReasonBadFormat, "NL"},
		{"NL91A", ReasonBadLength, "NL"},
		{"NLAB ABNA 0417 1643 00", ReasonBadFormat, "NL"},
		{"N191ABNA0417164300", ReasonBadFormat, ""},
		{"1291ABNA0417164300", ReasonBadFormat, ""},
		{"NL91ABNA0417164300!", ReasonBadFormat, "NL"},
		{"NL91ABNA04171643_0", ReasonBadFormat, "NL"},
		{"NL91ÄBNA0417164300", ReasonBadFormat, "NL"},
		{"XX00123456789", ReasonUnknownCountry, "XX"},
		{"XX", ReasonUnknownCountry, "XX"},
		{"XXAB", ReasonUnknownCountry, "XX"},
		{"US64SVBKUS6S3300958879", ReasonUnknownCountry, "US"},
		{"us64 svbk us6s 3300 9588 79", ReasonUnknownCountry, "US"},
		{"XX00$1", ReasonBadFormat, "XX"}, // non-alphanumeric wins
		{"DE89370400440532013001", ReasonBadChecksum, "DE"},
		{"DE98370400440532013000", ReasonBadChecksum, "DE"},
		{"NL91ABNA041716430", ReasonBadLength, "NL"},
		{"NL91ABNA04171643000", ReasonBadLength, "NL"},
	}
	for _, tt := range tests {
		r := Validate(tt.in)
		if r.Valid || r.Reason != tt.reason || r.CountryCode != tt.country || r.Message == "" {
			t.Errorf("Validate(%q) = %+v, want reason %q country %q", tt.in, r, tt.reason, tt.country)
		}
		if r.BankCode != "" || r.BranchCode != "" {
			t.Errorf("Validate(%q): bank/branch set on invalid IBAN", tt.in)
		}
	}
	if r := Validate("XX00123456789"); r.CountryName != "" {
		t.Errorf("unknown country has name %q", r.CountryName)
	}
	if r := Validate("NL91ABNA041716430"); r.CountryName != "Netherlands" || !r.SEPA {
		t.Errorf("known country not reported on invalid IBAN: %+v", r)
	}
}

func TestStructureMismatchWithGoodChecksum(t *testing.T) {
	tests := []struct{ cc, bban string }{
		{"DE", "3704004405320130AB"},         // letters in 10!n
		{"DE", "A70400440532013000"},         // letter in bank code 8!n
		{"NL", "AB1A0417164300"},             // digit in 4!a
		{"NL", "ABNA041716430X"},             // letter in 10!n
		{"GB", "NWBK6016133192681A"},         // letter in 8!n
		{"FR", "20041010050500013M0260A"},    // letter in final 2!n
		{"IT", "10542811101000000123456"},    // digit in 1!a
		{"BR", "00360305000010009795493C1"},  // valid control below
		{"MU", "BOMM0101101030300200000M1R"}, // digit in 3!a
	}
	for i, tt := range tests {
		iban := withCheckDigits(tt.cc, tt.bban)
		if bigMod97(iban) != 1 {
			t.Fatalf("helper produced bad checksum %s", iban)
		}
		r := Validate(iban)
		want := ReasonBadFormat
		if i == 7 {
			want = ReasonNone
		}
		if r.Reason != want || r.Valid != (want == ReasonNone) {
			t.Errorf("Validate(%s) = %+v, want %q", iban, r, want)
		}
	}
}

// TestForbiddenCheckDigits covers 00, 01 and 99: they satisfy the raw
// mod-97 test exactly when 97, 98 and 02 would, but ISO 7064 never emits
// them, so they must be rejected.
func TestForbiddenCheckDigits(t *testing.T) {
	pairs := map[int64]string{97: "00", 98: "01", 2: "99"}
	found := map[int64]bool{}
	for acct := 0; len(found) < len(pairs) && acct < 100000; acct++ {
		bban := "37040044" + strings.Repeat("0", 10-len(strconv.Itoa(acct))) + strconv.Itoa(acct)
		iban := withCheckDigits("DE", bban)
		cd, _ := strconv.ParseInt(iban[2:4], 10, 64)
		bad, ok := pairs[cd]
		if !ok || found[cd] {
			continue
		}
		found[cd] = true
		if !Validate(iban).Valid {
			t.Errorf("%s should be valid", iban)
		}
		forged := "DE" + bad + bban
		if bigMod97(forged) != 1 {
			t.Fatalf("%s: expected raw mod-97 to pass", forged)
		}
		if r := Validate(forged); r.Valid || r.Reason != ReasonBadChecksum {
			t.Errorf("Validate(%s) = %+v, want bad_checksum", forged, r)
		}
	}
	if len(found) != len(pairs) {
		t.Fatalf("found only %v", found)
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"NL91ABNA0417164300", "NL91ABNA0417164300"},
		{"NL91 ABNA 0417 1643 00", "NL91ABNA0417164300"},
		{"nl91abna0417164300", "NL91ABNA0417164300"},
		{"IBAN NL91 ABNA 0417 1643 00", "NL91ABNA0417164300"},
		{"iban: nl91 abna 0417 1643 00", "NL91ABNA0417164300"},
		{"IBAN:NL91ABNA0417164300", "NL91ABNA0417164300"},
		{"Iban NL91-ABNA-0417-1643-00", "NL91ABNA0417164300"},
		{"NL91\tABNA\t0417\n1643.00", "NL91ABNA0417164300"},
		{"\u00a0NL91\u2007ABNA\u3000041716430 0\r\n", "NL91ABNA0417164300"},
		{"IBANIBAN NL91", "NL91"},
		{"IBAN::NL91", ":NL91"},
		{"NL91:ABNA", "NL91:ABNA"},
		{"", ""},
		{" - . ", ""},
	}
	for _, tt := range tests {
		if got := Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := Normalize(Normalize(tt.in)); got != tt.want {
			t.Errorf("Normalize not idempotent on %q: %q", tt.in, got)
		}
	}
	for _, in := range []string{
		"IBAN NL91 ABNA 0417 1643 00",
		"nl91abna0417164300",
		"NL91\tABNA\t0417\t1643\t00",
		"iban:NL91-ABNA-0417-1643-00",
	} {
		if r := Validate(in); !r.Valid || r.IBAN != "NL91ABNA0417164300" || r.BankCode != "ABNA" {
			t.Errorf("Validate(%q) = %+v", in, r)
		}
	}
}

func TestMasked(t *testing.T) {
	tests := []struct{ in, want string }{
		{"NL91ABNA0417164300", "**************4300"},
		{"NL91 ABNA 0417 1643 00", "**************4300"},
		{"iban de89 3704 0044 0532 0130 00", "******************3000"},
		{"", ""},
		{"AB", "**"},
		{"ABCD", "****"},
		{"abcde", "*BCDE"},
		{"ÄBCDEF", "**CDEF"},
	}
	for _, tt := range tests {
		if got := Masked(tt.in); got != tt.want {
			t.Errorf("Masked(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRegistry(t *testing.T) {
	cs := Countries()
	if len(cs) != 89 {
		t.Errorf("got %d countries, want 89 (SWIFT IBAN Registry release 102)", len(cs))
	}
	for i, c := range cs {
		if i > 0 && cs[i-1].Code >= c.Code {
			t.Errorf("not sorted/unique at %s", c.Code)
		}
		segs, err := parseStructure(c.Structure)
		if err != nil {
			t.Fatalf("%s: %v", c.Code, err)
		}
		n := 0
		for _, s := range segs {
			n += s.count
		}
		if n+4 != c.Length {
			t.Errorf("%s: structure length %d + 4 != %d", c.Code, n, c.Length)
		}
		if c.Name == "" || c.BankLength == 0 || c.BankOffset+c.BankLength > n || c.BranchOffset+c.BranchLength > n {
			t.Errorf("%s: bad entry %+v", c.Code, c)
		}
		if got, ok := Lookup(strings.ToLower(c.Code)); !ok || got.Code != c.Code {
			t.Errorf("Lookup(%s) failed", strings.ToLower(c.Code))
		}
	}
	for _, code := range []string{"XX", "US", "", "N", "NLD", "1L", "IB"} {
		if _, ok := Lookup(code); ok {
			t.Errorf("Lookup(%q) succeeded", code)
		}
	}
	cs[0].Name = "changed"
	if Countries()[0].Name == "changed" {
		t.Error("Countries exposes internal state")
	}
	// Spot checks against the registry.
	for code, want := range map[string]struct {
		length int
		sepa   bool
	}{"NL": {18, true}, "NO": {15, true}, "RU": {33, false}, "LC": {32, false}, "GB": {22, true}, "CH": {21, true}, "SM": {27, true}} {
		c, _ := Lookup(code)
		if c.Length != want.length || c.SEPA != want.sepa {
			t.Errorf("%s: length %d sepa %v", code, c.Length, c.SEPA)
		}
	}
}

func TestParseStructure(t *testing.T) {
	segs, err := parseStructure("4!a2!e10!n3!c")
	if err != nil || len(segs) != 4 || segs[1] != (segment{2, classSpace}) || segs[3] != (segment{3, classAlnum}) {
		t.Errorf("got %v, %v", segs, err)
	}
	if pos, _, ok := matchBBAN("AB  12", []segment{{2, classUpper}, {2, classSpace}, {2, classDigit}}); !ok {
		t.Errorf("space class mismatch at %d", pos)
	}
	for _, bad := range []string{"", "4a", "4!x", "!n", "0!n", "4!", "4!n5"} {
		if _, err := parseStructure(bad); err == nil {
			t.Errorf("parseStructure(%q) accepted", bad)
		}
	}
}
