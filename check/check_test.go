package check

import (
	"slices"
	"testing"
)

func TestTypesPerSubject(t *testing.T) {
	if got := Types(Business); !slices.Equal(got, []Type{CoC, VAT, IBAN}) {
		t.Errorf("business: %v", got)
	}
	if got := Types(Customer); !slices.Equal(got, []Type{IBAN, AML, IDIN, IDScan}) {
		t.Errorf("customer: %v", got)
	}
	for _, typ := range append(Types(Business), Types(Customer)...) {
		if p, ok := Parse(string(typ)); !ok || p != typ || p.Spec().Type != typ {
			t.Errorf("%s does not parse back", typ)
		}
	}
	if _, ok := Parse("COC"); ok {
		t.Error("types are lower case")
	}
	if !IDScan.UsesLink() || !IDIN.UsesLink() || AML.UsesLink() || !IBAN.AppliesTo(Business) || CoC.AppliesTo(Customer) {
		t.Error("specs")
	}
}

// Every status but the final ones can move on, final ones cannot, and no
// move goes back to queued but a retry from failed.
func TestMoves(t *testing.T) {
	all := []Status{Queued, Running, AwaitingInput, Completed, Failed, Expired, Cancelled}
	for _, from := range all {
		for _, to := range all {
			ok := CanMove(from, to)
			if from.Final() && ok {
				t.Errorf("%s is final but may move to %s", from, to)
			}
			if to == Queued && ok && from != Failed {
				t.Errorf("%s → queued", from)
			}
			if from == to && ok {
				t.Errorf("%s → itself", from)
			}
		}
		if !from.Final() && !CanMove(from, Cancelled) {
			t.Errorf("%s cannot be cancelled", from)
		}
	}
}
