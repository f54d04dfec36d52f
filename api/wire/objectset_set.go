package wire

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ontoindex/ontoindex/indexer/query"
)

// Set is a decoded object set: for each object type it reads, the filter
// of its objects in that type, and the interface it is seen through, if
// any. A set of an object type has one type; a set of an interface has
// the types that implement it; a union may mix types. An empty static set
// has no type.
type Set struct {
	// Types are the object types of the set, in the order the set names
	// them; Filters holds the filter of each.
	Types   []string
	Filters map[string]*query.Filter
	// Interface is the interface the set is seen through ("" for a set of
	// object types): where clauses, select and orderBy name its properties.
	Interface string
	// Derived are the derived properties of a set of one type (nil: none).
	Derived *Derived
}

// singleSet is the set of the objects f matches in typ.
func singleSet(typ string, f *query.Filter) *Set {
	return &Set{Types: []string{typ}, Filters: map[string]*query.Filter{typ: f}}
}

// Empty reports whether the set names no object type.
func (s *Set) Empty() bool { return len(s.Types) == 0 }

// Single returns the type and filter of a set of one object type, seen
// as that type; endpoint names the endpoint that needs one, for the error
// otherwise.
func (s *Set) Single(endpoint string) (string, *query.Filter, error) {
	switch {
	case len(s.Types) == 1 && s.Interface == "":
		return s.Types[0], s.Filters[s.Types[0]], nil
	case s.Interface != "":
		return "", nil, Err(NameUnsupportedObjectSet, map[string]any{"reason": fmt.Sprintf("%s reads one object type; this set is of interface %s: use loadObjectsMultipleObjectTypes, or narrow it with asType", endpoint, s.Interface)})
	}
	return "", nil, Err(NameUnsupportedObjectSet, map[string]any{"reason": fmt.Sprintf("%s reads one object type; this set holds %s: use loadObjectsMultipleObjectTypes", endpoint, strings.Join(s.Types, ", "))})
}

// add ORs f into the set's filter of typ.
func (s *Set) add(typ string, f *query.Filter) {
	if s.Filters == nil {
		s.Filters = map[string]*query.Filter{}
	}
	if have, ok := s.Filters[typ]; ok {
		s.Filters[typ] = query.Or(have, f)
		return
	}
	s.Types = append(s.Types, typ)
	s.Filters[typ] = f
}

// keep narrows the set to the types for which ok holds.
func (s *Set) keep(ok func(typ string) bool) {
	s.Types = slices.DeleteFunc(s.Types, func(t string) bool {
		if ok(t) {
			return false
		}
		delete(s.Filters, t)
		return true
	})
}

// commonInterface is the interface a union of sets is seen through: the
// one every set that has types is seen through, else none.
func commonInterface(kids []*Set) string {
	iface, first := "", true
	for _, k := range kids {
		switch {
		case k.Empty():
		case first:
			iface, first = k.Interface, false
		case k.Interface != iface:
			return ""
		}
	}
	return iface
}

// union is every object of any kid.
func union(kids []*Set) *Set {
	out := &Set{Interface: commonInterface(kids)}
	for _, k := range kids {
		for _, t := range k.Types {
			out.add(t, k.Filters[t])
		}
	}
	return out
}

// typedNone is a set of no object of the types the kids read: what an
// intersection with, or a subtraction from, an empty static set (which
// has no type) is, so that it keeps a type to be read or aggregated as.
func typedNone(kids []*Set) *Set {
	out := &Set{Interface: commonInterface(kids)}
	for _, k := range kids {
		for _, t := range k.Types {
			if _, ok := out.Filters[t]; !ok {
				out.add(t, &query.Filter{Op: query.OpNone})
			}
		}
	}
	return out
}

// intersect is the objects of every kid: of the types all kids read.
// Intersecting with an interface's set narrows to that interface's view.
func intersect(kids []*Set) *Set {
	for _, k := range kids {
		if k.Empty() {
			return typedNone(kids)
		}
	}
	out := &Set{}
	for _, k := range kids {
		if out.Interface == "" {
			out.Interface = k.Interface
		}
	}
	for _, t := range kids[0].Types {
		var fs []*query.Filter
		for _, k := range kids {
			f, ok := k.Filters[t]
			if !ok {
				fs = nil
				break
			}
			fs = append(fs, f)
		}
		if fs != nil {
			out.add(t, query.And(fs...))
		}
	}
	return out
}

// subtract is the objects of the first kid in none of the others.
func subtract(kids []*Set) *Set {
	first := kids[0]
	if first.Empty() {
		return typedNone(kids)
	}
	out := &Set{Interface: first.Interface}
	for _, t := range first.Types {
		var minus []*query.Filter
		for _, k := range kids[1:] {
			if f, ok := k.Filters[t]; ok {
				minus = append(minus, f)
			}
		}
		f := first.Filters[t]
		if len(minus) > 0 {
			f = query.And(f, query.Not(query.Or(minus...)))
		}
		out.add(t, f)
	}
	return out
}
