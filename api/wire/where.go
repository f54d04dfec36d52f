package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// A where clause (SearchJsonQueryV2) is decoded into the engine's filter
// (package query): Where checks its shape, resolves properties,
// parses values into their typed form and enforces the depth and clause
// limits. Every failure is an *Error with a 4xx status; the engine plans
// and runs what it accepts.

// Query types on the wire.
const (
	opEq            = "eq"
	opGt            = "gt"
	opGte           = "gte"
	opLt            = "lt"
	opLte           = "lte"
	opIsNull        = "isNull"
	opIn            = "in"
	opAnd           = "and"
	opOr            = "or"
	opNot           = "not"
	opContains      = "contains"
	opStartsWith    = "startsWith"
	opAllTerms      = "containsAllTerms"
	opAnyTerm       = "containsAnyTerm"
	opInOrder       = "containsAllTermsInOrder"
	opInOrderPrefix = "containsAllTermsInOrderPrefixLastTerm"
	opWildcard      = "wildcard"
	opRegex         = "regex"
)

// wireOps maps the query types on the wire to the engine's operators.
var wireOps = map[string]query.Op{
	opEq: query.OpEq, opGt: query.OpGt, opGte: query.OpGte, opLt: query.OpLt, opLte: query.OpLte,
	opIsNull: query.OpIsNull, opIn: query.OpIn, opAnd: query.OpAnd, opOr: query.OpOr, opNot: query.OpNot,
	opContains: query.OpContains, opStartsWith: query.OpStartsWith, opAllTerms: query.OpAllTerms,
	opAnyTerm: query.OpAnyTerm, opInOrder: query.OpPhrase, opInOrderPrefix: query.OpPhrasePrefix,
	opWildcard: query.OpWildcard, opRegex: query.OpRegex,
}

// unsupportedQueries are SearchJsonQueryV2 types ontoindex does not
// serve, with the reason the client gets.
var unsupportedQueries = map[string]string{
	"geoShapeV2":       "geoShapeV2 is not supported: use withinBoundingBox, withinPolygon, withinDistanceOf, intersectsBoundingBox or intersectsPolygon",
	"nearestNeighbors": "vector queries are not supported: ontoindex has no vector properties",
	"knn":              "vector queries are not supported: ontoindex has no vector properties",
}

// rawWhere is the union of the keys a supported query type may have.
type rawWhere struct {
	Type               string          `json:"type"`
	Field              *string         `json:"field"`
	PropertyIdentifier json.RawMessage `json:"propertyIdentifier"`
	Value              json.RawMessage `json:"value"`
	Fuzzy              *bool           `json:"fuzzy"`
	// relativeDateRange (where_relative.go)
	RelativeStart, RelativeEnd, TimeZoneID json.RawMessage
}

// WhereDecoder decodes the where clauses of one request against the
// limits they share: an object set's where clauses and nodes count
// against one budget.
type WhereDecoder struct {
	T          *objects.Type // the type the clauses filter
	MaxDepth   int
	MaxClauses int
	// Now is the clock relativeDateRange counts from (nil: time.Now).
	Now     func() time.Time
	clauses int
	// resolved, when set, collects the properties the clauses name: what
	// a decode read of T (sharedWhere).
	resolved *[]objects.Property
}

// Where decodes a where clause of type t; an absent or null clause
// is nil (every object).
func Where(t *objects.Type, raw json.RawMessage, maxDepth, maxClauses int) (*query.Filter, error) {
	if IsNull(raw) {
		return nil, nil
	}
	d := &WhereDecoder{T: t, MaxDepth: maxDepth, MaxClauses: maxClauses}
	return d.Decode(raw, 1)
}

func IsNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}

func Malformed(what, reason string) *Error {
	return Err(NameMalformedPropertyFilters, map[string]any{"malformedPropertyFilter": what, "reason": reason})
}

// Count charges n clauses against the limit.
func (d *WhereDecoder) Count(n int) error {
	d.clauses += n
	if d.clauses > d.MaxClauses {
		return Err(NameWhereClauseTooComplex, map[string]any{"maxClauses": d.MaxClauses, "reason": fmt.Sprintf("more than %d clauses and values", d.MaxClauses)})
	}
	return nil
}

// Decode decodes a where clause nested at depth (the top is 1).
func (d *WhereDecoder) Decode(raw json.RawMessage, depth int) (*query.Filter, error) {
	if depth > d.MaxDepth {
		return nil, Err(NameWhereClauseTooComplex, map[string]any{"maxDepth": d.MaxDepth, "reason": fmt.Sprintf("nested deeper than %d levels", d.MaxDepth)})
	}
	if err := d.Count(1); err != nil {
		return nil, err
	}
	head, ok := JSONObject(raw)
	if !ok {
		return nil, Malformed("where", "a query must be a JSON object with a type")
	}
	typ, ok := JSONString(head.Get("type"))
	if !ok || typ == "" {
		return nil, Malformed("where", "a query needs a string type")
	}
	if reason, ok := unsupportedQueries[typ]; ok {
		return nil, Err(NamePropertyFiltersNotSupported, map[string]any{"propertyFilters": typ, "property": fieldOf(head), "reason": reason})
	}
	if typ == opInterval {
		return d.interval(head, depth)
	}
	if _, ok := geoQueries[typ]; ok {
		return d.geo(typ, head)
	}
	q, err := whereOf(head)
	if err != nil {
		return nil, Malformed(typ, err.Error())
	}
	if err := relativeKeysOutside(typ, q); err != nil {
		return nil, err
	}
	switch typ {
	case opRelativeDateRange:
		return d.relativeDateRange(q)
	case opAnd, opOr:
		if q.Field != nil || q.PropertyIdentifier != nil || q.Fuzzy != nil {
			return nil, Malformed(typ, typ+" takes only value, a list of queries")
		}
		kids, ok := JSONArray(q.Value)
		if !ok {
			return nil, Malformed(typ, typ+" needs value: a list of queries")
		}
		f := &query.Filter{Op: wireOps[typ]}
		for _, k := range kids {
			kf, err := d.Decode(k, depth+1)
			if err != nil {
				return nil, err
			}
			f.Kids = append(f.Kids, kf)
		}
		return f, nil
	case opNot:
		if q.Field != nil || q.PropertyIdentifier != nil || q.Fuzzy != nil {
			return nil, Malformed(typ, "not takes only value, a query")
		}
		if IsNull(q.Value) {
			return nil, Malformed(typ, "not needs value: a query")
		}
		kf, err := d.Decode(q.Value, depth+1)
		if err != nil {
			return nil, err
		}
		return query.Not(kf), nil
	case opEq, opGt, opGte, opLt, opLte, opIsNull, opIn, opContains, opStartsWith, opAllTerms, opAnyTerm,
		opInOrder, opInOrderPrefix, opWildcard, opRegex:
	default:
		return nil, Malformed(typ, fmt.Sprintf("unknown query type %q", typ))
	}
	if q.Fuzzy != nil && typ != opAllTerms && typ != opAnyTerm {
		return nil, Malformed(typ, "fuzzy applies to containsAllTerms and containsAnyTerm only")
	}
	p, err := d.property(typ, q)
	if err != nil {
		return nil, err
	}
	if IsNull(q.Value) {
		if typ == opIsNull {
			// isNull's value is not optional in Foundry either: say
			// what it means rather than guess.
			return nil, Malformed(typ, fmt.Sprintf("isNull needs value: true (objects whose %s is null) or false (objects whose %s is not null)", p.APIName, p.APIName))
		}
		return nil, Malformed(typ, typ+" needs a value (use isNull for nulls)")
	}
	f := &query.Filter{Op: wireOps[typ], Property: p.APIName}
	if typ != opIsNull && p.Type.Kind == objects.KindStruct {
		return nil, Err(NamePropertiesNotSearchable, map[string]any{"propertyApiNames": []string{p.APIName},
			"reason": fmt.Sprintf("property %s is a struct: filter on its fields (propertyIdentifier of type structField), or with isNull", p.APIName)})
	}
	if typ != opIsNull && !p.Searchable() {
		return nil, Err(NamePropertiesNotSearchable, map[string]any{"propertyApiNames": []string{p.APIName},
			"reason": fmt.Sprintf("property %s has search role none", p.APIName)})
	}
	switch typ {
	case opIsNull:
		var b bool
		if err := json.Unmarshal(q.Value, &b); err != nil {
			return nil, filterValueErr(p, typ, q.Value, "boolean")
		}
		f.Value = b
	case opEq:
		if f.Value, err = ParseValue(p, typ, q.Value); err != nil {
			return nil, err
		}
	case opContains:
		if p.Type.Kind != objects.KindList {
			return nil, notSupported(typ, p, "contains applies to array properties; use eq")
		}
		if f.Value, err = ParseValue(p, typ, q.Value); err != nil {
			return nil, err
		}
	case opGt, opGte, opLt, opLte:
		if p.Search == objects.SearchBoolean {
			return nil, Err(NameInvalidRangeQuery, map[string]any{typ: string(q.Value), "field": p.APIName,
				"reason": fmt.Sprintf("property %s is boolean and has no order", p.APIName)})
		}
		if f.Value, err = ParseValue(p, typ, q.Value); err != nil {
			return nil, err
		}
	case opIn:
		vals, ok := JSONArray(q.Value)
		if !ok {
			return nil, filterValueErr(p, typ, q.Value, "array of "+p.Type.Primitive().String())
		}
		if err := d.Count(len(vals)); err != nil {
			return nil, err
		}
		for _, rv := range vals {
			v, err := ParseValue(p, typ, rv)
			if err != nil {
				return nil, err
			}
			f.Values = append(f.Values, v)
		}
	default: // text queries
		if f.Text, ok = JSONString(q.Value); !ok {
			return nil, filterValueErr(p, typ, q.Value, "string")
		}
		if q.Fuzzy != nil {
			f.Fuzzy = *q.Fuzzy
		}
		if err := checkTextQuery(typ, p, f); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// whereOf reads the keys of a query from its fields, refusing keys no
// query type has.
func whereOf(head Fields) (rawWhere, error) {
	var q rawWhere
	for _, kv := range head {
		k, v := kv.Key, kv.Val
		null := IsNull(v)
		switch k {
		case "type":
		case "field":
			if !null {
				f, ok := JSONString(v)
				if !ok {
					return q, fmt.Errorf("field field must be a string, not %s", JSONKind(v))
				}
				q.Field = &f
			}
		case "propertyIdentifier":
			if !null {
				q.PropertyIdentifier = v
			}
		case "value":
			q.Value = v
		case "relativeStartTime":
			if !null {
				q.RelativeStart = v
			}
		case "relativeEndTime":
			if !null {
				q.RelativeEnd = v
			}
		case "timeZoneId":
			if !null {
				q.TimeZoneID = v
			}
		case "fuzzy":
			if !null {
				var b bool
				if err := json.Unmarshal(v, &b); err != nil {
					return q, fmt.Errorf("field fuzzy must be a boolean, not %s", JSONKind(v))
				}
				q.Fuzzy = &b
			}
		default:
			return q, fmt.Errorf("json: unknown field %q", k)
		}
	}
	return q, nil
}

// JSONKind names the JSON kind of a value for messages.
func JSONKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}

// fieldOf names the property of an undecoded query, for error messages.
func fieldOf(head Fields) string {
	if f, ok := JSONString(head.Get("field")); ok {
		return f
	}
	var pi struct {
		APIName string `json:"apiName"`
	}
	if err := json.Unmarshal(head.Get("propertyIdentifier"), &pi); err == nil {
		return pi.APIName
	}
	return ""
}

// property resolves field or propertyIdentifier (exactly one).
func (d *WhereDecoder) property(typ string, q rawWhere) (objects.Property, error) {
	var name string
	switch {
	case q.Field != nil && q.PropertyIdentifier != nil:
		return objects.Property{}, Malformed(typ, "give either field or propertyIdentifier, not both")
	case q.Field != nil:
		name = *q.Field
	case q.PropertyIdentifier != nil:
		n, err := DecodePropertyIdentifier(typ, q.PropertyIdentifier)
		if err != nil {
			return objects.Property{}, err
		}
		name = n
	default:
		return objects.Property{}, Malformed(typ, typ+" needs field or propertyIdentifier")
	}
	p, err := LookupProperty(d.T, name)
	if err == nil && d.resolved != nil {
		*d.resolved = append(*d.resolved, p)
	}
	return p, err
}

// DecodePropertyIdentifier reads a PropertyIdentifier: a property, or a
// struct field, named by its hidden property (objects/struct.go); a load
// level wrapper is unwrapped.
func DecodePropertyIdentifier(typ string, raw json.RawMessage) (string, error) {
	for range 4 {
		var pi struct {
			Type               string          `json:"type"`
			APIName            string          `json:"apiName"`
			PropertyIdentifier json.RawMessage `json:"propertyIdentifier"`
			PropertyAPIName    string          `json:"propertyApiName"`
			StructFieldAPIName string          `json:"structFieldApiName"`
			LoadLevel          json.RawMessage `json:"loadLevel"`
		}
		if err := json.Unmarshal(raw, &pi); err != nil {
			return "", Malformed(typ, "propertyIdentifier must be an object with type and apiName")
		}
		switch pi.Type {
		case "property":
			if pi.APIName == "" {
				return "", Malformed(typ, "propertyIdentifier of type property needs apiName")
			}
			return pi.APIName, nil
		case "propertyWithLoadLevel":
			raw = pi.PropertyIdentifier
			continue
		case "structField":
			if pi.PropertyAPIName == "" || pi.StructFieldAPIName == "" {
				return "", Malformed(typ, "propertyIdentifier of type structField needs propertyApiName and structFieldApiName")
			}
			return objects.FieldPropertyName(pi.PropertyAPIName, pi.StructFieldAPIName), nil // the field's hidden property
		}
		return "", Malformed(typ, fmt.Sprintf("unknown propertyIdentifier type %q", pi.Type))
	}
	return "", Malformed(typ, "propertyIdentifier nested too deeply")
}

func LookupProperty(t *objects.Type, name string) (objects.Property, error) {
	p, ok := t.Property(name)
	if !ok {
		return objects.Property{}, PropertiesNotFound(t, []string{name})
	}
	return p, nil
}
