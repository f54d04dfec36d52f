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

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/objects"
)

// Objects are written straight to JSON bytes: the same text encoding/json
// makes of objects.Type.JSON's map (keys sorted, no HTML escaping), longs
// as strings (see appendScalar), without the map, the reflection and the
// re-scan of a Marshaler. A page of a hundred objects is most of what a
// search costs otherwise.

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
		if !p.Hidden() { // a struct's field is written inside its struct
			fs = append(fs, field{name: p.APIName, prop: i})
		}
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

// layout is what a renderer needs of a type, made once per type.
type layout struct {
	t         *objects.Type
	fields    []field
	keys      []int // property positions of the primary key
	title     int   // property position of the title; -1 when none
	ridPrefix string
	structs   map[int][]int // struct property position to its fields' positions (render_struct.go)
}

func layoutOf(t *objects.Type) *layout {
	return &layout{t: t, fields: fieldsOf(t), keys: t.KeyIndexes(), title: t.TitleIndex(),
		ridPrefix: wire.ObjectRIDPrefix + t.APIName, structs: structLayout(t)}
}

// renderer writes the objects of one type.
type renderer struct {
	*layout
	sel        selection
	excludeRID bool
}

// renderer returns a renderer of type t. Layouts are kept by type name,
// the newest type of each: a build may bring a new *objects.Type, and a
// cache keyed by pointer would grow with every build.
func (s *Server) renderer(t *objects.Type, sel selection, excludeRID bool) *renderer {
	l, ok := s.layouts.Load(t.APIName)
	if !ok || l.(*layout).t != t {
		l = layoutOf(t)
		s.layouts.Store(t.APIName, l)
	}
	return &renderer{layout: l.(*layout), sel: sel, excludeRID: excludeRID}
}

// row is one object to write: decoded (o), or document j of a page read
// from the index (p). A struct, not an interface: a page writes a hundred
// rows, and boxing each would allocate.
type row struct {
	t   *objects.Type
	o   *objects.Object
	key []byte // o's encoded primary key; a page's is read when rendered
	p   *indexer.Page
	j   int
}

// cell reads property i of the row into sc, or returns it when it is a
// list; sc is reused across cells (see indexer.Page.ReadScalar).
func (r row) cell(i int, sc *objects.Scalar) []any {
	if r.p != nil {
		r.p.ReadScalar(r.j, i, sc)
		return nil
	}
	if i >= len(r.o.Values) {
		sc.Null = true
		return nil
	}
	v := r.o.Values[i]
	if list, ok := v.([]any); ok {
		sc.Null = false
		if list == nil {
			list = []any{}
		}
		return list
	}
	*sc = objects.ScalarOf(r.t.Properties[i].Type.Kind, v)
	return nil
}

// appendObject writes one object.
func (r *renderer) appendObject(b []byte, key []byte, o *objects.Object) []byte {
	return r.appendRow(b, row{t: r.t, o: o, key: key})
}

// appendPageRow writes object j of a page: from the index's columns
// when it holds them, else the object read from the store.
func (r *renderer) appendPageRow(b []byte, p *indexer.Page, j int) []byte {
	if p.FromIndex() {
		return r.appendRow(b, row{t: r.t, p: p, j: j})
	}
	return r.appendObject(b, p.Key(j), p.Object(j))
}

// appendRow writes one object: its selected non-null properties,
// __apiName, __primaryKey, __title, and __rid unless excluded.
func (r *renderer) appendRow(b []byte, rw row) []byte {
	b = append(b, '{')
	start := len(b) // b is longer once a field is written: the next needs a comma
	var sc objects.Scalar
	for _, f := range r.fields {
		switch f.prop {
		case fieldAPIName:
			b = appendString(append(comma(b, start), f.json...), r.t.APIName)
		case fieldPrimaryKey:
			b = append(comma(b, start), f.json...)
			if len(r.keys) == 1 {
				rw.cell(r.keys[0], &sc)
				b = appendScalar(b, r.t.Properties[r.keys[0]].Type, &sc)
			} else {
				b = appendString(b, r.t.KeyString(r.keyObject(rw)))
			}
		case fieldRID:
			if !r.excludeRID {
				b = append(append(append(append(comma(b, start), f.json...), '"'), r.ridPrefix...), '.')
				key := rw.key
				if rw.p != nil {
					var buf [64]byte // most keys: no allocation a row
					key = rw.p.AppendKey(buf[:0], rw.j)
				}
				b = append(objects.AppendDocID(b, key), '"')
			}
		case fieldTitle:
			ti := r.title
			if ti < 0 {
				continue
			}
			list := rw.cell(ti, &sc)
			switch {
			case list != nil:
				b = appendString(append(comma(b, start), f.json...), objects.TextOf(list))
			case !sc.Null:
				b = append(comma(b, start), f.json...)
				if k := r.t.Properties[ti].Type.Kind; k == objects.KindString {
					b = appendString(b, sc.Str)
				} else {
					b = appendString(b, objects.TextOf(sc.Value(k)))
				}
			}
		default:
			p := &r.t.Properties[f.prop]
			if r.sel != nil && !r.sel[p.APIName] && !r.fieldSelected(f.prop) {
				continue
			}
			list := rw.cell(f.prop, &sc)
			switch {
			case p.Type.Kind == objects.KindStruct:
				if !sc.Null {
					b = r.appendStruct(append(comma(b, start), f.json...), rw, f.prop, &sc)
				}
			case list != nil:
				b = appendTyped(append(comma(b, start), f.json...), p.Type, list)
			case !sc.Null:
				b = appendScalar(append(comma(b, start), f.json...), p.Type, &sc)
			}
		}
	}
	return append(b, '}')
}

// comma separates a field from the one before it, if any: b is longer
// than start once the object has one.
func comma(b []byte, start int) []byte {
	if len(b) > start {
		return append(b, ',')
	}
	return b
}

// keyObject is an object holding the key values of a row, for composite
// keys.
func (r *renderer) keyObject(rw row) *objects.Object {
	o := &objects.Object{Values: make([]any, len(r.t.Properties))}
	var sc objects.Scalar
	for _, i := range r.keys {
		rw.cell(i, &sc)
		o.Values[i] = sc.Value(r.t.Properties[i].Type.Kind)
	}
	return o
}

// appendScalar writes a non-list value as objects.JSONValue renders it,
// except longs: a JSON string of their digits, which is how Foundry sends
// them and what @osdk/client's types say an application gets. A JSON
// number would reach a JavaScript application rounded beyond 2^53.
func appendScalar(b []byte, t objects.DataType, sc *objects.Scalar) []byte {
	if sc.Null {
		return append(b, "null"...)
	}
	switch t.Kind {
	case objects.KindBoolean:
		return strconv.AppendBool(b, sc.Int == 1)
	case objects.KindInteger:
		return strconv.AppendInt(b, sc.Int, 10)
	case objects.KindLong:
		return append(strconv.AppendInt(append(b, '"'), sc.Int, 10), '"')
	case objects.KindFloat, objects.KindDouble:
		x := sc.Float
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return appendString(b, strconv.FormatFloat(x, 'g', -1, 64))
		}
		bits := 64
		if t.Kind == objects.KindFloat {
			bits = 32
		}
		return strconv.AppendFloat(b, x, 'g', -1, bits)
	case objects.KindString:
		return appendString(b, sc.Str)
	case objects.KindDate:
		return append(objects.Date(sc.Int).Time().AppendFormat(append(b, '"'), time.DateOnly), '"')
	case objects.KindTimestamp, objects.KindTimestampTZ:
		return append(sc.Time.UTC().AppendFormat(append(b, '"'), time.RFC3339Nano), '"')
	}
	return appendValue(b, objects.JSONValue(t, sc.Value(t.Kind)))
}

// appendTyped writes a list as objects.JSONValue renders it.
func appendTyped(b []byte, t objects.DataType, list []any) []byte {
	elementType := t.Primitive()
	b = append(b, '[')
	for i, e := range list {
		if i > 0 {
			b = append(b, ',')
		}
		if l, ok := e.([]any); ok {
			b = appendTyped(b, elementType, l)
			continue
		}
		sc := objects.ScalarOf(elementType.Kind, e)
		b = appendScalar(b, elementType, &sc)
	}
	return append(b, ']')
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
	page       *indexer.Page // nil: no objects
	next       string
	total      int64
	securities bool
}

func (p *objectPage) appendJSON(b []byte) []byte {
	b = append(b, `{"data":[`...)
	for j := range p.pageLen() {
		if j > 0 {
			b = append(b, ',')
		}
		b = p.r.appendPageRow(b, p.page, j)
		if p.page.Scores != nil {
			b = appendScore(b, p.page.Scores[j])
		}
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

func (p *objectPage) pageLen() int {
	if p.page == nil {
		return 0
	}
	return p.page.Len()
}

// oneObject is the response of a get: a page of one object.
type oneObject struct {
	r    *renderer
	page *indexer.Page
}

func (o oneObject) appendJSON(b []byte) []byte {
	return o.r.appendPageRow(b, o.page, 0)
}
