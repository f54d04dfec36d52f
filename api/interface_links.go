package api

import (
	"encoding/json"
	"net/http"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/objects"
)

// listInterfaceLinkedObjects is GET
// /interfaces/{interfaceType}/{objectType}/{primaryKey}/links/{interfaceLinkType}:
// the objects one object of an implementer links to through an interface
// link, as the set interfaceLinkSearchAround from that object would list
// them (seen through the link's target interface, if it has one).
func (s *Server) listInterfaceLinkedObjects(r *http.Request) (any, error) {
	if err := s.checkOntology(r); err != nil {
		return nil, err
	}
	iface, typ := pathParam(r, "interfaceType"), pathParam(r, "objectType")
	if _, err := s.interfaceByName(r, iface); err != nil {
		return nil, err
	}
	t, err := s.pathObjectType(r)
	if err != nil {
		return nil, err
	}
	pk := pathParam(r, "primaryKey")
	key, err := t.ParseKey(pk)
	if err != nil {
		return nil, invalidKey(t, pk, err)
	}
	rid := wire.ObjectRIDPrefix + typ + "." + objects.DocID(key)
	raw, _ := json.Marshal(map[string]any{"type": "interfaceLinkSearchAround", "interfaceLink": pathParam(r, "interfaceLinkType"),
		"objectSet": map[string]any{"type": "asType", "entityType": iface, "objectSet": map[string]any{"type": "static", "objects": []string{rid}}}})
	d, set, err := s.decodeObjectSet(r, raw, nil)
	if err != nil {
		return nil, err
	}
	defer d.release()
	q := r.URL.Query()
	size, err := s.pageSize(q.Get("pageSize"))
	if err != nil {
		return nil, err
	}
	excl, err := parseBool("excludeRid", q.Get("excludeRid"))
	if err != nil {
		return nil, err
	}
	pr := pageRequest{listOrder: q.Get("orderBy"), selectOf: append(q["select"], q["properties"]...), pageSize: size,
		pageToken: q.Get("pageToken"), excludeRID: excl, fpKey: string(raw)}
	m, err := s.multiSearchOf(d, set, pr, shownAsInterface)
	if err != nil {
		return nil, err
	}
	return s.runMultiSearch(r.Context(), m)
}
