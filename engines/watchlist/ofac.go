package watchlist

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ofacAlt is one row of alt.csv.
type ofacAlt struct{ kind, name string }

// ParseOFAC reads OFAC's legacy SDN CSV files, which have no header row:
//
//	sdn.csv  ent_num, SDN_Name, SDN_Type, Program, Title, Call_Sign,
//	         Vess_type, Tonnage, GRT, Vess_flag, Vess_owner, Remarks
//	alt.csv  ent_num, alt_num, alt_type, alt_name, alt_remarks
//	add.csv  ent_num, add_num, address, city/state/postal, country, add_remarks
//
// "-0-" (often "-0- ") means empty. alt and add may be nil. They are
// indexed in memory first, keeping only names and country codes, because
// nothing guarantees their rows follow sdn.csv's order; sdn.csv itself is
// streamed. IDs are "ofac-<ent_num>".
//
// Types: "individual" is Person, "vessel" Vessel, "aircraft" Aircraft and
// "-0-" LegalEntity (OFAC does not tell companies from organisations).
// Program holds several programmes as "SDGT] [IFSR"; they are split.
//
// Names: an individual's SDN_Name "LAST, First Middle" is kept as written
// for the primary name, with its parts split out (First is the first given
// name, Middle the rest), and the natural order "First Middle LAST" is
// added as an alias right after it, so matchers that compare whole strings
// find it too. alt.csv "aka" and "nka" rows are aliases, "fka" previous
// names; individuals' alt names are split the same way. OFAC publishes
// weak a.k.a.s only inside Remarks ("a.k.a. 'BURTON'"), so those become
// weak aliases ("f.k.a. '...'" previous, "n.k.a. '...'" alias).
//
// Remarks also give "DOB ...", "alt. DOB ...", "nationality ...",
// "citizen ..." and "Gender ..."; addresses and the vessel flag give
// Countries. Country names are mapped with countryCode; unknown ones and
// unreadable dates are reported in Stats.Warnings.
//
// A row with too few fields or a non-numeric ent_num is a *ParseError
// naming the file and line; an error from fn stops the parse and is
// returned unchanged.
func ParseOFAC(sdn, alt, add io.Reader, fn func(Entity) error) (Stats, error) {
	var st Stats
	known := map[string]bool{}
	unknownCountry := func(name string) {
		if !known[name] && !noCountry(name) {
			known[name] = true
			st.warnf("ofac: unknown country name %q ignored", name)
		}
	}
	alts := map[string][]ofacAlt{}
	if alt != nil {
		err := ofacRows(alt, "alt", 4, func(row []string, line int) error {
			alts[row[0]] = append(alts[row[0]], ofacAlt{kind: ofacClean(row[2]), name: ofacClean(row[3])})
			return nil
		})
		if err != nil {
			return st, err
		}
	}
	addrs := map[string][]string{}
	if add != nil {
		err := ofacRows(add, "add", 5, func(row []string, line int) error {
			if c := ofacClean(row[4]); c != "" {
				if code, ok := countryCode(c); ok {
					addrs[row[0]] = appendUnique(addrs[row[0]], code)
				} else {
					unknownCountry(c)
				}
			}
			return nil
		})
		if err != nil {
			return st, err
		}
	}
	if sdn == nil {
		return st, &ParseError{Format: FormatOFAC, File: "sdn", Err: errors.New("no sdn.csv reader")}
	}
	err := ofacRows(sdn, "sdn", 12, func(row []string, line int) error {
		id := row[0]
		name := ofacClean(row[1])
		if name == "" {
			st.Dropped++
			st.warnf("ofac sdn line %d: ent_num %s has no name, skipped", line, id)
			return nil
		}
		var schema string
		switch t := strings.ToLower(ofacClean(row[2])); t {
		case "individual":
			schema = "Person"
		case "vessel":
			schema = "Vessel"
		case "aircraft":
			schema = "Aircraft"
		case "":
			schema = "LegalEntity"
		default:
			schema = "Thing"
			st.warnf("ofac sdn line %d: unknown SDN_Type %q", line, t)
		}
		person := schema == "Person"
		b := newBuilder("ofac-"+id, schema)
		b.addTopic("sanction")
		b.addListedName(name, NamePrimary, person)
		for _, a := range alts[id] {
			kind := NameAlias
			switch strings.ToLower(a.kind) {
			case "aka", "nka":
			case "fka":
				kind = NamePrevious
			default:
				st.warnf("ofac alt: ent_num %s: unknown alt_type %q treated as aka", id, a.kind)
			}
			b.addListedName(a.name, kind, person)
		}
		for _, p := range strings.Split(ofacClean(row[3]), "] [") {
			b.addProgram(strings.Trim(p, "[] "))
		}
		if flag := ofacClean(row[9]); flag != "" {
			if code, ok := countryCode(flag); ok {
				b.addCountry(code)
			} else {
				unknownCountry(flag)
			}
		}
		for _, c := range addrs[id] {
			b.addCountry(c)
		}
		ofacRemarks(b, &st, ofacClean(row[11]), unknownCountry)
		return emit(&st, b, fn)
	})
	return st, err
}

// ofacRows reads a headerless OFAC CSV and calls fn per record with a
// validated numeric ent_num in row[0]. OFAC ends its files with a lone
// SUB (0x1A) character, which is skipped; so are blank lines.
func ofacRows(r io.Reader, file string, minFields int, fn func(row []string, line int) error) error {
	br := bufio.NewReaderSize(r, 1<<16)
	skipBOM(br)
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true // legacy export: quotes are not always balanced
	cr.ReuseRecord = true
	for {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			line := 0
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.StartLine
			}
			return &ParseError{Format: FormatOFAC, File: file, Line: line, Err: err}
		}
		line, _ := cr.FieldPos(0)
		if len(row) == 1 && strings.Trim(row[0], "\x1a \t\r") == "" {
			continue
		}
		if len(row) < minFields {
			return &ParseError{Format: FormatOFAC, File: file, Line: line,
				Err: fmt.Errorf("%d fields, want %d", len(row), minFields)}
		}
		row[0] = strings.TrimSpace(row[0])
		if row[0] == "" || strings.Trim(row[0], "0123456789") != "" {
			return &ParseError{Format: FormatOFAC, File: file, Line: line,
				Err: fmt.Errorf("ent_num %q is not a number", row[0])}
		}
		if err := fn(row, line); err != nil {
			return err
		}
	}
}

// ofacClean trims a field and turns OFAC's "-0-" placeholder into "".
func ofacClean(s string) string {
	s = cleanSpace(s)
	if s == "-0-" {
		return ""
	}
	return s
}

// ofacRemarks pulls birth dates, nationalities, gender and weak aliases out
// of the free-text Remarks field, whose items are separated by ";".
func ofacRemarks(b *builder, st *Stats, remarks string, unknownCountry func(string)) {
	if remarks == "" {
		return
	}
	for _, item := range strings.Split(remarks, ";") {
		item = strings.TrimSpace(item)
		item = strings.TrimSpace(strings.TrimPrefix(item, "alt."))
		switch {
		case strings.HasPrefix(item, "DOB "):
			v := strings.TrimSuffix(strings.TrimSpace(item[4:]), ".")
			if dates, ok := parseOFACDate(v); ok {
				for _, d := range dates {
					b.addBirthDate(d)
				}
			} else {
				st.warnf("%s: unparseable DOB %q", b.e.ID, v)
			}
		case strings.HasPrefix(item, "nationality "), strings.HasPrefix(item, "citizen "):
			_, v, _ := strings.Cut(item, " ")
			v = strings.TrimSuffix(strings.TrimSpace(v), ".")
			if code, ok := countryCode(v); ok {
				b.addNationality(code)
			} else {
				unknownCountry(v)
			}
		case strings.HasPrefix(item, "Gender "):
			b.setGender(strings.TrimSuffix(item[7:], "."))
		case strings.HasPrefix(item, "a.k.a. "), strings.HasPrefix(item, "f.k.a. "), strings.HasPrefix(item, "n.k.a. "):
			kind := map[byte]string{'a': NameWeak, 'f': NamePrevious, 'n': NameAlias}[item[0]]
			v := strings.TrimSpace(item[7:])
			v = strings.TrimSuffix(v, ".")
			if i, j := strings.Index(v, "'"), strings.LastIndex(v, "'"); i >= 0 && j > i {
				v = v[i+1 : j]
			}
			b.addName(Name{Full: v, Kind: kind})
		}
	}
}
