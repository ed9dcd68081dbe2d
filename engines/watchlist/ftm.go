package watchlist

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// ftmEntity is one FollowTheMoney entity as OpenSanctions exports it.
// Property values stay raw because in targets.nested.json a value may be a
// nested entity object instead of a string.
type ftmEntity struct {
	ID         string                       `json:"id"`
	Schema     string                       `json:"schema"`
	Properties map[string][]json.RawMessage `json:"properties"`
}

// ftmThings maps FtM schemas that describe a listed party to Entity.Schema.
// PublicBody is an Organization in FtM; Airplane is FtM's name for
// Aircraft. Other matchable things (Vehicle, CryptoWallet, ...) become
// "Thing".
var ftmThings = map[string]string{
	"Person": "Person", "Organization": "Organization", "Company": "Company",
	"LegalEntity": "LegalEntity", "PublicBody": "Organization", "Vessel": "Vessel",
	"Airplane": "Aircraft", "Aircraft": "Aircraft",
	"Thing": "Thing", "Vehicle": "Thing", "Asset": "Thing", "Security": "Thing",
	"CryptoWallet": "Thing", "RealEstate": "Thing", "Position": "Thing",
}

// ftmNonThings are the schemas OpenSanctions exports alongside the targets
// that are not listed parties: sanctions, addresses, documents and the
// Interval/relationship schemas. Address extends Thing in FtM, which is why
// this is an explicit list and not "anything but Interval".
var ftmNonThings = map[string]bool{
	"Sanction": true, "Address": true, "Identification": true, "Passport": true,
	"Ownership": true, "Directorship": true, "Membership": true, "Employment": true,
	"Family": true, "Associate": true, "Occupancy": true, "Representation": true,
	"UnknownLink": true, "Succession": true, "Debt": true, "Payment": true,
	"Contract": true, "ContractAward": true, "CourtCase": true, "CourtCaseParty": true,
	"Note": true, "Mention": true, "Documentation": true, "Document": true,
	"Article": true, "Event": true, "Interest": true, "Interval": true,
	"Similar": true, "TaxRoll": true, "EconomicActivity": true, "Email": true,
	"Message": true, "Call": true, "ProjectParticipant": true,
}

// ParseFtM reads OpenSanctions FollowTheMoney JSON lines, one entity per
// line, and calls fn for every listed party. It accepts both exports:
//
//   - entities.ftm.json (flat): Sanction, Address, Ownership... records are
//     separate lines and are skipped (counted in Stats.Dropped). Linking a
//     Sanction line back to its target would need the whole file in
//     memory, so in this form Programs only holds the target's own
//     program/programId properties.
//   - targets.nested.json: nested entity objects inside properties are
//     folded in: a nested Sanction adds its program/programId, a nested
//     Address its country. Other nested entities (owners, relatives) are
//     ignored, their names are not the target's names.
//
// The first "name" is the primary name; further names and "alias" are
// aliases, "weakAlias" weak and "previousName" previous names. Name parts
// (firstName, middleName or else fatherName, lastName) are attached to the
// primary name only when each is single-valued, since multi-valued parts
// cannot be paired with a particular name.
//
// A line that is not valid JSON stops the parse with a *ParseError naming
// the line; an error returned by fn stops it and is returned unchanged.
func ParseFtM(r io.Reader, fn func(Entity) error) (Stats, error) {
	var st Stats
	br := bufio.NewReaderSize(r, 1<<16)
	skipBOM(br)
	warned := map[string]bool{}
	for line := 1; ; line++ {
		// ReadBytes rather than bufio.Scanner: nested entities of large
		// companies exceed any fixed token size.
		raw, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return st, &ParseError{Format: FormatFtM, Line: line, Err: err}
		}
		if data := bytes.TrimSpace(raw); len(data) > 0 {
			var fe ftmEntity
			if jerr := json.Unmarshal(data, &fe); jerr != nil {
				return st, &ParseError{Format: FormatFtM, Line: line, Err: jerr}
			}
			b, perr := ftmBuild(&fe, &st, warned)
			if perr != nil {
				return st, &ParseError{Format: FormatFtM, Line: line, Err: perr}
			}
			if b == nil {
				st.Dropped++
			} else if ferr := emit(&st, b, fn); ferr != nil {
				return st, ferr
			}
		}
		if errors.Is(err, io.EOF) {
			return st, nil
		}
	}
}

// ftmBuild turns a thing into a builder; nil means "not a listed party".
func ftmBuild(fe *ftmEntity, st *Stats, warned map[string]bool) (*builder, error) {
	if fe.ID == "" || fe.Schema == "" {
		return nil, errors.New("entity without id or schema")
	}
	schema, ok := ftmThings[fe.Schema]
	if !ok {
		if ftmNonThings[fe.Schema] {
			return nil, nil
		}
		// A schema newer than this table: keep it if it carries a name,
		// because dropping a named listed party is the costlier mistake.
		if len(fe.Properties["name"]) == 0 {
			return nil, nil
		}
		if !warned["schema:"+fe.Schema] {
			warned["schema:"+fe.Schema] = true
			st.warnf("ftm: unknown schema %q mapped to Thing", fe.Schema)
		}
		schema = "Thing"
	}
	p := fe.Properties
	str := func(prop string) ([]string, error) { return ftmStrings(p[prop], prop) }
	b := newBuilder(fe.ID, schema)

	names, err := str("name")
	if err != nil {
		return nil, err
	}
	var part [4][]string
	for i, prop := range []string{"firstName", "middleName", "lastName", "fatherName"} {
		if part[i], err = str(prop); err != nil {
			return nil, err
		}
	}
	one := func(v []string) string {
		if len(v) == 1 {
			return v[0]
		}
		return ""
	}
	primary := Name{Kind: NamePrimary, First: one(part[0]), Middle: one(part[1]), Last: one(part[2])}
	if primary.Middle == "" && len(part[1]) == 0 {
		primary.Middle = one(part[3])
	}
	if len(names) > 0 {
		primary.Full = names[0]
	}
	if primary.Full != "" || primary.First != "" || primary.Last != "" {
		b.addName(primary)
	}
	for _, n := range names[min(1, len(names)):] {
		b.addName(Name{Full: n, Kind: NameAlias})
	}
	for _, pk := range [...]struct{ prop, kind string }{{"alias", NameAlias}, {"weakAlias", NameWeak}, {"previousName", NamePrevious}} {
		vals, err := str(pk.prop)
		if err != nil {
			return nil, err
		}
		for _, v := range vals {
			b.addName(Name{Full: v, Kind: pk.kind})
		}
	}

	dates, err := str("birthDate")
	if err != nil {
		return nil, err
	}
	for _, d := range dates {
		if nd, ok := normISODate(d); ok {
			b.addBirthDate(nd)
		} else {
			st.warnf("ftm %s: unparseable birthDate %q", fe.ID, d)
		}
	}
	addCodes := func(prop string, add func(string)) error {
		vals, err := str(prop)
		if err != nil {
			return err
		}
		for _, v := range vals {
			if c, ok := normCode(v); ok {
				add(c)
			} else if !warned["country:"+v] {
				// FtM also has non-alpha-2 codes ("suhh", "ge-ab").
				warned["country:"+v] = true
				st.warnf("ftm: country code %q is not alpha-2, ignored", v)
			}
		}
		return nil
	}
	for _, prop := range []string{"nationality", "citizenship"} {
		if err := addCodes(prop, b.addNationality); err != nil {
			return nil, err
		}
	}
	if err := addCodes("country", b.addCountry); err != nil {
		return nil, err
	}
	genders, err := str("gender")
	if err != nil {
		return nil, err
	}
	for _, g := range genders {
		b.setGender(g)
	}
	topics, err := str("topics")
	if err != nil {
		return nil, err
	}
	for _, t := range topics {
		b.addTopic(t)
	}
	for _, prop := range []string{"program", "programId"} {
		vals, err := str(prop)
		if err != nil {
			return nil, err
		}
		for _, v := range vals {
			b.addProgram(v)
		}
	}
	ftmFoldNested(fe, b, st, warned)
	return b, nil
}

// ftmStrings returns the string values of a property, skipping nested
// entity objects (handled by ftmFoldNested).
func ftmStrings(vals []json.RawMessage, prop string) ([]string, error) {
	var out []string
	for _, v := range vals {
		v = bytes.TrimSpace(v)
		if len(v) == 0 || v[0] != '"' {
			continue
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, fmt.Errorf("property %s: %w", prop, err)
		}
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// ftmFoldNested takes what belongs to the target from nested entities of
// targets.nested.json: sanction programmes and address countries.
func ftmFoldNested(fe *ftmEntity, b *builder, st *Stats, warned map[string]bool) {
	// Sorted so the output order does not depend on map iteration.
	props := make([]string, 0, len(fe.Properties))
	for prop := range fe.Properties {
		props = append(props, prop)
	}
	sort.Strings(props)
	for _, prop := range props {
		for _, v := range fe.Properties[prop] {
			v = bytes.TrimSpace(v)
			if len(v) == 0 || v[0] != '{' {
				continue
			}
			var ne ftmEntity
			if err := json.Unmarshal(v, &ne); err != nil {
				st.warnf("ftm %s: bad nested entity: %v", fe.ID, err)
				continue
			}
			switch ne.Schema {
			case "Sanction":
				for _, prop := range []string{"program", "programId"} {
					vals, _ := ftmStrings(ne.Properties[prop], prop)
					for _, p := range vals {
						b.addProgram(p)
					}
				}
			case "Address":
				vals, _ := ftmStrings(ne.Properties["country"], "country")
				for _, c := range vals {
					if code, ok := normCode(c); ok {
						b.addCountry(code)
					} else if !warned["country:"+c] {
						warned["country:"+c] = true
						st.warnf("ftm: country code %q is not alpha-2, ignored", c)
					}
				}
			}
		}
	}
}
