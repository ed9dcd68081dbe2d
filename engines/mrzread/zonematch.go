package mrzread

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"github.com/kycflow/kycflow/engines/mrz"
)

// zoneConf is the least confidence (0–100) at which a date Tesseract read
// on the page counts as printed there: below it a misread digit would
// pass for a tampered date.
const zoneConf = 80

// sureConf is the confidence at which a date one digit off the MRZ's is
// taken as printed so, not as a digit misread.
const sureConf = 95

// compareZone tells how the page's lines (OCR of the visual zone) agree
// with doc, the MRZ read from the same photo. Only what was read counts: a
// field is found when it is printed as the MRZ has it (allowing an OCR
// slip in a long name), and it differs only when the page proves legible
// — its expiry date and one other field (the document number, or the other
// field compared) found as the MRZ has them — and something else is surely printed in the field's place: for the date of
// birth, a date that is no date of issue or expiry; for the surname, a
// line of capitals right above the given names (Doc 9303 part 4 prints
// the surname first), and for the given names, right below the surname.
// Anything else is NotRead: a photo's glare or blur is never called
// tampering.
func compareZone(lines []ocrLine, doc *mrz.Document) VisualZone {
	page := make(zonePage, 0, len(lines))
	for _, l := range lines {
		page = append(page, zoneLineOf(l))
	}
	z := VisualZone{Name: NotRead, BirthDate: NotRead}
	given, _, _ := strings.Cut(doc.GivenNames, " ")
	s, g := findValue(page, doc.Surname, letters), -1
	if given != "" {
		g = findValue(page, given, letters)
	}
	if s >= 0 && (given == "" || g >= 0) {
		z.Name = Agrees
	}
	if dateFound(page, doc.BirthDate) {
		z.BirthDate = Agrees
	}
	// The page is legible when its expiry and one more field are found.
	number := findValue(page, doc.DocumentNumber, lookAlike) >= 0
	expiry := dateFound(page, doc.ExpiryDate)
	if expiry && (number || z.Name == Agrees) && z.BirthDate == NotRead && otherDate(page, doc) {
		z.BirthDate = Differs
	}
	switch {
	case z.Name == Agrees || !expiry || !(number || z.BirthDate == Agrees):
	case s < 0 && g >= 0 && page.valueNear(g, -1, doc.Surname):
		z.Name = Differs
	case s >= 0 && g < 0 && given != "" && page.valueNear(s, +1, given):
		z.Name = Differs
	}
	return z
}

// zoneLine is a line of the page: its words in capitals without accents,
// how sure Tesseract was of the least sure of them, where it is, and
// whether it prints a value (capitals: labels have small letters).
type zoneLine struct {
	words             []string
	conf              float64
	left, top, bottom float64
	capitals          bool
	dates             []printedDate // the dates it prints, read once
}

// zonePage is a page's lines.
type zonePage []zoneLine

// valueConf is the least confidence of a line of capitals taken to be a
// field's value where another was expected.
const valueConf = 85

// valueNear reports whether a surely read value of three letters or more,
// not a part of want (OCR drops letters: JAN for JANSEN), is printed in
// line i's column right above it (dir -1) or below (+1): within four of
// its heights, no other value between.
func (p zonePage) valueNear(i, dir int, want string) bool {
	at := p[i]
	h := at.bottom - at.top
	var best *zoneLine
	for j := range p {
		l := &p[j]
		gap := l.top - at.bottom
		if dir < 0 {
			gap = at.top - l.bottom
		}
		if j == i || !l.capitals || gap < 0 || gap > 4*h || math.Abs(l.left-at.left) > 3*zonePxPerMM {
			continue
		}
		if best == nil || (dir < 0 && l.bottom > best.bottom) || (dir > 0 && l.top < best.top) {
			best = l
		}
	}
	if best == nil || best.conf < valueConf {
		return false
	}
	got := letters(strings.Join(best.words, ""))
	want = letters(want)
	return len(got) >= 3 && !within(got, want) && !within(want, got)
}

// within reports whether a is in b but for an OCR slip a fifth of its
// length: the least edit distance of a to any run of b.
func within(a, b string) bool { return slices.Min(edits(a, b, true)) <= len(a)/5 }

var unaccent = transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)

func zoneLineOf(l ocrLine) zoneLine {
	z := zoneLine{conf: l.conf, left: l.left, top: l.top, bottom: l.bottom, capitals: true}
	for _, w := range l.words {
		z.capitals = z.capitals && strings.ToUpper(w.text) == w.text
		s, _, err := transform.String(unaccent, strings.ToUpper(w.text))
		if err != nil {
			s = strings.ToUpper(w.text)
		}
		z.words = append(z.words, s)
	}
	z.dates = z.printedDates()
	return z
}

// letters keeps a word's letters; lookAlike maps it to the characters OCR
// confuses least (0 for O, 1 for I, …), for document numbers.
func letters(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r
		}
		return -1
	}, s)
}

func lookAlike(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case '0' <= r && r <= '9':
		case 'A' <= r && r <= 'Z':
			if i := strings.IndexRune("OQDILZSBG", r); i >= 0 {
				return rune("001112586"[i])
			}
		default:
			return -1
		}
		return r
	}, s)
}

// findValue is the first line printing the words of value (as keep sees them)
// as consecutive words, within an OCR slip a fifth of its length (a long
// name may lose a letter to the print, a short one may not); -1 if none.
func findValue(page zonePage, value string, keep func(string) string) int {
	want := keep(value)
	if len(want) < 2 {
		return -1
	}
	n := len(strings.Fields(value))
	slips := len(want) / 5
	for k, l := range page {
		for i := range l.words {
			var got string
			for j := i; j < len(l.words) && j < i+n+1; j++ {
				got += keep(l.words[j])
				if len(got) > len(want)+slips {
					break
				}
				if levenshtein(got, want) <= slips {
					return k
				}
			}
		}
	}
	return -1
}

// levenshtein is the edit distance of two ASCII strings.
func levenshtein(a, b string) int { return edits(a, b, false)[len(b)] }

// edits is the last row of the edit-distance table of a against b: the
// distance of a to each prefix of b, or with anywhere to each run of b
// ending there (Sellers: a run may start anywhere, so row 0 is zeros).
func edits(a, b string, anywhere bool) []int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		if !anywhere {
			prev[j] = j
		}
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev
}

// printedDate is a date as a page prints it; year is four digits, or two
// when the page prints two.
type printedDate struct {
	year, month, day int
	conf             float64
}

// Months as data pages abbreviate them: English, French, Dutch, German,
// Spanish, Italian (their first three letters, accents dropped; JUIN and
// JUIL by four).
var monthNames = map[string]int{
	"JAN": 1, "ENE": 1, "GEN": 1, "FEB": 2, "FEV": 2, "MAR": 3, "MAA": 3, "MRZ": 3, "APR": 4, "AVR": 4, "ABR": 4,
	"MAY": 5, "MAI": 5, "MEI": 5, "MAG": 5, "JUN": 6, "GIU": 6, "JUL": 7, "LUG": 7, "AUG": 8, "AOU": 8, "AGO": 8,
	"SEP": 9, "SET": 9, "OCT": 10, "OKT": 10, "OTT": 10, "NOV": 11, "DEC": 12, "DEZ": 12, "DIC": 12,
	"JUIN": 6, "JUIL": 7,
}

var (
	// 22 FEB 1980, 15 MAA/MAR 1970, 3 DEC 85
	namedDate = regexp.MustCompile(`\b(\d{1,2}) ?([A-Z]{3,5})\.?(?: ?/ ?[A-Z]{3,5}\.?)? ?(\d{4}|\d{2})\b`)
	// 22.02.1980, 22/02/1980, 22-02-1980, 22 02 1980
	numericDate = regexp.MustCompile(`\b(\d{1,2}) ?[./ -] ?(\d{1,2}) ?[./ -] ?(\d{4})\b`)
)

// printedDates are the dates a line prints.
func (l zoneLine) printedDates() []printedDate {
	words := make([]string, len(l.words))
	for i, w := range l.words {
		words[i] = digitsOf(w)
	}
	s := strings.Join(words, " ")
	var out []printedDate
	for _, m := range namedDate.FindAllStringSubmatch(s, -1) {
		mon, ok := monthNames[m[2][:3]]
		if len(m[2]) >= 4 && (m[2][:4] == "JUIN" || m[2][:4] == "JUIL") {
			mon, ok = monthNames[m[2][:4]], true
		}
		if ok {
			out = append(out, l.date(m[3], mon, m[1]))
		}
	}
	for _, m := range numericDate.FindAllStringSubmatch(s, -1) {
		mon, _ := strconv.Atoi(m[2])
		out = append(out, l.date(m[3], mon, m[1]))
	}
	return out
}

func (l zoneLine) date(year string, month int, day string) printedDate {
	y, _ := strconv.Atoi(year)
	d, _ := strconv.Atoi(day)
	return printedDate{year: y, month: month, day: d, conf: l.conf}
}

// digitsOf reads a word that is mostly digits as digits (O for 0, I for 1,
// …: OCR's slips in numbers), and leaves other words as they are.
func digitsOf(w string) string {
	digits, slips := 0, 0
	for _, r := range w {
		switch {
		case '0' <= r && r <= '9':
			digits++
		case strings.ContainsRune("OIL", r):
			slips++
		}
	}
	if digits == 0 || slips == 0 || digits+slips < len(w) {
		return w
	}
	return strings.NewReplacer("O", "0", "I", "1", "L", "1").Replace(w)
}

// is reports whether p is the MRZ's date d (a four-digit year compared
// by its last two).
func (p printedDate) is(d mrz.Date) bool {
	return p.year%100 == d.Year && p.month == d.Month && p.day == d.Day
}

// near reports whether p is d but for one digit.
func (p printedDate) near(d mrz.Date) bool {
	a := fmt.Sprintf("%02d%02d%02d", p.year%100, p.month, p.day)
	return len(d.Raw) == 6 && levenshtein(a, d.Raw) <= 1
}

// dateFound reports whether the page prints d.
func dateFound(page zonePage, d mrz.Date) bool {
	if !d.Complete() {
		return false
	}
	for _, l := range page {
		for _, p := range l.dates {
			if p.is(d) {
				return true
			}
		}
	}
	return false
}

// otherDate reports whether the page prints, surely read, a date that
// could be a date of birth (since 1900, before any date of issue: ten
// years and two months before expiry) and is not the MRZ's.
func otherDate(page zonePage, doc *mrz.Document) bool {
	ey, ok := doc.ExpiryDate.ExpiryYear(time.Now())
	if !ok {
		return false
	}
	expiry, ok := doc.ExpiryDate.Time(ey)
	if !ok {
		return false
	}
	for _, l := range page {
		for _, p := range l.dates {
			if p.conf < zoneConf || p.is(doc.BirthDate) || p.is(doc.ExpiryDate) || p.month < 1 || p.month > 12 || p.day < 1 || p.day > 31 {
				continue
			}
			if p.conf < sureConf && (p.near(doc.BirthDate) || p.near(doc.ExpiryDate)) {
				continue // one misread digit
			}
			y := p.year
			if y < 100 { // a two-digit year: the century nearest the expiry's
				y += ey - ey%100
				if y > ey {
					y -= 100
				}
			}
			if y >= 1900 && time.Date(y, time.Month(p.month), p.day, 0, 0, 0, 0, time.UTC).Before(expiry.AddDate(-10, -2, 0)) {
				return true
			}
		}
	}
	return false
}
