package watchlist

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// maxYearRange bounds how many years a "1970 to 1972" style range expands
// to; anything wider is almost certainly a typo in the list and would flood
// a matcher with meaningless candidate years.
const maxYearRange = 20

// normISODate turns an ISO date, possibly partial ("1970", "1970-05",
// "1970-05-17") and possibly carrying a time ("1970-05-17T00:00:00"), into
// the partial form Entity.BirthDates uses. Impossible dates are rejected.
func normISODate(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "T "); i >= 0 {
		s = s[:i]
	}
	switch len(s) {
	case 4:
		if y, err := strconv.Atoi(s); err == nil && y > 0 {
			return s, true
		}
	case 7:
		if _, err := time.Parse("2006-01", s); err == nil {
			return s, true
		}
	case 10:
		if _, err := time.Parse("2006-01-02", s); err == nil {
			return s, true
		}
	}
	return "", false
}

// dateFromParts builds a partial date from separate year, month and day
// fields (the EU list gives both a whole date and its parts, and sometimes
// only the parts). A day without a month is dropped: "1970-??-17" has no
// partial ISO form.
func dateFromParts(year, month, day string) (string, bool) {
	y, err := strconv.Atoi(strings.TrimSpace(year))
	if err != nil || y <= 0 || y > 9999 {
		return "", false
	}
	out := fmt.Sprintf("%04d", y)
	m, err := strconv.Atoi(strings.TrimSpace(month))
	if err != nil || m < 1 || m > 12 {
		return out, true
	}
	out += fmt.Sprintf("-%02d", m)
	d, err := strconv.Atoi(strings.TrimSpace(day))
	if err != nil || d < 1 {
		return out, true
	}
	full := fmt.Sprintf("%s-%02d", out, d)
	if _, err := time.Parse("2006-01-02", full); err != nil {
		return out, true
	}
	return full, true
}

// expandYears lists every year from..to inclusive, as Entity.BirthDates
// wants ranges given as their years.
func expandYears(from, to int) ([]string, bool) {
	if from <= 0 || to < from || to-from >= maxYearRange {
		return nil, false
	}
	out := make([]string, 0, to-from+1)
	for y := from; y <= to; y++ {
		out = append(out, strconv.Itoa(y))
	}
	return out, true
}

var months = map[string]int{
	"jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3,
	"apr": 4, "april": 4, "may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7,
	"aug": 8, "august": 8, "sep": 9, "sept": 9, "september": 9, "oct": 10,
	"october": 10, "nov": 11, "november": 11, "dec": 12, "december": 12,
}

// parseOFACDate reads the date forms OFAC writes after "DOB" in Remarks:
// "17 May 1970" / "28 Jul 1963", "May 1970", "1970", "circa 1970" (kept as
// the year: the day and month of an approximate date are noise), and
// ranges "1970 to 1972" or "circa 1970-1972" (expanded to each year).
func parseOFACDate(s string) ([]string, bool) {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "."))
	circa := false
	if rest, ok := cutPrefixFold(s, "circa "); ok {
		s, circa = strings.TrimSpace(rest), true
	}
	if a, b, ok := strings.Cut(s, " to "); ok {
		return yearRange(a, b)
	}
	if a, b, ok := strings.Cut(s, "-"); ok && len(strings.TrimSpace(a)) == 4 && len(strings.TrimSpace(b)) == 4 {
		return yearRange(a, b)
	}
	d, ok := parseDayMonthYear(s)
	if !ok {
		return nil, false
	}
	if circa {
		d = d[:4]
	}
	return []string{d}, true
}

func yearRange(a, b string) ([]string, bool) {
	da, ok1 := parseDayMonthYear(strings.TrimSpace(a))
	db, ok2 := parseDayMonthYear(strings.TrimSpace(b))
	if !ok1 || !ok2 {
		return nil, false
	}
	ya, _ := strconv.Atoi(da[:4])
	yb, _ := strconv.Atoi(db[:4])
	return expandYears(ya, yb)
}

// parseDayMonthYear reads "17 May 1970", "May 1970" or "1970" (ISO forms
// are accepted too, some newer OFAC remarks use them).
func parseDayMonthYear(s string) (string, bool) {
	if d, ok := normISODate(s); ok {
		return d, true
	}
	f := strings.Fields(s)
	switch len(f) {
	case 2:
		m, ok := months[strings.ToLower(f[0])]
		if !ok {
			return "", false
		}
		return dateFromParts(f[1], strconv.Itoa(m), "")
	case 3:
		m, ok := months[strings.ToLower(f[1])]
		if !ok {
			return "", false
		}
		d, ok := dateFromParts(f[2], strconv.Itoa(m), f[0])
		if !ok || len(d) != 10 {
			return "", false
		}
		return d, true
	}
	return "", false
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// parseBool reads the flag spellings the EU exports use ("true", "1").
func parseBool(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes", "y", "t":
		return true
	}
	return false
}
