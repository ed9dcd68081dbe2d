package mrzeval

import (
	"os"
	"path/filepath"
	"testing"
)

// A folder of labelled images: readable only when a person reads it, its
// check digits hold and Doc 9303 allows it; profiles by kind; a label
// naming a file outside the folder is refused.
func TestReadLabelled(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.jpg", "b.png", "c.jpg"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("image bytes"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	labels := `{"file": "a.jpg", "format": "TD3", "mrz": ["P<UTO", "L898"], "check_digits_valid": true, "icao_conformant": true, "expect": "read", "kind": "scan"}

{"file": "b.png", "format": "TD1", "mrz": ["I<UTO"], "check_digits_valid": false, "expect": "read", "kind": "photo"}
{"file": "c.jpg", "format": "TD2", "mrz": ["I<XXX"], "check_digits_valid": true, "icao_conformant": false, "expect": "read"}
`
	if err := os.WriteFile(filepath.Join(dir, LabelsFile), []byte(labels), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := ReadLabelled(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].MRZ != "P<UTO\nL898" || !got[0].Readable || got[0].Profile != "real scan" || string(got[0].JPEG) != "image bytes" ||
		got[1].Readable || got[1].Why != "check digits fail" || got[1].Profile != "real photo" ||
		got[2].Readable || got[2].Why != "not Doc 9303" || got[2].Profile != "real unknown" {
		t.Fatalf("samples: %+v", got)
	}
	if err := os.WriteFile(filepath.Join(dir, LabelsFile), []byte(`{"file": "../x.jpg", "mrz": ["P"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadLabelled(dir); err == nil {
		t.Fatal("a label outside the folder was read")
	}
}
