package main

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kycflow/kycflow/engines/screeneval"
)

// watchlist tune screens the tuning cases of every seed asked, each once,
// and no held-out case: its counts are those of screeneval's own splits,
// and it lists as many misses as it counts.
func TestWatchlistTune(t *testing.T) {
	tn := tuning{un: "../../engines/watchlist/testdata/real/un-consolidated-2026-02.xml", ofac: "../../engines/watchlist/testdata/real/ofac-sdn-2021",
		from: 2, to: 3, kind: screeneval.ShortTypo, misses: true, threshold: 0.88}
	var out bytes.Buffer
	if err := tn.run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	un, err := screeneval.LoadUN(tn.un)
	if err != nil {
		t.Fatal(err)
	}
	ofac, err := screeneval.LoadOFAC(tn.ofac)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	for _, l := range []struct {
		name  string
		cases []screeneval.Case
	}{{"UN", append(screeneval.Cases(un, 2)[tn.kind], screeneval.Cases(un, 3)[tn.kind]...)},
		{"OFAC", append(screeneval.Cases(ofac, 2)[tn.kind], screeneval.Cases(ofac, 3)[tn.kind]...)}} {
		tuningCases := map[screeneval.Case]bool{}
		for _, c := range l.cases {
			if !c.HeldOut() {
				tuningCases[c] = true
			}
		}
		i := slices.IndexFunc(lines, func(s string) bool { return strings.HasPrefix(s, l.name+" ") })
		_, figures, _ := strings.Cut(lines[max(i, 0)], "tuning:")
		var cases, missed int
		var found, alerted float64
		if _, err := fmt.Sscanf(figures, "%d cases, found %f %%, alerted %f %%, %d not alerting", &cases, &found, &alerted, &missed); i < 0 || err != nil {
			t.Fatalf("%s: %v in\n%s", l.name, err, out.String())
		}
		listed := 0
		for _, m := range lines[i+1:] {
			if !strings.HasPrefix(m, "      ") {
				break
			}
			listed++
		}
		if cases != len(tuningCases) || cases == 0 || alerted > found || listed != missed {
			t.Errorf("%s: %d cases (want %d tuning), found %.1f, alerted %.1f, %d missed, %d listed", l.name, cases, len(tuningCases), found, alerted, missed, listed)
		}
	}
	if _, err := cli(t, "watchlist", "tune", "--kind", "typos"); err == nil {
		t.Error("watchlist tune took an unknown kind")
	}
}
