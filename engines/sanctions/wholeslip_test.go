package sanctions

import (
	"slices"
	"strings"
	"testing"

	"github.com/kycflow/kycflow/engines/screeneval"
	"github.com/kycflow/kycflow/engines/watchlist"
)

// A slip anywhere in a name is one letter in the name, wherever it falls
// among the words: in the article of a compound (Husam-rl-Din), in a short
// syllable (Sang-hf), in either order of a name listed surname first, into
// a long word that could be a name (Mhuammad, Abdoulae) but no list uses.
// A short name is shown, not alerted (YUN HU-JIN, eight letters), as is a
// slip into a short word that reads as a name. A slip into a word listed
// names use is another name (Tzanidis beside Tzanitis;
// Pavlević, one or two people's name, beside Pavlović) — names of the
// listed name's own list: another list loaded beside does not make a slip
// another name (Hadmi, Ala'-ai-Din).
func TestWholeNameSlip(t *testing.T) {
	ofac := Build(realOFAC(t), Options{})
	for q, id := range map[string]string{"KIM Sang-hf": "ofac-22991", "BASAL Abd-rl-Rahman": "ofac-22050", "JALAL Husam-rl-Din": "ofac-22018",
		"AL-SHAYKH Mhuammad": "ofac-22061", "MISKINE Abdoulae": "ofac-16725"} {
		hits := ofac.Search(Query{Name: q}, 1)
		if len(hits) != 1 || hits[0].EntityID != id || hits[0].Score < 0.88 ||
			!strings.Contains(strings.Join(hits[0].Explanation, " "), "the whole name one letter off the listed name (one in ") {
			t.Errorf("%s: %+v", q, hits)
		}
	}
	// A slip into a short word that reads as a name no list has may be
	// another name: shown, not alerted (word by word it scores 0.50).
	if hits := ofac.Search(Query{Name: "AL-ALU Adnan"}, 1); len(hits) != 1 || hits[0].MatchedName != "AL-ALI, Adnan" || hits[0].Score != slipOrName ||
		!strings.Contains(strings.Join(hits[0].Explanation, " "), "so it may be another name") {
		t.Errorf("AL-ALU Adnan: %+v", hits)
	}
	alertsOn(t, map[string]string{
		"j": "JALAL, Husam-al-Din", "t": "Theodora TZANITIS", "t1": "Eleni TZANIDIS", "t2": "Maria TZANIDIS", "t3": "Sofia TZANIDIS",
	}, map[string]string{"Husam-rl-Din Jalal": "j", "Theodora Tzanidis": ""})

	beside := Build(slices.Concat(onList(screeneval.LatinOnly(realUN(t)), "un"), onList(realOFAC(t), "ofac"),
		onList(screeneval.GenerateList(20000, 3).Entities, "generated")), Options{})
	for q, id := range map[string]string{"MIZBAN KHADR HADMI": "un-IQi.023", "JUKHDAR 'Ala'-ai-Din": "ofac-22152"} {
		if hits := beside.Search(Query{Name: q, Lists: []string{"un", "ofac"}}, 1); len(hits) != 1 || hits[0].EntityID != id || hits[0].Score < 0.88 {
			t.Errorf("%s, the generated list beside: %+v", q, hits)
		}
	}
	if hits := beside.Search(Query{Name: "YUN HU-JIN", Lists: []string{"un"}}, 1); len(hits) != 1 || hits[0].MatchedName != "YUN HO-JIN" || hits[0].Score != 0.875 {
		t.Errorf("YUN HU-JIN: %+v", hits)
	}
	// People not listed whose family name one or two of the generated
	// list's people bear, one letter off another's.
	for _, q := range []string{"Dragan Pavlević", "Jovan Sobolović"} {
		if hits := beside.Search(Query{Name: q, Lists: []string{"generated"}}, 1); len(hits) > 0 && hits[0].Score >= 0.88 {
			t.Errorf("%s alerts: %+v", q, hits[0])
		}
	}
}

// A slip that makes a syllable of a Korean name no Korean syllable is a
// slip for certain, and alerts however short the name; one into another
// Korean syllable (Chol → Cho) or a Chinese one (Ro → Fo) may be another
// name, as may a word the list uses.
func TestKoreanSlip(t *testing.T) {
	un := Build(screeneval.LatinOnly(realUN(t)), Options{})
	for q, id := range map[string]string{"RI JP-SON": "un-KPi.002", "HAN YM-RO": "un-KPi.005", "YUN HN-JIN": "un-KPi.001"} {
		hits := un.Search(Query{Name: q}, 1)
		if len(hits) != 1 || hits[0].EntityID != id || hits[0].Score < 0.88 ||
			!strings.Contains(strings.Join(hits[0].Explanation, " "), "none a Korean name has") {
			t.Errorf("%s: %+v", q, hits)
		}
	}
	for _, q := range []string{"KIM CHO SAM", "HAN YU-FO"} {
		if hits := un.Search(Query{Name: q}, 1); len(hits) > 0 && hits[0].Score >= 0.88 {
			t.Errorf("%s alerts: %+v", q, hits[0])
		}
	}
	v := newVocabulary()
	for _, c := range []struct {
		q, n string
		want bool
	}{{"WANG Chrn", "WANG Chen", true}, {"Chen-Wxng", "WANG, Chen", true}, {"WANG Zhen", "WANG Chen", false},
		{"ALI JPN", "ALI JIN", false}, {"Jp Son", "Je Son Kim Ali", false}, {"RI JP SON", "RI JE-SON", true},
		{"RI JES-SON", "RI JE-SON", true}, {"RI KWANG", "RI KANG", false}} {
		if koreanSlip(c.q, c.n, v) != c.want {
			t.Errorf("%s as a Korean slip of %s: %v", c.q, c.n, !c.want)
		}
	}
	if ix := Build([]watchlist.Entity{listed("r", "RI JE-SON"), listed("a", "Ahmed JES")}, Options{}); koreanSlip("RI JES-SON", "RI JE-SON", ix.vocab) {
		t.Error("RI JES-SON read as a Korean slip where the list uses Jes")
	}
}
