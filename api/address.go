package api

import (
	"regexp"
	"strings"
)

// addressPattern splits a Dutch-style street line: street name, house
// number, optional addition ("Damrak 1A", "Laan 12-bis", "1e Straat 4 hs").
var addressPattern = regexp.MustCompile(`^(.*?\S)\s+(\d{1,6})(?:\s*[-/]?\s*([A-Za-z0-9]{1,8}(?:[ -][A-Za-z0-9]{1,8})?))?$`)

// splitAddress returns street, house number and addition of the first line
// of an address; all nil when it does not look like "street number".
func splitAddress(address *string) (street, number, addition *string) {
	if address == nil {
		return nil, nil, nil
	}
	line, _, _ := strings.Cut(*address, ",")
	line = strings.Join(strings.Fields(line), " ")
	m := addressPattern.FindStringSubmatch(line)
	if m == nil {
		return nil, nil, nil
	}
	street, number = &m[1], &m[2]
	if m[3] != "" {
		addition = &m[3]
	}
	return street, number, addition
}
