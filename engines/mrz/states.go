package mrz

import "strings"

// KnownState reports whether code (as Document.IssuingState and
// Nationality hold it, filler trimmed) is a code Doc 9303 part 3 lists: an
// ISO 3166-1 alpha-3 code, or one of ICAO's own (D for Germany, the
// British nationality categories, the United Nations', the stateless and
// refugee codes, Kosovo's, Utopia's for specimens). A reader of photos
// uses it to rule out misreadings no check digit covers; Parse and
// Validate do not (a typed MRZ is reported as found).
func KnownState(code string) bool {
	if len(code) == 3 || len(code) == 1 {
		return strings.Contains(stateCodes, " "+code+" ")
	}
	return false
}

// stateCodes: ISO 3166-1 alpha-3, then Doc 9303's additions.
const stateCodes = " ABW AFG AGO AIA ALA ALB AND ARE ARG ARM ASM ATA ATF ATG AUS AUT AZE" +
	" BDI BEL BEN BES BFA BGD BGR BHR BHS BIH BLM BLR BLZ BMU BOL BRA BRB BRN BTN BVT BWA" +
	" CAF CAN CCK CHE CHL CHN CIV CMR COD COG COK COL COM CPV CRI CUB CUW CXR CYM CYP CZE" +
	" DEU DJI DMA DNK DOM DZA ECU EGY ERI ESH ESP EST ETH FIN FJI FLK FRA FRO FSM" +
	" GAB GBR GEO GGY GHA GIB GIN GLP GMB GNB GNQ GRC GRD GRL GTM GUF GUM GUY" +
	" HKG HMD HND HRV HTI HUN IDN IMN IND IOT IRL IRN IRQ ISL ISR ITA JAM JEY JOR JPN" +
	" KAZ KEN KGZ KHM KIR KNA KOR KWT LAO LBN LBR LBY LCA LIE LKA LSO LTU LUX LVA" +
	" MAC MAF MAR MCO MDA MDG MDV MEX MHL MKD MLI MLT MMR MNE MNG MNP MOZ MRT MSR MTQ MUS MWI MYS MYT" +
	" NAM NCL NER NFK NGA NIC NIU NLD NOR NPL NRU NZL OMN PAK PAN PCN PER PHL PLW PNG POL PRI PRK PRT PRY PSE PYF" +
	" QAT REU ROU RUS RWA SAU SDN SEN SGP SGS SHN SJM SLB SLE SLV SMR SOM SPM SRB SSD STP SUR SVK SVN SWE SWZ SXM SYC SYR" +
	" TCA TCD TGO THA TJK TKL TKM TLS TON TTO TUN TUR TUV TWN TZA UGA UKR UMI URY USA UZB" +
	" VAT VCT VEN VGB VIR VNM VUT WLF WSM YEM ZAF ZMB ZWE" +
	" D GBD GBN GBO GBP GBS EUE UNO UNA UNK XBA XIM XCC XCE XCO XEC XPO XES XMP XOM XDC XXA XXB XXC XXX RKS UTO "
