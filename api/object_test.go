package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"testing"
)

// parseObjectByDecoder is the reading parseObject replaced, on
// encoding/json's streaming decoder: the reference the walker must match.
func parseObjectByDecoder(raw []byte, prefix string) (*object, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, errMalformed
	}
	o := &object{prefix: prefix, fields: map[string]json.RawMessage{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, errMalformed
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, errMalformed
		}
		if _, dup := o.fields[key]; !dup {
			o.keys = append(o.keys, key)
		}
		o.fields[key] = v // the last duplicate wins, as in most JSON parsers
	}
	if _, err := dec.Token(); err != nil { // closing brace
		return nil, errMalformed
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errMalformed // trailing data
	}
	return o, nil
}

// The walker reads every document as encoding/json's decoder does: the
// same keys in the same order, the same raw values, the same refusals.
func FuzzParseObject(f *testing.F) {
	for _, s := range []string{
		`{}`, ` { "a" : 1 , "b":[1,{"c":"}"}], "a":"x\"y\\"} `, `{"\u00e9t\u00e9":true,"k\"ey":null}`,
		`{"a":{"b":{"c":[[],{}]}},"n":-1.5e+3,"t":true,"f":false}`, `{"é":1,"\ud800":2}`, "{\"a\":\"\xff\"}",
		`[1]`, `"x"`, `{"a":`, `{"a":1} {}`, `{"a" 1}`, `{,}`, `{"a":1,}`, ``, ` `, "\ufeff{}", `{"a":01}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		got, gerr := parseObject([]byte(body), "p.")
		want, werr := parseObjectByDecoder([]byte(body), "p.")
		if (gerr == nil) != (werr == nil) {
			t.Fatalf("%q: walker %v, decoder %v", body, gerr, werr)
		}
		if gerr != nil {
			if !errors.Is(gerr, errMalformed) {
				t.Fatalf("%q: %v, want errMalformed", body, gerr)
			}
			return
		}
		if !slices.Equal(got.keys, want.keys) || got.prefix != want.prefix {
			t.Fatalf("%q: keys %q, want %q", body, got.keys, want.keys)
		}
		for _, k := range want.keys {
			if !bytes.Equal(got.fields[k], want.fields[k]) {
				t.Fatalf("%q: %q is %s, want %s", body, k, got.fields[k], want.fields[k])
			}
		}
	})
}

var benchBody = []byte(`{"name":"Test BV Donald","country_code":"NLD","coc_number":"68750110","iban_number":"NL91ABNA0417164300","vat_number":"NL854750137B01","checks":{"coc":false,"iban":true,"vat":false}}`)

func BenchmarkParseObject(b *testing.B) {
	for _, c := range []struct {
		name  string
		parse func([]byte, string) (*object, error)
	}{{"walker", parseObject}, {"decoder", parseObjectByDecoder}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				o, err := c.parse(benchBody, "")
				if err != nil {
					b.Fatal(err)
				}
				if _, err := c.parse(o.fields["checks"], "checks."); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
