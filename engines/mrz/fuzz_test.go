package mrz

import (
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzParse: Parse never panics; a Document it returns has its format's
// shape, validates without panicking, reports well-formed errors, and parses
// again from its own Lines to the same fields.
func FuzzParse(f *testing.F) {
	for _, s := range specimens {
		f.Add(strings.Join(s.lines, "\n"))
		f.Add(strings.Join(s.lines, ""))
		f.Add(strings.ToLower(strings.Join(s.lines, "\r\n")))
	}
	for _, s := range []string{
		"", "\n\n", " < ", "P<", "V",
		"I<UTOD23145890<<<<<<<<<<<<<<<<\n7408122F1204159UTO<<<<<<<<<<<6\nERIKSSON<<ANNA<MARIA<<<<<<<<<<",
		"I<UTOD23145890<7<<<<<<<<<<<<<<\n74O8I2ZF12O4I59UT0<<<<<<<<<<<G\nERIKSSON<<ANNA<MARIA<<<<<<<<<<",
		"I<UTOD231458907ABCDEFGHIJKLMNO\n7408122F1204159UTO<<<<<<<<<<<6\nERIKSSON<<ANNA<MARIA<<<<<<<<<<",
		"P<UTO«RIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10",
		"\xff\xfe" + strings.Repeat("<", 86),
		strings.Repeat("<", 90), strings.Repeat("V", 72), strings.Repeat("0", 88),
	} {
		f.Add(s)
	}
	ref := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		d, err := Parse(s)
		if err != nil {
			if d != nil {
				t.Fatalf("Parse(%q) returned a document and %v", s, err)
			}
			return
		}
		n, width, ok := d.Format.shape()
		if !ok || len(d.Lines) != n {
			t.Fatalf("Parse(%q): format %q with %d lines", s, d.Format, len(d.Lines))
		}
		for _, ln := range d.Lines {
			if utf8.RuneCountInString(ln) != width {
				t.Fatalf("Parse(%q): line %q is not %d characters", s, ln, width)
			}
		}
		for _, e := range d.Validate() {
			if e.Field == "" || e.Kind == "" || e.Line < 1 || e.Line > n || e.Pos < 1 || e.Pos > width || e.Error() == "" {
				t.Fatalf("Parse(%q).Validate(): malformed error %+v", s, e)
			}
			if e.Kind == KindCheckDigit && (e.Expected < '0' || e.Expected > '9' || e.Expected == e.Found) {
				t.Fatalf("Parse(%q).Validate(): bad check-digit error %+v", s, e)
			}
		}
		_ = d.Expired(ref)
		_, _ = d.BirthDate.BirthYear(ref)
		_, _ = d.ExpiryDate.ExpiryYear(ref)
		for _, c := range d.Corrections {
			_ = c.String()
		}

		again, err := Parse(strings.Join(d.Lines, "\n"))
		if err != nil {
			t.Fatalf("Parse(%q) gave lines %q that do not parse: %v", s, d.Lines, err)
		}
		if again.Corrections != nil {
			t.Fatalf("Parse(%q): corrected lines %q corrected again: %v", s, d.Lines, again.Corrections)
		}
		first := *d
		first.Corrections = nil
		if !reflect.DeepEqual(*again, first) {
			t.Fatalf("Parse(%q) = %+v, but its lines parse to %+v", s, first, *again)
		}
	})
}
