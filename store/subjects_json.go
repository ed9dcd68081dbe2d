package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/jmoiron/sqlx/reflectx"

	"github.com/kycflow/kycflow/check"
)

// subjectColumns are the columns a new subject of each kind fills, all but
// tenant_id, which a statement takes from the tenant it set.
var subjectColumns = map[check.Kind][]string{
	check.Business: columnsBut(businessCols, "tenant_id"),
	check.Customer: columnsBut(customerCols, "tenant_id"),
}

func columnsBut(cols, skip string) []string {
	var out []string
	for _, c := range strings.Split(cols, ",") {
		if c = strings.TrimSpace(c); c != skip {
			out = append(out, c)
		}
	}
	return out
}

// subjectFields are, per kind, the field index paths of subjectColumns in its
// type, found by their db tags as sqlx does, once: subjectsJSON runs on
// every create.
var subjectFields = map[check.Kind][][]int{
	check.Business: fieldPaths(reflect.TypeFor[Business](), subjectColumns[check.Business]),
	check.Customer: fieldPaths(reflect.TypeFor[Customer](), subjectColumns[check.Customer]),
}

func fieldPaths(t reflect.Type, cols []string) [][]int {
	fields := reflectx.NewMapperFunc("db", strings.ToLower).TypeMap(t)
	paths := make([][]int, len(cols))
	for i, col := range cols {
		f := fields.GetByPath(col)
		if f == nil {
			panic(fmt.Sprintf("store: %s has no field for column %s", t, col))
		}
		paths[i] = f.Index
	}
	return paths
}

// subjectsJSON writes new subjects (Business or Customer values) as one JSON
// array of objects keyed by column, which jsonb_populate_recordset turns into
// rows of the kind's table with its column types: so a statement's text is
// the same for none, one or sixty-four.
func subjectsJSON(kind check.Kind, rows []any) (string, error) {
	cols, paths := subjectColumns[kind], subjectFields[kind]
	var b bytes.Buffer
	b.WriteByte('[')
	for i, row := range rows {
		if i > 0 {
			b.WriteByte(',')
		}
		v := reflect.ValueOf(row)
		b.WriteByte('{')
		for j, col := range cols {
			val, err := json.Marshal(reflectx.FieldByIndexesReadOnly(v, paths[j]).Interface())
			if err != nil {
				return "", fmt.Errorf("encode %s.%s: %w", v.Type(), col, err)
			}
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + col + `":`)
			b.Write(val)
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
	return b.String(), nil
}
