package sanctions

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Evidence adjustments to the name score. Positive evidence is small (a
// name that does not match is not rescued by a birth date: at most
// maxBonus). Negative evidence is as small: a typed birth date or a list's
// may be wrong, and dismissing a listed name because of it is a reviewer's
// call, so a conflict alone does not clear a close name match — it ranks it
// lower and says why. Options.HardConflict drops conflicting hits, for
// verified data.
const (
	bonusDateExact      = 0.05 // same full birth date
	bonusDateSwapped    = 0.03 // same full date with day and month swapped
	bonusDateConsistent = 0.03 // partial dates agree ("1970" vs "1970-05-17")
	malusDateSameYear   = -0.01
	malusDateNearYear   = -0.02 // one year apart: within the tolerance
	malusDateConflict   = -0.05 // more than birthYearTolerance apart
	bonusNationality    = 0.03
	malusNationality    = -0.05
	malusWeakAlias      = -0.20 // weak aliases (nicknames, bare initials) alert only when matched almost exactly
	maxBonus            = bonusDateExact + bonusNationality

	// birthYearTolerance is how many years two birth dates may be apart and
	// still be the same person's (lists and documents disagree by a year).
	birthYearTolerance = 1
)

// date is a parsed ISO date; m and d are 0 when not given.
type date struct{ y, m, d int }

func (d date) full() bool { return d.d != 0 }

func (d date) String() string {
	switch {
	case d.d != 0:
		return fmt.Sprintf("%04d-%02d-%02d", d.y, d.m, d.d)
	case d.m != 0:
		return fmt.Sprintf("%04d-%02d", d.y, d.m)
	}
	return fmt.Sprintf("%04d", d.y)
}

// parseDate reads "1970", "1970-05" or "1970-05-17" (anything after the day
// is ignored). ok is false for anything else.
func parseDate(s string) (date, bool) {
	var d date
	parts := strings.SplitN(strings.TrimSpace(s), "-", 3)
	if len(parts[0]) != 4 {
		return d, false
	}
	var err error
	if d.y, err = strconv.Atoi(parts[0]); err != nil {
		return d, false
	}
	if len(parts) > 1 {
		if d.m, err = strconv.Atoi(parts[1]); err != nil || d.m < 1 || d.m > 12 {
			return date{}, false
		}
	}
	if len(parts) > 2 {
		day := parts[2]
		if len(day) > 2 {
			day = day[:2]
		}
		if d.d, err = strconv.Atoi(day); err != nil || d.d < 1 || d.d > 31 {
			return date{}, false
		}
	}
	return d, true
}

// evidence is the effect of birth date and nationality on one entity.
type evidence struct {
	delta    float64
	conflict bool // a hard conflict (see Options.HardConflict)
	lines    []string
}

// signed formats an adjustment with a real minus sign.
func signed(v float64) string {
	if v < 0 {
		return fmt.Sprintf("−%.2f", -v)
	}
	return fmt.Sprintf("+%.2f", v)
}

// birthEvidence compares the query's birth date with the entity's, keeping
// the most favourable of the entity's dates (a list gives a range of years
// as several dates).
func birthEvidence(qs string, listed []string, ev *evidence) {
	if qs == "" {
		return
	}
	q, ok := parseDate(qs)
	if !ok {
		ev.lines = append(ev.lines, fmt.Sprintf("birth date %q not understood: neutral", qs))
		return
	}
	best, bestLine, have := 0.0, "", false
	minYears := 1 << 30
	for _, ls := range listed {
		l, ok := parseDate(ls)
		if !ok {
			continue
		}
		yd := max(l.y-q.y, q.y-l.y)
		minYears = min(minYears, yd)
		var delta float64
		var line string
		switch {
		case q == l && q.full():
			delta, line = bonusDateExact, fmt.Sprintf("birth date %s matches exactly", q)
		case q.full() && l.full() && q.y == l.y && q.m == l.d && q.d == l.m:
			delta, line = bonusDateSwapped, fmt.Sprintf("birth date %s matches listed %s with day and month swapped", q, l)
		case yd == 0 && (q.m == 0 || l.m == 0 || q.m == l.m) && (q.d == 0 || l.d == 0 || q.d == l.d):
			delta, line = bonusDateConsistent, fmt.Sprintf("birth date %s consistent with listed %s", q, l)
		case yd == 0:
			delta, line = malusDateSameYear, fmt.Sprintf("birth date %s same year as listed %s, different day", q, l)
		case yd <= birthYearTolerance:
			delta, line = malusDateNearYear, fmt.Sprintf("birth date %s within %d year of listed %s", q, birthYearTolerance, l)
		default:
			delta, line = malusDateConflict, fmt.Sprintf("birth date %s differs from listed %s", q, l)
		}
		if !have || delta > best {
			best, bestLine, have = delta, line, true
		}
	}
	if !have {
		ev.lines = append(ev.lines, "birth date: none listed, neutral")
		return
	}
	ev.delta += best
	ev.lines = append(ev.lines, bestLine+" "+signed(best))
	if q.full() && minYears > birthYearTolerance {
		ev.conflict = true
	}
}

// nationalityEvidence compares the query's nationality with the entity's
// nationalities (citizenship included).
func nationalityEvidence(q string, listed []string, ev *evidence) {
	if q == "" {
		return
	}
	q = strings.ToLower(strings.TrimSpace(q))
	if len(listed) == 0 {
		ev.lines = append(ev.lines, "nationality: none listed, neutral")
		return
	}
	if slices.Contains(listed, q) {
		ev.delta += bonusNationality
		ev.lines = append(ev.lines, fmt.Sprintf("nationality %s matches %s", q, signed(bonusNationality)))
		return
	}
	ev.delta += malusNationality
	ev.conflict = true
	ev.lines = append(ev.lines, fmt.Sprintf("nationality %s differs (listed %s) %s", q, strings.Join(listed, ", "), signed(malusNationality)))
}

// schemaClass groups schemas into what a query may match: a person query
// matches Person, LegalEntity and Thing entities; an organisation query
// (Organization, Company, LegalEntity, PublicBody) matches those and Thing;
// a Vessel or Aircraft query its own schema and Thing; a Thing query
// matches anything.
func schemaMatches(query, entity string) bool {
	if query == "" {
		query = "Person"
	}
	if query == "Thing" || entity == "Thing" || entity == "" || query == entity {
		return true
	}
	switch query {
	case "Person":
		return entity == "LegalEntity"
	case "Organization", "Company", "LegalEntity", "PublicBody":
		return isOrgSchema(entity) || (query == "LegalEntity" && entity == "Person")
	}
	return false
}
