package api

import (
	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/objects"
)

// The setDecoder's answers about interfaces (wire.Resolver): which types
// implement one, how a type is seen through one, and its links.

// interfaceView is an object type seen through an interface.
type interfaceView struct {
	t     *objects.Type     // the view (objects.ViewAs)
	names map[string]string // view property -> type property
}

// interfaces is the interface set of the served config.
func (s *Server) interfaces() *objects.InterfaceSet {
	return s.engine.Config().InterfaceSet()
}

// lookupInterface is an interface of the config, else InterfaceTypeNotFound.
func (s *Server) lookupInterface(name string) (*objects.Interface, error) {
	if set := s.interfaces(); set != nil {
		if i, ok := set.Interface(name); ok {
			return i, nil
		}
	}
	return nil, interfaceNotFound(name)
}

func interfaceNotFound(name string) *wire.Error {
	return wire.Err(wire.NameInterfaceTypeNotFound, map[string]any{"apiName": name, "interfaceType": name})
}

// IsInterface reports whether name is an interface of the config.
func (d *setDecoder) IsInterface(name string) bool {
	_, err := d.s.lookupInterface(name)
	return err == nil
}

// Implementers are the types implementing iface that the principal may
// see, each opened; an interface of which the principal sees no
// implementer is not found, as a type it may not see is not.
func (d *setDecoder) Implementers(iface string) ([]string, error) {
	i, err := d.s.lookupInterface(iface)
	if err != nil {
		return nil, err
	}
	p := PrincipalFrom(d.r.Context())
	var out []string
	for _, t := range i.ImplementedBy {
		if p != nil && p.CanSee(t) && d.s.isObjectType(t) {
			if _, err := d.Type(t); err != nil {
				return nil, err
			}
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, interfaceNotFound(iface)
	}
	return out, nil
}

// InterfaceView is typ seen through iface (kept for the request).
func (d *setDecoder) InterfaceView(iface, typ string) (*objects.Type, map[string]string, error) {
	key := iface + "\x00" + typ
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
		d.ifaceViews = map[string]interfaceView{}
	}
	d.ifaceViews[key] = v
	return v.t, v.names, nil
}

// viewAs is t seen through iface: an error when t does not implement it,
// or when the implementation does not fit t's table (a mapped property of
// another data type).
func (s *Server) viewAs(t *objects.Type, iface string) (interfaceView, error) {
	set := s.interfaces()
	i, err := s.lookupInterface(iface)
	if err != nil {
		return interfaceView{}, err
	}
	impl, ok := set.Implementation(t.APIName, iface)
	if !ok {
		return interfaceView{}, wire.Err(wire.NameUnsupportedObjectSet, map[string]any{"reason": t.APIName + " does not implement " + iface})
	}
	if err := set.CheckType(t); err != nil {
		return interfaceView{}, invalidImplementation(t.APIName, iface, err)
	}
	v, names, err := objects.ViewAs(t, i, impl)
	if err != nil {
		return interfaceView{}, invalidImplementation(t.APIName, iface, err)
	}
	return interfaceView{t: v, names: names}, nil
}

// invalidImplementation is the error of a type whose implementation of an
// interface does not fit its table: the config names a property the table
// does not give, or one of another data type.
func invalidImplementation(typ, iface string, err error) *wire.Error {
	return wire.Err(wire.NameInterfaceImplementationInvalid, map[string]any{"objectType": typ, "interfaceType": iface, "reason": err.Error()})
}

// InterfaceLink is the link type of typ that implements link of iface.
func (d *setDecoder) InterfaceLink(iface, typ, link string) (string, string, bool, error) {
	i, err := d.s.lookupInterface(iface)
	if err != nil {
		return "", "", false, err
	}
	l, ok := i.Link(link)
	if !ok {
		return "", "", false, wire.Err(wire.NameLinkTypeNotFound, map[string]any{"interfaceType": iface, "linkType": link})
	}
	impl, ok := d.s.interfaces().Implementation(typ, iface)
	if !ok {
		return "", l.Target.Interface, false, nil
	}
	tl, ok := impl.Links[link]
	return tl, l.Target.Interface, ok, nil
}
