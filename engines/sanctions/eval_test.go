package sanctions

import (
	"testing"
)

func TestEvalReport(t *testing.T) {
	list := GenerateList(5000, 1)
	ix := Build(list, Options{})
	cases := GenerateEval(list, 8000, 2)
	// 0.88 is the aml check's default alert threshold (docs/DECISIONS.md).
	rep := Evaluate(ix, cases, 0.88)
	t.Log("\n" + rep.String())
	min := map[string]float64{
		KindExact: 0.99, KindReordered: 0.99, KindDiacriticsDropped: 0.99, KindTypo: 0.98,
		KindCyrillic: 0.95, KindGreek: 0.95,
	}
	for k, want := range min {
		if got := rep.Kinds[k].Rate; got < want {
			t.Errorf("%s recall@10 = %.4f, want >= %.2f", k, got, want)
		}
	}
	if rep.FalseAlertRate > 0.02 {
		t.Errorf("false-alert rate = %.4f, want <= 0.02", rep.FalseAlertRate)
	}
}
