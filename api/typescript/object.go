package typescript

import (
	"fmt"
	"maps"
	"slices"

	"github.com/ontoindex/ontoindex/objects"
)

// property is one property of a definition, as both kinds write it.
type property struct {
	name, displayName, description string
	typ                            propertyType
}

// objectProperties are the properties of t sorted by name, with their
// client types: the primary key (the first key property, which the
// server's metadata names) is the one that is not nullable.
func objectProperties(t *objects.Type) ([]property, error) {
	var out []property
	for i, p := range t.Properties {
		if p.Hidden() {
			continue // a struct's field: in its struct's type
		}
		typ, err := propertyClientType(t, i)
		if err != nil {
			return nil, fmt.Errorf("object type %s: property %s: %w", t.APIName, p.APIName, err)
		}
		typ.Nullable = p.APIName != t.PrimaryKey[0]
		out = append(out, property{name: p.APIName, displayName: p.DisplayName, description: p.Description, typ: typ})
	}
	slices.SortFunc(out, func(a, b property) int { return compareNames(a.name, b.name) })
	return out, nil
}

// objectFile is ontology/objects/<Type>.ts.
func objectFile(o Ontology, t *objects.Type) ([]byte, error) {
	props, err := objectProperties(t)
	if err != nil {
		return nil, err
	}
	key, _ := t.Property(t.PrimaryKey[0])
	keyType, err := primaryKeyType(t, key)
	if err != nil {
		return nil, err
	}
	links := slices.Clone(o.Links[t.APIName])
	slices.SortFunc(links, func(a, b objects.LinkSide) int { return compareNames(a.APIName, b.APIName) })
	var targets []string
	for _, l := range links {
		if l.Target != t.APIName && !slices.Contains(targets, l.Target) {
			targets = append(targets, l.Target)
		}
	}
	name := t.APIName
	var w writer
	w.b.WriteString(header)
	imports := []string{"ObjectSet", "ObjectTypeDefinition", "Osdk"}
	if len(links) > 0 {
		imports = append(imports, "ObjectMetadata")
	}
	if slices.ContainsFunc(links, func(l objects.LinkSide) bool { return !l.Many }) {
		imports = append(imports, "SingleLinkAccessor")
	}
	clientImports(&w, imports, len(props) > 0)
	w.line("import { $osdkMetadata } from '../../OntologyMetadata.js';")
	for _, target := range sortedNames(targets) {
		w.line("import type { " + target + " } from './" + target + ".js';")
	}
	w.line("")
	w.open("export namespace " + name + " {")
	var keys []string
	for _, p := range t.Properties {
		if !p.Hidden() {
			keys = append(keys, p.APIName)
		}
	}
	w.line("export type PropertyKeys = " + unionOf(keys) + ";")
	w.line("")
	if len(links) == 0 {
		w.line("export type Links = {};")
	} else {
		w.open("export interface Links {")
		for _, l := range links {
			if l.Many {
				w.line("readonly " + l.APIName + ": " + l.Target + ".ObjectSet;")
			} else {
				w.line("readonly " + l.APIName + ": $SingleLinkAccessor<" + l.Target + ">;")
			}
		}
		w.close("}")
	}
	w.line("")
	namespaceMembers(&w, name, props)
	w.close("}")
	w.line("")

	w.open("export interface " + name + " extends $ObjectTypeDefinition {")
	definitionHead(&w, "object", name)
	w.line("linksType: " + name + ".Links;")
	w.line("strictProps: " + name + ".StrictProps;")
	w.line("apiName: " + quote(name) + ";")
	w.line("description: " + optionalString(t.Description) + ";")
	w.line("displayName: " + quote(t.DisplayName) + ";")
	// The server's icon, which the generator copies.
	w.line("icon: { type: 'blueprint'; name: 'cube'; color: '#4C90F0' };")
	impls := interfaceMaps(o.Interfaces, name)
	w.line("implements: " + tupleOf(sortedNames(slices.Collect(maps.Keys(impls)))) + ";")
	nameMaps(&w, "interfaceMap", impls, false)
	nameMaps(&w, "inverseInterfaceMap", impls, true)
	if len(links) == 0 {
		w.line("links: {};")
	} else {
		w.open("links: {")
		for _, l := range links {
			w.line(fmt.Sprintf("%s: $ObjectMetadata.Link<%s, %t>;", l.APIName, l.Target, l.Many))
		}
		w.close("};")
	}
	w.line("pluralDisplayName: " + quote(t.PluralDisplayName) + ";")
	w.line("primaryKeyApiName: " + quote(key.APIName) + ";")
	w.line("primaryKeyType: " + quote(keyType) + ";")
	propertyDefs(&w, props)
	w.line("rid: " + quote(ObjectTypeRIDPrefix+name) + ";")
	w.line("status: 'ACTIVE';")
	w.line("titleProperty: " + quote(t.TitleProperty) + ";")
	w.line("type: 'object';")
	w.line("visibility: 'NORMAL';")
	w.close("};")
	w.close("}")
	w.line("")
	definitionValue(&w, "object", name)
	return w.bytes(), nil
}

// interfaceMaps are the interfaces an object type implements, directly or
// through one that extends them, each with its map of interface property
// to the type's property.
func interfaceMaps(set *objects.InterfaceSet, typeName string) map[string]map[string]string {
	out := map[string]map[string]string{}
	if set == nil {
		return out
	}
	for name, impl := range set.Implementations(typeName) {
		out[name] = impl.Properties
	}
	return out
}

// nameMaps writes interfaceMap (interface property -> the type's) or,
// inverted, inverseInterfaceMap (the type's property -> interface
// property; of two interface properties mapped to one property, the last
// by name, as the generator's inversion keeps).
func nameMaps(w *writer, field string, impls map[string]map[string]string, inverse bool) {
	if len(impls) == 0 {
		w.line(field + ": {};")
		return
	}
	w.open(field + ": {")
	for _, iface := range sortedNames(slices.Collect(maps.Keys(impls))) {
		m := impls[iface]
		if inverse {
			inv := map[string]string{}
			for _, from := range sortedNames(slices.Collect(maps.Keys(m))) {
				inv[m[from]] = from
			}
			m = inv
		}
		w.open(iface + ": {")
		for _, k := range sortedNames(slices.Collect(maps.Keys(m))) {
			w.line(k + ": " + quote(m[k]) + ";")
		}
		w.close("};")
	}
	w.close("};")
}

// namespaceMembers writes the members of a definition's namespace after
// PropertyKeys and its links: Props, StrictProps, ObjectSet, OsdkInstance
// and the deprecated OsdkObject.
func namespaceMembers(w *writer, name string, props []property) {
	if len(props) == 0 {
		w.line("export interface Props {}")
	} else {
		w.open("export interface Props {")
		for _, p := range props {
			propertyDoc(w, p.displayName, p.description)
			w.line("readonly " + p.name + ": " + p.typ.value() + ";")
		}
		w.close("}")
	}
	// Props and StrictProps differ only for properties that are not
	// nullable, and only the primary key is, in both.
	w.line("export type StrictProps = Props;")
	w.line("")
	w.line("export interface ObjectSet extends $ObjectSet<" + name + ", " + name + ".ObjectSet> {}")
	w.line("")
	instanceParams := func() {
		w.line("OPTIONS extends never | '$rid' = never,")
		w.line("K extends keyof " + name + ".Props = keyof " + name + ".Props,")
	}
	w.open("export type OsdkInstance<")
	instanceParams()
	w.close("> = $Osdk.Instance<" + name + ", OPTIONS, K>;")
	w.line("")
	w.line("/** @deprecated use OsdkInstance */")
	w.open("export type OsdkObject<")
	instanceParams()
	w.close("> = OsdkInstance<OPTIONS, K>;")
}

// clientImports writes the import of the client's types a file uses:
// names, and with properties PropertyDef and PropertyValueWireToClient
// ($PropType), each as $name.
func clientImports(w *writer, names []string, properties bool) {
	if properties {
		names = append(names, "PropertyDef")
	}
	var list []string
	for _, n := range sortedNames(names) {
		list = append(list, n+" as $"+n)
	}
	if properties {
		list = append(list, "PropertyValueWireToClient as $PropType")
	}
	exportList(w, "import type {", list, "} from '@osdk/client';")
}

// definitionHead writes the first members of a definition's type.
func definitionHead(w *writer, kind, name string) {
	w.line("osdkMetadata: typeof $osdkMetadata;")
	w.line("type: " + quote(kind) + ";")
	w.line("apiName: " + quote(name) + ";")
	w.open("__DefinitionMetadata?: {")
	w.line("objectSet: " + name + ".ObjectSet;")
	w.line("props: " + name + ".Props;")
}

// propertyDefs writes the properties of a definition's metadata.
func propertyDefs(w *writer, props []property) {
	if len(props) == 0 {
		w.line("properties: {};")
		return
	}
	w.open("properties: {")
	for _, p := range props {
		propertyDoc(w, p.displayName, p.description)
		w.line(p.name + ": " + p.typ.def() + ";")
	}
	w.close("};")
}

// definitionValue writes the value an application passes to the client:
// what it reads at run time, the rest it loads from the server.
func definitionValue(w *writer, kind, name string) {
	w.open("export const " + name + ": " + name + " = {")
	w.line("type: " + quote(kind) + ",")
	w.line("apiName: " + quote(name) + ",")
	w.line("osdkMetadata: $osdkMetadata,")
	w.close("};")
}

// optionalString renders a description, which the metadata types as
// string | undefined: undefined when there is none, as the server omits it.
func optionalString(s string) string {
	if s == "" {
		return "undefined"
	}
	return quote(s)
}
