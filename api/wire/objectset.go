package wire

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// Object sets: base, filter, union, intersect, subtract, static and
// searchAround, nested to any depth within the where limits. Each set is
// of one object type and decodes to an engine filter on it, as where
// clauses do; a searchAround is evaluated when it is decoded (by the
// Resolver) and becomes a filter on its target type.

// ObjectRIDPrefix starts the rid of every object this server serves:
// ObjectRIDPrefix + type + "." + the object's DocID.
const ObjectRIDPrefix = "ri.ontoindex.main.object."

// unsupportedSets are ObjectSet kinds ontoindex does not serve.
var unsupportedSets = map[string]string{
	"interfaceLinkSearchAround": "interfaces are not supported",
	"withProperties":            "derived properties are not supported",
	"asType":                    "interfaces are not supported",
	"asBaseObjectTypes":         "interfaces are not supported",
	"interfaceBase":             "interfaces are not supported",
	"methodInput":               "method inputs are not supported",
	"nearestNeighbors":          "vector search is not supported: ontoindex has no vector properties",
}

type rawSet struct {
	Type       string            `json:"type"`
	ObjectType string            `json:"objectType"`
	ObjectSet  json.RawMessage   `json:"objectSet"`
	Where      json.RawMessage   `json:"where"`
	ObjectSets []json.RawMessage `json:"objectSets"`
	Objects    []string          `json:"objects"`
	Link       string            `json:"link"`
	Reference  string            `json:"reference"`
}

// Resolver gives an object set decoder what it cannot know alone.
type Resolver interface {
	// Type is the object type name, for the request: an error for a type
	// that does not exist, that the principal may not see, or that was
	// never built.
	Type(name string) (*objects.Type, error)
	// SearchAround follows link from the objects f matches in type typ:
	// the filter on the link's target type that matches the objects
	// linked to them, and that type.
	SearchAround(f *query.Filter, typ, link string) (*query.Filter, string, error)
	// Reference is the definition of the stored object set rid names
	// (objectSets/createTemporary); it is decoded as if sent in its place.
	Reference(rid string) (json.RawMessage, error)
}

// SetDecoder decodes object sets. The nodes of an object set and of its
// where clauses share Where's depth and clause budget.
type SetDecoder struct {
	Resolver Resolver
	Where    *WhereDecoder
}

// BadSet is the MalformedObjectSet error of reason.
func BadSet(reason string) *Error {
	return Err(NameMalformedObjectSet, map[string]any{"reason": reason})
}

// sameType checks that the typed kids of a set operation are of one type.
func sameType(a, b string) (string, error) {
	switch {
	case a == "":
		return b, nil
	case b == "" || a == b:
		return a, nil
	}
	return "", Err(NameUnsupportedObjectSet, map[string]any{"reason": fmt.Sprintf("object sets of more than one object type (%s, %s) are not supported", a, b)})
}

// Decode returns the filter of an object set nested at depth (the top is
// 1) and its object type; an empty static set has none ("").
func (d *SetDecoder) Decode(raw json.RawMessage, depth int) (f *query.Filter, typ string, err error) {
	if depth > d.Where.MaxDepth {
		return nil, "", Err(NameWhereClauseTooComplex, map[string]any{"maxDepth": d.Where.MaxDepth, "reason": fmt.Sprintf("nested deeper than %d levels", d.Where.MaxDepth)})
	}
	if err := d.Where.Count(1); err != nil {
		return nil, "", err
	}
	head, ok := JSONObject(raw)
	if !ok {
		return nil, "", BadSet("an object set must be a JSON object with a type")
	}
	kind, ok := JSONString(head.Get("type"))
	if !ok || kind == "" {
		return nil, "", BadSet("an object set needs a string type")
	}
	if reason, ok := unsupportedSets[kind]; ok {
		return nil, "", Err(NameUnsupportedObjectSet, map[string]any{"objectSetType": kind, "reason": reason})
	}
	rs, err := setOf(head)
	if err != nil {
		return nil, "", BadSet(kind + ": " + err.Error())
	}
	switch kind {
	case "base":
		if rs.ObjectType == "" {
			return nil, "", BadSet("base needs objectType")
		}
		if _, err := d.Resolver.Type(rs.ObjectType); err != nil {
			return nil, "", err
		}
		return &query.Filter{Op: query.OpAll}, rs.ObjectType, nil
	case "filter":
		if IsNull(rs.ObjectSet) || IsNull(rs.Where) {
			return nil, "", BadSet("filter needs objectSet and where")
		}
		inner, typ, err := d.Decode(rs.ObjectSet, depth+1)
		if err != nil || typ == "" {
			return inner, "", err // filtering an empty set
		}
		if d.Where.T, err = d.Resolver.Type(typ); err != nil {
			return nil, "", err
		}
		w, err := d.Where.Decode(rs.Where, depth+1)
		if err != nil {
			return nil, "", err
		}
		return query.And(inner, w), typ, nil
	case "union", "intersect", "subtract":
		if len(rs.ObjectSets) == 0 {
			return nil, "", BadSet(kind + " needs objectSets")
		}
		var kids []*query.Filter
		for _, k := range rs.ObjectSets {
			kc, kt, err := d.Decode(k, depth+1)
			if err != nil {
				return nil, "", err
			}
			if typ, err = sameType(typ, kt); err != nil {
				return nil, "", err
			}
			kids = append(kids, kc)
		}
		switch kind {
		case "union":
			return query.Or(kids...), typ, nil
		case "intersect":
			return query.And(kids...), typ, nil
		}
		if len(kids) == 1 {
			return kids[0], typ, nil
		}
		return query.And(kids[0], query.Not(query.Or(kids[1:]...))), typ, nil
	case "static":
		if err := d.Where.Count(len(rs.Objects)); err != nil {
			return nil, "", err
		}
		if len(rs.Objects) == 0 {
			return &query.Filter{Op: query.OpNone}, "", nil
		}
		f := &query.Filter{Op: query.OpKeys}
		for _, rid := range rs.Objects {
			typeName, key, ok := ParseObjectRID(rid)
			if !ok {
				return nil, "", BadSet(fmt.Sprintf("%q is not an object rid of this server (%s<objectType>.<id>)", Truncate(rid), ObjectRIDPrefix))
			}
			if _, err := d.Resolver.Type(typeName); err != nil {
				return nil, "", err
			}
			if typ, err = sameType(typ, typeName); err != nil {
				return nil, "", err
			}
			f.Keys = append(f.Keys, key)
		}
		return f, typ, nil
	case "searchAround":
		if IsNull(rs.ObjectSet) || rs.Link == "" {
			return nil, "", BadSet("searchAround needs objectSet and link")
		}
		inner, typ, err := d.Decode(rs.ObjectSet, depth+1)
		if err != nil || typ == "" {
			return inner, "", err // around an empty set
		}
		return d.Resolver.SearchAround(inner, typ, rs.Link)
	case "reference":
		if rs.Reference == "" {
			return nil, "", BadSet("reference needs reference")
		}
		raw, err := d.Resolver.Reference(rs.Reference)
		if err != nil {
			return nil, "", err
		}
		return d.Decode(raw, depth+1)
	}
	return nil, "", BadSet(fmt.Sprintf("unknown object set type %q", kind))
}

// setOf reads the keys of an object set from its fields, refusing keys no
// object set type has.
func setOf(head Fields) (rawSet, error) {
	var rs rawSet
	for _, kv := range head {
		k, v := kv.Key, kv.Val
		null := IsNull(v)
		var err error
		ok := true
		switch k {
		case "type":
		case "objectType":
			if !null {
				rs.ObjectType, ok = JSONString(v)
			}
		case "objectSet":
			rs.ObjectSet = v
		case "where":
			rs.Where = v
		case "objectSets":
			if !null {
				rs.ObjectSets, ok = JSONArray(v)
			}
		case "objects":
			if !null {
				err = json.Unmarshal(v, &rs.Objects)
			}
		case "link":
			if !null {
				rs.Link, ok = JSONString(v)
			}
		case "reference":
			if !null {
				rs.Reference, ok = JSONString(v)
			}
		default:
			return rs, fmt.Errorf("json: unknown field %q", k)
		}
		if err != nil || !ok {
			return rs, fmt.Errorf("field %s must be %s, not %s", k, setFieldKind[k], JSONKind(v))
		}
	}
	return rs, nil
}

var setFieldKind = map[string]string{"objectType": "a string", "objectSets": "an array of object sets", "objects": "an array of strings", "link": "a string", "reference": "a string"}

// ParseObjectRID splits an object rid into its type and encoded key.
func ParseObjectRID(rid string) (typeName string, key []byte, ok bool) {
	rest, ok := strings.CutPrefix(rid, ObjectRIDPrefix)
	if !ok {
		return "", nil, false
	}
	typeName, docID, ok := strings.Cut(rest, ".")
	if !ok || typeName == "" || docID == "" {
		return "", nil, false
	}
	key, err := objects.KeyFromDocID(docID)
	if err != nil || len(key) == 0 || objects.DocID(key) != docID {
		return "", nil, false
	}
	return typeName, key, true
}
