package api

import (
	"maps"
	"net/http"
	"slices"

	"github.com/ontoindex/ontoindex/objects"
)

// objectTypeFullMetadata is ObjectTypeFullMetadata: what @osdk/client
// loads (GET .../objectTypes/{objectType}/fullMetadata) the first time an
// application uses an object type, before it can read objects of it:
// fetchOne needs primaryKey to build its filter, and $link and pivotTo
// need linkTypes.
//
// The client refuses metadata without objectType.icon or without a
// linkTypes array, and it refuses implementsInterfaces without
// implementsInterfaces2, so all of them are always sent, empty when
// empty. For each interface the type lists, the client then fetches
// interfaceTypes/{name} (metadata_interfaces.go) and fails the whole load
// when that fails. ontoindex has no shared property types:
// sharedPropertyTypeMapping is empty.
type objectTypeFullMetadata struct {
	ObjectType                objectTypeV2                                 `json:"objectType"`
	LinkTypes                 []linkTypeSideV2                             `json:"linkTypes"`
	ImplementsInterfaces      []string                                     `json:"implementsInterfaces"`
	ImplementsInterfaces2     map[string]objectTypeInterfaceImplementation `json:"implementsInterfaces2"`
	SharedPropertyTypeMapping map[string]string                            `json:"sharedPropertyTypeMapping"`
}

// getObjectTypeFullMetadata is GET /objectTypes/{objectType}/fullMetadata.
// The client always sends preview=true, which is ignored (ontoindex has
// no previews); a branch= it sends is refused (branches.go).
func (s *Server) getObjectTypeFullMetadata(r *http.Request) (any, error) {
	t, err := s.pathObjectType(r)
	if err != nil {
		return nil, err
	}
	return s.fullMetadata(r, t, nil), nil
}

// fullMetadata renders the full metadata of a resolved type, with the
// link types of names only when names is not nil (loadMetadata).
func (s *Server) fullMetadata(r *http.Request, t *objects.Type, names []string) objectTypeFullMetadata {
	links := make([]linkTypeSideV2, 0)
	for _, l := range s.linkSides(r, t.APIName) {
		if names == nil || slices.Contains(names, l.APIName) {
			links = append(links, linkTypeSide(l))
		}
	}
	ifaces, impls := s.implementations(r, t)
	return objectTypeFullMetadata{
		ObjectType:                s.renderType(t),
		LinkTypes:                 links,
		ImplementsInterfaces:      ifaces,
		ImplementsInterfaces2:     impls,
		SharedPropertyTypeMapping: map[string]string{},
	}
}

// pathObjectType resolves the {objectType} path parameter of the
// configured ontology to a type the principal may see. A type that was
// never built is resolved from its table, so its metadata is served
// before its objects are.
func (s *Server) pathObjectType(r *http.Request) (*objects.Type, error) {
	if err := s.checkOntology(r); err != nil {
		return nil, err
	}
	name, err := s.typeName(r, pathParam(r, "objectType"))
	if err != nil {
		return nil, err
	}
	return s.engine.ObjectType(r.Context(), name)
}

// implementations renders ObjectTypeFullMetadata's implementsInterfaces
// (sorted, direct and inherited) and implementsInterfaces2 of a resolved
// type: the implementations whose data types fit (see the top of the
// file), with the links the principal may follow. What the converters
// read (wireObjectTypeFullMetadataToSdkObjectMetadata): implementsInterfaces
// and, per interface, propertiesV2's localPropertyImplementation
// propertyApiName when propertiesV2 is not empty, else properties.
func (s *Server) implementations(r *http.Request, t *objects.Type) ([]string, map[string]objectTypeInterfaceImplementation) {
	set := s.interfaceSet()
	names := []string{}
	impls := map[string]objectTypeInterfaceImplementation{}
	for _, name := range slices.Sorted(maps.Keys(set.Implementations(t.APIName))) {
		if set.CheckImplementation(t, name) != nil {
			continue
		}
		impl, _ := set.Implementation(t.APIName, name)
		wi := objectTypeInterfaceImplementation{APIName: name, RID: interfaceTypeRIDPrefix + name,
			Properties: map[string]string{}, PropertiesV2: map[string]propertyImplementation{}, Links: map[string][]string{}}
		for ip, tp := range impl.Properties {
			wi.Properties[ip] = tp
			wi.PropertiesV2[ip] = propertyImplementation{Type: "localPropertyImplementation", PropertyAPIName: tp}
		}
		for il, tl := range impl.Links {
			if _, ok := s.linkSide(r, t.APIName, tl); ok {
				wi.Links[il] = []string{tl}
			}
		}
		names = append(names, name)
		impls[name] = wi
	}
	return names, impls
}

// objectTypeInterfaceImplementation is ObjectTypeInterfaceImplementation.
type objectTypeInterfaceImplementation struct {
	APIName      string                            `json:"apiName"`
	RID          string                            `json:"rid"`
	Properties   map[string]string                 `json:"properties"`
	PropertiesV2 map[string]propertyImplementation `json:"propertiesV2"`
	Links        map[string][]string               `json:"links"`
}

// propertyImplementation is InterfacePropertyTypeImplementation of type
// localPropertyImplementation.
type propertyImplementation struct {
	Type            string `json:"type"`
	PropertyAPIName string `json:"propertyApiName"`
}
