package watchlist

import (
	"bufio"
	"encoding/csv"
	"errors"
	"io"
	"strconv"
	"strings"
)

// euSchema maps the EU subject type to Entity.Schema. The CSV carries the
// letter in Entity_SubjectType and the word in
// Entity_SubjectType_ClassificationCode; the XML has them the other way
// round (code="person" classificationCode="P"), so both spellings are
// accepted wherever they appear. "enterprise" covers companies, groups and
// agencies alike, hence Organization.
func euSchema(values ...string) (string, bool) {
	for _, v := range values {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "p", "person":
			return "Person", true
		case "e", "enterprise":
			return "Organization", true
		}
	}
	return "Thing", false
}

// euName is one nameAlias of the EU list, from a CSV row or an XML element.
type euName struct {
	whole, first, middle, last, gender string
	weak                               bool
}

// euBirth is one birthdate of the EU list.
type euBirth struct {
	date, day, month, year, from, to, circa string
}

// addEUName adds a name; every strong name is offered as primary so the
// first one listed becomes the primary name (the EU marks none).
func addEUName(b *builder, n euName) {
	kind := NamePrimary
	if n.weak {
		kind = NameWeak
	}
	b.addName(Name{Full: n.whole, Kind: kind, First: n.first, Middle: n.middle, Last: n.last})
	b.setGender(n.gender)
}

// addEUBirth normalises one EU birth date: a year range expands to its
// years, a circa date is kept as its year, otherwise the whole date wins
// over the separate parts.
func addEUBirth(b *builder, st *Stats, id string, d euBirth) {
	if d.from != "" || d.to != "" {
		from, err1 := strconv.Atoi(strings.TrimSpace(d.from))
		to, err2 := strconv.Atoi(strings.TrimSpace(d.to))
		if years, ok := expandYears(from, to); err1 == nil && err2 == nil && ok {
			for _, y := range years {
				b.addBirthDate(y)
			}
			return
		}
		st.warnf("eu %s: bad birth year range %q-%q", id, d.from, d.to)
	}
	date, ok := normISODate(d.date)
	if !ok {
		date, ok = dateFromParts(d.year, d.month, d.day)
	}
	if !ok {
		if strings.TrimSpace(d.date+d.year) != "" {
			st.warnf("eu %s: unparseable birth date %q (year %q)", id, d.date, d.year)
		}
		return
	}
	if parseBool(d.circa) {
		date = date[:4]
	}
	b.addBirthDate(date)
}

func addEUCode(st *Stats, id, code string, add func(string)) {
	if strings.TrimSpace(code) == "" {
		return
	}
	if c, ok := normCode(code); ok {
		add(c)
	} else if strings.TrimSpace(code) != "00" { // "00" is the EU's "unknown"
		st.warnf("eu %s: country code %q ignored", id, code)
	}
}

// euCSVColumns are the columns ParseEUFSF reads; the export has more than a
// hundred, looked up by name so reordering or additions do not matter.
var euCSVColumns = []string{
	"Entity_LogicalId", "Entity_SubjectType", "Entity_SubjectType_ClassificationCode",
	"Entity_Regulation_Programme",
	"NameAlias_WholeName", "NameAlias_FirstName", "NameAlias_MiddleName", "NameAlias_LastName",
	"NameAlias_Gender",
	"BirthDate_BirthDate", "BirthDate_Day", "BirthDate_Month", "BirthDate_Year",
	"BirthDate_YearRangeFrom", "BirthDate_YearRangeTo", "BirthDate_Circa",
	"Citizenship_CountryIso2Code", "Address_CountryIso2Code",
}

// ParseEUFSF reads the EU consolidated financial sanctions list in its CSV
// form (csvFullSanctionsList_1_1): ';'-separated, one header row, then one
// row per combination of an entity's names, addresses, birth dates,
// identifications and citizenships. Rows are grouped by Entity_LogicalId
// into one Entity with ID "eu-<logicalId>".
//
// The export writes an entity's rows consecutively, so a group is emitted
// as soon as the id changes and memory stays at one entity. Should an id
// reappear after its group was emitted, its later rows are emitted as a
// second Entity with the same ID and a warning is recorded; callers that
// cannot trust the ordering collect by ID and use Entity.Merge. This keeps
// the parser streaming instead of holding the whole list to guard against
// an ordering the export does not use.
//
// The CSV has no strong/weak flag (the XML has), so every name is an alias
// and the first one is primary. A UTF-8 BOM and quoted fields are
// accepted. A row whose field count differs from the header, or a header
// without Entity_LogicalId, is a *ParseError with the line number.
func ParseEUFSF(r io.Reader, fn func(Entity) error) (Stats, error) {
	var st Stats
	br := bufio.NewReaderSize(r, 1<<16)
	skipBOM(br)
	cr := csv.NewReader(br)
	cr.Comma = ';'
	cr.LazyQuotes = true // free-text remarks carry stray quotes
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = errors.New("empty file, no header row")
		}
		return st, &ParseError{Format: FormatEUFSF, Line: 1, Err: err}
	}
	index := map[string]int{}
	for i, h := range header {
		index[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
	}
	if _, ok := index["Entity_LogicalId"]; !ok {
		return st, &ParseError{Format: FormatEUFSF, Line: 1, Err: errors.New("header has no Entity_LogicalId column")}
	}
	col := make(map[string]int, len(euCSVColumns))
	for _, c := range euCSVColumns {
		if i, ok := index[c]; ok {
			col[c] = i
		}
	}

	var (
		cur     *builder
		curID   string
		emitted = map[string]bool{}
	)
	flush := func() error {
		if cur == nil {
			return nil
		}
		b := cur
		cur = nil
		emitted[curID] = true
		return emit(&st, b, fn)
	}
	for {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			line := 0
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.StartLine
			}
			return st, &ParseError{Format: FormatEUFSF, Line: line, Err: err}
		}
		line, _ := cr.FieldPos(0)
		get := func(name string) string {
			if i, ok := col[name]; ok && i < len(row) {
				return strings.TrimSpace(row[i])
			}
			return ""
		}
		id := get("Entity_LogicalId")
		if id == "" {
			st.Dropped++
			st.warnf("eu csv line %d: row without Entity_LogicalId skipped", line)
			continue
		}
		if cur == nil || id != curID {
			if err := flush(); err != nil {
				return st, err
			}
			if emitted[id] {
				st.warnf("eu csv line %d: rows of eu-%s are not consecutive; emitted in parts", line, id)
			}
			schema, ok := euSchema(get("Entity_SubjectType"), get("Entity_SubjectType_ClassificationCode"))
			if !ok {
				st.warnf("eu-%s: unknown subject type %q", id, get("Entity_SubjectType"))
			}
			cur, curID = newBuilder("eu-"+id, schema), id
			cur.addTopic("sanction")
		}
		addEUName(cur, euName{
			whole: get("NameAlias_WholeName"), first: get("NameAlias_FirstName"),
			middle: get("NameAlias_MiddleName"), last: get("NameAlias_LastName"),
			gender: get("NameAlias_Gender"),
		})
		addEUBirth(cur, &st, cur.e.ID, euBirth{
			date: get("BirthDate_BirthDate"), day: get("BirthDate_Day"), month: get("BirthDate_Month"),
			year: get("BirthDate_Year"), from: get("BirthDate_YearRangeFrom"),
			to: get("BirthDate_YearRangeTo"), circa: get("BirthDate_Circa"),
		})
		addEUCode(&st, cur.e.ID, get("Citizenship_CountryIso2Code"), cur.addNationality)
		addEUCode(&st, cur.e.ID, get("Address_CountryIso2Code"), cur.addCountry)
		cur.addProgram(get("Entity_Regulation_Programme"))
	}
	if err := flush(); err != nil {
		return st, err
	}
	return st, nil
}
