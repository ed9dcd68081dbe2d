package mrz

import (
	"fmt"
	"time"
)

// Values of a Date part that is not a number.
const (
	Unknown   = -1 // the MRZ has "<<": ICAO's way of saying the part is unknown
	Malformed = -2 // neither two digits nor "<<", e.g. "1<" or "A3"
)

// Date is a date as the MRZ encodes it, YYMMDD: the century is not in the
// MRZ, and Doc 9303 part 3 lets unknown parts of a date of birth be filled
// with '<', so a Date may be partial. Resolve the century with BirthYear or
// ExpiryYear, then get a time.Time with Time.
type Date struct {
	Raw   string // the six characters as found (after OCR correction)
	Year  int    // two-digit year 0–99, Unknown or Malformed
	Month int    // 0–99 as found (1–12 if valid), Unknown or Malformed
	Day   int    // 0–99 as found (1–31 if valid), Unknown or Malformed
}

// parseDate decodes six MRZ characters; it never fails so that a bad date is
// reported by Validate together with everything else.
func parseDate(raw string) Date {
	d := Date{Raw: raw, Year: Malformed, Month: Malformed, Day: Malformed}
	rs := []rune(raw)
	if len(rs) != 6 {
		return d
	}
	d.Year, d.Month, d.Day = datePart(rs[0], rs[1]), datePart(rs[2], rs[3]), datePart(rs[4], rs[5])
	return d
}

func datePart(a, b rune) int {
	switch {
	case a == '<' && b == '<':
		return Unknown
	case isDigit(a) && isDigit(b):
		return int(a-'0')*10 + int(b-'0')
	}
	return Malformed
}

func isDigit(r rune) bool { return '0' <= r && r <= '9' }

// Valid reports whether every known part of d is a possible value. Unknown
// parts are valid; see Complete.
func (d Date) Valid() bool { return d.problem() == "" }

// Complete reports whether d is valid and has no unknown part.
func (d Date) Complete() bool {
	return d.Valid() && d.Year != Unknown && d.Month != Unknown && d.Day != Unknown
}

// problem explains why d is not Valid, or returns "".
func (d Date) problem() string {
	const notNumber = "is neither two digits nor \"<<\""
	switch {
	case d.Year == Malformed:
		return "year " + notNumber
	case d.Month == Malformed:
		return "month " + notNumber
	case d.Day == Malformed:
		return "day " + notNumber
	case d.Year < Unknown || d.Year > 99:
		return fmt.Sprintf("year %d out of range", d.Year)
	case d.Month != Unknown && (d.Month < 1 || d.Month > 12):
		return fmt.Sprintf("month %d out of range", d.Month)
	case d.Day != Unknown && (d.Day < 1 || d.Day > maxDay(d.Year, d.Month)):
		if d.Month == Unknown {
			return fmt.Sprintf("day %d out of range", d.Day)
		}
		return fmt.Sprintf("day %d out of range for month %d", d.Day, d.Month)
	}
	return ""
}

// maxDay is the last possible day of month in the two-digit year yy. A
// 29 February is allowed whenever one of the two centuries makes yy a leap
// year, which for yy%4 == 0 one always does (2000 was one).
func maxDay(yy, month int) int {
	switch month {
	case 2:
		if yy == Unknown || yy%4 == 0 {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// BirthYear resolves the century of a date of birth: the most recent year
// ending in d.Year that does not put the date after ref (typically now). ok
// is false when the year is unknown or malformed.
func (d Date) BirthYear(ref time.Time) (year int, ok bool) {
	if d.Year < 0 || d.Year > 99 {
		return 0, false
	}
	ry := ref.Year()
	year = ry - ry%100 + d.Year
	if year > ry || year == ry && d.afterDayOf(ref) {
		year -= 100
	}
	return year, true
}

// afterDayOf reports whether d's known month and day come after ref's within
// a year; unknown parts give d the benefit of the doubt.
func (d Date) afterDayOf(ref time.Time) bool {
	if d.Month < 1 || d.Month > 12 {
		return false
	}
	if m := int(ref.Month()); d.Month != m {
		return d.Month > m
	}
	return d.Day > ref.Day()
}

// MaxYearsAhead is how far ahead of today an expiry date may lie: no
// document is issued for longer (passports are for ten years at most, and
// Doc 9303 gives no more). A two-digit year further ahead is of the last
// century: "98" read in 2026 is 1998, not 2098.
const MaxYearsAhead = 20

// ExpiryYear resolves the century of an expiry date as Doc 9303 implies:
// the year ending in d.Year that lies no more than MaxYearsAhead years
// after ref (typically now), and less than a hundred years before it — so
// an expired document of the 1980s or 1990s is dated then, and expired.
// ok is false when the year is unknown or malformed.
func (d Date) ExpiryYear(ref time.Time) (year int, ok bool) {
	if d.Year < 0 || d.Year > 99 {
		return 0, false
	}
	ry := ref.Year()
	year = ry - ry%100 + d.Year
	switch {
	case year > ry+MaxYearsAhead:
		year -= 100
	case year <= ry+MaxYearsAhead-100:
		year += 100
	}
	return year, true
}

// Time returns d's month and day in the given four-digit year at 00:00 UTC.
// ok is false when the month or day is unknown or not a date in that year.
func (d Date) Time(year int) (t time.Time, ok bool) {
	if d.Month < 1 || d.Month > 12 || d.Day < 1 {
		return time.Time{}, false
	}
	t = time.Date(year, time.Month(d.Month), d.Day, 0, 0, 0, 0, time.UTC)
	if t.Day() != d.Day { // 31 April, 29 February 2100: normalised away
		return time.Time{}, false
	}
	return t, true
}

// Expired reports whether the document's expiry date is before now's
// calendar day (in now's location): a document is valid through its expiry
// date. An expiry date that is not a complete valid date counts as expired:
// the MRZ then does not show that the document is still valid.
func (d *Document) Expired(now time.Time) bool {
	if !d.ExpiryDate.Complete() {
		return true
	}
	year, _ := d.ExpiryDate.ExpiryYear(now)
	expiry, ok := d.ExpiryDate.Time(year)
	if !ok {
		return true
	}
	y, m, day := now.Date()
	return time.Date(y, m, day, 0, 0, 0, 0, time.UTC).After(expiry)
}
