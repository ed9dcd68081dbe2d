package verify

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kycflow/kycflow/engines/mrz"
	"github.com/kycflow/kycflow/engines/selfie"
)

// Every problem reads as a sentence in both languages: no missing text, no
// formatting leftovers.
func TestProblemTexts(t *testing.T) {
	fields := []mrz.Field{mrz.FieldDocumentCode, mrz.FieldIssuingState, mrz.FieldName, mrz.FieldDocumentNumber,
		mrz.FieldNationality, mrz.FieldBirthDate, mrz.FieldSex, mrz.FieldExpiryDate, mrz.FieldPersonalNumber,
		mrz.FieldOptionalData, mrz.FieldComposite, mrz.FieldLayout}
	kinds := []mrz.Kind{mrz.KindCheckDigit, mrz.KindInvalidCharacter, mrz.KindInvalidDate, mrz.KindInvalidValue}
	for _, tx := range []texts{english, dutch} {
		for _, f := range fields {
			if tx.fields[f] == "" {
				t.Errorf("%s: no name for %s", tx.Language, f)
			}
			for _, k := range kinds {
				s := tx.problem(mrz.CheckError{Field: f, Kind: k, Line: 2, Pos: 20})
				if s == "" || strings.Contains(s, "%!") || !strings.Contains(s, "20") {
					t.Errorf("%s %s %s: %q", tx.Language, f, k, s)
				}
			}
		}
		// Every step a challenge may ask, and every hint the live view
		// gives, is said.
		for _, st := range selfie.Steps {
			if tx.selfieSteps[string(st)] == "" {
				t.Errorf("%s: no instruction for %s", tx.Language, st)
			}
		}
		for _, h := range []selfie.Reason{selfie.NoFace, selfie.TooSmall, selfie.TooDark, selfie.OffCentre, selfie.SeveralFaces} {
			if tx.lookHints[string(h)] == "" {
				t.Errorf("%s: no hint for %s", tx.Language, h)
			}
		}
		// Every page text is set.
		v := reflect.ValueOf(tx)
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() && v.Field(i).String() == "" {
				t.Errorf("%s: %s is empty", tx.Language, f.Name)
			}
		}
	}
}
