package mrz

import (
	"testing"
	"time"
)

func TestParseDate(t *testing.T) {
	const U, M = Unknown, Malformed
	tests := []struct {
		raw              string
		year, month, day int
		valid, complete  bool
	}{
		{"740812", 74, 8, 12, true, true},
		{"000229", 0, 2, 29, true, true},
		{"74<<<<", 74, U, U, true, false},
		{"7408<<", 74, 8, U, true, false},
		{"<<0812", U, 8, 12, true, false},
		{"<<<<<<", U, U, U, true, false},
		{"<<0230", U, 2, 30, false, false},
		{"<<<<31", U, U, 31, true, false},
		{"<<<<32", U, U, 32, false, false},
		{"7<0812", M, 8, 12, false, false},
		{"74O812", 74, M, 12, false, false}, // no OCR correction here: Parse does it
		{"74081", M, M, M, false, false},
		{"7408123", M, M, M, false, false},
		{"", M, M, M, false, false},
		{"741312", 74, 13, 12, false, false},
		{"750229", 75, 2, 29, false, false},
	}
	for _, tt := range tests {
		d := parseDate(tt.raw)
		want := Date{tt.raw, tt.year, tt.month, tt.day}
		if d != want || d.Valid() != tt.valid || d.Complete() != tt.complete {
			t.Errorf("parseDate(%q) = %+v valid %v complete %v; want %+v valid %v complete %v",
				tt.raw, d, d.Valid(), d.Complete(), want, tt.valid, tt.complete)
		}
	}
}

func TestBirthYear(t *testing.T) {
	ref := time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		raw  string
		ref  time.Time
		want int
		ok   bool
	}{
		{"740812", ref, 1974, true},
		{"250101", ref, 2025, true},
		{"260615", ref, 2026, true}, // born on the reference day
		{"260616", ref, 1926, true}, // the day after would be in the future
		{"260701", ref, 1926, true},
		{"270101", ref, 1927, true},
		{"000101", ref, 2000, true},
		{"991231", ref, 1999, true},
		{"26<<<<", ref, 2026, true}, // could be earlier this year
		{"2607<<", ref, 1926, true}, // July is after June
		{"2606<<", ref, 2026, true},
		{"<<0812", ref, 0, false},
		{"7<0812", ref, 0, false},
		{"991231", time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), 1999, true},
		{"000101", time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), 2000, true},
		{"000102", time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), 1900, true},
	}
	for _, tt := range tests {
		got, ok := parseDate(tt.raw).BirthYear(tt.ref)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseDate(%q).BirthYear(%v) = %d, %v; want %d, %v", tt.raw, tt.ref, got, ok, tt.want, tt.ok)
		}
	}
}

// An expiry's century is the one that puts it no more than 20 years ahead
// of today: real documents that expired in the 1980s and 1990s are dated
// then (and so are expired), none decades ahead; near a century's end the
// next century's early years are ahead, not a century back.
func TestExpiryYear(t *testing.T) {
	on := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	today := on("2026-12-02")
	tests := []struct {
		raw  string
		ref  time.Time
		want int
		ok   bool
	}{
		{"120415", today, 2012, true},
		{"000101", today, 2000, true},
		{"361231", today, 2036, true},
		{"460101", today, 2046, true}, // 20 years ahead: still this century
		{"470101", today, 1947, true}, // more than 20: the last century's
		{"980104", today, 1998, true}, // a Taiwanese passport that expired on 4 January 1998
		{"991231", today, 1999, true},
		{"890630", today, 1989, true},
		{"850101", today, 1985, true},
		{"050101", on("2090-06-01"), 2105, true}, // near the century's end: ahead, not back
		{"990101", on("2090-06-01"), 2099, true},
		{"100101", on("2090-06-01"), 2110, true},
		{"110101", on("2090-06-01"), 2011, true},
		{"<<0101", today, 0, false},
		{"X00101", today, 0, false},
	}
	for _, tt := range tests {
		got, ok := parseDate(tt.raw).ExpiryYear(tt.ref)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseDate(%q).ExpiryYear(%s) = %d, %v; want %d, %v", tt.raw, tt.ref.Format(time.DateOnly), got, ok, tt.want, tt.ok)
		}
	}
	// And so the document is expired, whatever its century.
	for _, raw := range []string{"980104", "891231", "850101", "251130"} {
		d := &Document{ExpiryDate: parseDate(raw)}
		if !d.Expired(today) {
			t.Errorf("a document expiring %s is not expired on %s", raw, today.Format(time.DateOnly))
		}
	}
	if d := (&Document{ExpiryDate: parseDate("261202")}); d.Expired(today) {
		t.Error("a document is not valid through its expiry date")
	}
}

func TestDateTime(t *testing.T) {
	tests := []struct {
		raw  string
		year int
		want time.Time // zero: not ok
	}{
		{"740812", 1974, time.Date(1974, 8, 12, 0, 0, 0, 0, time.UTC)},
		{"000229", 2000, time.Date(2000, 2, 29, 0, 0, 0, 0, time.UTC)},
		{"000229", 1900, time.Time{}}, // 1900 was no leap year
		{"740431", 1974, time.Time{}},
		{"7408<<", 1974, time.Time{}},
		{"74<<12", 1974, time.Time{}},
		{"741312", 1974, time.Time{}},
	}
	for _, tt := range tests {
		got, ok := parseDate(tt.raw).Time(tt.year)
		if !got.Equal(tt.want) || ok != !tt.want.IsZero() {
			t.Errorf("parseDate(%q).Time(%d) = %v, %v; want %v", tt.raw, tt.year, got, ok, tt.want)
		}
	}
}

func TestExpired(t *testing.T) {
	d, err := Parse("P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10")
	if err != nil {
		t.Fatal(err)
	}
	// Expiry date 120415: valid through 15 April 2012.
	kiritimati := time.FixedZone("UTC+14", 14*3600)
	tests := []struct {
		now  time.Time
		want bool
	}{
		{time.Date(2011, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{time.Date(2012, 4, 15, 0, 0, 0, 0, time.UTC), false},
		{time.Date(2012, 4, 15, 23, 59, 59, 0, time.UTC), false},
		{time.Date(2012, 4, 16, 0, 0, 0, 0, time.UTC), true},
		{time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC), true},
		// The calendar day is taken in now's location: 15 April 11:00 UTC
		// is already 16 April at UTC+14.
		{time.Date(2012, 4, 16, 1, 0, 0, 0, kiritimati), true},
		{time.Date(2012, 4, 15, 23, 0, 0, 0, kiritimati), false},
	}
	for _, tt := range tests {
		if got := d.Expired(tt.now); got != tt.want {
			t.Errorf("Expired(%v) = %v, want %v", tt.now, got, tt.want)
		}
	}
	// An expiry date that is not a complete valid date counts as expired.
	early := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, raw := range []string{"12<<<<", "121315", "120431", "<<<<<<", "1204X5"} {
		d.ExpiryDate = parseDate(raw)
		if !d.Expired(early) {
			t.Errorf("expiry %q: Expired = false, want true", raw)
		}
	}
}

// TestPartialBirthDateInMRZ: a date of birth with unknown day and month
// parses, validates (its check digit counts '<' as 0) and resolves its year.
func TestPartialBirthDateInMRZ(t *testing.T) {
	td3 := specimens[0].lines
	// "74<<<<": 7·7 + 4·3 = 61 → check digit 1.
	line2 := td3[1][:13] + "74<<<<" + "1" + td3[1][20:]
	lines := fixCheckDigits(t, []string{td3[0], line2}) // the composite
	if lines[1][19] != '1' {
		t.Fatalf("check digit of 74<<<< computed as %c, want 1", lines[1][19])
	}
	d, errs := validateLines(t, lines)
	if errs != nil {
		t.Fatalf("Validate = %v", errs)
	}
	if want := (Date{"74<<<<", 74, Unknown, Unknown}); d.BirthDate != want {
		t.Errorf("BirthDate = %+v, want %+v", d.BirthDate, want)
	}
	if y, ok := d.BirthDate.BirthYear(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)); y != 1974 || !ok {
		t.Errorf("BirthYear = %d, %v", y, ok)
	}
	if _, ok := d.BirthDate.Time(1974); ok {
		t.Error("Time of a partial date: ok")
	}
}
