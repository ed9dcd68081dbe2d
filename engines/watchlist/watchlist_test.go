package watchlist

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func collect(t *testing.T, parse func(fn func(Entity) error) (Stats, error)) ([]Entity, Stats) {
	t.Helper()
	var got []Entity
	st, err := parse(func(e Entity) error { got = append(got, e); return nil })
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return got, st
}

func open(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func checkEntities(t *testing.T, got, want []Entity) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("got %d entities, want %d", len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("entity %d:\n got  %+v\n want %+v", i, got[i], want[i])
		}
	}
}

func checkStats(t *testing.T, st Stats, entities, names, skipped, warnings int) {
	t.Helper()
	if st.Entities != entities || st.Names != names || st.Dropped != skipped || len(st.Warnings) != warnings {
		t.Errorf("stats = %d entities, %d names, %d skipped, warnings %q; want %d, %d, %d, %d warnings",
			st.Entities, st.Names, st.Dropped, st.Warnings, entities, names, skipped, warnings)
	}
}

var sanction = []string{"sanction"}

func TestParseFtMFlat(t *testing.T) {
	got, st := collect(t, func(fn func(Entity) error) (Stats, error) { return ParseFtM(open(t, "entities.ftm.json"), fn) })
	want := []Entity{
		{
			ID: "NK-fict-volkov", Schema: "Person",
			Names: []Name{
				{Full: "Pavel Volkov", Kind: NamePrimary, First: "Pavel", Middle: "Sergeyevich", Last: "Volkov"},
				{Full: "Павел Сергеевич Волков", Kind: NameAlias},
				{Full: "Pavel Volkoff", Kind: NameAlias},
				{Full: "The Fox", Kind: NameWeak},
				{Full: "Pavel Wolf", Kind: NamePrevious},
			},
			BirthDates:    []string{"1970-05-17", "1971"},
			Nationalities: []string{"ru", "by"},
			Countries:     []string{"ru"},
			Gender:        "male",
			Topics:        []string{"sanction", "role.pep"},
			Programs:      []string{"EU-UKR"},
		},
		{
			ID: "NK-fict-olympus", Schema: "Company",
			Names: []Name{
				{Full: "Ολυμπος Ναυτιλιακή Α.Ε.", Kind: NamePrimary},
				{Full: "Olympos Shipping SA", Kind: NameAlias},
			},
			Countries: []string{"gr", "cy"}, Topics: sanction, Programs: []string{"SDGT"},
		},
		{
			ID: "NK-fict-plane", Schema: "Aircraft",
			Names:     []Name{{Full: "EP-FAKE", Kind: NamePrimary}},
			Countries: []string{"ir"}, Topics: sanction,
		},
		{
			ID: "NK-fict-ministry", Schema: "Organization",
			Names: []Name{
				{Full: "Ministry of Imaginary Affairs", Kind: NamePrimary},
				{Full: "MIA", Kind: NameWeak},
			},
			Countries: []string{"zz"},
		},
		{
			ID: "NK-fict-ivanova", Schema: "Person",
			Names:         []Name{{Full: "Anna Ivanovna Ivanova", Kind: NamePrimary, First: "Anna", Middle: "Ivanovna", Last: "Ivanova"}},
			BirthDates:    []string{"1985-02"},
			Nationalities: []string{"ua"},
			Gender:        "female",
		},
	}
	checkEntities(t, got, want)
	checkStats(t, st, 5, 11, 3, 1) // warning: "suhh" is not alpha-2
}

func TestParseFtMNested(t *testing.T) {
	got, st := collect(t, func(fn func(Entity) error) (Stats, error) { return ParseFtM(open(t, "targets.nested.json"), fn) })
	want := []Entity{
		{
			ID: "NK-fict-kostas", Schema: "Person",
			Names: []Name{
				{Full: "Kostas Nikolaou", Kind: NamePrimary},
				{Full: "Κώστας Νικολάου", Kind: NameAlias},
			},
			BirthDates:    []string{"1962"},
			Nationalities: []string{"gr"},
			Countries:     []string{"cy"},
			Topics:        sanction,
			Programs:      []string{"RUS", "EU-RUS", "UKRAINE-EO13660"},
		},
		{
			ID: "NK-fict-gadget", Schema: "Organization",
			Names:     []Name{{Full: "Gadget Holdings", Kind: NamePrimary}},
			Countries: []string{"ae"}, Topics: sanction,
		},
	}
	checkEntities(t, got, want)
	checkStats(t, st, 2, 3, 0, 0)
}

// euWant is shared by the CSV and XML tests: both forms of the same list
// must give the same entities, except for what only the XML can say.
func euWant(xml bool) []Entity {
	petrov := Entity{
		ID: "eu-9001", Schema: "Person",
		Names: []Name{
			{Full: "Ivan Ilyich Petrov", Kind: NamePrimary, First: "Ivan", Middle: "Ilyich", Last: "Petrov"},
			{Full: "Иван Ильич Петров", Kind: NameAlias},
		},
		BirthDates:    []string{"1970-05-17", "1971", "1972"},
		Nationalities: []string{"ru", "by"},
		Countries:     []string{"ru"},
		Gender:        "male",
		Topics:        sanction,
		Programs:      []string{"UKR"},
	}
	if xml { // strong="false" and a "low quality" remark are XML-only
		petrov.Names = append(petrov.Names, Name{Full: "Vanya", Kind: NameWeak}, Name{Full: "Petrov the Elder", Kind: NameWeak})
	}
	return []Entity{
		petrov,
		{
			ID: "eu-9002", Schema: "Organization",
			Names: []Name{
				{Full: `Acme "Star" Trading; LLC`, Kind: NamePrimary},
				{Full: "ACME STAR", Kind: NameAlias},
			},
			Countries: []string{"cy", "ae"}, Topics: sanction, Programs: []string{"RUS"},
		},
		{
			ID: "eu-9003", Schema: "Person",
			Names: []Name{
				{Full: "Nikos Papadopoulos", Kind: NamePrimary, First: "Nikos", Last: "Papadopoulos"},
				{Full: "Νίκος Παπαδόπουλος", Kind: NameAlias},
			},
			BirthDates:    []string{"1965", "1980-07"},
			Nationalities: []string{"gr"},
			Gender:        "male",
			Topics:        sanction,
			Programs:      []string{"SYR"},
		},
	}
}

func TestParseEUFSF(t *testing.T) {
	got, st := collect(t, func(fn func(Entity) error) (Stats, error) { return ParseEUFSF(open(t, "eu_fsf.csv"), fn) })
	checkEntities(t, got, euWant(false))
	checkStats(t, st, 3, 6, 0, 0)
}

func TestParseEUXML(t *testing.T) {
	got, st := collect(t, func(fn func(Entity) error) (Stats, error) { return ParseEUXML(open(t, "eu_fsf.xml"), fn) })
	checkEntities(t, got, euWant(true))
	checkStats(t, st, 3, 8, 0, 0)
}

func TestParseEUFSFNonConsecutive(t *testing.T) {
	in := "Entity_LogicalId;Entity_SubjectType;NameAlias_WholeName;Citizenship_CountryIso2Code\n" +
		"1;P;Anna Example;\n2;E;Example Ltd;\n1;P;Anja Example;DE\n"
	got, st := collect(t, func(fn func(Entity) error) (Stats, error) { return ParseEUFSF(strings.NewReader(in), fn) })
	if len(got) != 3 || got[0].ID != "eu-1" || got[2].ID != "eu-1" || len(st.Warnings) != 1 {
		t.Fatalf("got %+v, warnings %q", got, st.Warnings)
	}
	merged := got[0]
	merged.Merge(got[2])
	want := Entity{ID: "eu-1", Schema: "Person", Names: []Name{
		{Full: "Anna Example", Kind: NamePrimary}, {Full: "Anja Example", Kind: NameAlias},
	}, Nationalities: []string{"de"}, Topics: sanction}
	if !reflect.DeepEqual(merged, want) {
		t.Errorf("merged = %+v, want %+v", merged, want)
	}
}

func TestParseOFAC(t *testing.T) {
	got, st := collect(t, func(fn func(Entity) error) (Stats, error) {
		return ParseOFAC(open(t, "sdn.csv"), open(t, "alt.csv"), open(t, "add.csv"), fn)
	})
	volkov := func(full, kind, first, middle string) Name {
		return Name{Full: full, Kind: kind, First: first, Middle: middle, Last: "VOLKOV"}
	}
	want := []Entity{
		{
			ID: "ofac-1001", Schema: "Person",
			Names: []Name{
				volkov("VOLKOV, Pavel Sergeyevich", NamePrimary, "Pavel", "Sergeyevich"),
				volkov("Pavel Sergeyevich VOLKOV", NameAlias, "Pavel", "Sergeyevich"),
				volkov("VOLKOV, Pavel", NameAlias, "Pavel", ""),
				volkov("Pavel VOLKOV", NameAlias, "Pavel", ""),
				{Full: "PASHA", Kind: NameWeak},
				{Full: "THE FOX", Kind: NameWeak},
				{Full: "WOLF, Pavel", Kind: NamePrevious, First: "Pavel", Last: "WOLF"},
				{Full: "Pavel WOLF", Kind: NamePrevious, First: "Pavel", Last: "WOLF"},
			},
			BirthDates:    []string{"1970-05-17", "1971", "1975"},
			Nationalities: []string{"ru", "ir"},
			Countries:     []string{"ru"},
			Gender:        "male",
			Topics:        sanction,
			Programs:      []string{"RUSSIA-EO14024", "CYBER2"},
		},
		{
			ID: "ofac-1002", Schema: "LegalEntity",
			Names: []Name{
				{Full: "NORTHWIND SHIPPING, LTD.", Kind: NamePrimary},
				{Full: "NORTHWIND SHIPPING LIMITED", Kind: NameAlias},
				{Full: "OLD WIND LTD", Kind: NamePrevious},
			},
			Countries: []string{"cy", "kp"}, Topics: sanction, Programs: []string{"SDGT"},
		},
		{
			ID: "ofac-1003", Schema: "Vessel",
			Names:     []Name{{Full: "SEA BREEZE", Kind: NamePrimary}},
			Countries: []string{"pa"}, Topics: sanction, Programs: []string{"IRAN"},
		},
		{
			ID: "ofac-1004", Schema: "Aircraft",
			Names:  []Name{{Full: "EP-XYZ", Kind: NamePrimary}},
			Topics: sanction, Programs: []string{"SDGT", "IFSR"},
		},
		{
			ID: "ofac-1005", Schema: "Person",
			Names: []Name{
				{Full: "DIAZ LOPEZ, Maria", Kind: NamePrimary, First: "Maria", Last: "DIAZ LOPEZ"},
				{Full: "Maria DIAZ LOPEZ", Kind: NameAlias, First: "Maria", Last: "DIAZ LOPEZ"},
				{Full: "DIAZ, Maria", Kind: NameAlias, First: "Maria", Last: "DIAZ"},
				{Full: "Maria DIAZ", Kind: NameAlias, First: "Maria", Last: "DIAZ"},
			},
			BirthDates: []string{"1963-07", "1980", "1981", "1982"},
			Gender:     "female",
			Topics:     sanction,
			Programs:   []string{"SDNTK"},
		},
	}
	checkEntities(t, got, want)
	checkStats(t, st, 5, 17, 0, 1) // warning: unknown country "Atlantis"
}

func TestParseOFACWithoutAltAdd(t *testing.T) {
	got, _ := collect(t, func(fn func(Entity) error) (Stats, error) { return ParseOFAC(open(t, "sdn.csv"), nil, nil, fn) })
	if len(got) != 5 || len(got[1].Names) != 2 || got[1].Countries != nil {
		t.Errorf("without alt/add: %+v", got[1])
	}
}

func TestMalformed(t *testing.T) {
	eu := "Entity_LogicalId;NameAlias_WholeName\n1;A\n2;B;extra\n"
	cases := []struct {
		name  string
		parse func() (Stats, error)
		line  int
	}{
		{"ftm bad json", func() (Stats, error) {
			return ParseFtM(strings.NewReader(`{"id":"a","schema":"Person","properties":{"name":["A"]}}`+"\n\n"+`{"id":`), nopFn)
		}, 3},
		{"ftm no schema", func() (Stats, error) { return ParseFtM(strings.NewReader(`{"id":"a"}`), nopFn) }, 1},
		{"ftm property not a string list", func() (Stats, error) {
			return ParseFtM(strings.NewReader(`{"id":"a","schema":"Person","properties":{"name":"A"}}`), nopFn)
		}, 1},
		{"eu csv field count", func() (Stats, error) { return ParseEUFSF(strings.NewReader(eu), nopFn) }, 3},
		{"eu csv no id column", func() (Stats, error) { return ParseEUFSF(strings.NewReader("a;b\n1;2\n"), nopFn) }, 1},
		{"eu csv empty", func() (Stats, error) { return ParseEUFSF(strings.NewReader(""), nopFn) }, 1},
		{"eu xml broken", func() (Stats, error) {
			return ParseEUXML(strings.NewReader("<export>\n<sanctionEntity logicalId=\"1\">\n<nameAlias wholeName=\"A\">\n</sanctionEntity>\n</export>"), nopFn)
		}, 4},
		{"ofac sdn short row", func() (Stats, error) {
			return ParseOFAC(strings.NewReader("1,\"A\",-0- ,\"X\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \n2,\"B\"\n"), nil, nil, nopFn)
		}, 2},
		{"ofac alt bad ent_num", func() (Stats, error) {
			return ParseOFAC(strings.NewReader(""), strings.NewReader("1,2,\"aka\",\"A\",-0- \nx,3,\"aka\",\"B\",-0- \n"), nil, nopFn)
		}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.parse()
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want *ParseError", err)
			}
			if pe.Line != c.line {
				t.Errorf("line = %d, want %d (%v)", pe.Line, c.line, err)
			}
			if c.line > 0 && !strings.Contains(err.Error(), "line ") {
				t.Errorf("error %q does not name the line", err)
			}
		})
	}
}

func nopFn(Entity) error { return nil }

// TestCallbackStops checks that each parser stops at the first callback
// error and returns it unchanged.
func TestCallbackStops(t *testing.T) {
	stop := errors.New("stop")
	parsers := map[string]func(fn func(Entity) error) (Stats, error){
		"ftm":  func(fn func(Entity) error) (Stats, error) { return ParseFtM(open(t, "entities.ftm.json"), fn) },
		"eu":   func(fn func(Entity) error) (Stats, error) { return ParseEUFSF(open(t, "eu_fsf.csv"), fn) },
		"xml":  func(fn func(Entity) error) (Stats, error) { return ParseEUXML(open(t, "eu_fsf.xml"), fn) },
		"ofac": func(fn func(Entity) error) (Stats, error) { return ParseOFAC(open(t, "sdn.csv"), nil, nil, fn) },
	}
	for name, parse := range parsers {
		t.Run(name, func(t *testing.T) {
			calls := 0
			st, err := parse(func(Entity) error {
				calls++
				if calls == 2 {
					return stop
				}
				return nil
			})
			if err != stop || calls != 2 || st.Entities != 2 {
				t.Errorf("err = %v, calls = %d, entities = %d; want stop after 2", err, calls, st.Entities)
			}
		})
	}
}

func TestDetect(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return b[:min(len(b), 4096)]
	}
	cases := []struct {
		name string
		head []byte
		want Format
		ok   bool
	}{
		{"entities.ftm.json", read("entities.ftm.json"), FormatFtM, true},
		{"download.bin", read("targets.nested.json"), FormatFtM, true},
		{"x", read("eu_fsf.csv"), FormatEUFSF, true},
		{"x", read("eu_fsf.xml"), FormatEUXML, true},
		{"x", read("sdn.csv"), FormatOFAC, true},
		{"/tmp/ALT.CSV", nil, FormatOFAC, true},
		{"csvFullSanctionsList_1_1.csv", nil, FormatEUFSF, true},
		{"xmlFullSanctionsList_1_1.xml", nil, FormatEUXML, true},
		{"targets.nested.json", nil, FormatFtM, true},
		{"notes.txt", []byte("hello"), "", false},
	}
	for _, c := range cases {
		got, ok := Detect(c.name, c.head)
		if got != c.want || ok != c.ok {
			t.Errorf("Detect(%q) = %q, %v; want %q, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestDates(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"17 May 1970", []string{"1970-05-17"}},
		{"28 Jul 1963", []string{"1963-07-28"}},
		{"May 1970", []string{"1970-05"}},
		{"1970", []string{"1970"}},
		{"circa 1970", []string{"1970"}},
		{"circa 03 Feb 1970", []string{"1970"}},
		{"1970 to 1972", []string{"1970", "1971", "1972"}},
		{"circa 1979-1981", []string{"1979", "1980", "1981"}},
		{"1970-05-17", []string{"1970-05-17"}},
		{"31 Feb 1970", nil},
		{"1900 to 1990", nil},
		{"sometime", nil},
	}
	for _, c := range cases {
		got, ok := parseOFACDate(c.in)
		if !reflect.DeepEqual(got, c.want) || ok != (c.want != nil) {
			t.Errorf("parseOFACDate(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
	for in, want := range map[string]string{"1970-05-17T00:00:00": "1970-05-17", "1970-13": "", "0000": "", "1970-02-30": ""} {
		got, _ := normISODate(in)
		if got != want {
			t.Errorf("normISODate(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCountryCode(t *testing.T) {
	for in, want := range map[string]string{
		"Russia": "ru", "Korea, North": "kp", "KOREA SOUTH": "kr", "Cote d'Ivoire": "ci",
		"Congo, Democratic Republic of the": "cd", "Kosovo": "xk", "Atlantis": "",
	} {
		if got, _ := countryCode(in); got != want {
			t.Errorf("countryCode(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWarningsCapped(t *testing.T) {
	var st Stats
	for i := 0; i < 250; i++ {
		st.warnf("w%d", i)
	}
	if len(st.Warnings) != maxWarnings {
		t.Errorf("%d warnings kept, want %d", len(st.Warnings), maxWarnings)
	}
}

// A person's UN alias is the names it holds: spellings separated by ";"
// or lettered, the original script or further spellings in parentheses
// are names of their own; a note in parentheses or after a comma is part
// of none.
func TestUNAliasNames(t *testing.T) {
	for in, want := range map[string][]string{
		"Qasim Soleimani; Qasem Sulaimani":                                        {"Qasim Soleimani", "Qasem Sulaimani"},
		"Mohammed Sabet; Mohammad Sabet b) M. Javad Kareemi Sabet":                {"Mohammed Sabet", "Mohammad Sabet", "M. Javad Kareemi Sabet"},
		"حاجى مالك نورزى (Hajji Malik Noorzai; Haji Malek Noorzai)":               {"حاجى مالك نورزى", "Hajji Malik Noorzai", "Haji Malek Noorzai"},
		"Abu Muhammad (original script: Абу Мухаммад)":                            {"Abu Muhammad", "Абу Мухаммад"},
		"Encep Nurjaman (birth name)":                                             {"Encep Nurjaman"},
		"Safia Farkash Mohammed Al-Hadad, born 1 Jan. 1953 (Oman passport no.03)": {"Safia Farkash Mohammed Al-Hadad"},
		`"HASSAN, Sheikh"`:                 {"HASSAN, Sheikh"},
		") Abdelrahman Mouhamad Zafir":     {"Abdelrahman Mouhamad Zafir"},
		"MAKENGA, EMMANUEL SULTANI":        {"MAKENGA, EMMANUEL SULTANI"},
		"Lom-ali Butayev (Butaev)":         {"Lom-ali Butayev"},
		"Hilarion Del Rosario Santos, III": {"Hilarion Del Rosario Santos, III"},
	} {
		if got := unAliasNames(in); !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
}

// A person's name written "FAMILY, Given Middle" gets its parts and its
// natural order as an alias; a generation after the comma is no given
// name, and goes last.
func TestListedNameSurnameFirst(t *testing.T) {
	for _, c := range []struct {
		full    string
		person  bool
		natural string
	}{
		{"MAKENGA, EMMANUEL SULTANI", true, "EMMANUEL SULTANI MAKENGA"},
		{"MEZA, JR., Arturo", true, "Arturo MEZA JR."},
		{"Hilarion Santos, III", true, ""},
		{"AL-BASHIR TRADING COMPANY, LTD", false, ""},
		{"Sultani Makenga", true, ""},
	} {
		b := newBuilder("x", "Person")
		b.addListedName(c.full, NameAlias, c.person)
		var got []string
		for _, n := range b.e.Names {
			got = append(got, n.Full)
		}
		want := []string{c.full}
		if c.natural != "" {
			want = append(want, c.natural)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", c.full, got, want)
		}
	}
}
