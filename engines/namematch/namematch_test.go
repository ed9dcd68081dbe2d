package namematch

import (
	"math"
	"slices"
	"testing"
)

func TestJaroWinklerKnownValues(t *testing.T) {
	// Values from Winkler's papers and common references.
	cases := []struct {
		a, b string
		want float64
	}{
		{"MARTHA", "MARHTA", 0.9611},
		{"DWAYNE", "DUANE", 0.8400},
		{"DIXON", "DICKSONX", 0.8133},
		{"JELLYFISH", "SMELLYFISH", 0.8963},
		{"Дмитрий", "Дмитри", 0.9714}, // over runes, not bytes
		{"", "", 1},
		{"abc", "", 0},
		{"same", "same", 1},
	}
	for _, c := range cases {
		if got := JaroWinkler(c.a, c.b); math.Abs(got-c.want) > 0.0001 {
			t.Errorf("JaroWinkler(%q, %q) = %.4f, want %.4f", c.a, c.b, got, c.want)
		}
	}
}

func TestTokens(t *testing.T) {
	cases := map[string][]string{
		"Acme B.V.":                       {"acme"},
		"ACME BV":                         {"acme"},
		"Café De Kroon V.O.F.":            {"cafe", "de", "kroon"},
		"Jansen & Zonen":                  {"jansen", "and", "zonen"},
		"Jansen en Zonen B.V.":            {"jansen", "and", "zonen"},
		"J. Jansen h.o.d.n. Bakkerij Zon": {"j", "jansen", "bakkerij", "zon"},
		"Müller GmbH & Co. KG":            {"muller"},
		"McDonald's Nederland B.V.":       {"mcdonalds", "nederland"},
		"ＡＣＭＥ":                            {"acme"},
	}
	for in, want := range cases {
		if got := Tokens(in); !slices.Equal(got, want) {
			t.Errorf("Tokens(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestScoreDecisions(t *testing.T) {
	match := [][2]string{
		{"Acme B.V.", "ACME BV"},
		{"Acme Trading BV", "Acme Tradng B.V."}, // a typo
		{"De Kroon Café", "Café De Kroon V.O.F."},
		{"Bakkerij Jansen", "Jansen Bakkerij"}, // word order
		{"Test BV Donald", "Test BV Donald"},
		{"Société Générale", "SOCIETE GENERALE SA"},
	}
	for _, p := range match {
		if s := Score(p[0], p[1]); s < Threshold {
			t.Errorf("%q ~ %q scored %.3f, want a match", p[0], p[1], s)
		}
	}
	differ := [][2]string{
		{"Acme B.V.", "Apex B.V."},
		{"Acme Holding B.V.", "Acme B.V."}, // a holding is another company
		{"Bakkerij Jansen", "Slagerij Jansen"},
		{"B.V.", "Acme B.V."}, // no identity words at all
		{"Philips", "Shell"},
	}
	for _, p := range differ {
		if s := Score(p[0], p[1]); s >= Threshold {
			t.Errorf("%q ~ %q scored %.3f, want no match", p[0], p[1], s)
		}
	}
}

func TestBest(t *testing.T) {
	name, score := Best("Kroon Horeca", "De Kroon Holding B.V.", "Kroon Horeca", "Café De Kroon")
	if name != "Kroon Horeca" || score != 1 {
		t.Fatalf("Best = %q %.3f", name, score)
	}
	if name, score := Best("x"); name != "" || score != 0 {
		t.Fatalf("no candidates: %q %v", name, score)
	}
}
