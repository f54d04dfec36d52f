package wire

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// The object set kinds that read several object types or interfaces.

// interfaceBase is every object of every type that implements iface and
// that the principal may see, seen through iface.
func (d *SetDecoder) interfaceBase(iface string) (*Set, error) {
	types, err := d.Resolver.Implementers(iface)
	if err != nil {
		return nil, err
	}
	out := &Set{Interface: iface}
	for _, t := range types {
		out.add(t, &query.Filter{Op: query.OpAll})
	}
	return out, nil
}

// filter narrows each type of a set by a where clause: on the type's
// properties, or on the interface's when the set is seen through one. The
// clause counts against the budget once per type; it is decoded again for
// a type only when that type reads a property it names otherwise than the
// types before (sharedWhere).
func (d *SetDecoder) filter(in *Set, where json.RawMessage, depth int) (*Set, error) {
	out := &Set{Interface: in.Interface}
	var shared *sharedWhere
	for _, typ := range in.Types {
		var names map[string]string
		var err error
		if in.Interface != "" {
			d.Where.T, names, err = d.Resolver.InterfaceView(in.Interface, typ)
		} else {
			d.Where.T, err = d.Resolver.Type(typ)
		}
		if err != nil {
			return nil, err
		}
		var w *query.Filter
		if shared != nil && shared.fits(d.Where.T) {
			if err := d.Where.Count(shared.clauses); err != nil {
				return nil, err
			}
			w = shared.f
		} else {
			before := d.Where.clauses
			shared = &sharedWhere{}
			d.Where.resolved = &shared.resolved
			w, err = d.Where.Decode(where, depth)
			d.Where.resolved = nil
			if err != nil {
				return nil, err
			}
			shared.f, shared.clauses = w, d.Where.clauses-before
		}
		out.add(typ, query.And(in.Filters[typ], renameProperties(w, names)))
	}
	return out, nil
}

// sharedWhere is a where clause as decoded for one type of a set. The
// decode reads nothing of the type but the properties the clause names,
// so a type that resolves each of them alike gets the same filter: over an
// interface, whose implementers' views share the interface's names, the
// clause is decoded once rather than once per implementer. The filter is
// shared, not copied: filters are not changed once decoded.
type sharedWhere struct {
	f        *query.Filter
	clauses  int                // what the decode charged against the budget
	resolved []objects.Property // the properties the clause named, as resolved
}

// fits reports whether decoding against t would resolve every property the
// clause named alike: the same data type and search role, which decide what
// values are parsed as and which operators apply (the decoder reads nothing
// else of a property but its name).
func (w *sharedWhere) fits(t *objects.Type) bool {
	for _, p := range w.resolved {
		q, ok := t.Property(p.APIName)
		if !ok || !p.Type.Equal(q.Type) || p.Search != q.Search {
			return false
		}
	}
	return true
}

// renameProperties is f with its property names mapped (nil: f).
func renameProperties(f *query.Filter, names map[string]string) *query.Filter {
	if f == nil || names == nil {
		return f
	}
	c := *f
	if n, ok := names[c.Property]; ok {
		c.Property = n
	}
	if len(c.Kids) > 0 {
		c.Kids = make([]*query.Filter, len(f.Kids))
		for i, k := range f.Kids {
			c.Kids[i] = renameProperties(k, names)
		}
	}
	return &c
}

// static is the objects of a list of rids, of any types.
func (d *SetDecoder) static(rids []string) (*Set, error) {
	if err := d.Where.Count(len(rids)); err != nil {
		return nil, err
	}
	keys := map[string][][]byte{}
	out := &Set{}
	for _, rid := range rids {
		typeName, key, ok := ParseObjectRID(rid)
		if !ok {
			return nil, BadSet(fmt.Sprintf("%q is not an object rid of this server (%s<objectType>.<id>)", Truncate(rid), ObjectRIDPrefix))
		}
		if _, seen := keys[typeName]; !seen {
			if _, err := d.Resolver.Type(typeName); err != nil {
				return nil, err
			}
			out.Types = append(out.Types, typeName)
		}
		keys[typeName] = append(keys[typeName], key)
	}
	out.Filters = map[string]*query.Filter{}
	for t, ks := range keys {
		out.Filters[t] = &query.Filter{Op: query.OpKeys, Keys: ks}
	}
	return out, nil
}

// searchAround follows a link type from every type of a set; each must
// have it.
func (d *SetDecoder) searchAround(in *Set, link string) (*Set, error) {
	out := &Set{}
	for _, typ := range in.Types {
		f, target, err := d.Resolver.SearchAround(in.Filters[typ], typ, link)
		if err != nil {
			return nil, err
		}
		out.add(target, f)
	}
	return out, nil
}

// asType narrows a set to one object type, or to the types that
// implement an interface, seen through it.
func (d *SetDecoder) asType(in *Set, entity string) (*Set, error) {
	if d.Resolver.IsInterface(entity) {
		types, err := d.Resolver.Implementers(entity)
		if err != nil {
			return nil, err
		}
		in.keep(func(t string) bool { return slices.Contains(types, t) })
		in.Interface = entity
		return in, nil
	}
	if _, err := d.Resolver.Type(entity); err != nil {
		return nil, err
	}
	in.keep(func(t string) bool { return t == entity })
	in.Interface = ""
	return in, nil
}

// interfaceLinkSearchAround follows an interface link from a set seen
// through an interface: from each type that maps the link, through the
// link type that implements it. Types that do not map it add nothing. The
// result is seen through the link's target interface, if it leads to one.
func (d *SetDecoder) interfaceLinkSearchAround(in *Set, link string) (*Set, error) {
	if in.Empty() {
		return in, nil
	}
	if in.Interface == "" {
		return nil, BadSet("interfaceLinkSearchAround needs a set seen through an interface (interfaceBase, or asType of an interface)")
	}
	out := &Set{}
	for _, typ := range in.Types {
		tl, targetInterface, ok, err := d.Resolver.InterfaceLink(in.Interface, typ, link)
		if err != nil {
			return nil, err
		}
		out.Interface = targetInterface
		if !ok {
			continue
		}
		f, tgt, err := d.Resolver.SearchAround(in.Filters[typ], typ, tl)
		if err != nil {
			return nil, err
		}
		out.add(tgt, f)
	}
	return out, nil
}
