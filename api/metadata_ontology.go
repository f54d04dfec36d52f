package api

import (
	"net/http"
	"slices"
	"strings"

	"github.com/ontoindex/ontoindex/api/wire"
)

// The ontology's metadata as a whole, which SDK generators read: GET
// fullMetadata and POST metadata (loadMetadata) answer
// OntologyFullMetadata, and POST objectTypes/getByRidBatch answers
// GetObjectTypeByRidBatchResponse (@osdk/foundry.ontologies 2.57.0). What
// a token may not see is left out, as from the lists. ontoindex has no
// action, query, shared property or value types: their maps are empty, and
// loadMetadata naming one is its NotFound error.

// routeMetadata registers the interface and ontology metadata routes
// under /api/v2/ontologies/{ontology}.
func (s *Server) routeMetadata(api routes) {
	api.handle(http.MethodGet, "/fullMetadata", s.getOntologyFullMetadata)
	api.handle(http.MethodPost, "/metadata", s.loadOntologyMetadata)
	api.handle(http.MethodPost, "/objectTypes/getByRidBatch", s.getObjectTypesByRidBatch)
	api.handle(http.MethodGet, "/interfaceTypes", s.listInterfaceTypes)
	api.handle(http.MethodGet, "/interfaceTypes/{interfaceType}", s.getInterfaceType)
	api.handle(http.MethodGet, "/interfaceTypes/{interfaceType}/outgoingLinkTypes", s.listOutgoingInterfaceLinkTypes)
	api.handle(http.MethodGet, "/interfaceTypes/{interfaceType}/outgoingLinkTypes/{interfaceLinkType}", s.getOutgoingInterfaceLinkType)
}

// ontologyFullMetadata is OntologyFullMetadata. branch is optional and
// ontoindex has no branches: it is left out.
type ontologyFullMetadata struct {
	Ontology            ontologyV2                        `json:"ontology"`
	ObjectTypes         map[string]objectTypeFullMetadata `json:"objectTypes"`
	ActionTypes         map[string]any                    `json:"actionTypes"`
	QueryTypes          map[string]any                    `json:"queryTypes"`
	InterfaceTypes      map[string]interfaceTypeV2        `json:"interfaceTypes"`
	SharedPropertyTypes map[string]any                    `json:"sharedPropertyTypes"`
	ValueTypes          map[string]any                    `json:"valueTypes"`
}

func (s *Server) newOntologyMetadata() *ontologyFullMetadata {
	return &ontologyFullMetadata{Ontology: s.ontology(), ObjectTypes: map[string]objectTypeFullMetadata{},
		ActionTypes: map[string]any{}, QueryTypes: map[string]any{}, InterfaceTypes: map[string]interfaceTypeV2{},
		SharedPropertyTypes: map[string]any{}, ValueTypes: map[string]any{}}
}

// getOntologyFullMetadata is GET /fullMetadata: every object type and
// interface the principal sees (a branch= is refused: branches.go).
func (s *Server) getOntologyFullMetadata(r *http.Request) (any, error) {
	if err := s.checkOntology(r); err != nil {
		return nil, err
	}
	out := s.newOntologyMetadata()
	for _, name := range s.visibleTypes(r) {
		t, err := s.engine.ObjectType(r.Context(), name)
		if err != nil {
			return nil, err
		}
		out.ObjectTypes[name] = s.fullMetadata(r, t, nil)
	}
	for _, iface := range s.visibleInterfaces(r) {
		it, err := s.interfaceMetadata(r, iface)
		if err != nil {
			return nil, err
		}
		out.InterfaceTypes[iface.APIName] = it
	}
	return out, nil
}

// loadMetadataRequest is LoadOntologyMetadataRequest; a list left out is
// empty.
type loadMetadataRequest struct {
	ObjectTypes    []string `json:"objectTypes"`
	LinkTypes      []string `json:"linkTypes"`
	ActionTypes    []string `json:"actionTypes"`
	QueryTypes     []string `json:"queryTypes"`
	InterfaceTypes []string `json:"interfaceTypes"`
}

// loadOntologyMetadata is POST /metadata: OntologyFullMetadata with only
// what the request names, and an unknown name is the NotFound error of
// its kind (the first, in the order of the request's fields). A link type
// lives in its object type's full metadata: a requested object type
// carries all its link types, and a requested link type of a type that
// was not requested brings that type, with only the requested link types.
// A link type name is the apiName of a side (customer, orders), which
// several types may have: each of them comes.
func (s *Server) loadOntologyMetadata(r *http.Request) (any, error) {
	if err := s.checkOntology(r); err != nil {
		return nil, err
	}
	var req loadMetadataRequest
	if err := s.readBody(r, &req); err != nil {
		return nil, err
	}
	out := s.newOntologyMetadata()
	for _, name := range req.ObjectTypes {
		if _, err := s.typeName(r, name); err != nil {
			return nil, err
		}
	}
	linkOwners := map[string][]string{} // type -> requested link names it has
	for _, link := range req.LinkTypes {
		found := false
		for _, typ := range s.visibleTypes(r) {
			if _, ok := s.linkSide(r, typ, link); ok {
				linkOwners[typ] = append(linkOwners[typ], link)
				found = true
			}
		}
		if !found {
			return nil, wire.Err(wire.NameLinkTypeNotFound, map[string]any{"linkType": link,
				"reason": "no object type the token sees has an outgoing link type " + link})
		}
	}
	for _, name := range req.InterfaceTypes {
		iface, err := s.interfaceByName(r, name)
		if err != nil {
			return nil, err
		}
		it, err := s.interfaceMetadata(r, iface)
		if err != nil {
			return nil, err
		}
		out.InterfaceTypes[name] = it
	}
	if len(req.ActionTypes) > 0 { // there are none
		return nil, wire.Err(wire.NameActionTypeNotFound, map[string]any{"actionType": req.ActionTypes[0], "rid": req.ActionTypes[0]})
	}
	if len(req.QueryTypes) > 0 {
		return nil, wire.Err(wire.NameQueryNotFound, map[string]any{"query": req.QueryTypes[0]})
	}
	for _, typ := range s.visibleTypes(r) { // in config order
		requested := slices.Contains(req.ObjectTypes, typ)
		links, linked := linkOwners[typ]
		if !requested && !linked {
			continue
		}
		t, err := s.engine.ObjectType(r.Context(), typ)
		if err != nil {
			return nil, err
		}
		if requested {
			links = nil // all of them
		}
		out.ObjectTypes[typ] = s.fullMetadata(r, t, links)
	}
	return out, nil
}

// ridBatchRequest is GetObjectTypeByRidBatchRequest.
type ridBatchRequest struct {
	Requests []struct {
		ObjectTypeRID string `json:"objectTypeRid"`
	} `json:"requests"`
}

// getObjectTypesByRidBatch is POST /objectTypes/getByRidBatch: the object
// types of the rids that name one the principal sees, in the order of the
// request, each once; other rids are left out, as the batch endpoints of
// the API leave out what they do not find.
func (s *Server) getObjectTypesByRidBatch(r *http.Request) (any, error) {
	if err := s.checkOntology(r); err != nil {
		return nil, err
	}
	var req ridBatchRequest
	if err := s.readBody(r, &req); err != nil {
		return nil, err
	}
	data := []objectTypeV2{}
	seen := map[string]bool{}
	for _, q := range req.Requests {
		name, ok := strings.CutPrefix(q.ObjectTypeRID, objectTypeRIDPrefix)
		if !ok || seen[name] {
			continue
		}
		if _, err := s.typeName(r, name); err != nil {
			continue
		}
		seen[name] = true
		t, err := s.engine.ObjectType(r.Context(), name)
		if err != nil {
			return nil, err
		}
		data = append(data, s.renderType(t))
	}
	return map[string]any{"data": data}, nil
}
