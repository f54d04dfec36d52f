package api

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/objects"
)

// Interface metadata: GET interfaceTypes, interfaceTypes/{interfaceType}
// and its outgoingLinkTypes, in the shapes of @osdk/foundry.ontologies
// 2.57.0 (InterfaceType, InterfaceLinkType). What @osdk/client reads of
// them (generator-converters' wireInterfaceTypeV2ToSdkObjectDefinition):
// rid, apiName, displayName, description, allExtendsInterfaces (else
// extendsInterfaces), allPropertiesV2 when not empty (else allProperties,
// else properties) through wirePropertyV2ToSdkPropertyDefinition
// (dataType, displayName, description, valueTypeApiName,
// valueFormatting), allLinks (else links) with cardinality and
// linkedEntityApiName {type, apiName}, and implementedByObjectTypes.
//
// Visibility: a principal sees an interface when it sees at least one
// object type that implements it, directly or through an interface that
// extends it; a principal that sees every object type also sees the
// interfaces no type implements. implementedByObjectTypes lists only the
// implementers it sees, and an interface link is listed only when the
// principal sees its target. An interface it does not see is
// InterfaceTypeNotFound, as a type it does not see is ObjectTypeNotFound.
//
// Data types: the config is checked when it is loaded, the data types of
// the tables only when a type is resolved (objects.InterfaceSet.CheckType).
// An implementation whose mapped property has another data type than the
// interface property is not served as one, and is not hidden either:
// every response that would hold the interface (the interface, its link
// types, the lists and the ontology's metadata) is 409
// InterfaceTypeNotResolvable, whose reason names the field
// (Order.implements.Billable.properties.amount) and both data types. The
// type's own fullMetadata leaves the interface out of implementsInterfaces,
// so that the type still loads in @osdk/client (which fetches every
// interface a type lists, and fails the type when one fails).

// Resource identifiers of interfaces, their properties and link types:
// properties and links carry the rid of the interface that declares them.
const (
	interfaceTypeRIDPrefix     = "ri.ontoindex.main.interface-type."
	interfacePropertyRIDPrefix = "ri.ontoindex.main.interface-property."
	interfaceLinkTypeRIDPrefix = "ri.ontoindex.main.interface-link-type."
)

// interfaceSet is the config's resolved interfaces; never nil (a config
// that failed to resolve them does not serve).
func (s *Server) interfaceSet() *objects.InterfaceSet {
	if set := s.engine.Config().InterfaceSet(); set != nil {
		return set
	}
	set, _ := objects.ResolveInterfaces(nil, nil)
	return set
}

// interfaceImplementers lists, in config order, the object types that
// implement iface and that the request's principal may see.
func (s *Server) interfaceImplementers(r *http.Request, iface *objects.Interface) []string {
	p := PrincipalFrom(r.Context())
	var out []string
	for _, name := range iface.ImplementedBy {
		if p != nil && p.CanSee(name) && s.isObjectType(name) {
			out = append(out, name)
		}
	}
	return out
}

// interfaceVisible reports whether the request's principal may see an
// interface (see the comment at the top of the file).
func (s *Server) interfaceVisible(r *http.Request, iface *objects.Interface) bool {
	if len(s.interfaceImplementers(r, iface)) > 0 {
		return true
	}
	p := PrincipalFrom(r.Context())
	return p != nil && p.all && len(iface.ImplementedBy) == 0
}

// visibleInterfaces lists, in config order, the interfaces the request's
// principal may see.
func (s *Server) visibleInterfaces(r *http.Request) []*objects.Interface {
	set := s.interfaceSet()
	var out []*objects.Interface
	for _, name := range set.Names() {
		if iface, _ := set.Interface(name); s.interfaceVisible(r, iface) {
			out = append(out, iface)
		}
	}
	return out
}

// interfaceByName resolves an interface name the principal may see, else
// InterfaceTypeNotFound with the visible name it most likely meant.
func (s *Server) interfaceByName(r *http.Request, name string) (*objects.Interface, error) {
	if iface, ok := s.interfaceSet().Interface(name); ok && s.interfaceVisible(r, iface) {
		return iface, nil
	}
	var known []string
	for _, iface := range s.visibleInterfaces(r) {
		known = append(known, iface.APIName)
	}
	return nil, wire.InterfaceTypeNotFound(name, interfaceTypeRIDPrefix+name, known)
}

// pathInterface resolves the {interfaceType} path parameter.
func (s *Server) pathInterface(r *http.Request) (*objects.Interface, error) {
	if err := s.checkOntology(r); err != nil {
		return nil, err
	}
	return s.interfaceByName(r, pathParam(r, "interfaceType"))
}

// checkInterfaceTypes checks the data types of every implementation of
// iface the principal sees, against the types as resolved from their
// tables (see the comment at the top of the file).
func (s *Server) checkInterfaceTypes(r *http.Request, iface *objects.Interface) error {
	set := s.interfaceSet()
	for _, name := range s.interfaceImplementers(r, iface) {
		t, err := s.engine.ObjectType(r.Context(), name)
		if err != nil {
			return err
		}
		if err := set.CheckImplementation(t, iface.APIName); err != nil {
			return wire.Err(wire.NameInterfaceTypeNotResolvable, map[string]any{"interfaceType": iface.APIName, "objectType": name,
				"reason": fmt.Sprintf("%s cannot be read as %s: %v", name, iface.APIName, err)})
		}
	}
	return nil
}

// InterfaceType, InterfaceSharedPropertyType, InterfacePropertyType
// (interfaceDefinedPropertyType), ResolvedInterfacePropertyType and
// InterfaceLinkType. ontoindex has no shared property types: properties
// and allProperties, the V1 maps keyed by shared property, repeat the
// interface's own properties under their names, so that a client that
// reads only V1 sees them too.
type interfaceTypeV2 struct {
	RID                      string                                   `json:"rid"`
	APIName                  string                                   `json:"apiName"`
	DisplayName              string                                   `json:"displayName"`
	Description              string                                   `json:"description,omitempty"`
	Properties               map[string]interfaceSharedPropertyType   `json:"properties"`
	AllProperties            map[string]interfaceSharedPropertyType   `json:"allProperties"`
	PropertiesV2             map[string]interfacePropertyType         `json:"propertiesV2"`
	AllPropertiesV2          map[string]resolvedInterfacePropertyType `json:"allPropertiesV2"`
	ExtendsInterfaces        []string                                 `json:"extendsInterfaces"`
	AllExtendsInterfaces     []string                                 `json:"allExtendsInterfaces"`
	ImplementedByObjectTypes []string                                 `json:"implementedByObjectTypes"`
	Links                    map[string]interfaceLinkType             `json:"links"`
	AllLinks                 map[string]interfaceLinkType             `json:"allLinks"`
}

type interfaceSharedPropertyType struct {
	RID         string         `json:"rid"`
	APIName     string         `json:"apiName"`
	DisplayName string         `json:"displayName"`
	Description string         `json:"description,omitempty"`
	DataType    map[string]any `json:"dataType"`
	Required    bool           `json:"required"`
	TypeClasses []any          `json:"typeClasses"`
}

type interfacePropertyType struct {
	Type                  string         `json:"type"` // interfaceDefinedPropertyType
	RID                   string         `json:"rid"`
	APIName               string         `json:"apiName"`
	DisplayName           string         `json:"displayName"`
	Description           string         `json:"description,omitempty"`
	DataType              map[string]any `json:"dataType"`
	RequireImplementation bool           `json:"requireImplementation"`
	TypeClasses           []any          `json:"typeClasses"`
}

type resolvedInterfacePropertyType struct {
	RID                   string         `json:"rid"`
	APIName               string         `json:"apiName"`
	DisplayName           string         `json:"displayName"`
	Description           string         `json:"description,omitempty"`
	DataType              map[string]any `json:"dataType"`
	RequireImplementation bool           `json:"requireImplementation"`
}

type interfaceLinkType struct {
	RID                 string              `json:"rid"`
	APIName             string              `json:"apiName"`
	DisplayName         string              `json:"displayName"`
	Description         string              `json:"description,omitempty"`
	LinkedEntityAPIName linkedEntityAPIName `json:"linkedEntityApiName"`
	Cardinality         string              `json:"cardinality"`
	// Required is false: an implementing type need not map the link
	// (then it cannot be followed from that type).
	Required bool `json:"required"`
}

// linkedEntityAPIName is InterfaceLinkTypeLinkedEntityApiName.
type linkedEntityAPIName struct {
	Type    string `json:"type"` // objectTypeApiName | interfaceTypeApiName
	APIName string `json:"apiName"`
}

// renderInterface renders an interface for the request's principal; the
// caller has checked its data types.
func (s *Server) renderInterface(r *http.Request, iface *objects.Interface) interfaceTypeV2 {
	out := interfaceTypeV2{
		RID:                      interfaceTypeRIDPrefix + iface.APIName,
		APIName:                  iface.APIName,
		DisplayName:              cmp.Or(iface.DisplayName, iface.APIName),
		Description:              iface.Description,
		Properties:               map[string]interfaceSharedPropertyType{},
		AllProperties:            map[string]interfaceSharedPropertyType{},
		PropertiesV2:             map[string]interfacePropertyType{},
		AllPropertiesV2:          map[string]resolvedInterfacePropertyType{},
		ExtendsInterfaces:        slices.Clone(iface.Extends),
		AllExtendsInterfaces:     slices.Clone(iface.AllExtends),
		ImplementedByObjectTypes: s.interfaceImplementers(r, iface),
		Links:                    map[string]interfaceLinkType{},
		AllLinks:                 map[string]interfaceLinkType{},
	}
	// JSON arrays, never null: the converters spread them.
	for _, list := range []*[]string{&out.ExtendsInterfaces, &out.AllExtendsInterfaces, &out.ImplementedByObjectTypes} {
		if *list == nil {
			*list = []string{}
		}
	}
	for name, p := range iface.AllProperties {
		rid := interfacePropertyRIDPrefix + s.declaringInterface(iface, name) + "." + name
		display, dt := cmp.Or(p.DisplayName, name), interfaceDataType(p.DataType)
		shared := interfaceSharedPropertyType{RID: rid, APIName: name, DisplayName: display, Description: p.Description,
			DataType: dt, Required: true, TypeClasses: []any{}}
		out.AllProperties[name] = shared
		out.AllPropertiesV2[name] = resolvedInterfacePropertyType{RID: rid, APIName: name, DisplayName: display, Description: p.Description,
			DataType: dt, RequireImplementation: true}
		if _, own := iface.Properties[name]; own {
			out.Properties[name] = shared
			out.PropertiesV2[name] = interfacePropertyType{Type: "interfaceDefinedPropertyType", RID: rid, APIName: name, DisplayName: display,
				Description: p.Description, DataType: dt, RequireImplementation: true, TypeClasses: []any{}}
		}
	}
	for _, l := range s.interfaceLinks(r, iface) {
		wl := s.renderInterfaceLink(iface, l)
		out.AllLinks[l.APIName] = wl
		if slices.ContainsFunc(iface.Links, func(own objects.InterfaceLinkSpec) bool { return own.APIName == l.APIName }) {
			out.Links[l.APIName] = wl
		}
	}
	return out
}

// declaringInterface names the interface that declares a property or
// link of iface: iface itself, or the first of AllExtends that has it as
// its own.
func (s *Server) declaringInterface(iface *objects.Interface, name string) string {
	set := s.interfaceSet()
	for _, candidate := range append([]string{iface.APIName}, iface.AllExtends...) {
		i, ok := set.Interface(candidate)
		if !ok {
			continue
		}
		if _, own := i.Properties[name]; own || slices.ContainsFunc(i.Links, func(l objects.InterfaceLinkSpec) bool { return l.APIName == name }) {
			return candidate
		}
	}
	return iface.APIName
}

// interfaceLinks lists the link types of iface, own and inherited, whose
// target the principal may see, by apiName.
func (s *Server) interfaceLinks(r *http.Request, iface *objects.Interface) []objects.InterfaceLinkSpec {
	p := PrincipalFrom(r.Context())
	var out []objects.InterfaceLinkSpec
	for _, l := range iface.AllLinks {
		if t := l.Target.ObjectType; t != "" {
			if p == nil || !p.CanSee(t) || !s.isObjectType(t) {
				continue
			}
		} else if target, ok := s.interfaceSet().Interface(l.Target.Interface); !ok || !s.interfaceVisible(r, target) {
			continue
		}
		out = append(out, l)
	}
	return out
}

func (s *Server) renderInterfaceLink(iface *objects.Interface, l objects.InterfaceLinkSpec) interfaceLinkType {
	target := linkedEntityAPIName{Type: "objectTypeApiName", APIName: l.Target.ObjectType}
	if l.Target.Interface != "" {
		target = linkedEntityAPIName{Type: "interfaceTypeApiName", APIName: l.Target.Interface}
	}
	return interfaceLinkType{
		RID:                 interfaceLinkTypeRIDPrefix + s.declaringInterface(iface, l.APIName) + "." + l.APIName,
		APIName:             l.APIName,
		DisplayName:         cmp.Or(l.DisplayName, l.APIName),
		Description:         l.Description,
		LinkedEntityAPIName: target,
		Cardinality:         l.Cardinality,
	}
}

// interfaceDataType renders an interface property's data type (the names
// objects.WireTypeName gives) as an ObjectPropertyType. A decimal has no
// precision or scale here: each implementation's property has its own.
func interfaceDataType(name string) map[string]any {
	if elem, ok := strings.CutPrefix(name, "array<"); ok {
		return map[string]any{"type": "array", "subType": interfaceDataType(strings.TrimSuffix(elem, ">")), "reducers": []any{}}
	}
	return map[string]any{"type": name}
}

// interfaceMetadata renders a checked interface, or the error of its
// data types.
func (s *Server) interfaceMetadata(r *http.Request, iface *objects.Interface) (interfaceTypeV2, error) {
	if err := s.checkInterfaceTypes(r, iface); err != nil {
		return interfaceTypeV2{}, err
	}
	return s.renderInterface(r, iface), nil
}

// listInterfaceTypes is GET /interfaceTypes: ListInterfaceTypesResponse,
// paged by pageSize and pageToken as listObjectTypes is.
func (s *Server) listInterfaceTypes(r *http.Request) (any, error) {
	if err := s.checkOntology(r); err != nil {
		return nil, err
	}
	q := r.URL.Query()
	size, err := s.pageSize(q.Get("pageSize"))
	if err != nil {
		return nil, err
	}
	ifaces := s.visibleInterfaces(r)
	start := 0
	if tok := q.Get("pageToken"); tok != "" {
		after, err := wire.DecodeNameToken(tok)
		if err != nil {
			return nil, err
		}
		start = len(ifaces)
		if i := slices.IndexFunc(ifaces, func(iface *objects.Interface) bool { return iface.APIName == after }); i >= 0 {
			start = i + 1
		}
	}
	end := min(start+size, len(ifaces))
	data := make([]interfaceTypeV2, 0, end-start)
	for _, iface := range ifaces[start:end] {
		it, err := s.interfaceMetadata(r, iface)
		if err != nil {
			return nil, err
		}
		data = append(data, it)
	}
	resp := map[string]any{"data": data}
	if end < len(ifaces) {
		resp["nextPageToken"] = wire.EncodeNameToken(ifaces[end-1].APIName)
	}
	return resp, nil
}

// getInterfaceType is GET /interfaceTypes/{interfaceType}: InterfaceType.
// preview=true is ignored and branch= refused, as on fullMetadata.
func (s *Server) getInterfaceType(r *http.Request) (any, error) {
	iface, err := s.pathInterface(r)
	if err != nil {
		return nil, err
	}
	return s.interfaceMetadata(r, iface)
}

// listOutgoingInterfaceLinkTypes is GET
// /interfaceTypes/{interfaceType}/outgoingLinkTypes:
// ListOutgoingInterfaceLinkTypesResponse, own and inherited link types,
// on one page.
func (s *Server) listOutgoingInterfaceLinkTypes(r *http.Request) (any, error) {
	iface, err := s.pathInterface(r)
	if err != nil {
		return nil, err
	}
	if err := s.checkInterfaceTypes(r, iface); err != nil {
		return nil, err
	}
	data := []interfaceLinkType{}
	for _, l := range s.interfaceLinks(r, iface) {
		data = append(data, s.renderInterfaceLink(iface, l))
	}
	return map[string]any{"data": data}, nil
}

// getOutgoingInterfaceLinkType is GET
// /interfaceTypes/{interfaceType}/outgoingLinkTypes/{interfaceLinkType}.
func (s *Server) getOutgoingInterfaceLinkType(r *http.Request) (any, error) {
	iface, err := s.pathInterface(r)
	if err != nil {
		return nil, err
	}
	if err := s.checkInterfaceTypes(r, iface); err != nil {
		return nil, err
	}
	name := pathParam(r, "interfaceLinkType")
	for _, l := range s.interfaceLinks(r, iface) {
		if l.APIName == name {
			return s.renderInterfaceLink(iface, l), nil
		}
	}
	return nil, wire.Err(wire.NameInterfaceLinkTypeNotFound, map[string]any{"interfaceTypeApiName": iface.APIName,
		"interfaceTypeRid": interfaceTypeRIDPrefix + iface.APIName, "interfaceLinkTypeApiName": name,
		"interfaceLinkTypeRid": interfaceLinkTypeRIDPrefix + iface.APIName + "." + name})
}
