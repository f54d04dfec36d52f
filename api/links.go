package api

import (
	"net/http"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// linkTypeRIDPrefix starts the rid of a link type: the source type and the
// link apiName as the config declares it, so both sides share it.
const linkTypeRIDPrefix = "ri.ontoindex.main.link-type."

// linkTypeSideV2 is LinkTypeSideV2.
type linkTypeSideV2 struct {
	APIName                   string `json:"apiName"`
	DisplayName               string `json:"displayName"`
	Status                    string `json:"status"`
	ObjectTypeAPIName         string `json:"objectTypeApiName"`
	Cardinality               string `json:"cardinality"`
	ForeignKeyPropertyAPIName string `json:"foreignKeyPropertyApiName,omitempty"`
	LinkTypeRID               string `json:"linkTypeRid"`
}

// linkSides lists the outgoing link sides of an object type that the
// request's principal may follow: a link to a type it cannot see does not
// exist for it.
func (s *Server) linkSides(r *http.Request, typeName string) []objects.LinkSide {
	p := PrincipalFrom(r.Context())
	var out []objects.LinkSide
	for _, l := range s.engine.Config().Links()[typeName] {
		if p != nil && p.CanSee(l.Target) && s.isObjectType(l.Target) {
			out = append(out, l)
		}
	}
	return out
}

// linkSide returns the outgoing link side of an object type by name, if
// the principal may follow it.
func (s *Server) linkSide(r *http.Request, typeName, link string) (objects.LinkSide, bool) {
	for _, l := range s.linkSides(r, typeName) {
		if l.APIName == link {
			return l, true
		}
	}
	return objects.LinkSide{}, false
}

// linkTypeSide renders a link side.
func linkTypeSide(l objects.LinkSide) linkTypeSideV2 {
	card := "ONE"
	if l.Many {
		card = "MANY"
	}
	return linkTypeSideV2{APIName: l.APIName, DisplayName: l.DisplayName, Status: "ACTIVE", ObjectTypeAPIName: l.Target,
		Cardinality: card, ForeignKeyPropertyAPIName: l.ForeignKeyProperty(), LinkTypeRID: linkTypeRIDPrefix + l.LinkType}
}

// listOutgoingLinkTypes is GET /objectTypes/{objectType}/outgoingLinkTypes:
// ListOutgoingLinkTypesResponseV2, every side on one page (a type has a
// handful).
func (s *Server) listOutgoingLinkTypes(r *http.Request) (any, error) {
	t, err := s.pathObjectType(r)
	if err != nil {
		return nil, err
	}
	data := []linkTypeSideV2{}
	for _, l := range s.linkSides(r, t.APIName) {
		data = append(data, linkTypeSide(l))
	}
	return map[string]any{"data": data}, nil
}

// getOutgoingLinkType is GET /objectTypes/{objectType}/outgoingLinkTypes/{linkType}.
func (s *Server) getOutgoingLinkType(r *http.Request) (any, error) {
	t, err := s.pathObjectType(r)
	if err != nil {
		return nil, err
	}
	link := pathParam(r, "linkType")
	l, ok := s.linkSide(r, t.APIName, link)
	if !ok {
		return nil, wire.Err(wire.NameLinkTypeNotFound, map[string]any{"objectType": t.APIName, "linkType": link})
	}
	return linkTypeSide(l), nil
}

// linkedSet decodes {objectType}/{primaryKey}/links/{linkType}: the set of
// objects the one object links to, as a filter on the target type, with
// the decoder that holds the views it read (the caller releases it).
func (s *Server) linkedSet(r *http.Request) (*setDecoder, *query.Filter, error) {
	if err := s.checkOntology(r); err != nil {
		return nil, nil, err
	}
	d := &setDecoder{s: s, r: r, wd: s.whereDecoder(nil)}
	typ := pathParam(r, "objectType")
	sv, err := d.open(typ, false)
	if err != nil {
		return nil, nil, err
	}
	pk := pathParam(r, "primaryKey")
	key, err := sv.Type().ParseKey(pk)
	if err != nil {
		d.release()
		return nil, nil, invalidKey(sv.Type(), pk, err)
	}
	p, err := sv.Lookup(key)
	if err == nil && p.Len() == 0 {
		err = wire.Err(wire.NameObjectNotFound, map[string]any{"objectType": typ, "primaryKey": map[string]any{"value": pk}})
	}
	if err != nil {
		d.release()
		return nil, nil, err
	}
	f, target, err := d.SearchAround(&query.Filter{Op: query.OpKeys, Keys: [][]byte{key}}, typ, pathParam(r, "linkType"))
	if err != nil {
		d.release()
		return nil, nil, err
	}
	d.view = d.views[target]
	return d, f, nil
}

// listLinkedObjects is GET /objects/{objectType}/{primaryKey}/links/{linkType}:
// ListLinkedObjectsResponseV2, with the paging, select and orderBy of
// listObjects.
func (s *Server) listLinkedObjects(r *http.Request) (any, error) {
	d, f, err := s.linkedSet(r)
	if err != nil {
		return nil, err
	}
	defer d.release()
	spec, err := s.listSpec(r, d.view.Type())
	if err != nil {
		return nil, err
	}
	spec.where = f
	spec.fp = wire.Fingerprint("links", pathParam(r, "objectType"), pathParam(r, "primaryKey"), pathParam(r, "linkType"), sortKey(spec.sort))
	return s.runSearch(r.Context(), d.view, spec)
}

// getLinkedObject is GET /objects/{objectType}/{primaryKey}/links/{linkType}/{linkedObjectPrimaryKey}.
func (s *Server) getLinkedObject(r *http.Request) (any, error) {
	d, f, err := s.linkedSet(r)
	if err != nil {
		return nil, err
	}
	defer d.release()
	t := d.view.Type()
	key, pk, sel, excl, err := getParams(r, t, "linkedObjectPrimaryKey")
	if err != nil {
		return nil, err
	}
	spec := searchSpec{where: query.And(f, &query.Filter{Op: query.OpKeys, Keys: [][]byte{key}}), pageSize: 1,
		sel: sel, excludeRID: excl, fp: wire.Fingerprint("linked")}
	page, err := s.runSearch(r.Context(), d.view, spec)
	if err != nil {
		return nil, err
	}
	if page.pageLen() == 0 {
		return nil, wire.Err(wire.NameLinkedObjectNotFound, map[string]any{"objectType": pathParam(r, "objectType"), "primaryKey": pathParam(r, "primaryKey"),
			"linkType": pathParam(r, "linkType"), "linkedObjectType": t.APIName, "linkedObjectPrimaryKey": map[string]any{"value": pk}})
	}
	return oneObject{r: page.r, page: page.page}, nil
}
