package watchlist

import (
	"encoding/xml"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// unValues is a repeated element holding <VALUE>s (NATIONALITY, TITLE).
type unValues struct {
	Values []string `xml:"VALUE"`
}

// unAddress is an INDIVIDUAL_ADDRESS or ENTITY_ADDRESS.
type unAddress struct {
	Country string `xml:"COUNTRY"`
}

// unAlias is an INDIVIDUAL_ALIAS or ENTITY_ALIAS.
type unAlias struct {
	Quality string `xml:"QUALITY"`
	Name    string `xml:"ALIAS_NAME"`
}

// ParseUNXML reads the UN Security Council consolidated list in its XML
// form, one <INDIVIDUAL> or <ENTITY> at a time, and calls fn for each with
// ID "un-<REFERENCE_NUMBER>" (e.g. "un-QDi.001"; the DATAID when a record
// has no reference).
//
// The primary name is FIRST_NAME to FOURTH_NAME in the list's order (given
// name first; Arabic names list the chain of given, father's and
// grandfather's names before the family name). NAME_ORIGINAL_SCRIPT
// (Arabic, Cyrillic, Chinese, ...) is an alias. Aliases of quality "Good"
// and "a.k.a." are aliases, "Low" weak aliases, "f.k.a." previous names.
// Birth dates: an EXACT or APPROXIMATELY date or year as given (an
// approximate date keeps its year), a BETWEEN range as its years.
// NATIONALITY gives Nationalities, the addresses' COUNTRY gives Countries,
// each mapped from the UN's country names to ISO codes ("Iran (Islamic
// Republic of)", "United Kingdom of Great Britain and Northern Ireland");
// placeholders ("na", "former Soviet Union") are left out silently, an
// unknown name once with a warning. UN_LIST_TYPE is the programme.
func ParseUNXML(r io.Reader, fn func(Entity) error) (Stats, error) {
	var st Stats
	warned := map[string]bool{}
	country := func(name string, add func(string)) {
		name = cleanSpace(name)
		if name == "" || noCountry(name) {
			return
		}
		if code, ok := countryCode(name); ok {
			add(code)
		} else if !warned[name] {
			warned[name] = true
			st.warnf("un: unknown country name %q ignored", name)
		}
	}
	err := xmlElements(r, FormatUNXML, []string{"INDIVIDUAL", "ENTITY"}, func(dec *xml.Decoder, se *xml.StartElement, line int) error {
		person := se.Name.Local == "INDIVIDUAL"
		var p unParty
		if err := dec.DecodeElement(&p, se); err != nil {
			return xmlError(FormatUNXML, err, line)
		}
		id := cleanSpace(p.Reference)
		if id == "" {
			id = cleanSpace(p.DataID)
		}
		if id == "" {
			st.Dropped++
			st.warnf("un xml line %d: %s without REFERENCE_NUMBER or DATAID skipped", line, se.Name.Local)
			return nil
		}
		schema := "Organization"
		if person {
			schema = "Person"
		}
		b := newBuilder("un-"+id, schema)
		b.addTopic("sanction")
		if lt := cleanSpace(p.ListType); lt != "" {
			b.addProgram("UN-" + lt)
		}
		parts := []string{cleanSpace(p.First), cleanSpace(p.Second), cleanSpace(p.Third), cleanSpace(p.Fourth)}
		b.addName(unName(parts, NamePrimary, person))
		if s := cleanSpace(p.OriginalScript); s != "" {
			b.addName(Name{Full: s, Kind: NameAlias})
		}
		for _, a := range append(p.IndividualAliases, p.EntityAliases...) {
			n := cleanSpace(a.Name)
			if n == "" {
				continue
			}
			kind := NameAlias
			switch strings.ToLower(cleanSpace(a.Quality)) {
			case "low":
				kind = NameWeak
			case "f.k.a.", "fka":
				kind = NamePrevious
			}
			if !person {
				b.addName(Name{Full: n, Kind: kind})
				continue
			}
			for _, n := range unAliasNames(n) {
				b.addListedName(n, kind, true)
			}
		}
		if person {
			b.setGender(normGender(p.Gender))
		}
		for _, d := range p.Births {
			addUNBirth(b, &st, d)
		}
		for _, n := range p.Nationalities {
			for _, v := range n.Values {
				country(v, b.addNationality)
			}
		}
		for _, a := range append(p.IndividualAddresses, p.EntityAddresses...) {
			country(a.Country, b.addCountry)
		}
		return emit(&st, b, fn)
	})
	return st, err
}

// unAliasNames is the names a person's ALIAS_NAME holds. The list writes
// several spellings in one ("Qasim Soleimani; Qasem Sulaimani"), letters
// items ("Mohammad Sabet b) M. Javad Kareemi Sabet"), puts the original
// script or more spellings in parentheses, and notes there or after a
// comma ("(birth name)", ", born 1 Jan. 1953 (Oman passport …)"). Each
// spelling is a name of its own; a note is part of none.
func unAliasNames(s string) []string {
	s = unItemLetter.ReplaceAllString(s, ";")
	var names []string
	var outside strings.Builder
	for {
		open := strings.IndexByte(s, '(')
		end := strings.IndexByte(s[max(open, 0):], ')')
		if open < 0 || end < 0 {
			outside.WriteString(s)
			break
		}
		inside := s[open+1 : open+end]
		outside.WriteString(s[:open] + " ")
		s = s[open+end+1:]
		if _, after, ok := strings.Cut(inside, ":"); ok {
			inside = after // "original script: Абу Мухаммад"
		}
		// Another script or a list of spellings is names; Latin words
		// alone are a note.
		if strings.Contains(inside, ";") || strings.IndexFunc(inside, func(r rune) bool { return unicode.IsLetter(r) && !unicode.Is(unicode.Latin, r) }) >= 0 {
			names = append(names, strings.Split(inside, ";")...)
		}
	}
	names = append(strings.Split(outside.String(), ";"), names...)
	out := names[:0]
	for _, n := range names {
		if before, after, ok := strings.Cut(n, ","); ok && strings.ContainsAny(after, "0123456789") {
			n = before // ", born in Kandahar on 01 Jan.1967"
		}
		if n = cleanSpace(strings.Trim(n, " ,()\"“”")); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// unItemLetter is a lettered item inside an alias: "b) ".
var unItemLetter = regexp.MustCompile(`(^|\s)[a-h]\)\s`)

// unParty is what ParseUNXML decodes of one record.
type unParty struct {
	DataID              string      `xml:"DATAID"`
	Reference           string      `xml:"REFERENCE_NUMBER"`
	ListType            string      `xml:"UN_LIST_TYPE"`
	First               string      `xml:"FIRST_NAME"`
	Second              string      `xml:"SECOND_NAME"`
	Third               string      `xml:"THIRD_NAME"`
	Fourth              string      `xml:"FOURTH_NAME"`
	OriginalScript      string      `xml:"NAME_ORIGINAL_SCRIPT"`
	Gender              string      `xml:"GENDER"`
	Nationalities       []unValues  `xml:"NATIONALITY"`
	IndividualAliases   []unAlias   `xml:"INDIVIDUAL_ALIAS"`
	EntityAliases       []unAlias   `xml:"ENTITY_ALIAS"`
	IndividualAddresses []unAddress `xml:"INDIVIDUAL_ADDRESS"`
	EntityAddresses     []unAddress `xml:"ENTITY_ADDRESS"`
	Births              []unBirth   `xml:"INDIVIDUAL_DATE_OF_BIRTH"`
}

// unBirth is an INDIVIDUAL_DATE_OF_BIRTH.
type unBirth struct {
	Type string `xml:"TYPE_OF_DATE"`
	Date string `xml:"DATE"`
	Year string `xml:"YEAR"`
	From string `xml:"FROM_YEAR"`
	To   string `xml:"TO_YEAR"`
}

// unName builds a name from the list's name parts, in order: the first is
// the given name, the last the family name, the rest between.
func unName(parts []string, kind string, person bool) Name {
	var ps []string
	for _, p := range parts {
		if p != "" {
			ps = append(ps, p)
		}
	}
	n := Name{Full: strings.Join(ps, " "), Kind: kind}
	if person && len(ps) > 1 {
		n.First, n.Last = ps[0], ps[len(ps)-1]
		n.Middle = strings.Join(ps[1:len(ps)-1], " ")
	}
	return n
}

func addUNBirth(b *builder, st *Stats, d unBirth) {
	typ := strings.ToUpper(cleanSpace(d.Type))
	if typ == "BETWEEN" {
		from, ferr := strconv.Atoi(cleanSpace(d.From))
		to, terr := strconv.Atoi(cleanSpace(d.To))
		years, ok := expandYears(from, to)
		if ferr != nil || terr != nil || !ok {
			st.warnf("%s: unusable birth year range %q-%q", b.e.ID, d.From, d.To)
			return
		}
		for _, y := range years {
			b.addBirthDate(y)
		}
		return
	}
	date := cleanSpace(d.Date)
	if date != "" && typ == "APPROXIMATELY" && len(date) >= 4 {
		date = date[:4] // an approximate day and month are noise
	}
	if date != "" {
		if iso, ok := normISODate(date); ok {
			b.addBirthDate(iso)
			return
		}
		st.warnf("%s: unparseable birth date %q", b.e.ID, date)
	}
	if y := cleanSpace(d.Year); y != "" {
		if iso, ok := dateFromParts(y, "", ""); ok {
			b.addBirthDate(iso)
		} else {
			st.warnf("%s: unparseable birth year %q", b.e.ID, y)
		}
	}
}
