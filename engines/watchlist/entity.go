// Package watchlist holds sanctions and PEP list entries in one shape,
// whatever list they come from (OpenSanctions FollowTheMoney, the EU
// consolidated financial sanctions list, OFAC SDN), and the parsers that
// read each format into it.
package watchlist

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Entity is one listed person, organisation, vessel, ...
type Entity struct {
	// ID is unique within its list and stable across versions of it, e.g.
	// "NK-2cQ8Fh..." (OpenSanctions), "eu-13" (EU Entity_LogicalId),
	// "ofac-36" (OFAC ent_num).
	ID string
	// Schema is the kind of entity: Person, Organization, Company,
	// LegalEntity, Vessel, Aircraft or Thing (unknown).
	Schema string
	// Names: the primary name first, then aliases, weak aliases and
	// previous names, each once.
	Names []Name
	// BirthDates are ISO dates, possibly partial ("1970", "1970-05",
	// "1970-05-17"); a range of years is given as its years, each listed.
	BirthDates []string
	// Nationalities and Countries are ISO 3166-1 alpha-2, lower case
	// ("ru", "ir"); Nationalities includes citizenship.
	Nationalities []string
	Countries     []string
	// Gender is "male", "female" or "".
	Gender string
	// Topics are OpenSanctions-style tags: "sanction", "role.pep",
	// "crime", "poi", ...
	Topics []string
	// Programs are the sanctions programmes or regimes named by the list
	// (e.g. "SDGT", "UKRAINE-EO13661", "EU.1234.56").
	Programs []string
	// List names the list the entity was loaded from (set by the loader;
	// not stored with the entity, nor part of its Hash).
	List string `json:"-"`
}

// Name kinds.
const (
	NamePrimary  = "primary"
	NameAlias    = "alias"
	NameWeak     = "weak"     // weak alias: a nickname, low quality
	NamePrevious = "previous" // a former name
)

// Name is one name of an entity. Full is the whole name as the list writes
// it (any script); the parts are set when the list gives them.
type Name struct {
	Full   string
	Kind   string
	First  string
	Middle string
	Last   string
}

// AppendJSON decodes one stored entity (the JSON encoding of Entity, as the
// import stores it) and appends it to es.
func AppendJSON(es []Entity, data []byte) ([]Entity, error) {
	var e Entity
	if err := json.Unmarshal(data, &e); err != nil {
		return es, err
	}
	return append(es, e), nil
}

// Hash identifies the entity's data: equal for the same entity listed
// unchanged in another version of its list, different once anything the
// list says about it changes.
func (e *Entity) Hash() string {
	b, _ := json.Marshal(e) // a struct of strings: cannot fail
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:16])
}
