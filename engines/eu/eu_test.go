package eu

import "testing"

func TestStates(t *testing.T) {
	all := States()
	if len(all) != 27 {
		t.Fatalf("want 27 member states, got %d", len(all))
	}
	for i, s := range all {
		if i > 0 && all[i-1].Alpha3 >= s.Alpha3 {
			t.Errorf("not sorted at %s", s.Alpha3)
		}
		if got, ok := ByNumeric(s.Numeric); !ok || got.Alpha3 != s.Alpha3 {
			t.Errorf("ByNumeric(%d) = %v, %v", s.Numeric, got, ok)
		}
	}
	nl, ok := ByAlpha3("NLD")
	if !ok || nl.Numeric != 528 || nl.Alpha2 != "NL" {
		t.Fatalf("NLD = %+v, %v", nl, ok)
	}
	if gr, _ := ByAlpha3("GRC"); gr.VAT != "EL" {
		t.Fatalf("Greece VAT prefix = %q", gr.VAT)
	}
	for _, bad := range []string{"GBR", "nld", "NL", "CHE", ""} {
		if _, ok := ByAlpha3(bad); ok {
			t.Errorf("ByAlpha3(%q) accepted", bad)
		}
	}
}
