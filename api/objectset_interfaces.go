package api

import (
	"fmt"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/objects"
)

// The setDecoder's answers about interfaces (wire.Resolver): which types
// implement one, how a type is seen through one, and its links.

// interfaceView is an object type seen through an interface.
type interfaceView struct {
	t      *objects.Type     // the view (objects.ViewAs)
	names  map[string]string // view property -> type property
	layout *layout           // of the view, for rendering objects seen through it
}

// viewKey names an object type seen through an interface.
type viewKey struct{ iface, typ string }

// cachedView is a view the server keeps: valid while the type and the
// interface set it was made of are the ones served (a build may bring a
// new *objects.Type, a reload a new set).
type cachedView struct {
	src  *objects.Type
	set  *objects.InterfaceSet
	view interfaceView
}

// IsInterface reports whether name is an interface of the config.
func (d *setDecoder) IsInterface(name string) bool {
	_, ok := d.s.interfaceSet().Interface(name)
	return ok
}

// Implementers are the types implementing iface that the principal may
// see, each opened; an interface of which the principal sees no
// implementer is not found, as a type it may not see is not.
func (d *setDecoder) Implementers(iface string) ([]string, error) {
	var out []string
	if i, ok := d.s.interfaceSet().Interface(iface); ok {
		out = d.s.interfaceImplementers(d.r, i)
	}
	if len(out) == 0 { // not found, or seen with no types: interfaceByName says which
		if _, err := d.s.interfaceByName(d.r, iface); err != nil {
			return nil, err
		}
	}
	for _, t := range out {
		if _, err := d.Type(t); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// InterfaceView is typ seen through iface (kept for the request).
func (d *setDecoder) InterfaceView(iface, typ string) (*objects.Type, map[string]string, error) {
	key := viewKey{iface, typ}
	if v, ok := d.ifaceViews[key]; ok {
		return v.t, v.names, nil
	}
	t, err := d.Type(typ)
	if err != nil {
		return nil, nil, err
	}
	v, err := d.s.viewAs(t, iface)
	if err != nil {
		return nil, nil, err
	}
	if d.ifaceViews == nil {
		d.ifaceViews = map[viewKey]interfaceView{}
	}
	d.ifaceViews[key] = v
	return v.t, v.names, nil
}

// viewAs is t seen through iface: an error when t does not implement it,
// or when the implementation does not fit t's table (a mapped property of
// another data type).
func (s *Server) viewAs(t *objects.Type, iface string) (interfaceView, error) {
	set := s.interfaceSet()
	key := viewKey{iface, t.APIName}
	if c, ok := s.views.Load(key); ok && c.(*cachedView).src == t && c.(*cachedView).set == set {
		return c.(*cachedView).view, nil
	}
	i, ok := set.Interface(iface)
	if !ok {
		return interfaceView{}, wire.InterfaceTypeNotFound(iface, interfaceTypeRIDPrefix+iface, nil)
	}
	impl, ok := set.Implementation(t.APIName, iface)
	if !ok {
		return interfaceView{}, wire.Err(wire.NameUnsupportedObjectSet, map[string]any{"reason": t.APIName + " does not implement " + iface})
	}
	if err := set.CheckImplementation(t, iface); err != nil {
		return interfaceView{}, invalidImplementation(t.APIName, iface, err)
	}
	v, names, err := objects.ViewAs(t, i, impl)
	if err != nil {
		return interfaceView{}, invalidImplementation(t.APIName, iface, err)
	}
	view := interfaceView{t: v, names: names, layout: layoutOf(v)}
	s.views.Store(key, &cachedView{src: t, set: set, view: view})
	return view, nil
}

// invalidImplementation is the error of a type whose implementation of an
// interface does not fit its table: the config names a property the table
// does not give, or one of another data type (as checkInterfaceTypes
// reports it for the metadata).
func invalidImplementation(typ, iface string, err error) *wire.Error {
	return wire.Err(wire.NameInterfaceTypeNotResolvable, map[string]any{"interfaceType": iface, "objectType": typ,
		"reason": fmt.Sprintf("%s cannot be read as %s: %v", typ, iface, err)})
}

// InterfaceLink is the link type of typ that implements link of iface.
func (d *setDecoder) InterfaceLink(iface, typ, link string) (string, string, bool, error) {
	i, err := d.s.interfaceByName(d.r, iface)
	if err != nil {
		return "", "", false, err
	}
	l, ok := i.Link(link)
	if !ok {
		return "", "", false, wire.Err(wire.NameLinkTypeNotFound, map[string]any{"interfaceType": iface, "linkType": link})
	}
	impl, ok := d.s.interfaceSet().Implementation(typ, iface)
	if !ok {
		return "", l.Target.Interface, false, nil
	}
	tl, ok := impl.Links[link]
	return tl, l.Target.Interface, ok, nil
}
