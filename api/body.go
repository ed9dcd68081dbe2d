package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// maxBody is the largest request body accepted.
const maxBody = 1 << 20

// readBody reads a JSON object body: 413 past 1 MiB, 415 for a non-JSON
// content type, 400 for anything but one JSON object. An empty body is an
// empty object, so a missing field is reported as a 422 on that field.
func readBody(c echo.Context) (*object, error) {
	req := c.Request()
	if req.ContentLength > maxBody {
		return nil, errTooLarge
	}
	raw, err := io.ReadAll(io.LimitReader(req.Body, maxBody+1))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, errTooLarge
		}
		return nil, errMalformed
	}
	if len(raw) > maxBody {
		return nil, errTooLarge
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return &object{fields: map[string]json.RawMessage{}}, nil
	}
	if !isJSON(req.Header.Get(echo.HeaderContentType)) {
		return nil, errMediaType
	}
	return parseObject(raw, "")
}

func isJSON(contentType string) bool {
	if contentType == "" {
		return true // no Content-Type at all: take the body as JSON
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

// object is a decoded JSON object whose fields are read with type checks, so
// a wrong type is a 422 naming the field rather than a 400.
type object struct {
	prefix string // "checks." for nested objects
	fields map[string]json.RawMessage
	keys   []string // key order as sent
}

// value returns the raw field, or nil when absent or null.
func (o *object) value(key string) json.RawMessage {
	v, ok := o.fields[key]
	if !ok || string(v) == "null" {
		return nil
	}
	return v
}

func (o *object) name(key string) string { return o.prefix + key }

// str reads a string field, trimmed; nil when absent, null or blank (as
// Laravel's TrimStrings and ConvertEmptyStringsToNull do).
func (o *object) str(key string, fe *fieldErrors) *string {
	v := o.value(key)
	if v == nil {
		return nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		fe.add(o.name(key), msg(o.name(key), "must be a string."))
		return nil
	}
	if strings.ContainsRune(s, 0) { // PostgreSQL text cannot hold NUL
		fe.add(o.name(key), msg(o.name(key), "must not contain NUL characters."))
		return nil
	}
	if s = strings.TrimSpace(s); s == "" {
		return nil
	}
	return &s
}

// boolean reads a true/false field; nil when absent or null.
func (o *object) boolean(key string, fe *fieldErrors) *bool {
	v := o.value(key)
	if v == nil {
		return nil
	}
	switch string(v) {
	case "true":
		b := true
		return &b
	case "false":
		b := false
		return &b
	}
	fe.add(o.name(key), msg(o.name(key), "must be true or false."))
	return nil
}

// digits reads a field given as a JSON string or number of digits only, as
// the seed API's clients send coc numbers both ways.
func (o *object) digits(key string, fe *fieldErrors) *string {
	v := o.value(key)
	if v == nil {
		return nil
	}
	if v[0] == '"' {
		return o.str(key, fe)
	}
	s := string(v)
	for _, r := range s {
		if r < '0' || r > '9' {
			fe.add(o.name(key), msg(o.name(key), "must be a string or a whole number."))
			return nil
		}
	}
	return &s
}

// obj reads a nested object field; nil when absent or null.
func (o *object) obj(key string, fe *fieldErrors) *object {
	v := o.value(key)
	if v == nil {
		return nil
	}
	n, err := walkObject(v, o.name(key)+".")
	if err != nil {
		fe.add(o.name(key), msg(o.name(key), "must be an object."))
		return nil
	}
	return n
}

// strings reads an array of strings; element type errors name the index.
func (o *object) strings(key string, fe *fieldErrors) ([]string, bool) {
	v := o.value(key)
	if v == nil {
		return nil, false
	}
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err != nil {
		fe.add(o.name(key), msg(o.name(key), "must be an array."))
		return nil, false
	}
	out := make([]string, len(items))
	ok := true
	for i, it := range items {
		field := o.name(key) + "." + itoa(i)
		if err := json.Unmarshal(it, &out[i]); err != nil || string(it) == "null" {
			fe.add(field, msg(field, "must be a string."))
			ok = false
		}
	}
	return out, ok
}

// objects reads an array of objects; an element that is no object is an
// error naming its index, and is nil in the result.
func (o *object) objects(key string, fe *fieldErrors) []*object {
	v := o.value(key)
	if v == nil {
		return nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err != nil {
		fe.add(o.name(key), msg(o.name(key), "must be an array."))
		return nil
	}
	out := make([]*object, len(items))
	for i, it := range items {
		field := o.name(key) + "." + itoa(i)
		n, err := walkObject(it, field+".")
		if err != nil {
			fe.add(field, msg(field, "must be an object."))
			continue
		}
		out[i] = n
	}
	return out
}
