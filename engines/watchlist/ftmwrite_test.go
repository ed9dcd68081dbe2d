package watchlist

import (
	"bytes"
	"reflect"
	"testing"
)

func TestFtMWriterRoundTrip(t *testing.T) {
	in := []Entity{
		{ID: "gen-1", Schema: "Person", Names: []Name{
			{Full: "Pavel Sergeyevich Volkov", Kind: NamePrimary, First: "Pavel", Middle: "Sergeyevich", Last: "Volkov"},
			{Full: "Павел Волков", Kind: NameAlias}, {Full: "The Fox", Kind: NameWeak}, {Full: "Pavel Wolf", Kind: NamePrevious},
		}, BirthDates: []string{"1970-05", "1971"}, Nationalities: []string{"ru"}, Gender: "male",
			Topics: []string{"sanction", "role.pep"}, Programs: []string{"RUSSIA-EO14024"}},
		{ID: "gen-2", Schema: "Company", Names: []Name{{Full: "Olympos Shipping & Co <SA>", Kind: NamePrimary}},
			Countries: []string{"gr"}, Topics: []string{"sanction"}},
	}
	var buf bytes.Buffer
	w := NewFtMWriter(&buf)
	for _, e := range in {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	var out []Entity
	st, err := ParseFtM(&buf, func(e Entity) error { out = append(out, e); return nil })
	if err != nil || st.Entities != len(in) {
		t.Fatalf("parse: %v, %+v", err, st)
	}
	if !reflect.DeepEqual(out, in) {
		t.Errorf("round trip:\n got %+v\nwant %+v", out, in)
	}
}
