package watchlist

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The real UN consolidated list (February 2026): every record parsed, with
// names in original script kept as aliases, an alias's several spellings
// apart, the UN's country names mapped
// to ISO codes without a warning a row, and ranges of birth years
// expanded.
func TestParseUNXMLReal(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "real", "un-consolidated-2026-02.xml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	byID := map[string]Entity{}
	st, err := ParseUNXML(f, func(e Entity) error { byID[e.ID] = e; return nil })
	if err != nil {
		t.Fatal(err)
	}
	persons, orgs, scripts := 0, 0, 0
	for _, e := range byID {
		switch e.Schema {
		case "Person":
			persons++
		case "Organization":
			orgs++
		}
		for _, n := range e.Names {
			if n.Kind == NameAlias && strings.IndexFunc(n.Full, func(r rune) bool { return r > 0x2ff }) >= 0 {
				scripts++
				break
			}
		}
	}
	if persons != 730 || orgs != 273 || st.Entities != 1003 || st.Dropped != 0 {
		t.Fatalf("%d persons, %d organisations, stats %+v", persons, orgs, st)
	}
	if scripts < 370 {
		t.Errorf("only %d entities keep their name in original script", scripts)
	}
	if len(st.Warnings) > 3 {
		t.Errorf("warnings: %q", st.Warnings)
	}
	// A record with each kind of data.
	e, ok := byID["un-CDi.002"]
	if !ok || e.Names[0].Full != "FRANK KAKOLELE BWAMBALE" || e.Names[0].First != "FRANK KAKOLELE" || e.Names[0].Last != "BWAMBALE" ||
		!slices.Contains(e.Nationalities, "cd") || !slices.Contains(e.Countries, "cd") || e.Gender != "male" ||
		!slices.Contains(e.Programs, "UN-DRC") || len(e.Names) < 4 {
		t.Fatalf("CDi.002: %+v", e)
	}
	if e := byID["un-CDi.030"]; !slices.Equal(e.BirthDates, []string{"1973", "1974"}) {
		t.Errorf("a range of birth years: %v", e.BirthDates)
	}
	if e := byID["un-CDi.014"]; !slices.Contains(e.BirthDates, "1966") {
		t.Errorf("an approximate birth year: %v", e.BirthDates)
	}
	// An alias holding several spellings is as many names (Qasem
	// Soleimani's eight); one written "FAMILY, Given" is also turned round.
	names := func(id string) []string {
		var out []string
		for _, n := range byID[id].Names {
			out = append(out, n.Full)
		}
		return out
	}
	if ns := names("un-IRi.039"); !slices.Contains(ns, "Qasim Sulaymani") || !slices.Contains(ns, "Kasim Soleimani") || slices.ContainsFunc(ns, func(n string) bool { return strings.Contains(n, ";") }) {
		t.Errorf("Soleimani's spellings: %q", ns)
	}
	if ns := names("un-CDi.008"); !slices.Contains(ns, "MAKENGA, EMMANUEL SULTANI") || !slices.Contains(ns, "EMMANUEL SULTANI MAKENGA") {
		t.Errorf("a surname-first alias: %q", ns)
	}
	e = byID["un-IQi.002"]
	if e.Names[0].Full != "QUSAY SADDAM HUSSEIN AL-TIKRITI" || !slices.ContainsFunc(e.Names, func(n Name) bool { return n.Full == "قصي صدام حسين التكريتي" && n.Kind == NameAlias }) {
		t.Errorf("the name in Arabic script: %+v", e.Names)
	}
}

// Detect knows the UN list by its root element.
func TestDetectUNXML(t *testing.T) {
	head := []byte(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" + `<CONSOLIDATED_LIST xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" dateGenerated="2026-02-27T00:00:09.554Z">`)
	if f, ok := Detect("consolidated.xml", head); !ok || f != FormatUNXML {
		t.Fatalf("detected %q %v", f, ok)
	}
}

// Country names as real lists write them map to ISO codes; placeholders
// are no country, and no warning.
func TestCountryNamesOfRealLists(t *testing.T) {
	for name, want := range map[string]string{
		"Macedonia, The Former Yugoslav Republic of": "mk", "St. Kitts & Nevis": "kn", "Iran (Islamic Republic of)": "ir",
		"United Kingdom of Great Britain and Northern Ireland": "gb", "China, Hong Kong Special Administrative Region": "hk",
		"State of Palestine": "ps", "United Republic of Tanzania": "tz", "Türkiye": "tr",
	} {
		if got, ok := countryCode(name); !ok || got != want {
			t.Errorf("%q: %q %v, want %q", name, got, ok, want)
		}
	}
	for _, name := range []string{"None Identified", "na", "former Soviet Union", "Former Yugoslavia"} {
		if !noCountry(name) {
			t.Errorf("%q is no country", name)
		}
	}
}

// The real OFAC SDN list (2021): every entry parsed, every country name
// known or a placeholder.
func TestParseOFACReal(t *testing.T) {
	open := func(name string) *os.File {
		f, err := os.Open(filepath.Join("testdata", "real", "ofac-sdn-2021", name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	st, err := ParseOFAC(open("sdn.csv"), open("alt.csv"), open("add.csv"), func(Entity) error { return nil })
	if err != nil || st.Entities != 8976 {
		t.Fatalf("%+v %v", st, err)
	}
	for _, w := range st.Warnings {
		if strings.Contains(w, "country") {
			t.Errorf("warning: %s", w)
		}
	}
}
