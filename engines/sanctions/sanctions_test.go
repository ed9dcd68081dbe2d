package sanctions

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kycflow/kycflow/engines/screeneval"
	"github.com/kycflow/kycflow/engines/watchlist"
)

func tokStrings(n normName) [][]string {
	var out [][]string
	for _, v := range n.variants {
		var ss []string
		for _, t := range v {
			ss = append(ss, t.s)
		}
		out = append(out, ss)
	}
	return out
}

func TestTransliteration(t *testing.T) {
	cases := []struct {
		in   string
		want []string // scheme 0, then scheme 1 if different
	}{
		{"Хрущёв", []string{"khrushchev", "hrushchyov"}},
		{"Жуков", []string{"zhukov"}},
		{"Цой", []string{"tsoy", "tsoi"}},
		{"Чайковский", []string{"chaykovskiy", "chaikovskii"}},
		{"Шишкин", []string{"shishkin"}},
		{"Щукин", []string{"shchukin"}},
		{"Юлия", []string{"yuliya", "iuliia"}},
		{"Ельцин", []string{"yeltsin", "eltsin"}},
		{"Быков", []string{"bykov"}},
		{"Эдуард", []string{"eduard"}},
		{"Подъячев", []string{"podyachev", "podiachev"}},
		{"Александр", []string{"aleksandr", "alexandr"}},
		{"Джохар", []string{"dzhokhar", "johar"}},
		{"Олексій", []string{"oleksiy", "olexii"}},
		{"Григорій", []string{"hryhoriy", "grigorii"}},
		{"Ђорђевић", []string{"djordjevic"}},
		{"Шешељ", []string{"seselj"}},
		{"Παπαδόπουλος", []string{"papadopoulos", "papadopulos"}},
		{"Χρήστος", []string{"christos", "khristos"}},
		{"Θεόδωρος", []string{"theodoros"}},
		{"Ευάγγελος", []string{"evangelos", "efangelos"}},
		{"Μπακογιάννη", []string{"bakogianni"}},
		{"Ψαράς", []string{"psaras"}},
		{"Γιώργος", []string{"giorgos"}},
		{"محمد", []string{"muhammad", "mohammed"}}, // a common word, romanised whole
		{"حسين", []string{"husayn", "hussein"}},
		{"طه", []string{"tah"}},                              // a short vowel between consonants, not the digraph th
		{"كاظم", []string{"kazam", "kadham"}},                // ظ as z or dh
		{"التكريتي", []string{"al takaryty", "al takariti"}}, // the article apart
		{"عبدالحليم", []string{"abdhalym", "abdhalim"}},      // Abd al-Halim, however written
		{"عبد الله", []string{"abdlah"}},
		{"هدايت الله", []string{"hadaytlah", "hadaitlah"}},
		{"صلاح الدين", []string{"salahdin"}},
		{"شعبـان", []string{"shaaban"}}, // the tatweel stretches, it is no letter
		{"علی", []string{"ali"}},        // the Persian yeh
	}
	for _, c := range cases {
		got := tokStrings(normalize(c.in, false))
		var flat []string
		for _, v := range got {
			flat = append(flat, strings.Join(v, " "))
		}
		if !slices.Equal(flat, c.want) {
			t.Errorf("normalize(%q) = %q, want %q", c.in, flat, c.want)
		}
	}
}

func TestNormalize(t *testing.T) {
	cases := map[string]string{
		"José Müller-Łukasz":          "jose muller lukasz",
		"O'Brien, Seán":               "obrien sean",
		"Dr. Sheikh Ahmed Al-Rashid":  "ahmed al rashid",
		"STRAßE":                      "strasse",
		"Søren Ørsted":                "soren orsted",
		"ＪＯＨＮ　ＳＭＩＴＨ":                  "john smith",
		"Mr":                          "mr", // nothing left: keep what there was
		"Đorđe Vučić":                 "djordje vucic",
		"General Mohammed bin Salman": "mohammed bin salman",
	}
	for in, want := range cases {
		if got := strings.Join(tokStrings(normalize(in, false))[0], " "); got != want {
			t.Errorf("normalize(%q) = %q, want %q", in, got, want)
		}
	}
	if got := strings.Join(tokStrings(normalize("Rosneft Trading S.A.", true))[0], " "); got != "rosneft trading" {
		t.Errorf("org legal form: got %q", got)
	}
	if got := strings.Join(tokStrings(normalize("ООО «Ромашка»", true))[0], " "); got != "romashka" {
		t.Errorf("Cyrillic org: got %q", got)
	}
}

func TestPhoneticAndCanonical(t *testing.T) {
	for _, group := range [][]string{{"mohammed", "muhammad", "mohamed", "mhmd"}, {"hussein", "husain", "hsyn"}} {
		for _, w := range group[1:] {
			if phonetic(w) != phonetic(group[0]) {
				t.Errorf("phonetic(%q) = %q, phonetic(%q) = %q", w, phonetic(w), group[0], phonetic(group[0]))
			}
		}
	}
	for _, p := range [][2]string{{"yemelyanchuk", "iemelianchouk"}, {"kravtschenko", "kravchenko"}, {"hamzah", "hamza"}, {"tschaikowski", "chaikovski"}, {"wei", "ouei"}, {"wang", "uang"}, {"oleksij", "oleksiy"}, {"dmytryjenko", "dmytryyenko"}, {"charalampos", "charalambos"}} {
		if canonical(p[0]) != canonical(p[1]) {
			t.Errorf("canonical(%q) = %q, canonical(%q) = %q", p[0], canonical(p[0]), p[1], canonical(p[1]))
		}
	}
	for _, p := range [][2]string{{"yuan", "ivan"}, {"suen", "sven"}} {
		if canonical(p[0]) == canonical(p[1]) {
			t.Errorf("canonical(%q) = canonical(%q) = %q", p[0], p[1], canonical(p[0]))
		}
	}
	if osa("ca", "abc") != 3 || osa("abcd", "acbd") != 1 || osa("kitten", "sitting") != 3 {
		t.Error("osa distances wrong")
	}
}

func score(q, n string) float64 {
	var ts tokenScorer
	best := 0.0
	nn := normalize(n, false)
	for _, qv := range normalize(q, false).variants {
		for _, nv := range nn.variants {
			s, _ := ts.nameScore(qv, nv, nn.surnameFirst, false)
			best = max(best, s)
		}
	}
	return best
}

func TestScoringProperties(t *testing.T) {
	if a, b := score("Ivan Petrov", "Petrov Ivan"), score("Ivan Petrov", "Ivan Petrov"); a != 1 || b != 1 {
		t.Errorf("order: %v %v", a, b)
	}
	if s := score("Vladimir Vladimirovich Putin", "Putin Vladimir Vladimirovich"); s != 1 {
		t.Errorf("three-token order: %v", s)
	}
	if s := score("J. Smith", "John Smith"); s < 0.85 || s >= 1 {
		t.Errorf("initial: %v", s)
	}
	if s := score("K. Smith", "John Smith"); s >= 0.8 {
		t.Errorf("wrong initial: %v", s)
	}
	if s := score("John Smith", "John Michael Smith"); s < 0.88 || s >= 0.95 {
		t.Errorf("middle name missing: %v", s)
	}
	// Customers leave out the patronymics lists give, wherever the list puts
	// it (KADYROV, Ramzan Akhmatovich): almost a full match, still below one.
	for _, listed := range []string{"Ivan Sergeyevich Petrov", "Petrov Ivan Sergeyevich"} {
		if s := score("Ivan Petrov", listed); s < 0.95 || s >= 1 {
			t.Errorf("patronymic missing from %q: %v", listed, s)
		}
	}
	// A surname with a patronymic's ending is still a surname.
	if s := score("Mikhail", "Myasnikovich Mikhail Vladimirovich"); s >= 0.8 {
		t.Errorf("given name alone vs surname-first name: %v", s)
	}
	if s := score("Roman Abramovich", "Abramovich Roman Arkadyevich"); s < 0.95 {
		t.Errorf("patronymic after a -vich surname: %v", s)
	}
	// A joined article needs a word of its own behind it.
	if s := score("Elisa Khan", "Isa Khan"); s >= 0.8 {
		t.Errorf("Elisa vs Isa: %v", s)
	}
	// A surname is not a patronymic: leaving it out costs more.
	if a, b := score("Ramzan Akhmatovich", "Kadyrov Ramzan Akhmatovich"), score("Ramzan Kadyrov", "Kadyrov Ramzan Akhmatovich"); a >= 0.8 || a >= b {
		t.Errorf("surname missing %v, patronymic missing %v", a, b)
	}
	for _, typo := range []string{"Ivan Petrof", "Ivan Betrov", "Ivan Ptrov", "Ivan Pettrov", "Ivan Pterov", "Yvan Petrov"} {
		if s := score(typo, "Ivan Petrov"); s < 0.8 || s >= 1 {
			t.Errorf("typo %q: %v", typo, s)
		}
	}
	if s := score("Ivan Ivanov", "Ivan Petrov"); s >= 0.8 {
		t.Errorf("different surname: %v", s)
	}
	if s := score("Mohammed Ali", "Ali Hassan"); s >= 0.5 {
		t.Errorf("one shared word: %v", s)
	}
	if s := score("Muhammad al-Tikriti", "محمد التكريتي"); s < 0.8 {
		t.Errorf("Arabic script: %v", s)
	}
	if s := score("Sergey Ivanov", "Сергей Иванов"); s != 1 {
		t.Errorf("Cyrillic: %v", s)
	}
	// Given and family name in place: the names between them cost little
	// — but not in a name written surname first, whose first word is no
	// given name.
	for _, c := range []struct{ q, n string }{
		{"Ali al-Tikriti", "Ali Hassan al-Majid al-Tikriti"},
		{"Talal Naji", "Talal Rashid Naji"},
	} {
		if s := score(c.q, c.n); s < 0.9 {
			t.Errorf("chain %q in %q: %v", c.q, c.n, s)
		}
	}
	if s := score("William Greco", "GRECO-CHEVALIER, Matthew William"); s >= 0.88 {
		t.Errorf("middle name and surname of a surname-first name: %v", s)
	}
	// One name written as one word or several.
	for _, c := range []struct{ q, n string }{
		{"Wali Jan", "Walijan"}, {"Ramzi Binalshibh", "Ramzi bin al-Shibh"}, {"Mohammad Siddiq Mal", "Mohammad Siddiqmal"},
	} {
		if s := score(c.q, c.n); s < 0.88 {
			t.Errorf("written together: %q vs %q: %v", c.q, c.n, s)
		}
	}
	// Each word from Arabic script under both readings of its letters:
	// ظ as dh or z, and a dental lists spell another way (Kathim).
	if s := score("رشيد طعان كاظم", "Rashid Taan Kathim"); s < 0.88 {
		t.Errorf("كاظم as Kathim: %v", s)
	}
	if s := score("عبد الحق وثيق", "Abdul Haq Wasiq"); s < 0.88 {
		t.Errorf("ث as s and ق as q in one word: %v", s)
	}
}

// TestSlipsAndTitles: what the list's vocabulary decides about a word one
// letter off a listed one, and mistyped titles and articles.
func TestSlipsAndTitles(t *testing.T) {
	ix := Build([]watchlist.Entity{
		listed("tahir", "Salem Tahir"),
		listed("said", "Shaykh SAI'ID"),
		listed("kuwaiti", "Said al-Kuwaiti"),
		listed("lingfei", "Li Lingfei"),
		listed("c1", "Chen Yingjie"), listed("c2", "Wu Dongying"), listed("c3", "Zhou Yinghua"), listed("c4", "Li Hongdong"), listed("c5", "Ma Yinglong"), listed("c6", "Zhou Fangdong"),
		listed("gao", "Gao Ningdong"),
		listed("fakhoury", "Ebrahim bin Abdul Aziz Fakhoury"), listed("nasrallah", "Abdul Rahman Ahmad Nasrallah"),
	}, Options{})
	alerts := func(q, id string) bool {
		h := find(ix.Search(Query{Name: q}, 10), id)
		return h != nil && h.Score >= 0.88
	}
	for _, c := range []struct{ q, id string }{
		{"Salem Tahor", "tahir"},       // hor$ no listed word has: a slip
		{"Shjykh Sai'id", "said"},      // a mistyped title is left out
		{"Said Rl-Kuwaiti", "kuwaiti"}, // a mistyped article
		// A slip in Abdul still joins its name (abd+aziz), written apart or together.
		{"Ebrahim bin Abduh Aziz Fakhoury", "fakhoury"},
		{"Abadul Rahman Ahmad Nasrallah", "nasrallah"},
		{"Adulrahman Ahmad Nasrallah", "nasrallah"},
	} {
		if !alerts(c.q, c.id) {
			t.Errorf("%q should alert on %s: %v", c.q, c.id, ix.Search(Query{Name: c.q}, 3))
		}
	}
	// Yingdong is no listed word here, but every letter sequence of it
	// is common on the list: it may be a name of its own, and scores below
	// a slip one letter off the same word (Ningdonq).
	name, slip := find(ix.Search(Query{Name: "Gao Yingdong"}, 10), "gao"), find(ix.Search(Query{Name: "Gao Ningdonq"}, 10), "gao")
	if name == nil || slip == nil || name.Score >= slip.Score || strings.Contains(strings.Join(name.Explanation, " "), "(a slip)") {
		t.Errorf("Yingdong %v, Ningdonq %v: want Yingdong found, below Ningdonq, and no slip", name, slip)
	}
	if !ix.vocab.plausible("yingdong") || ix.vocab.plausible("tahor") {
		t.Errorf("plausible: yingdong %v (want true), tahor %v (want false)", ix.vocab.plausible("yingdong"), ix.vocab.plausible("tahor"))
	}
	// Names of their own that begin like a mistyped Abd stay themselves.
	for w, want := range map[string]string{"abduh": "abdul", "adulrahman": "abdulrahman", "adalberto": "", "aballero": "", "adelina": "", "abul": "", "abdulaziz": "", "abdali": "", "ahdal": ""} {
		if got, _ := abdSlip(w); got != want {
			t.Errorf("abdSlip(%q) = %q, want %q", w, got, want)
		}
	}
	if h := find(ix.Search(Query{Name: "Salem Tahor"}, 1), "tahir"); h == nil || !strings.Contains(strings.Join(h.Explanation, " "), "(a slip)") {
		t.Errorf("the explanation names the slip: %v", h)
	}
}

func testIndex(opts Options) *Index {
	return Build([]watchlist.Entity{
		{ID: "p1", Schema: "Person", Names: []watchlist.Name{{Full: "Ivan Sergeyevich Petrov", Kind: watchlist.NamePrimary}, {Full: "Иван Петров", Kind: watchlist.NameAlias}},
			BirthDates: []string{"1970-05-17"}, Nationalities: []string{"ru"}},
		{ID: "p2", Schema: "Person", Names: []watchlist.Name{{Full: "Ivan Petrov", Kind: watchlist.NamePrimary}}, BirthDates: []string{"1985"}},
		{ID: "o1", Schema: "Company", Names: []watchlist.Name{{Full: "Petrov Ivan LLC", Kind: watchlist.NamePrimary}}},
		{ID: "w1", Schema: "Person", Names: []watchlist.Name{{Full: "Dmitri Kozlov", Kind: watchlist.NamePrimary}, {Full: "The Bear", Kind: watchlist.NameWeak}}},
	}, opts)
}

func find(hits []Hit, id string) *Hit {
	for i := range hits {
		if hits[i].EntityID == id {
			return &hits[i]
		}
	}
	return nil
}

func TestEvidence(t *testing.T) {
	ix := testIndex(Options{})
	const name = "Ivan S. Petrov" // not a perfect match, so bonuses show
	base := find(ix.Search(Query{Name: name}, 10), "p1")
	if base == nil || base.Score != base.NameScore {
		t.Fatalf("no evidence: %+v", base)
	}
	check := func(q Query, cmpf func(d float64) bool, expl string) {
		t.Helper()
		h := find(ix.Search(q, 10), "p1")
		if h == nil {
			t.Fatalf("%+v: p1 not found", q)
		}
		if !cmpf(h.Score - base.Score) {
			t.Errorf("%+v: score %.3f vs %.3f", q, h.Score, base.Score)
		}
		if !slices.ContainsFunc(h.Explanation, func(s string) bool { return strings.Contains(s, expl) }) {
			t.Errorf("%+v: explanation %q lacks %q", q, h.Explanation, expl)
		}
	}
	up := func(d float64) bool { return d > 0 }
	down := func(d float64) bool { return d < 0 }
	check(Query{Name: name, BirthDate: "1970-05-17"}, up, "matches exactly +0.05")
	check(Query{Name: name, BirthDate: "1970-17-05"}, func(float64) bool { return true }, "not understood")
	check(Query{Name: name, BirthDate: "1970"}, up, "consistent with listed 1970-05-17 +0.03")
	check(Query{Name: name, BirthDate: "1980-01-02"}, down, "differs from listed 1970-05-17 −0.05")
	check(Query{Name: name, Nationality: "ru"}, up, "nationality ru matches +0.03")
	check(Query{Name: name, Nationality: "ua"}, down, "nationality ua differs (listed ru) −0.05")
	// Day and month swapped: a smaller bonus than an exact match.
	ix2 := Build([]watchlist.Entity{{ID: "x", Schema: "Person", Names: []watchlist.Name{{Full: "Anna Berg"}}, BirthDates: []string{"1980-03-07"}}}, Options{})
	ex := ix2.Search(Query{Name: "Anna K. Berg", BirthDate: "1980-03-07"}, 1)[0]
	sw := ix2.Search(Query{Name: "Anna K. Berg", BirthDate: "1980-07-03"}, 1)[0]
	if !(ex.Score > sw.Score && sw.Score > ex.NameScore) || !strings.Contains(strings.Join(sw.Explanation, "|"), "swapped") {
		t.Errorf("swap: exact %.3f swapped %.3f %q", ex.Score, sw.Score, sw.Explanation)
	}
	// Name explanation.
	h := find(ix.Search(Query{Name: "Иван Петров"}, 10), "p1")
	if h == nil || !strings.HasPrefix(h.Explanation[0], "name: alias 'Иван Петров' (Cyrillic and query Cyrillic transliterated) 1.00") {
		t.Errorf("explanation: %+v", h)
	}
}

func TestHardConflict(t *testing.T) {
	soft, hard := testIndex(Options{MinScore: 0.5}), testIndex(Options{MinScore: 0.5, HardConflict: true})
	for _, q := range []Query{{Name: "Ivan Petrov", BirthDate: "1960-01-01"}, {Name: "Ivan Petrov", Nationality: "ua"}} {
		if find(soft.Search(q, 10), "p1") == nil {
			t.Errorf("%+v: soft index dropped p1", q)
		}
		if find(hard.Search(q, 10), "p1") != nil {
			t.Errorf("%+v: hard index kept p1", q)
		}
		q.HardConflict = true
		if find(soft.Search(q, 10), "p1") != nil {
			t.Errorf("%+v: a hard-conflict query kept p1", q)
		}
	}
	// Within the tolerance, or a partial query date: kept.
	for _, q := range []Query{{Name: "Ivan Petrov", BirthDate: "1971-01-01"}, {Name: "Ivan Petrov", BirthDate: "1960"}} {
		if find(hard.Search(q, 10), "p1") == nil {
			t.Errorf("%+v: hard index dropped p1", q)
		}
	}
}

func TestSchemaFilter(t *testing.T) {
	ix := testIndex(Options{})
	if find(ix.Search(Query{Name: "Petrov Ivan"}, 10), "o1") != nil {
		t.Error("person query matched a company")
	}
	if find(ix.Search(Query{Name: "Petrov Ivan LLC", Schema: "Organization"}, 10), "o1") == nil {
		t.Error("organisation query missed the company")
	}
	if find(ix.Search(Query{Name: "Petrov Ivan", Schema: "Organization"}, 10), "p2") != nil {
		t.Error("organisation query matched a person")
	}
	if find(ix.Search(Query{Name: "Petrov Ivan", Schema: "Thing"}, 10), "o1") == nil {
		t.Error("Thing query should match anything")
	}
}

func TestWeakAlias(t *testing.T) {
	ix := testIndex(Options{})
	h := find(ix.Search(Query{Name: "The Bear"}, 10), "w1")
	if h == nil || h.NameScore >= 1 || !strings.Contains(strings.Join(h.Explanation, "|"), "weak alias") {
		t.Errorf("weak alias: %+v", h)
	}
}

func TestSearchSortedAndLimited(t *testing.T) {
	ix := Build(screeneval.GenerateList(2000, 3).Entities, Options{MinScore: 0.5})
	hits := ix.Search(Query{Name: "Mohammed"}, 5)
	if len(hits) != 5 {
		t.Fatalf("got %d hits", len(hits))
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Error("not sorted")
		}
	}
	if ix.Search(Query{Name: ""}, 5) != nil || ix.Search(Query{Name: "x"}, 0) != nil {
		t.Error("empty query or zero limit should give nothing")
	}
	st := ix.Stats()
	if st.Entities != 2000 || st.Names < 2000 || st.Keys == 0 || st.MemoryBytes == 0 {
		t.Errorf("stats: %+v", st)
	}
}

// Names that score alike come in an order that says something: those
// holding more of the query's words as it wrote them, then the shorter —
// not the order of their ids. The order is the same whatever the limit.
func TestTiesOrdered(t *testing.T) {
	var es []watchlist.Entity
	for id, n := range map[string]string{"a": "Abdel Basit Hag El-Hassan Hag MOHAMED", "b": "ABU ZAID MOHAMED, Abdel Raouf",
		"c": "WARSAME, Abdirahim Mohamed", "d": "JAFFER ALI, Abdul Rahman Mohamed", "e": "MOHAMED, Abdul Kader Ibrahim", "f": "AMINE, Mohamed Abdalla"} {
		es = append(es, watchlist.Entity{ID: id, Schema: "Person", Names: []watchlist.Name{{Full: n, Kind: watchlist.NamePrimary}}})
	}
	ix := Build(es, Options{})
	for limit, want := range map[int]string{10: "e d c f b a", 3: "e d c", 1: "e"} {
		var got []string
		for _, h := range ix.Search(Query{Name: "Abdul Mohamed"}, limit) {
			if h.Score != 0.86 {
				t.Errorf("%s scores %.3f: the names no longer tie", h.EntityID, h.Score)
			}
			got = append(got, h.EntityID)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("limit %d: %v, want %s", limit, got, want)
		}
	}
}

// TestBlockingRecall: blocking keeps at least 99.9 % of the brute-force
// hits (score ≥ MinScore, top 10).
func TestBlockingRecall(t *testing.T) {
	list, cases := generated(5000, 11, 1200)
	ix := Build(list, Options{})
	total, kept := 0, 0
	for _, c := range cases {
		bf := ix.BruteForce(c, 10)
		got := ix.Search(c, 10)
		for _, h := range bf {
			total++
			if find(got, h.EntityID) != nil {
				kept++
			} else if total-kept < 10 {
				t.Logf("lost %q -> %q %.3f", c.Name, h.MatchedName, h.Score)
			}
		}
	}
	rate := float64(kept) / float64(total)
	t.Logf("blocking recall %d/%d = %.5f", kept, total, rate)
	if rate < 0.999 {
		t.Errorf("blocking recall %.5f < 0.999", rate)
	}
}

func TestConcurrentSearch(t *testing.T) {
	list, cases := generated(3000, 5, 400)
	ix := Build(list, Options{})
	want := make([][]Hit, len(cases))
	for i, c := range cases {
		want[i] = ix.Search(c, 10)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(cases); i += 3 {
				got := ix.Search(cases[i], 10)
				if len(got) != len(want[i]) || len(got) > 0 && got[0].EntityID != want[i][0].EntityID {
					select {
					case errs <- cases[i].Name:
					default:
					}
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("concurrent result differs for %q", e)
	}
}

func TestOneEdit(t *testing.T) {
	for _, p := range [][2]string{{"tahir", "tahor"}, {"tahir", "tahr"}, {"tahir", "tahiir"}, {"tahir", "thair"}, {"ab", "ba"}, {"a", ""}, {"abc", "abd"}, {"abcd", "abce"}, {"shaykh", "shjykh"}, {"kitten", "sitten"}, {"x", "y"}, {"abc", "acb"}, {"abc", "bac"}} {
		for _, q := range [][2]string{p, {p[1], p[0]}} {
			if got, want := oneEdit(q[0], q[1]), osa(q[0], q[1]) == 1; got != want {
				t.Errorf("oneEdit(%q, %q) = %v, osa says %v", q[0], q[1], got, want)
			}
		}
	}
	for _, p := range [][2]string{{"tahir", "tahir"}, {"tahir", "tohor"}, {"abc", "cab"}, {"", ""}, {"abcd", "ab"}, {"kitten", "sitting"}, {"abcd", "badc"}} {
		if oneEdit(p[0], p[1]) || oneEdit(p[1], p[0]) {
			t.Errorf("oneEdit(%q, %q): want false", p[0], p[1])
		}
	}
}

// The work of one query is bounded by construction, whatever it says: it
// scores at most MaxCandidates names, fewer in proportion to its words,
// and a name longer than MaxQueryWords words is searched by its first
// MaxQueryWords (the costliest queries' times are benchmarks:
// BenchmarkWorstQuery).
func TestQueryWorkBounded(t *testing.T) {
	es := screeneval.GenerateList(5000, 9).Entities
	ix := Build(es, Options{})
	qs := append(WorstQueries(es, 30), Query{Name: strings.Repeat("Muhammad Ali Hassan ", 40)}, Query{Name: strings.Repeat("محمد عبد الله علي حسن ", 14)})
	sc := ix.scratch.Get().(*scratch)
	defer ix.scratch.Put(sc)
	bounded := 0 // queries that reached more names than the bound lets them score
	for _, q := range qs {
		qn := normalize(q.Name, false)
		words := 0
		for _, v := range qn.variants {
			words += min(len(v), MaxQueryWords)
		}
		sc.ts.reset(ix.vocab)
		sc.query++
		n := len(ix.candidates(qn.variants, 0, ix.allowed("Person", nil), sc))
		limit := min(MaxCandidates, candidateWords/words)
		if n > limit {
			t.Errorf("%.40s…: %d names scored, bound %d", q.Name, n, limit)
		}
		if n == limit {
			bounded++
		}
		if n == 0 {
			t.Errorf("%.40s…: no candidate at all", q.Name)
		}
	}
	if bounded < len(qs)/2 {
		t.Fatalf("only %d of %d costliest queries met the bound: the test proves little", bounded, len(qs))
	}
	for name, want := range map[string]int{
		"Jean-Luc O'Brien  al-Tikriti, عبدالحليم": 6,
		"ﷺ ﷺ":       8, // one character each, four words once decomposed
		"㈱㈱㈱":       3,
		"Zoë Ñúñez": 2,
	} {
		if got := QueryWords(name); got != want {
			t.Errorf("QueryWords(%q) = %d, want %d", name, got, want)
		}
	}
}

// When more names share a query's words than one query may score, those
// holding the words themselves are scored first: among short names every
// word is within one edit of the next (Tian, Jian, Tan, Lan), and a name
// repeating a word (Tian Tian) is not any name holding it once.
func TestSameWordsFirst(t *testing.T) {
	var es []watchlist.Entity
	add := func(name string) {
		es = append(es, watchlist.Entity{ID: fmt.Sprintf("e%04d", len(es)), Schema: "Person", Names: []watchlist.Name{{Full: name, Kind: watchlist.NamePrimary}}})
	}
	for i := range 2 * MaxCandidates {
		add([]string{"Tian Jian", "Tian Lian", "Tan Jan", "Tan Lin"}[i%4])
	}
	add("Tian Tian")
	add("Tan Lan")
	ix := Build(es, Options{})
	for q, want := range map[string]string{"Tian Tian": "Tian Tian", "Lan TAN": "Tan Lan"} {
		hits := ix.Search(Query{Name: q}, 10)
		if len(hits) == 0 || hits[0].MatchedName != want || hits[0].Score < 0.99 {
			t.Errorf("%q: first hit %v, want %q", q, hits[:min(len(hits), 1)], want)
		}
	}
}

// A kunya or Abd compound is reached by its second half when more names
// share the query's words than one query may score: thousands of kunyas
// start Abu, and "Abu Wadoud" is asked of ABDEL EL-WADOUD, Abu Mossaab by
// the half that names him, whatever its place in the index; a query of
// the halves alone ("Mossaab Wadoud") finds him too.
func TestCompoundReachedByHalf(t *testing.T) {
	var es []watchlist.Entity
	for i := range 2 * MaxCandidates {
		es = append(es, watchlist.Entity{ID: fmt.Sprintf("e%04d", i), Schema: "Person",
			Names: []watchlist.Name{{Full: "Abu " + fmt.Sprint(i) + " Tamimi", Kind: watchlist.NamePrimary}}})
	}
	for i, name := range []string{"Abu Dawud", "Abu Wadih", "Abu Walid", "Abu Wadi", "Abu Dawood"} {
		es = append(es, watchlist.Entity{ID: fmt.Sprintf("w%d", i), Schema: "Person", Names: []watchlist.Name{{Full: name + " Tamimi", Kind: watchlist.NamePrimary}}})
	}
	es = append(es, watchlist.Entity{ID: "wadoud", Schema: "Person", Names: []watchlist.Name{{Full: "ABDEL EL-WADOUD, Abu Mossaab", Kind: watchlist.NamePrimary}}})
	ix := Build(es, Options{})
	for _, q := range []string{"Abu Wadoud", "Mossaab Wadoud"} {
		if hits := ix.Search(Query{Name: q}, 10); !slices.ContainsFunc(hits, func(h Hit) bool { return h.EntityID == "wadoud" }) {
			t.Errorf("%s does not find ABDEL EL-WADOUD, Abu Mossaab: %+v", q, hits)
		}
	}
}
