package mrzread

import (
	"strings"
	"testing"

	"github.com/kycflow/kycflow/engines/docgen"
	"github.com/kycflow/kycflow/engines/mrz"
)

// A passport's printed page is read beside its MRZ, whichever way the
// photo holds it: printed as the MRZ says, it agrees; a surname or a date
// of birth printed otherwise differs; a card's MRZ side, which prints no
// name, is not compared.
func TestVisualZone(t *testing.T) {
	base := docgen.Camera{Megapixels: 2, Scale: 0.8, Light: 1, Noise: 3, Blur: 0.4, JPEGQuality: 88, Background: 3, Rotation: 2}
	for _, c := range []struct {
		name     string
		rotation float64
		tamper   func(*docgen.Identity)
		want     VisualZone
	}{
		{"as printed", 2, nil, VisualZone{Agrees, Agrees}},
		{"upside down", 181, nil, VisualZone{Agrees, Agrees}},
		{"another surname", 2, func(id *docgen.Identity) {
			id.Tampered, id.PrintedSurname = docgen.TamperedSurname, "VAN DER WOUDE"
		}, VisualZone{Differs, Agrees}},
		{"born years later", -3, func(id *docgen.Identity) {
			id.Tampered, id.PrintedBirth = docgen.TamperedBirth, id.Birth.AddDate(-6, 2, 0)
		}, VisualZone{Agrees, Differs}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cam := base
			cam.Rotation = c.rotation
			_, id := photo(t, 11, mrz.TD3, cam)
			if c.tamper != nil {
				c.tamper(&id)
			}
			b, err := docgen.Snapshot(id, 12, cam, 11)
			if err != nil {
				t.Fatal(err)
			}
			res := read(t, Reader{}, b)
			if res.Outcome != Read || res.MRZ != id.MRZ {
				t.Fatalf("read %s %s: %q", res.Outcome, res.Reason, res.MRZ)
			}
			if res.Zone == nil || *res.Zone != c.want {
				t.Fatalf("zone %+v, want %+v", res.Zone, c.want)
			}
		})
	}
	b, id := photo(t, 12, mrz.TD1, base)
	if res := read(t, Reader{}, b); res.Outcome != Read || res.MRZ != id.MRZ || res.Zone != nil {
		t.Fatalf("card: %s %+v", res.Outcome, res.Zone)
	}
}

// What OCR does to a page — drops letters, misreads a digit, loses a line
// to a reflection — is never called tampering.
func TestCompareZone(t *testing.T) {
	text, err := mrz.Compose(mrz.Fields{Format: mrz.TD3, DocumentCode: "P", IssuingState: "NLD", Surname: "JANSEN", GivenNames: "YOUSSEF DAAN",
		DocumentNumber: "XK1210IW1", Nationality: "NLD", BirthDate: "600306", Sex: "M", ExpiryDate: "330527"})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := mrz.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	// A page as Tesseract returns it: a line per field, labels in small
	// letters above values in capitals, 9 pixels a millimetre.
	line := func(y float64, conf float64, text string) ocrLine {
		l := ocrLine{text: strings.ReplaceAll(text, " ", ""), conf: conf, left: 380, top: y, bottom: y + 20}
		for _, w := range strings.Fields(text) {
			l.words = append(l.words, ocrWord{w, conf})
		}
		return l
	}
	page := func(surname, given, birth, issue, expiry string) []ocrLine {
		ls := []ocrLine{line(65, 90, "Document no."), line(84, 60, "XK1210IW1"), line(125, 50, "Surname / Nom")}
		for _, l := range []struct {
			y    float64
			text string
		}{{144, surname}, {203, given}, {321, birth}, {387, issue}, {387, expiry}} {
			if l.text != "" {
				ls = append(ls, line(l.y, 96, l.text))
			}
		}
		ls = append(ls, line(184, 80, "Given names / Prénoms"))
		ls[len(ls)-1], ls[len(ls)-2] = ls[len(ls)-2], ls[len(ls)-1] // not in page order
		return ls
	}
	for _, c := range []struct {
		name  string
		lines []ocrLine
		want  VisualZone
	}{
		{"as printed", page("JANSEN", "YOUSSEF DAAN", "06 MAR 1960", "28 MAY 2023", "27 MAY 2033"), VisualZone{Agrees, Agrees}},
		{"a Dutch page", page("Jansen", "Youssef Daan", "06 MAA/MAR 1960", "28.05.2023", "27 05 2033"), VisualZone{Agrees, Agrees}},
		{"another surname", page("DE VRIES", "YOUSSEF DAAN", "06 MAR 1960", "28 MAY 2023", "27 MAY 2033"), VisualZone{Differs, Agrees}},
		{"another given name", page("JANSEN", "MAXIMILIAN", "06 MAR 1960", "28 MAY 2023", "27 MAY 2033"), VisualZone{Differs, Agrees}},
		{"another birth date", page("JANSEN", "YOUSSEF DAAN", "06 MAR 1966", "28 MAY 2023", "27 MAY 2033"), VisualZone{Agrees, Differs}},
		{"letters dropped by OCR", page("JAN", "YOUSSEF DAAN", "06 MAR 1960", "28 MAY 2023", "27 MAY 2033"), VisualZone{NotRead, Agrees}},
		{"a name lost to glare", page("", "YOUSSEF DAAN", "06 MAR 1960", "28 MAY 2023", "27 MAY 2033"), VisualZone{NotRead, Agrees}},
		{"a day misread", page("JANSEN", "YOUSSEF DAAN", "66 MAR 1960", "28 MAY 2023", "27 MAY 2033"), VisualZone{Agrees, NotRead}},
		{"an issue year misread", page("JANSEN", "YOUSSEF DAAN", "", "28 MAY 2623", "27 MAY 2033"), VisualZone{Agrees, NotRead}},
		{"no expiry read", page("DE VRIES", "YOUSSEF DAAN", "06 MAR 1966", "28 MAY 2023", ""), VisualZone{NotRead, NotRead}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := compareZone(c.lines, doc); got != c.want {
				t.Fatalf("%+v, want %+v", got, c.want)
			}
		})
	}
	// One digit off, the birth date differs only when surely read.
	unsure := page("JANSEN", "YOUSSEF DAAN", "06 MAR 1961", "28 MAY 2023", "27 MAY 2033")
	for i := range unsure {
		if strings.HasSuffix(unsure[i].text, "1961") {
			unsure[i].conf = 90
		}
	}
	if got := compareZone(unsure, doc); got.BirthDate != NotRead {
		t.Fatalf("one digit off at 90: %+v", got)
	}
}
