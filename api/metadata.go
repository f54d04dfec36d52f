package api

import (
	"net/http"

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
// empty. ontoindex has no interfaces and no shared properties: listing an
// interface would make the client fetch it from interfaceTypes/{name},
// which this server does not serve, and fail the whole load.
type objectTypeFullMetadata struct {
	ObjectType                objectTypeV2      `json:"objectType"`
	LinkTypes                 []linkTypeSideV2  `json:"linkTypes"`
	ImplementsInterfaces      []string          `json:"implementsInterfaces"`
	ImplementsInterfaces2     map[string]any    `json:"implementsInterfaces2"`
	SharedPropertyTypeMapping map[string]string `json:"sharedPropertyTypeMapping"`
}

// getObjectTypeFullMetadata is GET /objectTypes/{objectType}/fullMetadata.
// The client always sends preview=true, and branch= when it is configured
// with a branch; ontoindex has neither previews nor branches, so both are
// ignored, as they are on loadObjects and aggregate.
func (s *Server) getObjectTypeFullMetadata(r *http.Request) (any, error) {
	t, err := s.pathObjectType(r)
	if err != nil {
		return nil, err
	}
	links := make([]linkTypeSideV2, 0)
	for _, l := range s.linkSides(r, t.APIName) {
		links = append(links, linkTypeSide(l))
	}
	return objectTypeFullMetadata{
		ObjectType:                s.renderType(t),
		LinkTypes:                 links,
		ImplementsInterfaces:      []string{},
		ImplementsInterfaces2:     map[string]any{},
		SharedPropertyTypeMapping: map[string]string{},
	}, nil
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
