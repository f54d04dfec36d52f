package wire

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// Object sets: base, interfaceBase, filter, union, intersect, subtract,
// static, searchAround, asType, asBaseObjectTypes and
// interfaceLinkSearchAround, nested to any depth within the where limits.
// A set decodes to a Set: a filter on each object type it reads, as where
// clauses decode to filters; searchArounds are evaluated when they are
// decoded (by the Resolver) and become filters on their target types.

// ObjectRIDPrefix starts the rid of every object this server serves:
// ObjectRIDPrefix + type + "." + the object's DocID.
const ObjectRIDPrefix = "ri.ontoindex.main.object."

// unsupportedSets are ObjectSet kinds ontoindex does not serve.
var unsupportedSets = map[string]string{
	"methodInput": "method inputs are not supported",
}

type rawSet struct {
	Type          string            `json:"type"`
	ObjectType    string            `json:"objectType"`
	InterfaceType string            `json:"interfaceType"`
	EntityType    string            `json:"entityType"`
	ObjectSet     json.RawMessage   `json:"objectSet"`
	Where         json.RawMessage   `json:"where"`
	ObjectSets    []json.RawMessage `json:"objectSets"`
	Objects       []string          `json:"objects"`
	Link          string            `json:"link"`
	InterfaceLink string            `json:"interfaceLink"`
	Reference     string            `json:"reference"`
	Derived       json.RawMessage   `json:"derivedProperties"`
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
	// Implementers are the object types that implement an interface and
	// that the principal may see, in config order: an error for an
	// interface that does not exist or of which the principal sees none.
	Implementers(iface string) ([]string, error)
	// IsInterface reports whether name is an interface (else it is read as
	// an object type).
	IsInterface(name string) bool
	// InterfaceView is object type typ seen through interface iface: a
	// type whose properties are the interface's, each with the data type
	// and search role of the property that implements it, and the map
	// from interface property to property of typ.
	InterfaceView(iface, typ string) (*objects.Type, map[string]string, error)
	// InterfaceLink is the link type of typ that implements interface link
	// link of iface (ok is false when typ does not map it), and the
	// interface the link leads to ("" when it leads to an object type): an
	// error when iface has no such link.
	InterfaceLink(iface, typ, link string) (typeLink, targetInterface string, ok bool, err error)
	// Link is link of object type typ, for derived properties: an error
	// when typ has no such link or it cannot be followed.
	Link(typ, link string) (LinkInfo, error)
	// NearestNeighbors returns the k objects of type typ nearest q by a
	// vector property among those f matches, nearest first: their encoded
	// keys and scores.
	NearestNeighbors(typ string, f *query.Filter, property string, q []float32, k int) (keys [][]byte, scores []float64, err error)
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

// Decode returns the set of an object set nested at depth (the top is 1).
func (d *SetDecoder) Decode(raw json.RawMessage, depth int) (*Set, error) {
	if err := d.node(depth); err != nil {
		return nil, err
	}
	head, ok := JSONObject(raw)
	if !ok {
		return nil, BadSet("an object set must be a JSON object with a type")
	}
	kind, ok := JSONString(head.Get("type"))
	if !ok || kind == "" {
		return nil, BadSet("an object set needs a string type")
	}
	if reason, ok := unsupportedSets[kind]; ok {
		return nil, Err(NameUnsupportedObjectSet, map[string]any{"objectSetType": kind, "reason": reason})
	}
	if kind == "nearestNeighbors" { // its own fields (objectset_nearest.go)
		return d.nearestNeighbors(raw, depth)
	}
	rs, err := setOf(head)
	if err != nil {
		return nil, BadSet(kind + ": " + err.Error())
	}
	switch kind {
	case "base":
		if rs.ObjectType == "" {
			return nil, BadSet("base needs objectType")
		}
		if _, err := d.Resolver.Type(rs.ObjectType); err != nil {
			return nil, err
		}
		return singleSet(rs.ObjectType, &query.Filter{Op: query.OpAll}), nil
	case "interfaceBase":
		if rs.InterfaceType == "" {
			return nil, BadSet("interfaceBase needs interfaceType")
		}
		return d.interfaceBase(rs.InterfaceType)
	case "filter":
		if IsNull(rs.ObjectSet) || IsNull(rs.Where) {
			return nil, BadSet("filter needs objectSet and where")
		}
		inner, err := d.Decode(rs.ObjectSet, depth+1)
		if err != nil {
			return nil, err
		}
		if inner.Derived != nil {
			return d.derivedFilter(inner, rs.Where, depth+1)
		}
		return d.filter(inner, rs.Where, depth+1)
	case "withProperties":
		if IsNull(rs.ObjectSet) || IsNull(rs.Derived) {
			return nil, BadSet("withProperties needs objectSet and derivedProperties")
		}
		inner, err := d.Decode(rs.ObjectSet, depth+1)
		if err != nil {
			return nil, err
		}
		return d.withProperties(inner, rs.Derived, depth+1)
	case "union", "intersect", "subtract":
		if len(rs.ObjectSets) == 0 {
			return nil, BadSet(kind + " needs objectSets")
		}
		var kids []*Set
		for _, k := range rs.ObjectSets {
			ks, err := d.Decode(k, depth+1)
			if err != nil {
				return nil, err
			}
			if ks.Derived != nil {
				return nil, BadSet(kind + " of sets with derived properties is not supported: add the derived properties (withProperties) to the " + kind)
			}
			kids = append(kids, ks)
		}
		switch kind {
		case "union":
			return union(kids), nil
		case "intersect":
			return intersect(kids), nil
		}
		return subtract(kids), nil
	case "static":
		return d.static(rs.Objects)
	case "searchAround":
		if IsNull(rs.ObjectSet) || rs.Link == "" {
			return nil, BadSet("searchAround needs objectSet and link")
		}
		inner, err := d.Decode(rs.ObjectSet, depth+1)
		if err != nil {
			return nil, err
		}
		if inner.Derived != nil && len(inner.Derived.Where) > 0 {
			return nil, BadSet("searchAround from a set filtered on derived properties is not supported")
		}
		return d.searchAround(inner, rs.Link)
	case "asType":
		if IsNull(rs.ObjectSet) || rs.EntityType == "" {
			return nil, BadSet("asType needs objectSet and entityType")
		}
		inner, err := d.Decode(rs.ObjectSet, depth+1)
		if err != nil {
			return nil, err
		}
		if inner.Derived != nil && d.Resolver.IsInterface(rs.EntityType) {
			return nil, BadSet("asType of a set with derived properties to an interface is not supported")
		}
		return d.asType(inner, rs.EntityType)
	case "asBaseObjectTypes":
		if IsNull(rs.ObjectSet) {
			return nil, BadSet("asBaseObjectTypes needs objectSet")
		}
		inner, err := d.Decode(rs.ObjectSet, depth+1)
		if err != nil {
			return nil, err
		}
		inner.Interface = ""
		return inner, nil
	case "interfaceLinkSearchAround":
		if IsNull(rs.ObjectSet) || rs.InterfaceLink == "" {
			return nil, BadSet("interfaceLinkSearchAround needs objectSet and interfaceLink")
		}
		inner, err := d.Decode(rs.ObjectSet, depth+1)
		if err != nil {
			return nil, err
		}
		return d.interfaceLinkSearchAround(inner, rs.InterfaceLink)
	case "reference":
		if rs.Reference == "" {
			return nil, BadSet("reference needs reference")
		}
		raw, err := d.Resolver.Reference(rs.Reference)
		if err != nil {
			return nil, err
		}
		return d.Decode(raw, depth+1)
	}
	return nil, BadSet(fmt.Sprintf("unknown object set type %q", kind))
}

// node charges an object set's node at depth against the limits.
func (d *SetDecoder) node(depth int) error {
	if depth > d.Where.MaxDepth {
		return Err(NameWhereClauseTooComplex, map[string]any{"maxDepth": d.Where.MaxDepth, "reason": fmt.Sprintf("nested deeper than %d levels", d.Where.MaxDepth)})
	}
	return d.Where.Count(1)
}

// InterfaceSet is the set an interface's own routes read (its search,
// aggregate and list): the interface's base set, filtered by where unless
// where is null. It decodes as Decode decodes
// {"type":"filter","objectSet":{"type":"interfaceBase","interfaceType":iface},"where":where}
// and charges the same limits, without that JSON written and read back.
func (d *SetDecoder) InterfaceSet(iface string, where json.RawMessage) (*Set, error) {
	if iface == "" {
		return nil, BadSet("interfaceBase needs interfaceType")
	}
	if IsNull(where) {
		if err := d.node(1); err != nil {
			return nil, err
		}
		return d.interfaceBase(iface)
	}
	if err := d.node(1); err != nil { // the filter
		return nil, err
	}
	if err := d.node(2); err != nil { // its interfaceBase
		return nil, err
	}
	base, err := d.interfaceBase(iface)
	if err != nil {
		return nil, err
	}
	return d.filter(base, where, 2)
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
		case "interfaceType":
			if !null {
				rs.InterfaceType, ok = JSONString(v)
			}
		case "entityType":
			if !null {
				rs.EntityType, ok = JSONString(v)
			}
		case "interfaceLink":
			if !null {
				rs.InterfaceLink, ok = JSONString(v)
			}
		case "reference":
			if !null {
				rs.Reference, ok = JSONString(v)
			}
		case "includeAllBaseObjectProperties":
			// Every property of the objects is always returned.
			var b bool
			ok = json.Unmarshal(v, &b) == nil
		case "objectSet":
			rs.ObjectSet = v
		case "derivedProperties":
			rs.Derived = v
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
		default:
			return rs, fmt.Errorf("json: unknown field %q", k)
		}
		if err != nil || !ok {
			return rs, fmt.Errorf("field %s must be %s, not %s", k, setFieldKind[k], JSONKind(v))
		}
	}
	return rs, nil
}

var setFieldKind = map[string]string{"objectType": "a string", "interfaceType": "a string", "entityType": "a string", "interfaceLink": "a string", "includeAllBaseObjectProperties": "a boolean", "reference": "a string", "objectSets": "an array of object sets", "objects": "an array of strings", "link": "a string"}

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
