package objects

import "fmt"

// HiddenPrefix starts the names a view of a type through an interface
// gives the properties that implement no interface property: no apiName
// starts with it, so no request names them by accident.
const HiddenPrefix = "\x00"

// ViewAs is t seen through iface, which it implements by impl: the same
// properties in the same order (so that the values of an object of t are
// the values of the view's object), each property that implements an
// interface property renamed to it and the others hidden (HiddenPrefix +
// name). names maps every name of the view back to t's. A property that
// implements two interface properties cannot be seen as both: that is an
// error naming them.
func ViewAs(t *Type, iface *Interface, impl *Implementation) (view *Type, names map[string]string, err error) {
	as := map[string]string{} // t's property -> interface property
	for ip, tp := range impl.Properties {
		if _, ok := iface.AllProperties[ip]; !ok {
			continue
		}
		if other, ok := as[tp]; ok {
			a, b := min(ip, other), max(ip, other)
			return nil, nil, &FieldError{Field: t.APIName + ".implements." + iface.APIName + ".properties",
				Msg: fmt.Sprintf("%s and %s both map to property %s; each interface property needs its own property", a, b, tp)}
		}
		as[tp] = ip
	}
	v := *t
	v.DisplayName = t.APIName + " seen through " + iface.APIName
	v.Properties = make([]Property, len(t.Properties))
	names = make(map[string]string, len(t.Properties))
	rename := func(name string) string {
		if ip, ok := as[name]; ok {
			return ip
		}
		return HiddenPrefix + name
	}
	for i, p := range t.Properties {
		p.APIName = rename(p.APIName)
		v.Properties[i] = p
		names[p.APIName] = t.Properties[i].APIName
	}
	v.PrimaryKey = make([]string, len(t.PrimaryKey))
	for i, k := range t.PrimaryKey {
		v.PrimaryKey[i] = rename(k)
	}
	v.TitleProperty = rename(t.TitleProperty)
	return NewType(v), names, nil
}
