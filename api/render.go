package api

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ontoindex/ontoindex/objects"
)

// Objects are written straight to JSON bytes: the same text encoding/json
// makes of objects.Type.JSON's map (keys sorted, no HTML escaping), without
// the map, the reflection and the re-scan of a Marshaler. A page of a
// hundred objects is most of what a search costs otherwise.

// jsonAppender is a response that writes its own JSON.
type jsonAppender interface {
	appendJSON(b []byte) []byte
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// field is one key of a rendered object, in sorted order: a property
// (index >= 0) or one of the __ keys.
type field struct {
	name string
	json []byte // "name":
	prop int
}

const (
	fieldAPIName = -1 - iota
	fieldPrimaryKey
	fieldRID
	fieldTitle
)

// fieldsOf is the sorted keys of an object of type t.
func fieldsOf(t *objects.Type) []field {
	fs := []field{{name: "__apiName", prop: fieldAPIName}, {name: "__primaryKey", prop: fieldPrimaryKey},
		{name: "__rid", prop: fieldRID}, {name: "__title", prop: fieldTitle}}
	for i, p := range t.Properties {
		fs = append(fs, field{name: p.APIName, prop: i})
	}
	slices.SortFunc(fs, func(a, b field) int {
		switch {
		case a.name < b.name:
			return -1
		case a.name > b.name:
			return 1
		}
		return 0
	})
	for i := range fs {
		fs[i].json = append(appendString(nil, fs[i].name), ':')
	}
	return fs
}

// renderer writes the objects of one type.
type renderer struct {
	t          *objects.Type
	fields     []field
	sel        selection
	excludeRID bool
	ridPrefix  string
}

func newRenderer(t *objects.Type, sel selection, excludeRID bool) *renderer {
	return &renderer{t: t, fields: fieldsOf(t), sel: sel, excludeRID: excludeRID, ridPrefix: objectRIDPrefix + t.APIName}
}

// appendObject writes one object: its selected non-null properties,
// __apiName, __primaryKey, __title, and __rid unless excluded.
func (r *renderer) appendObject(b []byte, key []byte, o *objects.Object) []byte {
	b = append(b, '{')
	first := true
	sep := func() {
		if !first {
			b = append(b, ',')
		}
		first = false
	}
	for _, f := range r.fields {
		switch f.prop {
		case fieldAPIName:
			sep()
			b = appendString(append(b, f.json...), r.t.APIName)
		case fieldPrimaryKey:
			sep()
			b = append(b, f.json...)
			if idx := r.t.KeyIndexes(); len(idx) == 1 {
				b = appendTyped(b, r.t.Properties[idx[0]].Type, o.Values[idx[0]])
			} else {
				b = appendString(b, r.t.KeyString(o))
			}
		case fieldRID:
			if !r.excludeRID {
				sep()
				b = append(append(append(append(b, f.json...), '"'), r.ridPrefix...), '.')
				b = append(objects.AppendDocID(b, key), '"')
			}
		case fieldTitle:
			if ti := r.t.TitleIndex(); ti >= 0 && ti < len(o.Values) && o.Values[ti] != nil {
				sep()
				b = appendString(append(b, f.json...), objects.TextOf(o.Values[ti]))
			}
		default:
			p := r.t.Properties[f.prop]
			if f.prop >= len(o.Values) || o.Values[f.prop] == nil || (r.sel != nil && !r.sel[p.APIName]) {
				continue
			}
			sep()
			b = appendTyped(append(b, f.json...), p.Type, o.Values[f.prop])
		}
	}
	return append(b, '}')
}

// appendTyped writes a value as objects.JSONValue renders it, without the
// intermediate strings.
func appendTyped(b []byte, t objects.DataType, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return appendString(b, strconv.FormatFloat(x, 'g', -1, 64))
		}
		bits := 64
		if t.Primitive().Kind == objects.KindFloat {
			bits = 32
		}
		return strconv.AppendFloat(b, x, 'g', -1, bits)
	case string:
		return appendString(b, x)
	case bool:
		return strconv.AppendBool(b, x)
	case objects.Date:
		return append(x.Time().AppendFormat(append(b, '"'), time.DateOnly), '"')
	case time.Time:
		return append(x.UTC().AppendFormat(append(b, '"'), time.RFC3339Nano), '"')
	case []any:
		et := t.Primitive()
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendTyped(b, et, e)
		}
		return append(b, ']')
	}
	return appendValue(b, objects.JSONValue(t, v))
}

// appendValue writes a value as objects.JSONValue renders it.
func appendValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case json.Number:
		return append(b, x...)
	case string:
		return appendString(b, x)
	case bool:
		return strconv.AppendBool(b, x)
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, e)
		}
		return append(b, ']')
	case int64:
		return strconv.AppendInt(b, x, 10)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return appendString(b, strconv.FormatFloat(x, 'g', -1, 64))
		}
		return strconv.AppendFloat(b, x, 'g', -1, 64)
	case time.Time:
		return appendString(b, x.UTC().Format(time.RFC3339Nano))
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, raw...)
}

// appendString writes a JSON string as encoding/json does without HTML
// escaping: plain text as is, anything else through the encoder.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return appendStringSlow(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func appendStringSlow(b []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// objectPage is ListObjectsResponseV2, SearchObjectsResponseV2 and, with
// securities, LoadObjectSetResponseV2.
type objectPage struct {
	r          *renderer
	keys       [][]byte
	objs       []*objects.Object
	next       string
	total      int64
	securities bool
}

func (p *objectPage) appendJSON(b []byte) []byte {
	b = append(b, `{"data":[`...)
	for i, o := range p.objs {
		if i > 0 {
			b = append(b, ',')
		}
		b = p.r.appendObject(b, p.keys[i], o)
	}
	b = append(b, ']')
	if p.next != "" {
		b = appendString(append(b, `,"nextPageToken":`...), p.next)
	}
	b = strconv.AppendInt(append(b, `,"totalCount":"`...), p.total, 10)
	b = append(b, '"')
	if p.securities {
		b = append(b, `,"propertySecurities":[]`...)
	}
	return append(b, '}')
}

// oneObject is the response of a get.
type oneObject struct {
	r   *renderer
	key []byte
	o   *objects.Object
}

func (o oneObject) appendJSON(b []byte) []byte { return o.r.appendObject(b, o.key, o.o) }
