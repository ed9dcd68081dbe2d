// Package check holds what a check is, in one place: the check types and
// the subjects each applies to, how each runs (a link, a provider), the
// statuses and the moves allowed between them, the error codes a check
// records, and the ids a workflow carries. The api, the store, the
// workflows and the activities all speak these words; no other package
// spells them.
package check

import "slices"

// Type is a check type.
type Type string

// The check types.
const (
	CoC    Type = "coc"    // Dutch Chamber of Commerce (KvK) registration
	VAT    Type = "vat"    // EU VAT number (VIES)
	IBAN   Type = "iban"   // bank account number
	AML    Type = "aml"    // sanctions and PEP screening
	IDIN   Type = "idin"   // identification through the person's bank
	IDScan Type = "idscan" // identity document (machine-readable zone)
)

// Kind is the kind of record a check is about.
type Kind string

// The subject kinds.
const (
	Business Kind = "business"
	Customer Kind = "customer"
)

// Spec says what a check type applies to and how it runs.
type Spec struct {
	Type Type
	// Subjects are the record kinds the type applies to.
	Subjects []Kind
	// Link: the person acts on a verification link (mailed, or returned
	// to the tenant), and the check waits for them in awaiting_input.
	Link bool
	// Provider names the outside system in recorded errors ("" for checks
	// that run offline).
	Provider string
	// Requires is the record field (as the API names it) the check cannot
	// run without; "" when the record always has what it needs.
	Requires string
}

// The outside systems, as recorded errors (error.provider), provider limits
// and the last-answer details name them.
const (
	ProviderKvK  = "kvk"
	ProviderVIES = "vies"
	ProviderIDIN = "idin"
	// ProviderMail is the SMTP relay that carries link mails.
	ProviderMail = "mail"
)

// specs in the order the API lists a subject's checks.
var specs = []Spec{
	{Type: CoC, Subjects: []Kind{Business}, Provider: ProviderKvK},
	{Type: VAT, Subjects: []Kind{Business}, Provider: ProviderVIES, Requires: "vat_number"},
	{Type: IBAN, Subjects: []Kind{Business, Customer}, Requires: "iban_number"},
	{Type: AML, Subjects: []Kind{Customer}},
	{Type: IDIN, Subjects: []Kind{Customer}, Link: true, Provider: ProviderIDIN},
	{Type: IDScan, Subjects: []Kind{Customer}, Link: true},
}

// Types are the check types of a subject kind, in the API's order
// (business: coc, vat, iban; customer: iban, aml, idin, idscan).
func Types(k Kind) []Type {
	var out []Type
	for _, s := range specs {
		if slices.Contains(s.Subjects, k) {
			out = append(out, s.Type)
		}
	}
	return out
}

// AllTypes are every check type, in the API's order.
func AllTypes() []Type {
	out := make([]Type, len(specs))
	for i, s := range specs {
		out[i] = s.Type
	}
	return out
}

// Parse returns the type named s, if there is one.
func Parse(s string) (Type, bool) {
	for _, sp := range specs {
		if string(sp.Type) == s {
			return sp.Type, true
		}
	}
	return "", false
}

// Spec returns the type's spec (the zero Spec for an unknown type).
func (t Type) Spec() Spec {
	for _, s := range specs {
		if s.Type == t {
			return s
		}
	}
	return Spec{}
}

// UsesLink reports whether the type's person acts on a verification link.
func (t Type) UsesLink() bool { return t.Spec().Link }

// AppliesTo reports whether the type is a check of this subject kind.
func (t Type) AppliesTo(k Kind) bool { return slices.Contains(t.Spec().Subjects, k) }
