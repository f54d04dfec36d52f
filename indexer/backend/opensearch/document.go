package opensearch

import (
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/ontoindex/ontoindex/objects"
)

// AppendDocument appends the _source of an object: the key field, then
// each property that holds a value under its apiName, in property order,
// as objects.JSONValue renders it for the API; a struct as an object of
// its presence and its fields. It writes the JSON itself rather than
// marshal a map, which would cost a sort and an allocation per value on
// the path of every document a build sends.
func AppendDocument(b []byte, t *objects.Type, docID string, o *objects.Object) ([]byte, error) {
	b = append(b, `{"`+keyField+`":`...)
	b = appendString(b, docID)
	b = appendNulls(b, t, o)
	var err error
	for i, p := range t.Properties {
		if i >= len(o.Values) || o.Values[i] == nil || p.Hidden() {
			continue
		}
		b = append(b, ',')
		b = appendString(b, p.APIName)
		b = append(b, ':')
		if p.Type.Kind != objects.KindStruct {
			if b, err = appendJSON(b, objects.JSONValue(p.Type, planarShapes(o.Values[i]))); err != nil {
				return nil, err
			}
			continue
		}
		b = append(b, `{"`+presentField+`":true`...)
		for _, j := range t.StructFields(i) {
			if j < len(o.Values) && o.Values[j] != nil {
				b = append(b, ',')
				b = appendString(b, t.Properties[j].Field)
				b = append(b, ':')
				if b, err = appendJSON(b, objects.JSONValue(t.Properties[j].Type, planarShapes(o.Values[j]))); err != nil {
					return nil, err
				}
			}
		}
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

// Document is AppendDocument into a new slice.
func Document(t *objects.Type, docID string, o *objects.Object) ([]byte, error) {
	return AppendDocument(nil, t, docID, o)
}

// planarShapes is a value with its geoshapes as OpenSearch must read them
// to take them on the plane, as the engine does (planarShape): a polygon
// wider than 180 degrees of longitude with its rings rewound, which is
// the same polygon. Any other value is returned as it is.
func planarShapes(v any) any {
	switch x := v.(type) {
	case objects.GeoShape:
		return objects.GeoShape{Geometry: planarShape(x.Geometry)}
	case []any:
		for i, e := range x {
			if s, ok := e.(objects.GeoShape); ok {
				if p := planarShape(s.Geometry); p != s.Geometry {
					out := slices.Clone(x)
					for j := i; j < len(out); j++ {
						out[j] = planarShapes(out[j])
					}
					return out
				}
			}
		}
	}
	return v
}

// appendJSON appends a value as objects.JSONValue returns them: the
// common ones written directly, the others marshalled.
func appendJSON(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case json.Number:
		if x == "-0" {
			// A JSON parser that reads -0 as an integer (OpenSearch's
			// does) loses the sign, which orders and compares the value
			// apart from 0 (query.Filter): -0.0 is a double's.
			return append(b, "-0.0"...), nil
		}
		return append(b, x...), nil
	case string:
		return appendString(b, x), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case json.RawMessage:
		return append(b, x...), nil
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSON(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, raw...), nil
}

// appendString appends s as a JSON string: as it is when it needs no
// escape (no control character, quote or backslash, and valid UTF-8),
// else as encoding/json escapes it.
func appendString(b []byte, s string) []byte {
	plain := utf8.ValidString(s)
	for i := 0; plain && i < len(s); i++ {
		c := s[i]
		plain = c >= 0x20 && c != '"' && c != '\\'
	}
	if !plain {
		raw, _ := json.Marshal(s) // a string always marshals
		return append(b, raw...)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendNulls appends the nulls field: the apiNames of the properties
// (struct fields among them) without a value, when there are any.
func appendNulls(b []byte, t *objects.Type, o *objects.Object) []byte {
	first := true
	for i, p := range t.Properties {
		if i < len(o.Values) && o.Values[i] != nil {
			continue
		}
		if first {
			b = append(b, `,"`+nullsField+`":[`...)
			first = false
		} else {
			b = append(b, ',')
		}
		b = appendString(b, p.APIName)
	}
	if !first {
		b = append(b, ']')
	}
	return b
}
