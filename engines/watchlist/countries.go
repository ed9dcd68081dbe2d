package watchlist

import (
	"strings"
	"unicode"
)

// normCode accepts a two-letter country code in any case ("RU", "ru") and
// returns it lower case. FtM and the EU already give ISO 3166-1 alpha-2
// codes; placeholders such as the EU's "00" are rejected. Codes are not
// checked against the ISO list on purpose: lists use user-assigned codes
// like "xk" (Kosovo) that a matcher should still see.
func normCode(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if len(s) != 2 {
		return "", false
	}
	for _, r := range s {
		if r > unicode.MaxASCII || !unicode.IsLetter(r) {
			return "", false
		}
	}
	return strings.ToLower(s), true
}

// countryCode maps a country name as OFAC writes it ("Russia",
// "Korea, North", "Congo, Democratic Republic of the") to ISO alpha-2.
// The table covers the names that occur in the SDN list's nationality,
// citizen, address and vessel flag fields; unknown names return false and
// the caller records a warning rather than guessing.
func countryCode(name string) (string, bool) {
	c, ok := countryNames[countryKey(name)]
	return c, ok
}

// countryKey lower-cases and reduces punctuation to single spaces, so
// "Korea, North", "KOREA NORTH" and "Cote d'Ivoire" find their entries.
func countryKey(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		} else {
			space = true
		}
	}
	return b.String()
}

// noCountry reports the placeholders lists write where a country is
// unknown or no longer exists ("na", "None Identified", "former Soviet
// Union"): no ISO code, and nothing to warn about.
func noCountry(name string) bool {
	k := countryKey(name)
	return noCountryNames[k] || strings.HasPrefix(k, "former ")
}

var noCountryNames = map[string]bool{"na": true, "n a": true, "none": true, "none identified": true, "unknown": true,
	"undetermined": true, "stateless": true, "netherlands antilles": true, "region kafia kingi": true}

var countryNames = func() map[string]string {
	m := map[string]string{}
	for code, names := range countryTable {
		for _, n := range names {
			m[countryKey(n)] = code
		}
	}
	return m
}()

// countryTable: ISO code -> names and spellings seen in sanctions lists.
var countryTable = map[string][]string{
	"af": {"Afghanistan"}, "al": {"Albania"}, "dz": {"Algeria"}, "ad": {"Andorra"},
	"ao": {"Angola"}, "ag": {"Antigua and Barbuda", "Antigua & Barbuda"}, "ar": {"Argentina"}, "am": {"Armenia"},
	"aw": {"Aruba"}, "au": {"Australia"}, "at": {"Austria"}, "az": {"Azerbaijan"},
	"bs": {"Bahamas", "The Bahamas", "Bahamas, The"}, "bh": {"Bahrain"}, "bd": {"Bangladesh"},
	"bb": {"Barbados"}, "by": {"Belarus"}, "be": {"Belgium"}, "bz": {"Belize"}, "bj": {"Benin"},
	"bm": {"Bermuda"}, "bt": {"Bhutan"}, "bo": {"Bolivia", "Bolivia (Plurinational State of)"}, "ba": {"Bosnia and Herzegovina", "Bosnia & Herzegovina", "Bosnia-Herzegovina"},
	"bw": {"Botswana"}, "br": {"Brazil"}, "vg": {"British Virgin Islands", "Virgin Islands, British"},
	"bn": {"Brunei"}, "bg": {"Bulgaria"}, "bf": {"Burkina Faso"}, "mm": {"Burma", "Myanmar"},
	"bi": {"Burundi"}, "kh": {"Cambodia"}, "cm": {"Cameroon"}, "ca": {"Canada"},
	"cv": {"Cabo Verde", "Cape Verde"}, "ky": {"Cayman Islands"}, "cf": {"Central African Republic"},
	"td": {"Chad"}, "cl": {"Chile"}, "cn": {"China"}, "co": {"Colombia"}, "km": {"Comoros"},
	"cd": {"Congo, Democratic Republic of the", "Democratic Republic of the Congo", "Congo, The Democratic Republic of the"},
	"cg": {"Congo, Republic of the", "Republic of the Congo", "Congo"},
	"cr": {"Costa Rica"}, "ci": {"Cote d'Ivoire", "Côte d'Ivoire", "Ivory Coast"}, "hr": {"Croatia"},
	"cu": {"Cuba"}, "cw": {"Curacao", "Curaçao"}, "cy": {"Cyprus"}, "cz": {"Czech Republic", "Czechia"},
	"dk": {"Denmark"}, "dj": {"Djibouti"}, "dm": {"Dominica"}, "do": {"Dominican Republic"},
	"ec": {"Ecuador"}, "eg": {"Egypt"}, "sv": {"El Salvador"}, "gq": {"Equatorial Guinea"},
	"er": {"Eritrea"}, "ee": {"Estonia"}, "sz": {"Eswatini", "Swaziland"}, "et": {"Ethiopia"},
	"fj": {"Fiji"}, "fi": {"Finland"}, "fr": {"France"}, "ga": {"Gabon"},
	"gm": {"Gambia", "The Gambia", "Gambia, The"}, "ge": {"Georgia"}, "de": {"Germany"},
	"gh": {"Ghana"}, "gi": {"Gibraltar"}, "gr": {"Greece"}, "gd": {"Grenada"}, "gt": {"Guatemala"},
	"gg": {"Guernsey"}, "gn": {"Guinea"}, "gw": {"Guinea-Bissau"}, "gy": {"Guyana"}, "ht": {"Haiti"},
	"hn": {"Honduras"}, "hk": {"Hong Kong", "China, Hong Kong Special Administrative Region", "Hong Kong SAR", "Hong Kong, China"}, "hu": {"Hungary"}, "is": {"Iceland"}, "in": {"India"},
	"id": {"Indonesia"}, "ir": {"Iran", "Iran, Islamic Republic of", "Iran (Islamic Republic of)"}, "iq": {"Iraq"}, "ie": {"Ireland"},
	"im": {"Isle of Man"}, "il": {"Israel"}, "it": {"Italy"}, "jm": {"Jamaica"}, "jp": {"Japan"},
	"je": {"Jersey"}, "jo": {"Jordan"}, "kz": {"Kazakhstan"}, "ke": {"Kenya"}, "ki": {"Kiribati"},
	"kp": {"Korea, North", "North Korea", "Korea, Democratic People's Republic of", "Democratic People's Republic of Korea"},
	"kr": {"Korea, South", "South Korea", "Korea, Republic of", "Republic of Korea"},
	"xk": {"Kosovo"}, "kw": {"Kuwait"}, "kg": {"Kyrgyzstan"}, "la": {"Laos", "Lao People's Democratic Republic", "Lao PDR"},
	"lv": {"Latvia"}, "lb": {"Lebanon"}, "ls": {"Lesotho"}, "lr": {"Liberia"}, "ly": {"Libya"},
	"li": {"Liechtenstein"}, "lt": {"Lithuania"}, "lu": {"Luxembourg"}, "mo": {"Macau", "Macao"},
	"mk": {"North Macedonia", "North Macedonia, The Republic of", "Macedonia", "Macedonia, The Former Yugoslav Republic of", "The former Yugoslav Republic of Macedonia"}, "mg": {"Madagascar"},
	"mw": {"Malawi"}, "my": {"Malaysia"}, "mv": {"Maldives"}, "ml": {"Mali", "Region: Northern Mali"}, "mt": {"Malta"},
	"mh": {"Marshall Islands"}, "mr": {"Mauritania"}, "mu": {"Mauritius"}, "mx": {"Mexico"},
	"fm": {"Micronesia", "Micronesia, Federated States of"}, "md": {"Moldova", "Republic of Moldova", "Moldova, Republic of"}, "mc": {"Monaco"},
	"mn": {"Mongolia"}, "me": {"Montenegro"}, "ma": {"Morocco"}, "mz": {"Mozambique"},
	"na": {"Namibia"}, "nr": {"Nauru"}, "np": {"Nepal"}, "nl": {"Netherlands", "The Netherlands"},
	"nz": {"New Zealand"}, "ni": {"Nicaragua"}, "ne": {"Niger"}, "ng": {"Nigeria"}, "no": {"Norway"},
	"om": {"Oman"}, "pk": {"Pakistan"}, "pw": {"Palau"}, "ps": {"Palestinian", "Palestine", "West Bank", "Gaza", "Palestinian Territories", "State of Palestine", "Occupied Palestinian Territory", "Region: Gaza", "possibly Palestinian"},
	"pa": {"Panama"}, "pg": {"Papua New Guinea"}, "py": {"Paraguay"}, "pe": {"Peru"},
	"ph": {"Philippines"}, "pl": {"Poland"}, "pt": {"Portugal"}, "qa": {"Qatar"}, "ro": {"Romania"},
	"ru": {"Russia", "Russian Federation"}, "rw": {"Rwanda"}, "kn": {"Saint Kitts and Nevis", "St. Kitts and Nevis", "St. Kitts & Nevis", "Saint Kitts & Nevis"},
	"lc": {"Saint Lucia", "St. Lucia"}, "vc": {"Saint Vincent and the Grenadines", "St. Vincent and the Grenadines", "St. Vincent & the Grenadines"},
	"ws": {"Samoa"}, "sm": {"San Marino"}, "st": {"Sao Tome and Principe"}, "sa": {"Saudi Arabia"},
	"sn": {"Senegal"}, "rs": {"Serbia"}, "sc": {"Seychelles"}, "sl": {"Sierra Leone"},
	"sg": {"Singapore"}, "sk": {"Slovakia"}, "si": {"Slovenia"}, "sb": {"Solomon Islands"},
	"so": {"Somalia"}, "za": {"South Africa"}, "ss": {"South Sudan"}, "es": {"Spain"},
	"lk": {"Sri Lanka"}, "sd": {"Sudan"}, "sr": {"Suriname"}, "se": {"Sweden"}, "ch": {"Switzerland"},
	"sy": {"Syria", "Syrian Arab Republic"}, "tw": {"Taiwan"}, "tj": {"Tajikistan"}, "tz": {"Tanzania", "United Republic of Tanzania", "Tanzania, United Republic of"},
	"th": {"Thailand"}, "tl": {"Timor-Leste", "East Timor"}, "tg": {"Togo"}, "to": {"Tonga"},
	"tt": {"Trinidad and Tobago", "Trinidad & Tobago"}, "tn": {"Tunisia"}, "tr": {"Turkey", "Turkiye", "Türkiye"},
	"tm": {"Turkmenistan"}, "tv": {"Tuvalu"}, "ug": {"Uganda"}, "ua": {"Ukraine", "Crimea", "Region: Crimea"},
	"ae": {"United Arab Emirates", "UAE"}, "gb": {"United Kingdom", "UK", "Great Britain", "United Kingdom of Great Britain and Northern Ireland"},
	"us": {"United States", "United States of America", "USA"}, "uy": {"Uruguay"},
	"uz": {"Uzbekistan"}, "vu": {"Vanuatu"}, "va": {"Vatican City", "Holy See"},
	"ve": {"Venezuela", "Venezuela (Bolivarian Republic of)"}, "vn": {"Vietnam", "Viet Nam"}, "ye": {"Yemen"}, "zm": {"Zambia"},
	"zw": {"Zimbabwe"},
}
