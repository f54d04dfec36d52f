package objects

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Interfaces: an interface declares properties (with a data type) and
// link types that several object types share; an object type implements
// it by mapping each interface property to one of its own properties and,
// optionally, each interface link to one of its link types. Interfaces
// hold no data: a read of an interface reads the object types that
// implement it, through their mappings (interface_set.go resolves them).

// InterfaceSpec is an interface as the config file declares it.
type InterfaceSpec struct {
	APIName     string `yaml:"apiName" json:"apiName"`
	DisplayName string `yaml:"displayName" json:"displayName,omitempty"`
	Description string `yaml:"description" json:"description,omitempty"`
	// Extends names the interfaces this one extends: it has their
	// properties and links too, and whatever implements it implements them.
	Extends    []string                         `yaml:"extends" json:"extends,omitempty"`
	Properties map[string]InterfacePropertySpec `yaml:"properties" json:"properties,omitempty"`
	Links      []InterfaceLinkSpec              `yaml:"links" json:"links,omitempty"`
}

// InterfacePropertySpec is one interface property: its data type, in the
// names of the Ontology API (string, integer, long, float, double,
// decimal, boolean, date, timestamp, array<T>).
type InterfacePropertySpec struct {
	DataType    string `yaml:"dataType" json:"dataType"`
	DisplayName string `yaml:"displayName" json:"displayName,omitempty"`
	Description string `yaml:"description" json:"description,omitempty"`
}

// InterfaceLinkSpec is an interface link type: to an object type or to
// the object types that implement an interface.
type InterfaceLinkSpec struct {
	APIName     string              `yaml:"apiName" json:"apiName"`
	DisplayName string              `yaml:"displayName" json:"displayName,omitempty"`
	Description string              `yaml:"description" json:"description,omitempty"`
	Target      InterfaceLinkTarget `yaml:"target" json:"target"`
	// Cardinality is ONE or MANY.
	Cardinality string `yaml:"cardinality" json:"cardinality"`
}

// InterfaceLinkTarget is where an interface link leads: exactly one of
// an object type and an interface.
type InterfaceLinkTarget struct {
	ObjectType string `yaml:"objectType" json:"objectType,omitempty"`
	Interface  string `yaml:"interface" json:"interface,omitempty"`
}

// Many reports whether the link's cardinality is MANY.
func (l *InterfaceLinkSpec) Many() bool { return l.Cardinality == "MANY" }

// ImplementationSpec is how an object type implements one interface:
// interface property -> property of the type, and interface link -> link
// type of the type (optional per link).
type ImplementationSpec struct {
	Properties map[string]string `yaml:"properties" json:"properties,omitempty"`
	Links      map[string]string `yaml:"links" json:"links,omitempty"`
}

// interfaceDataTypes are the data types an interface property may
// declare (arrays add array<T> of the scalar ones).
var interfaceDataTypes = []string{"string", "boolean", "integer", "long", "float", "double", "decimal", "date", "timestamp"}

// validInterfaceDataType reports whether s names a data type an interface
// property may have.
func validInterfaceDataType(s string) bool {
	if elem, ok := strings.CutPrefix(s, "array<"); ok {
		elem, ok = strings.CutSuffix(elem, ">")
		return ok && slices.Contains(interfaceDataTypes, elem)
	}
	return slices.Contains(interfaceDataTypes, s)
}

// WireTypeName is the name of a property's data type in the Ontology API
// (the type of its ObjectPropertyType), the names interface properties
// declare: uuid and time are strings on the wire, timestamps with and
// without a zone are timestamps, and a list is array<elem>.
func WireTypeName(t DataType) string {
	switch t.Kind {
	case KindList:
		if t.Elem == nil {
			return "array<string>"
		}
		return "array<" + WireTypeName(*t.Elem) + ">"
	case KindTimestamp, KindTimestampTZ:
		return "timestamp"
	case KindUUID, KindTime, KindString:
		return "string"
	}
	return t.Kind.String()
}

// validateInterfaceSpecs checks the interfaces alone: names, data types,
// link shapes and targets, and that extends names known interfaces
// without a cycle. types are the object type names of the config.
func validateInterfaceSpecs(specs []InterfaceSpec, types []string) []error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	names := make([]string, 0, len(specs))
	seen := map[string]int{}
	for i, s := range specs {
		field := fmt.Sprintf("interfaces[%d]", i)
		switch {
		case s.APIName == "":
			bad(field+".apiName", "is required")
		case !ValidAPIName(s.APIName):
			bad(field+".apiName", "%q must start with a letter and hold only letters, digits and _", s.APIName)
		case slices.Contains(types, s.APIName):
			bad(field+".apiName", "%q is also an object type; interfaces and object types share one namespace", s.APIName)
		}
		if j, dup := seen[strings.ToLower(s.APIName)]; dup && s.APIName != "" {
			bad(field+".apiName", "%q is already used by interfaces[%d]", s.APIName, j)
		}
		seen[strings.ToLower(s.APIName)] = i
		names = append(names, s.APIName)
	}
	for i, s := range specs {
		field := fmt.Sprintf("interfaces[%d]", i)
		for j, e := range s.Extends {
			if !slices.Contains(names, e) {
				bad(fmt.Sprintf("%s.extends[%d]", field, j), "%q is not an interface%s", e, suggest(e, names))
			}
		}
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			p := s.Properties[name]
			pf := field + ".properties." + name
			if !propertyNamePattern.MatchString(name) || strings.HasPrefix(name, "__") {
				bad(pf, "property apiName must start with a letter or _, hold only letters, digits and _, and not start with __")
			}
			if !validInterfaceDataType(p.DataType) {
				bad(pf+".dataType", "%q must be one of %s, or array<T> of one of them", p.DataType, strings.Join(interfaceDataTypes, ", "))
			}
		}
		linkNames := map[string]bool{}
		for j, l := range s.Links {
			lf := fmt.Sprintf("%s.links[%d]", field, j)
			if !ValidAPIName(l.APIName) {
				bad(lf+".apiName", "%q must start with a letter and hold only letters, digits and _", l.APIName)
			} else if linkNames[l.APIName] {
				bad(lf+".apiName", "%q is declared twice", l.APIName)
			}
			linkNames[l.APIName] = true
			switch t := l.Target; {
			case (t.ObjectType == "") == (t.Interface == ""):
				bad(lf+".target", "needs exactly one of objectType and interface")
			case t.ObjectType != "" && !slices.Contains(types, t.ObjectType):
				bad(lf+".target.objectType", "%q is not an object type%s", t.ObjectType, suggest(t.ObjectType, types))
			case t.Interface != "" && !slices.Contains(names, t.Interface):
				bad(lf+".target.interface", "%q is not an interface%s", t.Interface, suggest(t.Interface, names))
			}
			if l.Cardinality != "ONE" && l.Cardinality != "MANY" {
				bad(lf+".cardinality", "%q must be ONE or MANY", l.Cardinality)
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}
	if cycle := extendsCycle(specs); cycle != nil {
		i := slices.Index(names, cycle[0])
		bad(fmt.Sprintf("interfaces[%d].extends", i), "makes a cycle: %s", strings.Join(cycle, " -> "))
	}
	return errs
}

// extendsCycle returns a cycle in the extends graph (its first name
// repeated at the end), or nil.
func extendsCycle(specs []InterfaceSpec) []string {
	byName := map[string]*InterfaceSpec{}
	for i := range specs {
		byName[specs[i].APIName] = &specs[i]
	}
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(name string) []string
	visit = func(name string) []string {
		switch state[name] {
		case open:
			start := slices.Index(path, name)
			return append(slices.Clone(path[start:]), name)
		case done:
			return nil
		}
		state[name] = open
		path = append(path, name)
		for _, e := range byName[name].Extends {
			if c := visit(e); c != nil {
				return c
			}
		}
		path = path[:len(path)-1]
		state[name] = done
		return nil
	}
	for _, s := range specs {
		if c := visit(s.APIName); c != nil {
			return c
		}
	}
	return nil
}
