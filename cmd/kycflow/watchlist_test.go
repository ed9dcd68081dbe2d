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
// and it lists as many misses as it counts. With --held-out it counts the
// held-out cases instead and lists none of them.
func TestWatchlistTune(t *testing.T) {
	un, err := screeneval.LoadUN("../../engines/watchlist/testdata/real/un-consolidated-2026-02.xml")
	if err != nil {
		t.Fatal(err)
	}
	ofac, err := screeneval.LoadOFAC("../../engines/watchlist/testdata/real/ofac-sdn-2021")
	if err != nil {
		t.Fatal(err)
	}
	for _, heldOut := range []bool{false, true} {
		tn := tuning{un: "../../engines/watchlist/testdata/real/un-consolidated-2026-02.xml", ofac: "../../engines/watchlist/testdata/real/ofac-sdn-2021",
			from: 2, to: 3, kind: screeneval.ShortTypo, misses: !heldOut, heldOut: heldOut, threshold: 0.88}
		var out bytes.Buffer
		if err := tn.run(context.Background(), &out); err != nil {
			t.Fatal(err)
		}
		split := "tuning:"
		if heldOut {
			split = "held out:"
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		for _, l := range []struct {
			name  string
			cases []screeneval.Case
		}{{"UN", append(screeneval.Cases(un, 2)[tn.kind], screeneval.Cases(un, 3)[tn.kind]...)},
			{"OFAC", append(screeneval.Cases(ofac, 2)[tn.kind], screeneval.Cases(ofac, 3)[tn.kind]...)}} {
			want := map[screeneval.Case]bool{}
			for _, c := range l.cases {
				if c.HeldOut() == heldOut {
					want[c] = true
				}
			}
			i := slices.IndexFunc(lines, func(s string) bool { return strings.HasPrefix(s, l.name+" ") })
			_, figures, _ := strings.Cut(lines[max(i, 0)], split)
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
			if heldOut && listed != 0 || !heldOut && listed != missed || cases != len(want) || cases == 0 || alerted > found {
				t.Errorf("%s, %s %d cases (want %d), found %.1f, alerted %.1f, %d missed, %d listed", l.name, split, cases, len(want), found, alerted, missed, listed)
			}
		}
	}
	if _, err := cli(t, "watchlist", "tune", "--kind", "typos"); err == nil {
		t.Error("watchlist tune took an unknown kind")
	}
	if _, err := cli(t, "watchlist", "tune", "--held-out", "--misses"); err == nil {
		t.Error("watchlist tune listed held-out misses")
	}
}
