package typescript

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/ontoindex/ontoindex/objects"
)

// interfaceFile is ontology/interfaces/<Interface>.ts. Every interface
// property is nullable, as the generator makes them.
func interfaceFile(i *objects.Interface) ([]byte, error) {
	var props []property
	for _, pn := range sortedNames(slices.Collect(maps.Keys(i.AllProperties))) {
		spec := i.AllProperties[pn]
		typ, err := clientType(spec.DataType)
		if err != nil {
			return nil, fmt.Errorf("interface %s: property %s: %w", i.APIName, pn, err)
		}
		props = append(props, property{name: pn, displayName: spec.DisplayName, description: spec.Description, typ: typ})
	}
	links := slices.Clone(i.AllLinks)
	slices.SortFunc(links, func(a, b objects.InterfaceLinkSpec) int { return compareNames(a.APIName, b.APIName) })
	name := i.APIName
	var w writer
	w.b.WriteString(header)
	imports := []string{"InterfaceDefinition", "ObjectSet", "Osdk"}
	if len(links) > 0 {
		imports = append(imports, "InterfaceMetadata")
	}
	if slices.ContainsFunc(links, func(l objects.InterfaceLinkSpec) bool { return !l.Many() }) {
		imports = append(imports, "SingleLinkAccessor")
	}
	clientImports(&w, imports, len(props) > 0)
	w.line("import { $osdkMetadata } from '../../OntologyMetadata.js';")
	imported := map[string]string{} // target -> the file it is imported from
	for _, l := range links {
		switch t := l.Target; {
		case t.ObjectType != "":
			imported[t.ObjectType] = "../objects/" + t.ObjectType + ".js"
		case t.Interface != name:
			imported[t.Interface] = "./" + t.Interface + ".js"
		}
	}
	for _, target := range sortedNames(slices.Collect(maps.Keys(imported))) {
		w.line("import type { " + target + " } from " + quote(imported[target]) + ";")
	}
	w.line("")
	linksType := "OsdkObjectLinks$" + name
	if len(links) == 0 {
		w.line("export type " + linksType + " = {};")
	} else {
		w.open("export interface " + linksType + " {")
		for _, l := range links {
			target := cmp.Or(l.Target.ObjectType, l.Target.Interface)
			if l.Many() {
				w.line("readonly " + l.APIName + ": " + target + ".ObjectSet;")
			} else {
				w.line("readonly " + l.APIName + ": $SingleLinkAccessor<" + target + ">;")
			}
		}
		w.close("}")
	}
	w.line("")
	w.open("export namespace " + name + " {")
	var keys []string
	for _, p := range props {
		keys = append(keys, p.name)
	}
	w.line("export type PropertyKeys = " + unionOf(keys) + ";")
	w.line("")
	namespaceMembers(&w, name, props)
	w.close("}")
	w.line("")

	w.open("export interface " + name + " extends $InterfaceDefinition {")
	definitionHead(&w, "interface", name)
	w.line("linksType: " + linksType + ";")
	w.line("strictProps: " + name + ".StrictProps;")
	w.line("apiName: " + quote(name) + ";")
	w.line("description: " + optionalString(i.Description) + ";")
	w.line("displayName: " + quote(cmp.Or(i.DisplayName, name)) + ";")
	w.line("implementedBy: " + tupleOf(sortedNames(i.ImplementedBy)) + ";")
	w.line("implements: " + tupleOf(sortedNames(i.AllExtends)) + ";")
	if len(links) == 0 {
		w.line("links: {};")
	} else {
		w.open("links: {")
		for _, l := range links {
			w.line(fmt.Sprintf("%s: $InterfaceMetadata.Link<%s, %t>;", l.APIName, cmp.Or(l.Target.ObjectType, l.Target.Interface), l.Many()))
		}
		w.close("};")
	}
	propertyDefs(&w, props)
	w.line("rid: " + quote(InterfaceRIDPrefix+name) + ";")
	w.line("type: 'interface';")
	w.close("};")
	w.close("}")
	w.line("")
	definitionValue(&w, "interface", name)
	return w.bytes(), nil
}
