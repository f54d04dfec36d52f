package wire

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// Derived properties (withProperties) decode to a Derived carried by the
// set: each definition with its result type, and the where clauses that
// name derived properties (the engine cannot evaluate them; the api
// does, per request, over the same views). Definitions are trees: a
// selection reads a chain of links from the set's objects (the
// "methodInput") and aggregates or gets a property of the linked objects;
// the other kinds compute from properties and other definitions.

// DerivedKind names a kind of definition.
const (
	DerivedSelection = "selection"
	DerivedProperty  = "property"
	DerivedAdd       = "add"
	DerivedSubtract  = "subtract"
	DerivedMultiply  = "multiply"
	DerivedDivide    = "divide"
	DerivedNegate    = "negate"
	DerivedAbsolute  = "absoluteValue"
	DerivedLeast     = "least"
	DerivedGreatest  = "greatest"
	DerivedExtract   = "extract"
)

// Derived is the derived properties of a set of one object type.
type Derived struct {
	// Props are the definitions, in the order they were declared.
	Props []*DerivedDef
	// Type is the set's object type with one property per definition
	// appended: where clauses, select and orderBy read it.
	Type *objects.Type
	// Where are clauses naming derived properties, all of which hold.
	Where []*query.Filter
}

// Names are the apiNames of the derived properties.
func (d *Derived) Names() map[string]bool {
	out := map[string]bool{}
	for _, p := range d.Props {
		out[p.Name] = true
	}
	return out
}

// DerivedDef is one definition (or an operand of one).
type DerivedDef struct {
	Name string // of the derived property; "" for an operand
	Kind string
	Type objects.DataType // of the value
	// Property is the property a property alias reads, or the property of
	// the linked objects a selection reads ("" for count).
	Property string
	// Hops are the links a selection follows, from the set's objects.
	Hops []DerivedHop
	// Op is a selection's operation: count, sum, avg, min, max,
	// exactDistinct, approximateDistinct, approximatePercentile,
	// collectList, collectSet or get; Limit bounds the collections;
	// Percentile is in [0, 1].
	Op         string
	Limit      int
	Percentile float64
	// Kids are the operands (subtract and divide: left, right).
	Kids []*DerivedDef
	// Part is the date part extract reads: DAYS, MONTHS, QUARTERS, YEARS.
	Part string
}

// DerivedHop is one link of a selection, and the filter on the objects
// it reaches (nil: all).
type DerivedHop struct {
	From, Link, To string
	Filter         *query.Filter
}

// LinkInfo is what a derived property needs of a link: its target type
// and whether each source object links to at most one.
type LinkInfo struct {
	Target string
	One    bool
}

// badDerived is the error of a definition: it names the derived property
// and the field at fault.
func badDerived(name, field, reason string) *Error {
	return Err(NameMalformedObjectSet, map[string]any{"derivedProperty": name, "field": field,
		"reason": fmt.Sprintf("derived property %s: %s: %s", name, field, reason)})
}

// withProperties decodes derivedProperties over a set of one object type.
func (d *SetDecoder) withProperties(in *Set, raw json.RawMessage, depth int) (*Set, error) {
	if in.Empty() {
		return in, nil
	}
	if len(in.Types) != 1 || in.Interface != "" {
		return nil, BadSet("withProperties needs a set of one object type")
	}
	typ := in.Types[0]
	base, err := d.Resolver.Type(typ)
	if err != nil {
		return nil, err
	}
	out := &Set{Types: in.Types, Filters: in.Filters, Derived: &Derived{Type: base}}
	if in.Derived != nil {
		out.Derived.Props = slices.Clone(in.Derived.Props)
		out.Derived.Where = slices.Clone(in.Derived.Where)
		out.Derived.Type = in.Derived.Type
	}
	fields, ok := JSONObject(raw)
	if !ok || len(fields) == 0 {
		return nil, BadSet("withProperties needs derivedProperties: an object of derived property definitions")
	}
	known := out.Derived.Type
	var added []objects.Property
	for _, f := range fields {
		if _, clash := known.Property(f.Key); clash || f.Key == "" {
			return nil, badDerived(f.Key, "derivedProperties", "the name is taken by a property of "+typ)
		}
		def, err := d.derivedDef(f.Key, "derivedProperties."+f.Key, known, f.Val, depth+1)
		if err != nil {
			return nil, err
		}
		def.Name = f.Key
		out.Derived.Props = append(out.Derived.Props, def)
		added = append(added, objects.Property{APIName: f.Key, Type: def.Type, Search: searchRoleOf(def.Type)})
	}
	ext := *known
	ext.Properties = append(slices.Clip(known.Properties), added...)
	out.Derived.Type = objects.NewType(ext)
	return out, nil
}

// searchRoleOf is the search role a derived property of type t plays in
// where clauses and orderBy.
func searchRoleOf(t objects.DataType) objects.SearchRole {
	switch {
	case t.Kind == objects.KindList:
		return objects.SearchKeyword
	case t.Kind == objects.KindBoolean:
		return objects.SearchBoolean
	case t.Kind.DateLike():
		return objects.SearchDate
	case numeric(t.Kind):
		return objects.SearchNumeric
	}
	return objects.SearchKeyword
}

func numeric(k objects.Kind) bool {
	switch k {
	case objects.KindInteger, objects.KindLong, objects.KindFloat, objects.KindDouble, objects.KindDecimal:
		return true
	}
	return false
}

// derivedDef decodes one definition at field path of derived property
// name, over the properties of t.
func (d *SetDecoder) derivedDef(name, path string, t *objects.Type, raw json.RawMessage, depth int) (*DerivedDef, error) {
	if depth > d.Where.MaxDepth {
		return nil, badDerived(name, path, fmt.Sprintf("nested deeper than %d levels", d.Where.MaxDepth))
	}
	if err := d.Where.Count(1); err != nil {
		return nil, err
	}
	head, ok := JSONObject(raw)
	if !ok {
		return nil, badDerived(name, path, "a definition must be a JSON object with a type")
	}
	kind, _ := JSONString(head.Get("type"))
	def := &DerivedDef{Kind: kind}
	switch kind {
	case DerivedProperty:
		p, ok := JSONString(head.Get("apiName"))
		if !ok || p == "" {
			return nil, badDerived(name, path+".apiName", "property needs apiName")
		}
		prop, ok := t.Property(p)
		if !ok {
			return nil, badDerived(name, path+".apiName", fmt.Sprintf("%s has no property %s", t.APIName, p))
		}
		def.Property, def.Type = p, prop.Type
		return def, nil
	case DerivedSelection:
		return d.selection(name, path, t, head, depth)
	case DerivedAdd, DerivedMultiply, DerivedLeast, DerivedGreatest:
		items, ok := JSONArray(head.Get("properties"))
		if !ok || len(items) < 2 {
			return nil, badDerived(name, path+".properties", kind+" needs properties: an array of two or more definitions")
		}
		for i, it := range items {
			k, err := d.derivedDef(name, fmt.Sprintf("%s.properties[%d]", path, i), t, it, depth+1)
			if err != nil {
				return nil, err
			}
			def.Kids = append(def.Kids, k)
		}
	case DerivedSubtract, DerivedDivide:
		for _, side := range []string{"left", "right"} {
			if IsNull(head.Get(side)) {
				return nil, badDerived(name, path+"."+side, kind+" needs left and right")
			}
			k, err := d.derivedDef(name, path+"."+side, t, head.Get(side), depth+1)
			if err != nil {
				return nil, err
			}
			def.Kids = append(def.Kids, k)
		}
	case DerivedNegate, DerivedAbsolute, DerivedExtract:
		if IsNull(head.Get("property")) {
			return nil, badDerived(name, path+".property", kind+" needs property")
		}
		k, err := d.derivedDef(name, path+".property", t, head.Get("property"), depth+1)
		if err != nil {
			return nil, err
		}
		def.Kids = []*DerivedDef{k}
	default:
		return nil, badDerived(name, path+".type", fmt.Sprintf("unknown derived property type %q", kind))
	}
	return def, typeDerived(name, path, def, head)
}

// typeDerived checks the operands of an expression and gives it its type.
func typeDerived(name, path string, def *DerivedDef, head Fields) error {
	if def.Kind == DerivedExtract {
		part, _ := JSONString(head.Get("part"))
		switch part {
		case "DAYS", "MONTHS", "QUARTERS", "YEARS":
		default:
			return badDerived(name, path+".part", fmt.Sprintf("part must be DAYS, MONTHS, QUARTERS or YEARS, not %s", Truncate(string(head.Get("part")))))
		}
		if k := def.Kids[0].Type.Kind; !k.DateLike() {
			return badDerived(name, path+".property", fmt.Sprintf("extract reads a date or timestamp, not %s", def.Kids[0].Type))
		}
		def.Part, def.Type = part, objects.DataType{Kind: objects.KindInteger}
		return nil
	}
	temporal := def.Kind == DerivedLeast || def.Kind == DerivedGreatest
	result := objects.KindInteger
	for i, k := range def.Kids {
		kk := k.Type.Kind
		switch {
		case temporal && kk.DateLike():
			if i > 0 && kk != result {
				return badDerived(name, path, fmt.Sprintf("%s compares values of one type, not %s and %s", def.Kind, def.Kids[0].Type, k.Type))
			}
			result = kk
			continue
		case !numeric(kk):
			return badDerived(name, path, fmt.Sprintf("%s reads numbers, not %s", def.Kind, k.Type))
		}
		if i > 0 && result.DateLike() {
			return badDerived(name, path, fmt.Sprintf("%s compares values of one type, not %s and %s", def.Kind, def.Kids[0].Type, k.Type))
		}
		result = widerNumber(result, kk)
	}
	if def.Kind == DerivedDivide {
		result = objects.KindDouble
	}
	def.Type = objects.DataType{Kind: result}
	return nil
}

// widerNumber is the kind an arithmetic result of a and b takes.
func widerNumber(a, b objects.Kind) objects.Kind {
	switch {
	case a == objects.KindFloat || a == objects.KindDouble || a == objects.KindDecimal,
		b == objects.KindFloat || b == objects.KindDouble || b == objects.KindDecimal: // decimals compute as doubles
		return objects.KindDouble
	case a == objects.KindLong || b == objects.KindLong:
		return objects.KindLong
	}
	return objects.KindInteger
}

// derivedFilter narrows a set with derived properties by a where clause:
// a clause on stored properties only goes to the engine's filter, one
// that names a derived property to Derived.Where.
func (d *SetDecoder) derivedFilter(in *Set, where json.RawMessage, depth int) (*Set, error) {
	typ := in.Types[0]
	d.Where.T = in.Derived.Type
	w, err := d.Where.Decode(where, depth)
	if err != nil {
		return nil, err
	}
	out := &Set{Types: in.Types, Filters: map[string]*query.Filter{}, Derived: &Derived{Props: in.Derived.Props, Type: in.Derived.Type, Where: slices.Clone(in.Derived.Where)}}
	if w == nil {
		out.Filters[typ] = in.Filters[typ]
		return out, nil
	}
	if namesAny(w, in.Derived.Names()) {
		out.Filters[typ] = in.Filters[typ]
		out.Derived.Where = append(out.Derived.Where, w)
		return out, nil
	}
	out.Filters[typ] = query.And(in.Filters[typ], w)
	return out, nil
}

// namesAny reports whether f reads one of names.
func namesAny(f *query.Filter, names map[string]bool) bool {
	if f == nil {
		return false
	}
	if names[f.Property] {
		return true
	}
	for _, k := range f.Kids {
		if namesAny(k, names) {
			return true
		}
	}
	return false
}
