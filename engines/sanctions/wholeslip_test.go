package sanctions

import (
	"slices"
	"strings"
	"testing"

	"github.com/kycflow/kycflow/engines/screeneval"
)

// A slip anywhere in a name is one letter in the name, wherever it falls
// among the words: in the article of a compound (Husam-rl-Din), in a short
// syllable (Sang-hf), in either order of a name listed surname first, into
// a long word that could be a name (Mhuammad, Abdoulae) but no list uses.
// A short name is shown, not alerted (RI Yong Mq, eight letters), as is a
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
	if hits := ofac.Search(Query{Name: "RI Yong Mq"}, 1); len(hits) != 1 || hits[0].MatchedName != "RI, Yong Mu" || hits[0].Score != 0.875 {
		t.Errorf("RI Yong Mq: %+v", hits)
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
	// People not listed whose family name one or two of the generated
	// list's people bear, one letter off another's.
	for _, q := range []string{"Dragan Pavlević", "Jovan Sobolović"} {
		if hits := beside.Search(Query{Name: q, Lists: []string{"generated"}}, 1); len(hits) > 0 && hits[0].Score >= 0.88 {
			t.Errorf("%s alerts: %+v", q, hits[0])
		}
	}
}
