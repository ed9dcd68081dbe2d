package watchlist

import (
	"bytes"
	"path"
	"strings"
)

// Format names a list file format this package parses.
type Format string

// The formats Detect recognises.
const (
	// FormatFtM is OpenSanctions FollowTheMoney JSON lines
	// (entities.ftm.json, targets.nested.json); see ParseFtM.
	FormatFtM Format = "ftm"
	// FormatEUFSF is the EU consolidated financial sanctions list as CSV;
	// see ParseEUFSF.
	FormatEUFSF Format = "eu-fsf-csv"
	// FormatEUXML is the same EU list as XML; see ParseEUXML.
	FormatEUXML Format = "eu-fsf-xml"
	// FormatOFAC is OFAC's legacy SDN CSV set (sdn.csv, alt.csv, add.csv);
	// see ParseOFAC.
	FormatOFAC Format = "ofac-sdn-csv"
	// FormatUNXML is the UN Security Council consolidated list as XML;
	// see ParseUNXML.
	FormatUNXML Format = "un-sc-xml"
)

// Detect guesses the format of a list file from its name and its first
// bytes (a few KB is plenty). The content decides when it is recognisable,
// since downloads are often saved under arbitrary names; the file name is
// the fallback. It reports false when neither gives an answer.
func Detect(name string, head []byte) (Format, bool) {
	h := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	switch {
	case bytes.HasPrefix(h, []byte("<")):
		if bytes.Contains(h, []byte("sanctionEntity")) || bytes.Contains(h, []byte("fpi/fsd/export")) ||
			bytes.Contains(h, []byte("<export")) {
			return FormatEUXML, true
		}
		if bytes.Contains(h, []byte("<CONSOLIDATED_LIST")) {
			return FormatUNXML, true
		}
	case bytes.HasPrefix(h, []byte("{")):
		if bytes.Contains(h, []byte(`"schema"`)) {
			return FormatFtM, true
		}
	case bytes.Contains(firstLine(h), []byte("Entity_LogicalId")):
		return FormatEUFSF, true
	case looksOFAC(firstLine(h)):
		return FormatOFAC, true
	}
	base := strings.ToLower(path.Base(strings.ReplaceAll(name, "\\", "/")))
	switch {
	case strings.HasSuffix(base, ".ftm.json"), strings.HasSuffix(base, ".nested.json"),
		strings.HasSuffix(base, ".jsonl"), strings.HasSuffix(base, ".ijson"):
		return FormatFtM, true
	case base == "sdn.csv", base == "alt.csv", base == "add.csv":
		return FormatOFAC, true
	case strings.Contains(base, "sanctionslist") || strings.Contains(base, "fsf"):
		if strings.HasSuffix(base, ".xml") {
			return FormatEUXML, true
		}
		if strings.HasSuffix(base, ".csv") {
			return FormatEUFSF, true
		}
	}
	return "", false
}

func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i]
	}
	return b
}

// looksOFAC: a headerless row starting with a numeric ent_num and carrying
// OFAC's "-0-" placeholder.
func looksOFAC(line []byte) bool {
	i := 0
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	return i > 0 && i < len(line) && line[i] == ',' && bytes.Contains(line, []byte("-0-"))
}
