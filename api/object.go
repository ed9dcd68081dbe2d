package api

import (
	"encoding/json"
	"strings"
)

// parseObject reads a JSON object's members in the order sent: each key's
// raw value, the last of duplicates winning (as in most JSON parsers).
// The document is validated whole first (400 for anything but one object),
// so walking it needs no further checks; encoding/json's streaming decoder
// did the same work at several times the cost, on every create.
func parseObject(raw []byte, prefix string) (*object, error) {
	if !json.Valid(raw) {
		return nil, errMalformed
	}
	return walkObject(raw, prefix)
}

// walkObject is parseObject for a value of a document already validated (a
// member or an element of the body), which need not be validated again.
func walkObject(raw []byte, prefix string) (*object, error) {
	i := skipSpace(raw, 0)
	if raw[i] != '{' {
		return nil, errMalformed
	}
	o := &object{prefix: prefix, fields: map[string]json.RawMessage{}}
	for i = skipSpace(raw, i+1); raw[i] != '}'; {
		end := valueEnd(raw, i)
		key, err := objectKey(raw[i:end])
		if err != nil {
			return nil, errMalformed
		}
		i = skipSpace(raw, skipSpace(raw, end)+1) // past the colon
		end = valueEnd(raw, i)
		if _, dup := o.fields[key]; !dup {
			o.keys = append(o.keys, key)
		}
		o.fields[key] = raw[i:end:end]
		if i = skipSpace(raw, end); raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return o, nil
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// valueEnd returns the index just past the JSON value starting at raw[i],
// in a document known to be valid. Iterative, so nesting costs no stack.
func valueEnd(raw []byte, i int) int {
	switch raw[i] {
	case '"':
		for j := i + 1; ; j++ {
			switch raw[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
	case '{', '[':
		depth := 0
		for j := i; ; j++ {
			switch raw[j] {
			case '"':
				j = valueEnd(raw, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
	default: // a number, true, false or null
		j := i
		for j < len(raw) && strings.IndexByte(",}] \t\r\n", raw[j]) < 0 {
			j++
		}
		return j
	}
}

// objectKey decodes a member's name; plain ASCII needs no decoding.
func objectKey(quoted []byte) (string, error) {
	plain := true
	for _, c := range quoted {
		if c == '\\' || c >= 0x80 {
			plain = false
			break
		}
	}
	if plain {
		return string(quoted[1 : len(quoted)-1]), nil
	}
	var key string
	err := json.Unmarshal(quoted, &key)
	return key, err
}
