package watchlist

import (
	"bufio"
	"encoding/xml"
	"errors"
	"io"
	"slices"
	"strings"
)

// euXMLEntity is one <sanctionEntity> of the EU XML export
// (xmlFullSanctionsList_1_1, namespace http://eu.europa.ec/fpi/fsd/export).
// Element names carry no namespace here so the struct matches whatever
// namespace a given export declares.
type euXMLEntity struct {
	LogicalID   string `xml:"logicalId,attr"`
	SubjectType struct {
		Code           string `xml:"code,attr"`
		Classification string `xml:"classificationCode,attr"`
	} `xml:"subjectType"`
	Regulations []struct {
		Programme string `xml:"programme,attr"`
	} `xml:"regulation"`
	Names []struct {
		Whole   string   `xml:"wholeName,attr"`
		First   string   `xml:"firstName,attr"`
		Middle  string   `xml:"middleName,attr"`
		Last    string   `xml:"lastName,attr"`
		Gender  string   `xml:"gender,attr"`
		Strong  string   `xml:"strong,attr"`
		Remarks []string `xml:"remark"`
	} `xml:"nameAlias"`
	Births []struct {
		Date  string `xml:"birthdate,attr"`
		Day   string `xml:"dayOfMonth,attr"`
		Day2  string `xml:"day,attr"`
		Month string `xml:"monthOfYear,attr"`
		Mon2  string `xml:"month,attr"`
		Year  string `xml:"year,attr"`
		From  string `xml:"yearRangeFrom,attr"`
		To    string `xml:"yearRangeTo,attr"`
		Circa string `xml:"circa,attr"`
	} `xml:"birthdate"`
	Citizenships []struct {
		Code string `xml:"countryIso2Code,attr"`
	} `xml:"citizenship"`
	Addresses []struct {
		Code string `xml:"countryIso2Code,attr"`
	} `xml:"address"`
}

// ParseEUXML reads the EU consolidated financial sanctions list in its XML
// form, one <sanctionEntity> at a time (the decoder walks tokens and only
// the current entity is decoded into memory), and calls fn for each with
// ID "eu-<logicalId>".
//
// A nameAlias with strong="false", or whose remark calls it low quality,
// is a weak alias; the first strong name is the primary name. Birth dates
// come from the birthdate attribute or else year/month/day, year ranges
// expand and circa dates keep their year. citizenship gives
// Nationalities, address gives Countries (the birthdate's country is a
// place of birth and is not used).
//
// Malformed XML is a *ParseError with the line; an error from fn stops the
// parse and is returned unchanged.
func ParseEUXML(r io.Reader, fn func(Entity) error) (Stats, error) {
	var st Stats
	err := xmlElements(r, FormatEUXML, []string{"sanctionEntity"}, func(dec *xml.Decoder, se *xml.StartElement, line int) error {
		var xe euXMLEntity
		if err := dec.DecodeElement(&xe, se); err != nil {
			return xmlError(FormatEUXML, err, line)
		}
		id := strings.TrimSpace(xe.LogicalID)
		if id == "" {
			st.Dropped++
			st.warnf("eu xml line %d: sanctionEntity without logicalId skipped", line)
			return nil
		}
		schema, ok := euSchema(xe.SubjectType.Code, xe.SubjectType.Classification)
		if !ok {
			st.warnf("eu-%s: unknown subject type %q", id, xe.SubjectType.Code)
		}
		b := newBuilder("eu-"+id, schema)
		b.addTopic("sanction")
		for _, reg := range xe.Regulations {
			b.addProgram(reg.Programme)
		}
		for _, n := range xe.Names {
			weak := strings.TrimSpace(n.Strong) != "" && !parseBool(n.Strong)
			for _, rm := range n.Remarks {
				if l := strings.ToLower(rm); strings.Contains(l, "low quality") {
					weak = true
				}
			}
			addEUName(b, euName{whole: n.Whole, first: n.First, middle: n.Middle, last: n.Last, gender: n.Gender, weak: weak})
		}
		for _, d := range xe.Births {
			addEUBirth(b, &st, b.e.ID, euBirth{
				date: d.Date, day: firstOf(d.Day, d.Day2), month: firstOf(d.Month, d.Mon2),
				year: d.Year, from: d.From, to: d.To, circa: d.Circa,
			})
		}
		for _, c := range xe.Citizenships {
			addEUCode(&st, b.e.ID, c.Code, b.addNationality)
		}
		for _, a := range xe.Addresses {
			addEUCode(&st, b.e.ID, a.Code, b.addCountry)
		}
		return emit(&st, b, fn)
	})
	return st, err
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// xmlError wraps a decoder error with the best line known: the syntax
// error's own line, else where the current element started.
// xmlElements decodes an XML list one record at a time: fn gets each
// element named in names, to decode, with the line it starts on; the rest
// of the document is skipped. Malformed XML is a *ParseError.
func xmlElements(r io.Reader, format Format, names []string, fn func(dec *xml.Decoder, se *xml.StartElement, line int) error) error {
	br := bufio.NewReaderSize(r, 1<<16)
	skipBOM(br)
	dec := xml.NewDecoder(br)
	for {
		line, _ := dec.InputPos()
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return xmlError(format, err, line)
		}
		if se, ok := tok.(xml.StartElement); ok && slices.Contains(names, se.Name.Local) {
			if err := fn(dec, &se, line); err != nil {
				return err
			}
		}
	}
}

func xmlError(format Format, err error, line int) error {
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		line = se.Line
	}
	return &ParseError{Format: format, Line: line, Err: err}
}
