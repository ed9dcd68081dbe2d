package watchlist

import (
	"encoding/json"
	"io"
)

// FtMWriter writes entities as FollowTheMoney JSON lines, the form ParseFtM
// reads back (flat, as entities.ftm.json). It is how generated lists are
// written for import, so tests and benchmarks exercise the real import path.
type FtMWriter struct {
	enc *json.Encoder
}

// NewFtMWriter writes to w, one entity a line.
func NewFtMWriter(w io.Writer) *FtMWriter {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &FtMWriter{enc: enc}
}

// Write writes one entity. The primary name is the first "name"; name parts
// are written when the primary name has them. FtM keeps name parts per
// entity, not per name, so an alias's parts are not written (ParseFtM
// would not read them back either; matching uses full names).
func (fw *FtMWriter) Write(e Entity) error {
	props := map[string][]string{}
	add := func(prop string, vals ...string) {
		for _, v := range vals {
			if v != "" {
				props[prop] = append(props[prop], v)
			}
		}
	}
	for _, n := range e.Names {
		switch n.Kind {
		case NamePrimary:
			add("name", n.Full)
			add("firstName", n.First)
			add("middleName", n.Middle)
			add("lastName", n.Last)
		case NameWeak:
			add("weakAlias", n.Full)
		case NamePrevious:
			add("previousName", n.Full)
		default:
			add("alias", n.Full)
		}
	}
	add("birthDate", e.BirthDates...)
	add("nationality", e.Nationalities...)
	add("country", e.Countries...)
	add("gender", e.Gender)
	add("topics", e.Topics...)
	add("program", e.Programs...)
	return fw.enc.Encode(struct {
		ID         string              `json:"id"`
		Schema     string              `json:"schema"`
		Properties map[string][]string `json:"properties"`
	}{e.ID, e.Schema, props})
}
