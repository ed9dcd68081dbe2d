// Package eu holds the member states of the European Union with the codes the
// API speaks (ISO 3166-1 alpha-3 in requests, numeric in responses) and the
// ones providers need (alpha-2 for IBAN, phone numbering and VIES prefixes).
package eu

// State is one EU member state.
type State struct {
	Alpha3  string // ISO 3166-1 alpha-3, as in requests
	Alpha2  string // ISO 3166-1 alpha-2
	Numeric int    // ISO 3166-1 numeric, returned as country_id
	Name    string // English short name
	VAT     string // VIES country prefix (Greece is EL, not GR)
}

// NetherlandsNumeric is the Netherlands' country_id: the country of the
// Chamber of Commerce (KvK) register, of iDIN, and of Dutch-language pages.
const NetherlandsNumeric = 528

// states is sorted by Alpha3.
var states = []State{
	{"AUT", "AT", 40, "Austria", "AT"},
	{"BEL", "BE", 56, "Belgium", "BE"},
	{"BGR", "BG", 100, "Bulgaria", "BG"},
	{"CYP", "CY", 196, "Cyprus", "CY"},
	{"CZE", "CZ", 203, "Czechia", "CZ"},
	{"DEU", "DE", 276, "Germany", "DE"},
	{"DNK", "DK", 208, "Denmark", "DK"},
	{"ESP", "ES", 724, "Spain", "ES"},
	{"EST", "EE", 233, "Estonia", "EE"},
	{"FIN", "FI", 246, "Finland", "FI"},
	{"FRA", "FR", 250, "France", "FR"},
	{"GRC", "GR", 300, "Greece", "EL"},
	{"HRV", "HR", 191, "Croatia", "HR"},
	{"HUN", "HU", 348, "Hungary", "HU"},
	{"IRL", "IE", 372, "Ireland", "IE"},
	{"ITA", "IT", 380, "Italy", "IT"},
	{"LTU", "LT", 440, "Lithuania", "LT"},
	{"LUX", "LU", 442, "Luxembourg", "LU"},
	{"LVA", "LV", 428, "Latvia", "LV"},
	{"MLT", "MT", 470, "Malta", "MT"},
	{"NLD", "NL", 528, "Netherlands", "NL"},
	{"POL", "PL", 616, "Poland", "PL"},
	{"PRT", "PT", 620, "Portugal", "PT"},
	{"ROU", "RO", 642, "Romania", "RO"},
	{"SVK", "SK", 703, "Slovakia", "SK"},
	{"SVN", "SI", 705, "Slovenia", "SI"},
	{"SWE", "SE", 752, "Sweden", "SE"},
}

var (
	byAlpha3  = map[string]State{}
	byNumeric = map[int]State{}
)

func init() {
	for _, s := range states {
		byAlpha3[s.Alpha3] = s
		byNumeric[s.Numeric] = s
	}
}

// ByAlpha3 finds a member state by its exact upper-case alpha-3 code.
func ByAlpha3(code string) (State, bool) {
	s, ok := byAlpha3[code]
	return s, ok
}

// ByNumeric finds a member state by its ISO numeric code (a country_id).
func ByNumeric(n int) (State, bool) {
	s, ok := byNumeric[n]
	return s, ok
}

// States returns every member state, sorted by alpha-3 code.
func States() []State {
	return append([]State(nil), states...)
}
