package sanctions

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kycflow/kycflow/engines/screeneval"
	"github.com/kycflow/kycflow/engines/watchlist"
)

// structureFloors are today's figures, the lower split's (found among the
// first ten, or alerting on strong names; see docs/BENCHMARKS.md), the
// goal of 95 % where it is met: a change that loses ground fails.
var structureFloors = map[string]float64{
	"UN title + name rare": 0.95, "OFAC title + name rare": 0.95,
	"UN kunya split rare": 0.95, "OFAC kunya split rare": 0.95,
	"UN kunya split common": 0.95, "OFAC kunya split common": 0.95,
	"UN title + name common": 0.95, "OFAC title + name common": 0.95,
	// The cases made from weak names left out: alerting on a rare name
	// kept (today's figures), found on a common one (the goal).
	"UN title + name rare, strong": 0.92, "OFAC title + name rare, strong": 0.92,
	"UN kunya split rare, strong": 0.91, "OFAC kunya split rare, strong": 0.94,
	"UN title + name common, strong": 0.95, "OFAC title + name common, strong": 0.95,
	"UN kunya split common, strong": 0.95, "OFAC kunya split common, strong": 0.95,
}

// A title and a common given name ("Haji Ahmad") is no one in particular:
// it does not alert on the many listed people of that name — only where
// the list itself holds the name as one ("HASSAN, Sheikh", an alias
// "Hassan"), three at most here.
func TestTitleAndCommonName(t *testing.T) {
	all := Build(slices.Concat(screeneval.LatinOnly(realUN(t)), realOFAC(t)), Options{})
	for _, q := range []string{"Haji Ahmad", "Mullah Mohammad", "Sheikh Hassan", "Haji Mohammad", "Maulvi Ahmad", "Shaykh Ali",
		"Mullah Abdul", "Haji Karim", "Hajji Mahmoud", "Mufti Omar", "Qari Ahmad", "Qari Muhammad"} {
		alerts := 0
		for _, h := range all.Search(Query{Name: q}, 10) {
			if h.Score >= 0.88 {
				alerts++
			}
		}
		if alerts > 3 {
			t.Errorf("%s alerts on %d listed people", q, alerts)
		}
	}
}

// TestNameStructureQuality measures screeneval's title + name and kunya
// split cases on both real lists, screened against both loaded at once,
// split by whether the name kept is rare (fewer than three listed people
// use it, by screeneval's count) or common, and into tuning and held-out
// cases (quality gate, `make test`). Floors on what is found. MISSES=1
// logs the tuning split's misses.
func TestNameStructureQuality(t *testing.T) {
	un, ofac := realUN(t), realOFAC(t)
	everyone := slices.Concat(onList(screeneval.LatinOnly(un), "un"), onList(ofac, "ofac"))
	all := Build(everyone, Options{})
	people := screeneval.CountPeople(everyone)
	for _, l := range []struct {
		name string
		es   []watchlist.Entity
	}{{"UN", un}, {"OFAC", ofac}} {
		cases := screeneval.Cases(l.es, 1)
		for _, kind := range []string{screeneval.TitleName, screeneval.KunyaSplit} {
			var rare, common []screeneval.Case
			for _, c := range cases[kind] {
				if ws := strings.Fields(c.Name); people.Rare(ws[len(ws)-1]) {
					rare = append(rare, c)
				} else {
					common = append(common, c)
				}
			}
			for _, part := range []struct {
				name string
				cs   []screeneval.Case
			}{{"rare", rare}, {"common", common}} {
				what := l.name + " " + kind + " " + part.name
				tuning, held := tally(all, part.cs, nil)
				report(t, what, tuning, held, structureFloors[what], true)
				// Again without the cases made from names the list calls
				// weak (shown, never alerting alone, and below their
				// namesakes when the name kept is common): held to
				// alerting where that name is rare, to being found
				// where it is common.
				tuning, held = tally(all, slices.DeleteFunc(slices.Clone(part.cs), func(c screeneval.Case) bool { return c.Weak }), nil)
				report(t, what+", strong", tuning, held, structureFloors[what+", strong"], part.name == "common")
			}
		}
	}
}

// The explanations name the parts: the kunya shortened, the title's one
// rare name and what it leaves out.
func TestStructureExplained(t *testing.T) {
	all := Build(screeneval.LatinOnly(realUN(t)), Options{})
	for q, want := range map[string]string{
		"Abu al-Jaziri": "kunya or compound name 'Abu Bakr' asked by its first half",
		"Haji Alizai":   "the query is a title and one name few listed people have",
	} {
		hits := all.Search(Query{Name: q}, 3)
		if len(hits) == 0 || !strings.Contains(strings.Join(hits[0].Explanation, "\n"), want) {
			t.Errorf("%s: %+v", q, hits)
		}
	}
}

// The explanation names the compound a shortened spelling came from where
// the list writes it, not the name's first words.
func TestFirstCompound(t *testing.T) {
	for full, want := range map[string]string{
		"AL-FAWAZ, Khalid Abd al-Rahman Hamd": "Abd al-Rahman",
		"Khalid Adbul WADOOD":                 "Adbul WADOOD",
		"AL QARAWI, Abu Yahya":                "Abu Yahya",
		"Abu-Ahmad Al-Hawen":                  "Abu-Ahmad",
		"Abdullah Abu al Hasan Ali":           "Abu al Hasan",
		"Abdulrahman Khalid":                  "Abdulrahman",
		"‘Abd al-Rahman Khalaf al-‘Anzi":      "‘Abd al-Rahman",
		"ABDELOUADOUD, Abou Mossaab":          "Abou Mossaab",
		"KARIM, Abdelilah":                    "Abdelilah",
	} {
		if got := firstCompound(watchlist.Name{Full: full}); got != want {
			t.Errorf("%s: %q, want %q", full, got, want)
		}
	}
}

// The title rule stands on the family name or nisba only: in a list where
// every word is rare, "Haji Qandorzai" alerts on Haji Bashir Qandorzai and
// "Haji Bashir" (his given name) does not — it shows him, at 0.81, as it
// shows "Mullah Hafiz" Zawqari, since each is listed with the title; not
// "Haji Hafiz", a title he is not listed with.
func TestTitleStandsOnTheFamilyName(t *testing.T) {
	people := map[string]string{"q": "Haji Bashir Qandorzai", "z": "ZAWQARI, Mullah Hafiz"}
	alertsOn(t, people, map[string]string{"Haji Qandorzai": "q", "Haji Bashir": "", "Mullah Zawqari": "z", "Mullah Hafiz": ""})
	var es []watchlist.Entity
	for id, name := range people {
		es = append(es, watchlist.Entity{ID: id, Schema: "Person", Names: []watchlist.Name{{Full: name, Kind: watchlist.NamePrimary}}})
	}
	shownAtGiven(t, Build(es, Options{}), map[string]string{"Haji Bashir": "q", "Mullah Hafiz": "z", "Haji Hafiz": ""},
		"the given name of a person listed with that title")
}

// A title word where the family name stands is that name (Muhammad Fawzi
// HAJJI; AL-SHAYKH, Muhammad: titles come before the given names): "Ali
// Haji" is Ali Khatib Haji with his middle name left out, and "Muhammad
// Hajji" is not Muhammad al-Shaykh with a title. A listed name is read
// with it as a title too (the list may have put one last: "Haji Ali
// Khatib" is still Ali Khatib HAJI), a query as a title only against
// people who bear one of its kind ("NOORULLAH Haji", written family name
// first, for NOORULLAH, Haji).
func TestTitleAsFamilyName(t *testing.T) {
	alertsOn(t, map[string]string{"k": "Ali Khatib HAJI", "s": "AL-SHAYKH, Muhammad", "f": "Muhammad Fawzi HAJJI", "n": "NOORULLAH, Haji"}, map[string]string{
		"Ali HAJI": "k", "Muhammad Hajji": "f", "Muhammad al-Shaykh": "s", "Haji Ali Khatib": "k", "NOORULLAH Haji": "n", "Noorullah Sheikh": "",
	})
	for name, want := range map[string][2]string{
		"HAJI, Ali Khatib":      {"haji ali khatib", "ali khatib"},
		"AWEYS, Sheikh Hassan":  {"aweys hassan", ""},
		"HASSAN, Ali Haji":      {"hassan ali haji", "hassan ali"},
		"BANDO, Haji":           {"bando", ""},
		"Muhammad Hajji":        {"muhammad hajji", "muhammad"},
		"Haji Ali Khatib":       {"ali khatib", ""},
		"Haji":                  {"haji", ""},
		"Hassan Sheikh Mohamud": {"hassan mohamud", ""},
		"Abdul Qader Al Doctor": {"abdqader al doctor", "abdqader al"}, // a laqab
		"Dr. Ali Hassan":        {"ali hassan", ""},
		"ZAKIR, Qari":           {"zakir", ""}, // Qari a title, in either script
		"قاري سيف":              {"sayf", ""},
	} {
		nn := normalize(name, false)
		words := func(ts []token) string {
			var out []string
			for _, tk := range ts {
				out = append(out, tk.s)
			}
			return strings.Join(out, " ")
		}
		if got := [2]string{words(nn.variants[0]), words(nn.untitled)}; got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}

// shownAtGiven checks whom each query shows first ("": no one), at
// titledGiven, with why in the explanation.
func shownAtGiven(t *testing.T, ix *Index, queries map[string]string, why string) {
	t.Helper()
	for q, want := range queries {
		hits := ix.Search(Query{Name: q}, 1)
		switch {
		case want == "" && len(hits) > 0:
			t.Errorf("%s shows %+v", q, hits[0])
		case want != "" && (len(hits) != 1 || hits[0].EntityID != want || hits[0].Score != titledGiven ||
			!strings.Contains(strings.Join(hits[0].Explanation, " "), why)):
			t.Errorf("%s: %+v", q, hits)
		}
	}
}

// A title and a compound's second half ("Hajji Nasr" for Hajji Abd
// al-Nasr, "Sheikh Ubaidah" for Sheikh Omar Abu Ubaidah) shows the person
// listed with that title, at titledGiven, never alerting; not with a title
// he is not listed with, not alone, and not anyone listed without a title.
func TestTitleAndCompoundHalf(t *testing.T) {
	ix := Build([]watchlist.Entity{listed("n", "Hajji Abd al-Nasr"), listed("u", "Sheikh Omar Abu Ubaidah"),
		listed("k", "Abd al-Rahim Karimi")}, Options{})
	shownAtGiven(t, ix, map[string]string{"Hajji Nasr": "n", "Haji Nasr": "n", "Sheikh Ubaidah": "u", "Shaykh Ubaidah": "u",
		"Sheikh Nasr": "", "Nasr": "", "Ubaidah": "", "Haji Rahim": "", "Nasr Hassan": ""},
		"asked by its second half with a title the listed person bears")
}

// alertsOn builds an index of people (id: name) and checks which each
// query alerts on first at the default threshold ("": none).
func alertsOn(t *testing.T, people, queries map[string]string) {
	t.Helper()
	var es []watchlist.Entity
	for id, name := range people {
		es = append(es, watchlist.Entity{ID: id, Schema: "Person", Names: []watchlist.Name{{Full: name, Kind: watchlist.NamePrimary}}})
	}
	ix := Build(es, Options{})
	for q, want := range queries {
		hits := ix.Search(Query{Name: q}, 3)
		got := ""
		if len(hits) > 0 && hits[0].Score >= 0.88 {
			got = hits[0].EntityID
		}
		if got != want {
			t.Errorf("%s alerts on %q, want %q: %+v", q, got, want, hits)
		}
	}
}

// A title and a family name several listed people share (three to
// nineteen) finds them as hits, none alerting on those two words alone:
// the score stops at titledShown, and the explanation says why.
func TestTitleAndSharedName(t *testing.T) {
	var es []watchlist.Entity
	for i, given := range []string{"Bashir", "Rahim", "Gul", "Aziz", "Nasir", "Wali"} {
		es = append(es, watchlist.Entity{ID: fmt.Sprint(i), Schema: "Person",
			Names: []watchlist.Name{{Full: "Haji " + given + " Qandorzai", Kind: watchlist.NamePrimary}}})
	}
	hits := Build(es, Options{}).Search(Query{Name: "Haji Qandorzai"}, 10)
	if len(hits) != len(es) {
		t.Fatalf("%d hits, want all %d Qandorzais: %+v", len(hits), len(es), hits)
	}
	for _, h := range hits {
		if h.Score >= 0.88 || h.Score < DefaultMinScore {
			t.Errorf("%s scores %.3f, want a hit below the threshold", h.MatchedName, h.Score)
		}
		if !strings.Contains(strings.Join(h.Explanation, " "), "several listed people") {
			t.Errorf("%s explained as %q", h.MatchedName, h.Explanation)
		}
	}
}

// A title and a family name many listed people share (twenty or more)
// still finds them, lower (titledCommon): those titled as asked first,
// whatever their order in the list and however many more share the name
// than a query scores (MaxCandidates), none alerting.
func TestTitleAndCommonFamilyName(t *testing.T) {
	var es []watchlist.Entity
	add := func(id, full string) {
		es = append(es, watchlist.Entity{ID: id, Schema: "Person", Names: []watchlist.Name{{Full: full, Kind: watchlist.NamePrimary}}})
	}
	// More Khans of two words than a query scores, each ranked before
	// the titled ones (fewer words, a lower id) were it not for the title.
	for i, a := range strings.Fields("Ba Ra Gu Az Na Wa Sa Ha Ka Ja Qa Za Fa La Ma Ta Yu Da Pa Ya Ni Ri Si Mi Ki Li Ti Fi Hi Bi") {
		for j, b := range strings.Fields("shir him lam ziz sir li ttar fiz rim lil dir uf mad hid hir zl bib tif jid bo shid lom hur nus mal run sin diq kir bar") {
			add(fmt.Sprintf("a%02d%02d", i, j), a+b+" Khan")
		}
	}
	if len(es) <= MaxCandidates {
		t.Fatalf("%d Khans, want more than a query scores", len(es))
	}
	for i, g := range []string{"Bashir", "Rahim", "Gul"} {
		add(fmt.Sprintf("z%d", i), "KHAN, Hajji "+g+" Jan")
		add(fmt.Sprintf("zm%d", i), "Mullah "+g+" Khan")
	}
	ix := Build(es, Options{})
	for q, prefix := range map[string]string{"Haji Khan": "z", "Mullah Khan": "zm"} {
		hits := ix.Search(Query{Name: q}, 10)
		if len(hits) < 3 {
			t.Fatalf("%s: %d hits", q, len(hits))
		}
		for i, h := range hits {
			if h.Score >= 0.88 || h.Score < DefaultMinScore || h.Score > titledCommon {
				t.Errorf("%s: %s scores %.3f, want a hit at most %.2f", q, h.MatchedName, h.Score, titledCommon)
			}
			if titled := strings.HasPrefix(h.EntityID, prefix) && (prefix == "zm") == strings.HasPrefix(h.EntityID, "zm"); titled != (i < 3) {
				t.Errorf("%s: hit %d is %s", q, i, h.MatchedName)
			}
			if want := map[bool]string{true: "bears it too", false: "not listed with it"}[i < 3]; !strings.Contains(strings.Join(h.Explanation, " "), want) {
				t.Errorf("%s: %s explained as %q", q, h.MatchedName, h.Explanation)
			}
		}
	}
}

// Sayyid, a title of descent Afghan names carry first, is left out by
// customers: in front of two or more names it costs what a middle name
// costs — also where a given name asked a little off anchors no name
// chain (Karimula: TestNameChainLeftOut has the chain's own rule). It is a
// given name too, so a two-word name keeps it as one.
func TestSayyidLeftOut(t *testing.T) {
	alertsOn(t, map[string]string{"s": "SAYED KARIMULLAH WARDAK ZADRAN", "m": "Syed Zadran"},
		map[string]string{"Karimullah Wardak Zadran": "s", "Karimula Wardak Zadran": "s", "Zadran": ""})
}

// A name chain's words left out between the given and the family name:
// those a nasab particle brings in, a Sayyid in it or in front of the
// given name, cost what a further name does; a family name the listed
// name repeats is the query's last word at the end; and a chain is
// anchored only on words that match well (not Nasr for Nasser).
func TestNameChainLeftOut(t *testing.T) {
	alertsOn(t, map[string]string{
		"nasab":  "ALI BEN TAHER BEN FALEH OUNI HARZI",
		"sayyid": "SAYYID MOHAMMED QADHAF AL-DAM",
		"middle": "ALI SAYYID MUHAMED MUSTAFA BAKRI",
		"twice":  "ABDUL RAZAQ AKHUND LALA AKHUND",
		"nasser": "Nasser Hani Haddad",
		"other":  "Karim Benali",
	}, map[string]string{
		"Ali Harzi":          "nasab",
		"Mohammed Al Dam":    "sayyid",
		"Ali Bakri":          "middle",
		"Abdul Razaq Akhund": "twice",
		"Nasser Haddad":      "nasser",
	})
	ix := Build([]watchlist.Entity{{ID: "n", Schema: "Person", Names: []watchlist.Name{{Full: "Nasser Hani Haddad", Kind: watchlist.NamePrimary}}}}, Options{MinScore: 0.5})
	exact, weak := ix.Search(Query{Name: "Nasser Haddad"}, 1), ix.Search(Query{Name: "Nasr Haddad"}, 1)
	if len(exact) != 1 || len(weak) != 1 || !strings.Contains(strings.Join(exact[0].Explanation, " "), "given and family name in place") ||
		strings.Contains(strings.Join(weak[0].Explanation, " "), "in place") {
		t.Errorf("a chain anchored on a weak match: %+v, %+v", exact, weak)
	}
}

// A title and a name several listed people share finds, first among
// them, the person whose weak alias is that title and name: the alias
// scores as the namesakes do, not below them, and alerts no more than
// they do.
func TestWeakAliasAmongNamesakes(t *testing.T) {
	es := []watchlist.Entity{{ID: "w", Schema: "Person", Names: []watchlist.Name{{Full: "BARAKAT, Assad", Kind: watchlist.NamePrimary},
		{Full: "HAJJ AS'AD AHMAD", Kind: watchlist.NameWeak}}}}
	for i, given := range []string{"Firas", "Noor", "Nazir", "Sayed"} {
		es = append(es, watchlist.Entity{ID: fmt.Sprint(i), Schema: "Person", Names: []watchlist.Name{{Full: "AHMAD, " + given, Kind: watchlist.NamePrimary}}})
	}
	hits := Build(es, Options{}).Search(Query{Name: "Hajj Ahmad"}, 10)
	if len(hits) < 5 || hits[0].EntityID != "w" || hits[0].Score != hits[1].Score || hits[0].Score >= 0.88 {
		t.Fatalf("%+v", hits)
	}
	if !strings.Contains(strings.Join(hits[0].Explanation, "\n"), "weak alias (nickname) of a person listed with the query's title") {
		t.Errorf("%q", hits[0].Explanation)
	}
}

// A kunya asked by its first half and a rare name alerts; rare as the
// list writes it is not enough when the query's spelling is common: "Abu
// Masri" is no one in particular where three people are AL-MASRI, even
// if the fourth writes it el Masry.
func TestShortenedRareAsAsked(t *testing.T) {
	alertsOn(t, map[string]string{"k": "EL KHABIR, Abu Hafs el Masry", "a": "AL-MASRI, Abu Hamza", "b": "AL-MASRI, Abu Ayman", "c": "AL-MASRI, Abu Ahmad"},
		map[string]string{"Abu Masri": "", "Abu Masry": "k"})
}

// Allah after a name joins it (Hidayat Allah is Hidayatullah) unless a
// name follows, where it may begin that one: "MUHAMMAD ALLAH DAD TAYEB
// WALI" is ALLAH DAD TAYEB WALI MUHAMMAD with his last name put first.
func TestAllahBeforeAName(t *testing.T) {
	alertsOn(t, map[string]string{"d": "ALLAH DAD TAYEB WALI MUHAMMAD", "h": "Hidayatullah KHAN", "n": "Najib Allah"},
		map[string]string{"MUHAMMAD ALLAH DAD TAYEB WALI": "d", "Hidayat Allah Khan": "h", "Najibullah": "n"})
}

// Kunyas and Abd compounds as lists write them: Abu Abdullah is a kunya
// like any other, asked by its first half and the family name, while
// Abdullah is a name of its own, not Abd and a half to drop; a name in
// -ullah after an Abd or Abu is joined as it is alone; a kunya a list cut
// at its comma ("KHALID, Abu") is the kunya in order too — whole, and by
// its first half, explained as such — and still the words as written. A
// kunya whose name is an Abd compound, or whose other name is one, keeps
// the compound whole however it is written: "Abou Abdelouadoud" is Abou
// Mossaab Abdelouadoud shortened, "Abu Abd al-Rahman" is Abu Abdurrahman.
func TestKunyaShapes(t *testing.T) {
	alertsOn(t, map[string]string{
		"wadud":     "ABDELOUADOUD, Abou Mossaab",
		"jibril":    "Abu Jibril ABDURRAHMAN",
		"adani":     "AL-ADANI, Abu 'Abd al-Rahman",
		"other":     "Abou Mossaab Benali",
		"qardash":   "Abu ‘Abdullah QARDASH",
		"zawahri":   "Abdallah Karim AL-ZAWAHRI",
		"jund":      "Abdul Heq JUNDULLAH",
		"khalid":    "KHALID, Abu",
		"andunisiy": "MUHAMMAD AL-ANDUNISIY, Abu",
		"sabri":     "SABRI, Abdel Ilah",
		"sugiarto":  "Abdillah Karim SUGIARTO",
		"abuzaid":   "ABUZAID, Abdul Rauf",
		"escalon":   "Abdul Patta Escalon Abubakar",
	}, map[string]string{
		"Abdul Abuzaid":              "abuzaid",
		"Abdul Abubakar":             "escalon",
		"Abd Mossaab":                "",
		"Abdel Sabri":                "sabri",
		"Abd Sugiarto":               "",
		"Abu Qardash":                "qardash",
		"Abou Qardash":               "qardash",
		"Abd Zawahri":                "",
		"Abdul Zawahri":              "",
		"Abdul Jundullah":            "jund",
		"Abd Jundallah":              "jund",
		"Abu Khalid":                 "khalid",
		"Khalid Abu":                 "khalid",
		"Abu Muhammad al-Andunisiy":  "andunisiy",
		"Abou Andunisiy":             "andunisiy",
		"Abou Abdelouadoud":          "wadud",
		"Abu Abd el-Ouadoud":         "wadud",
		"Abu Jibril Abdul Rahman":    "jibril",
		"Abu Abdurrahman al-Adani":   "adani",
		"Abu Abd al Rahman AL-ADANI": "adani",
	})
	// A kunya that is no family name is no other name of an Abd compound.
	for _, full := range []string{"Abu Jibril ABDURRAHMAN", "ABDELOUADOUD, Abou Mossaab"} {
		nn := normalize(full, false)
		for _, d := range shortenedSpellings(nn.variants[0], nn.surnameFirst) {
			if strings.HasPrefix(d[0].s, "abdabu") {
				t.Errorf("%s shortened to %s", full, d[0].s)
			}
		}
	}
	ix := Build([]watchlist.Entity{{ID: "b", Schema: "Person", Names: []watchlist.Name{{Full: "MUHAMMAD AL-ANDUNISIY, Abu", Kind: watchlist.NameAlias}}}}, Options{})
	if hits := ix.Search(Query{Name: "Abu Andunisiy"}, 1); len(hits) != 1 || !strings.Contains(strings.Join(hits[0].Explanation, " "), "'Abu MUHAMMAD' asked by its first half") {
		t.Errorf("Abu Andunisiy: %+v", hits)
	}
}

// A title and one name matched on a weak alias is shown, not alerting: the
// alias's own malus says what the names left out cost, as for a kunya
// shortened (before, both costs together kept it under the hits shown).
func TestTitleOnAWeakAlias(t *testing.T) {
	ix := Build([]watchlist.Entity{{ID: "s", Schema: "Person", Names: []watchlist.Name{
		{Full: "AL-MANSUR, Salim Mustafa Muhammad", Kind: watchlist.NamePrimary},
		{Full: "AL-SHAKLAR, Hajji Salim", Kind: watchlist.NameWeak},
	}}}, Options{})
	hits := ix.Search(Query{Name: "Hajji Shaklar"}, 3)
	if len(hits) != 1 || hits[0].Score != DefaultMinScore || !strings.Contains(strings.Join(hits[0].Explanation, " "), "weak alias") {
		t.Fatalf("Hajji Shaklar: %+v", hits)
	}
	// A weak alias of a person listed with the title scores as its
	// namesakes do where the name is one several people share (first
	// among them, titled as asked: see TestWeakAliasAmongNamesakes); the
	// bound for a compound's second half does not raise it: its malus
	// keeps it at 0.80.
	es := []watchlist.Entity{
		{ID: "n", Schema: "Person", Names: []watchlist.Name{{Full: "NOORI, Nika", Kind: watchlist.NamePrimary}, {Full: "Haji Nika Ishaqzai", Kind: watchlist.NameWeak}}},
		{ID: "s", Schema: "Person", Names: []watchlist.Name{{Full: "AL-AJMI, Shafi", Kind: watchlist.NamePrimary}, {Full: "Shaykh Abu-Sultan", Kind: watchlist.NameWeak}}},
	}
	for i, given := range []string{"Gul", "Lal", "Wali", "Bashir"} {
		es = append(es, listed(fmt.Sprint(i), given+" Ishaqzai"))
	}
	ix = Build(es, Options{})
	for q, want := range map[string]struct {
		id    string
		score float64
	}{"Haji Ishaqzai": {"n", titledShown}, "Shaykh Sultan": {"s", DefaultMinScore}} {
		hits := ix.Search(Query{Name: q}, 10)
		i := slices.IndexFunc(hits, func(h Hit) bool { return h.EntityID == want.id })
		if i < 0 || hits[i].Score != want.score {
			t.Errorf("%s: %+v", q, hits)
		}
	}
}

// A short title mistyped (Haki, Imtm) is the title to a listed person who
// bears it, and stays a name to anyone else; a listed word one edit from
// a title (Hadi) is a name to everyone.
func TestShortTitleMistyped(t *testing.T) {
	people := map[string]string{"b": "BANDO, Haji", "i": "BHEEL, Imam", "s": "SULTANI", "h": "HADI, Karim"}
	alertsOn(t, people, map[string]string{
		"BANDO Haki": "b", "Imtm Bheel": "i", "Imam Bheel": "i",
		"Haki Sultani": "", "Hadi Bando": "",
	})
	ix := Build([]watchlist.Entity{{ID: "b", Schema: "Person", Names: []watchlist.Name{{Full: "BANDO, Haji", Kind: watchlist.NamePrimary}}}}, Options{})
	if hits := ix.Search(Query{Name: "Bando Hajo"}, 1); len(hits) != 1 || !strings.Contains(strings.Join(hits[0].Explanation, " "), "hajo read as the title Haji mistyped") {
		t.Errorf("Bando Hajo: %+v", hits)
	}
}

// A compound in -ad-Din or -ullah is asked by its first half (Salah for
// Salah Eddine, Hayat for Hayat Ullah), in Latin or Arabic script;
// another name is not that half, nor is Abd Abdullah's.
func TestCompoundByItsFirstHalf(t *testing.T) {
	alertsOn(t, map[string]string{"g": "SALAH EDDINE GASMI", "k": "Nuruddin KARIMZAI", "h": "MUHAMMAD, Hayat Ullah Ghulam", "a": "KAKAR, Abdullah"}, map[string]string{
		"Salah Gasmi": "g", "صالح قاسمي": "g", "Nur Karimzai": "k", "Salahuddin Gasmi": "g",
		"Salim Gasmi": "", "Nasir Karimzai": "", "Hayat Ghulam Muhammad": "h", "Kakar Abd": "",
	})
}

// A name suffix (Zadeh, Zada, Khel) is one word with the name before it,
// written apart or not (Yahya Zadeh, Yahyazadeh), and a family name of its
// own too: "Salar Zadeh" is Salar Mahmoud ZADEH with his middle name left
// out, not Salarzadeh.
func TestNameSuffixApart(t *testing.T) {
	alertsOn(t, map[string]string{"s": "Salar Mahmoud ZADEH", "y": "YAHYA ZADEH, Hamidreza", "a": "Mohammad AKHUNDZADA"}, map[string]string{
		"Salar Zadeh": "s", "Hamidreza Yahyazadeh": "y", "Yahya Zadeh Hamidreza": "y", "Mohammad Akhund Zada": "a",
	})
}

// A slip in Abu, in Abd, in an Abd form, in Abdullah or in an -ullah that
// joinCompounds cannot read (it reads slips starting Ab or Ad) is read against the
// lists' words; a listed word one edit from a form, and a compound joined
// already, stay themselves. Nur Aldin is Nur al-Din; Al- mistyped as two
// letters is the article even when the list holds them (Ag), as three
// when it does not (Aml).
func TestCompoundSlips(t *testing.T) {
	alertsOn(t, map[string]string{
		"m": "MURAD, Abdul Hakim", "j": "MUJAHID, Abdullah", "a": "AL-AHDAL, Hakim", "l": "MALLAH, Abdul Jalil",
		"d": "AL-DIBISKI, Nur Al-Din", "u": "ABDULLAH", "k": "MISKINE, Abdoulaye", "s": "JAN, Saidullah",
		"t": "Abu Malek El Talleh", "q": "AL-DULAIMI, Khalaf", "g": "AG, Wenming",
		"h": "HIDAYATULLAH, Najibullah", "b": "Abou Mohamed al-Adnani",
	}, map[string]string{
		"Apdul Hakim Murad": "m", "Aqbdul Hakim Murad": "m", "Abdullh Mujahid": "j", "Ahdollah Mujahid": "j",
		"Ahdal Hakim Murad": "", "Abdul Mallah": "l", "Nur Aldin al-Dibiski": "d",
		"Awdoulaye Miskine": "k", "Saidullh Jan": "s", "Abu Talleh": "t", "Khalaf Ag-Dulaimi": "q",
		"Najibullah Hidabyatullah": "h", "Absu Mohamed al-Adnani": "b", "Aboiu Mohamed al-Adnani": "b",
		"Addoulaye Miskine": "k",
	})
	// Abul is Abdul without its d and a kunya too.
	alertsOn(t, map[string]string{"k": "Abul Hasan KHAN", "a": "ABDUL HASAN, Ahmad"}, map[string]string{"Abul Hasan Khan": "k", "Abul Hasan Ahmad": "a"})
	// Abd mistyped as three letters or two (Ahd, Ad) before a name is Abd
	// where the lists hold the compound, and so is Abul (Abul Jabbar); a
	// slip that reads as a name of
	// the lists' languages is no Abu: Abi (Abid, Abdi less a letter), Agu
	// (Agus).
	un := Build(screeneval.LatinOnly(realUN(t)), Options{})
	for q, id := range map[string]string{"AHD-AL-MAJID AZIZ AL-ZINDANI": "un-QDi.156", "SA'D AD-AL-MAJID AL-FAISAL AL-TIKRITI": "un-IQi.055",
		"UGLA ABI SAKR AL-ZUBAISI": "un-IQi.050", "AGU DWIKARNA": "un-QDi.111", "ABUL JABBAR OMARI": "un-TAi.088"} {
		if hits := un.Search(Query{Name: q}, 1); len(hits) != 1 || hits[0].EntityID != id || hits[0].Score < 0.88 {
			t.Errorf("%s: %+v", q, hits)
		}
	}
	// A compound repaired into one word is as its right spelling is, no
	// title and one name: the given names it leaves out cost in full.
	alertsOn(t, map[string]string{"r": "Hassan Yusuf ABDUL RAHMAN"}, map[string]string{"Apdul Rahman": "", "Abdul Rahman": ""})
	// Al- mistyped: two letters whatever the lists hold, three when they
	// do not hold them; never another particle or a listed name.
	v := Build([]watchlist.Entity{{ID: "x", Schema: "Person", Names: []watchlist.Name{{Full: "AG Ali Wenming", Kind: watchlist.NamePrimary}}}}, Options{}).vocab
	for q, want := range map[string]bool{"ag": true, "rl": true, "aml": true, "ali": false, "el": false, "a": false} {
		if got := articleSlip(q, "al", v); got != want {
			t.Errorf("articleSlip(%q, al) = %v", q, got)
		}
	}
}

// A kunya or Abd compound by the name after its Abu or Abd alone — a
// middle name dropped that takes the Abdul of Abdul Aziz with it, a
// family name Abo Ghaith asked Ghaith — is that compound at halfScore,
// one way or the other; not a compound, which Abu Abd al-Rahman holds
// whole (the father of Abd al-Rahman is not he), nor the word itself.
func TestCompoundBySecondHalf(t *testing.T) {
	alertsOn(t, map[string]string{"h": "HAMADI BEN ABDUL AZIZ BEN ALI BOUYEHIA", "g": "SULAIMAN JASSEM SULAIMAN ALI ABO GHAITH"}, map[string]string{
		"HAMADI AZIZ BEN ALI BOUYEHIA": "h", "SULAIMAN JASSEM SULAIMAN ALI GHAITH": "g",
	})
	tok := func(s string) token { return token{s: s, c: canonical(s)} }
	for _, c := range []struct {
		a, b string
		want float64
	}{{"aziz", "abdaziz", halfScore}, {"abughaith", "ghaith", halfScore}, {"abdrahman", "abuabdrahman", 0}, {"aziz", "aziz", 0}, {"lah", "abdlah", 0}} {
		if got := abdHalf(tok(c.a), tok(c.b)); got != c.want {
			t.Errorf("%s ~ %s: %.2f, want %.2f", c.a, c.b, got, c.want)
		}
	}
}
