package objects

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Interface is an interface with what it inherits resolved.
type Interface struct {
	InterfaceSpec
	// AllExtends are the interfaces it extends, directly or through
	// another, sorted.
	AllExtends []string
	// AllProperties are its own properties and every inherited one.
	AllProperties map[string]InterfacePropertySpec
	// AllLinks are its own link types and every inherited one, by apiName.
	AllLinks []InterfaceLinkSpec
	// ImplementedBy are the object types that implement it, directly or by
	// implementing an interface that extends it, in config order.
	ImplementedBy []string
}

// Link returns the interface link type named name, own or inherited.
func (i *Interface) Link(name string) (InterfaceLinkSpec, bool) {
	for _, l := range i.AllLinks {
		if l.APIName == name {
			return l, true
		}
	}
	return InterfaceLinkSpec{}, false
}

// Implementation is how an object type implements an interface.
type Implementation struct {
	// Properties maps each interface property to the type's property.
	Properties map[string]string
	// Links maps interface links to the type's link types; a link left out
	// cannot be followed from this type.
	Links map[string]string
	// Direct reports whether the config lists the interface under the
	// type's implements; else the type implements an interface that
	// extends it.
	Direct bool
}

// InterfaceSet is the interfaces of a config and who implements them. It
// is immutable once resolved.
type InterfaceSet struct {
	order  []string
	byName map[string]*Interface
	impls  map[string]map[string]*Implementation // object type -> interface -> how
}

// Names lists the interfaces in config order.
func (s *InterfaceSet) Names() []string { return s.order }

// Interface returns an interface by apiName.
func (s *InterfaceSet) Interface(name string) (*Interface, bool) {
	i, ok := s.byName[name]
	return i, ok
}

// Implementations are the interfaces an object type implements, directly
// or not, by apiName.
func (s *InterfaceSet) Implementations(typeName string) map[string]*Implementation {
	return s.impls[typeName]
}

// Implementation is how typeName implements iface, if it does.
func (s *InterfaceSet) Implementation(typeName, iface string) (*Implementation, bool) {
	impl, ok := s.impls[typeName][iface]
	return impl, ok
}

// Implements reports whether an object type implements an interface.
func (s *InterfaceSet) Implements(typeName, iface string) bool {
	_, ok := s.impls[typeName][iface]
	return ok
}

// ResolveInterfaces checks the interfaces of a config and the
// implementations its object types declare, and resolves both. Errors
// name the field: an unknown interface, an interface property that is not
// mapped or does not exist, a property or link the type does not have, a
// cycle in extends, a link whose target or cardinality does not match.
// Data types are checked against the tables later, by CheckType.
func ResolveInterfaces(specs []InterfaceSpec, types []TypeSpec) (*InterfaceSet, []error) {
	typeNames := make([]string, len(types))
	for i, t := range types {
		typeNames[i] = t.APIName
	}
	if errs := validateInterfaceSpecs(specs, typeNames); len(errs) > 0 {
		return nil, errs
	}
	s := &InterfaceSet{byName: map[string]*Interface{}, impls: map[string]map[string]*Implementation{}}
	for _, spec := range specs {
		s.order = append(s.order, spec.APIName)
		s.byName[spec.APIName] = &Interface{InterfaceSpec: spec}
	}
	var errs []error
	for _, spec := range specs {
		errs = append(errs, s.inherit(s.byName[spec.APIName])...)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	links := Links(types)
	for i, t := range types {
		for _, name := range slices.Sorted(maps.Keys(t.Implements)) {
			field := fmt.Sprintf("objectTypes[%d].implements.%s", i, name)
			iface, ok := s.byName[name]
			if !ok {
				errs = append(errs, &FieldError{Field: field, Msg: fmt.Sprintf("%q is not an interface%s", name, suggest(name, s.order))})
				continue
			}
			impl := t.Implements[name]
			errs = append(errs, checkImplementation(field, &t, iface, impl, links[t.APIName])...)
			s.implement(t.APIName, iface, &Implementation{Properties: impl.Properties, Links: impl.Links, Direct: true})
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	// Inherited implementations, and their link targets, once every direct
	// one is known (a link may lead to an interface implemented anywhere).
	for i, t := range types {
		for _, name := range slices.Sorted(maps.Keys(t.Implements)) {
			iface := s.byName[name]
			for _, parent := range iface.AllExtends {
				field := fmt.Sprintf("objectTypes[%d].implements.%s", i, name)
				if err := s.inheritImplementation(field, t.APIName, s.byName[parent], s.impls[t.APIName][name]); err != nil {
					errs = append(errs, err)
				}
			}
		}
	}
	for i, t := range types {
		for _, name := range slices.Sorted(maps.Keys(s.impls[t.APIName])) {
			errs = append(errs, s.checkLinkTargets(fmt.Sprintf("objectTypes[%d].implements.%s", i, name), s.byName[name], s.impls[t.APIName][name], links[t.APIName])...)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	for _, t := range types { // ImplementedBy in config order
		for _, name := range slices.Sorted(maps.Keys(s.impls[t.APIName])) {
			s.byName[name].ImplementedBy = append(s.byName[name].ImplementedBy, t.APIName)
		}
	}
	return s, nil
}

// inherit fills in what iface inherits; the extends graph has no cycle.
// Errors name iface's own field, also when a child's inherit reaches it
// first.
func (s *InterfaceSet) inherit(iface *Interface) []error {
	if iface.AllProperties != nil {
		return nil
	}
	field := fmt.Sprintf("interfaces[%d]", slices.Index(s.order, iface.APIName))
	var errs []error
	iface.AllProperties = maps.Clone(iface.Properties)
	if iface.AllProperties == nil {
		iface.AllProperties = map[string]InterfacePropertySpec{}
	}
	iface.AllLinks = slices.Clone(iface.Links)
	ext := map[string]bool{}
	for _, name := range iface.Extends {
		parent := s.byName[name]
		errs = append(errs, s.inherit(parent)...)
		ext[name] = true
		for _, a := range parent.AllExtends {
			ext[a] = true
		}
		for pn, p := range parent.AllProperties {
			if own, ok := iface.AllProperties[pn]; ok && own.DataType != p.DataType {
				errs = append(errs, &FieldError{Field: field + ".properties." + pn,
					Msg: fmt.Sprintf("is %s here and %s in %s, which %s extends", own.DataType, p.DataType, name, iface.APIName)})
				continue
			}
			iface.AllProperties[pn] = p
		}
		for _, l := range parent.AllLinks {
			if _, ok := iface.Link(l.APIName); !ok {
				iface.AllLinks = append(iface.AllLinks, l)
			}
		}
	}
	iface.AllExtends = slices.Sorted(maps.Keys(ext))
	slices.SortFunc(iface.AllLinks, func(a, b InterfaceLinkSpec) int { return strings.Compare(a.APIName, b.APIName) })
	return errs
}

func (s *InterfaceSet) implement(typeName string, iface *Interface, impl *Implementation) {
	if s.impls[typeName] == nil {
		s.impls[typeName] = map[string]*Implementation{}
	}
	s.impls[typeName][iface.APIName] = impl
}

// inheritImplementation records that typeName implements parent through
// child's implementation; a direct implementation of parent must agree.
func (s *InterfaceSet) inheritImplementation(field, typeName string, parent *Interface, child *Implementation) error {
	derived := &Implementation{Properties: map[string]string{}, Links: map[string]string{}}
	for pn := range parent.AllProperties {
		derived.Properties[pn] = child.Properties[pn]
	}
	for _, l := range parent.AllLinks {
		if tl, ok := child.Links[l.APIName]; ok {
			derived.Links[l.APIName] = tl
		}
	}
	if have, ok := s.impls[typeName][parent.APIName]; ok {
		for pn, tp := range derived.Properties {
			if have.Properties[pn] != tp {
				return &FieldError{Field: field + ".properties." + pn,
					Msg: fmt.Sprintf("maps %s to %q, but %s's implementation of %s maps it to %q", pn, tp, typeName, parent.APIName, have.Properties[pn])}
			}
		}
		return nil
	}
	s.implement(typeName, parent, derived)
	return nil
}

// checkImplementation checks one implements entry against its interface
// and the type's properties and links (not yet their targets).
func checkImplementation(field string, t *TypeSpec, iface *Interface, impl ImplementationSpec, sides []LinkSide) []error {
	var errs []error
	bad := func(sub, format string, args ...any) {
		errs = append(errs, &FieldError{Field: field + sub, Msg: fmt.Sprintf(format, args...)})
	}
	var missing []string
	for _, pn := range slices.Sorted(maps.Keys(iface.AllProperties)) {
		if impl.Properties[pn] == "" {
			missing = append(missing, pn)
		}
	}
	if len(missing) > 0 {
		bad(".properties", "interface properties %s of %s are not mapped to properties of %s", strings.Join(missing, ", "), iface.APIName, t.APIName)
	}
	props := slices.Sorted(maps.Keys(iface.AllProperties))
	mappedBy := map[string]string{} // property of the type -> interface property
	for _, pn := range slices.Sorted(maps.Keys(impl.Properties)) {
		tp := impl.Properties[pn]
		if other, ok := mappedBy[tp]; ok && tp != "" {
			bad(".properties."+pn, "maps to %s, as %s does; each interface property needs its own property", tp, other)
		}
		mappedBy[tp] = pn
		if _, ok := iface.AllProperties[pn]; !ok {
			bad(".properties."+pn, "%q is not a property of interface %s%s", pn, iface.APIName, suggest(pn, props))
			continue
		}
		if len(t.Properties) > 0 && tp != "" {
			if _, ok := t.Properties[tp]; !ok {
				bad(".properties."+pn, "%s has no property %q%s", t.APIName, tp, suggest(tp, slices.Sorted(maps.Keys(t.Properties))))
			}
		}
	}
	var ifaceLinks, sideNames []string
	for _, l := range iface.AllLinks {
		ifaceLinks = append(ifaceLinks, l.APIName)
	}
	for _, side := range sides {
		sideNames = append(sideNames, side.APIName)
	}
	for _, ln := range slices.Sorted(maps.Keys(impl.Links)) {
		if _, ok := iface.Link(ln); !ok {
			bad(".links."+ln, "%q is not a link type of interface %s%s", ln, iface.APIName, suggest(ln, ifaceLinks))
			continue
		}
		if tl := impl.Links[ln]; !slices.Contains(sideNames, tl) {
			bad(".links."+ln, "%s has no link type %q%s", t.APIName, tl, suggest(tl, sideNames))
		}
	}
	return errs
}

// checkLinkTargets checks that each mapped link leads where the interface
// link does, with its cardinality.
func (s *InterfaceSet) checkLinkTargets(field string, iface *Interface, impl *Implementation, sides []LinkSide) []error {
	var errs []error
	for _, ln := range slices.Sorted(maps.Keys(impl.Links)) {
		l, _ := iface.Link(ln)
		i := slices.IndexFunc(sides, func(side LinkSide) bool { return side.APIName == impl.Links[ln] })
		if i < 0 {
			continue // named by checkImplementation
		}
		side := sides[i]
		bad := func(format string, args ...any) {
			errs = append(errs, &FieldError{Field: field + ".links." + ln, Msg: fmt.Sprintf(format, args...)})
		}
		switch {
		case l.Target.ObjectType != "" && side.Target != l.Target.ObjectType:
			bad("link type %s leads to %s, but interface link %s.%s leads to object type %s", side.APIName, side.Target, iface.APIName, ln, l.Target.ObjectType)
		case l.Target.Interface != "" && !s.Implements(side.Target, l.Target.Interface):
			bad("link type %s leads to %s, which does not implement %s, the target of interface link %s.%s", side.APIName, side.Target, l.Target.Interface, iface.APIName, ln)
		case side.Many != l.Many():
			bad("link type %s has cardinality %s, interface link %s.%s has %s", side.APIName, cardinality(side.Many), iface.APIName, ln, l.Cardinality)
		}
	}
	return errs
}

func cardinality(many bool) string {
	if many {
		return "MANY"
	}
	return "ONE"
}

// CheckType checks the implementations of a resolved object type against
// its properties: each mapped property exists and has the interface
// property's data type.
func (s *InterfaceSet) CheckType(t *Type) error {
	for _, name := range slices.Sorted(maps.Keys(s.impls[t.APIName])) {
		if err := s.CheckImplementation(t, name); err != nil {
			return err
		}
	}
	return nil
}

// CheckImplementation checks how a resolved object type implements one
// interface, as CheckType does for all of them: a type whose table
// changed a column's type may break one interface and not another. A type
// that does not implement iface passes.
func (s *InterfaceSet) CheckImplementation(t *Type, name string) error {
	impl, ok := s.impls[t.APIName][name]
	if !ok {
		return nil
	}
	iface := s.byName[name]
	for _, pn := range slices.Sorted(maps.Keys(iface.AllProperties)) {
		want := iface.AllProperties[pn].DataType
		field := t.APIName + ".implements." + name + ".properties." + pn
		p, ok := t.Property(impl.Properties[pn])
		if !ok {
			return &FieldError{Field: field, Msg: fmt.Sprintf("%s has no property %q", t.APIName, impl.Properties[pn])}
		}
		if got := WireTypeName(p.Type); got != want {
			return &FieldError{Field: field, Msg: fmt.Sprintf("property %s of %s is %s, interface property %s.%s is %s", p.APIName, t.APIName, got, name, pn, want)}
		}
	}
	return nil
}
