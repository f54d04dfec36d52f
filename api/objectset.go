package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// Object sets: base, filter, union, intersect, subtract, static and
// searchAround, nested to any depth within the where limits (the nodes of
// an object set and of its where clauses share the depth and clause
// budget). Each set is of one object type and decodes to an engine filter
// on it, as where clauses do; a searchAround is evaluated when it is
// decoded (objectset_links.go) and becomes a filter on its target type.

// unsupportedSets are ObjectSet kinds ontoindex does not serve.
var unsupportedSets = map[string]string{
	"interfaceLinkSearchAround": "interfaces are not supported",
	"reference":                 "stored object sets are not supported; send the object set definition",
	"withProperties":            "derived properties are not supported",
	"asType":                    "interfaces are not supported",
	"asBaseObjectTypes":         "interfaces are not supported",
	"interfaceBase":             "interfaces are not supported",
	"methodInput":               "method inputs are not supported",
	"nearestNeighbors":          "vector search is not supported: ontoindex has no vector properties",
}

type rawSet struct {
	Type       string            `json:"type"`
	ObjectType string            `json:"objectType"`
	ObjectSet  json.RawMessage   `json:"objectSet"`
	Where      json.RawMessage   `json:"where"`
	ObjectSets []json.RawMessage `json:"objectSets"`
	Objects    []string          `json:"objects"`
	Link       string            `json:"link"`
}

// setDecoder decodes an object set. It opens a view of each type the set
// reads (searchAround reads several) and keeps them until release; view is
// the one of the set's own type.
type setDecoder struct {
	s     *Server
	r     *http.Request
	views map[string]*indexer.View
	view  *indexer.View
	wd    *whereDecoder
}

func badSet(reason string) *Error {
	return apiErr(nameMalformedObjectSet, map[string]any{"reason": reason})
}

// open returns the view of an object type the principal may see; internal
// opens a link table, which is no object type and has no scope.
func (d *setDecoder) open(name string, internal bool) (*indexer.View, error) {
	if v, ok := d.views[name]; ok {
		return v, nil
	}
	var v *indexer.View
	var err error
	if internal {
		v, err = d.s.engine.View(name)
		if errors.Is(err, indexer.ErrNotBuilt) {
			err = apiErr(nameObjectTypeNotSynced, map[string]any{"objectType": name})
		}
	} else {
		v, err = d.s.view(d.r, name)
	}
	if err != nil {
		return nil, err
	}
	if d.views == nil {
		d.views = map[string]*indexer.View{}
	}
	d.views[name] = v
	return v, nil
}

// release gives back the views the decoder opened.
func (d *setDecoder) release() {
	for _, v := range d.views {
		v.Release()
	}
}

// sameType checks that the typed kids of a set operation are of one type.
func sameType(a, b string) (string, error) {
	switch {
	case a == "":
		return b, nil
	case b == "" || a == b:
		return a, nil
	}
	return "", apiErr(nameUnsupportedObjectSet, map[string]any{"reason": fmt.Sprintf("object sets of more than one object type (%s, %s) are not supported", a, b)})
}

// decode returns the filter of an object set and its object type; an empty
// static set has none ("").
func (d *setDecoder) decode(raw json.RawMessage, depth int) (f *query.Filter, typ string, err error) {
	if depth > d.wd.maxDepth {
		return nil, "", apiErr(nameWhereClauseTooComplex, map[string]any{"maxDepth": d.wd.maxDepth, "reason": fmt.Sprintf("nested deeper than %d levels", d.wd.maxDepth)})
	}
	if err := d.wd.count(1); err != nil {
		return nil, "", err
	}
	head, ok := jsonObject(raw)
	if !ok {
		return nil, "", badSet("an object set must be a JSON object with a type")
	}
	kind, ok := jsonString(head.get("type"))
	if !ok || kind == "" {
		return nil, "", badSet("an object set needs a string type")
	}
	if reason, ok := unsupportedSets[kind]; ok {
		return nil, "", apiErr(nameUnsupportedObjectSet, map[string]any{"objectSetType": kind, "reason": reason})
	}
	rs, err := setOf(head)
	if err != nil {
		return nil, "", badSet(kind + ": " + err.Error())
	}
	switch kind {
	case "base":
		if rs.ObjectType == "" {
			return nil, "", badSet("base needs objectType")
		}
		if _, err := d.open(rs.ObjectType, false); err != nil {
			return nil, "", err
		}
		return &query.Filter{Op: query.OpAll}, rs.ObjectType, nil
	case "filter":
		if isNull(rs.ObjectSet) || isNull(rs.Where) {
			return nil, "", badSet("filter needs objectSet and where")
		}
		inner, typ, err := d.decode(rs.ObjectSet, depth+1)
		if err != nil || typ == "" {
			return inner, "", err // filtering an empty set
		}
		d.wd.t = d.views[typ].Type()
		w, err := d.wd.decode(rs.Where, depth+1)
		if err != nil {
			return nil, "", err
		}
		return query.And(inner, w), typ, nil
	case "union", "intersect", "subtract":
		if len(rs.ObjectSets) == 0 {
			return nil, "", badSet(kind + " needs objectSets")
		}
		var kids []*query.Filter
		for _, k := range rs.ObjectSets {
			kc, kt, err := d.decode(k, depth+1)
			if err != nil {
				return nil, "", err
			}
			if typ, err = sameType(typ, kt); err != nil {
				return nil, "", err
			}
			kids = append(kids, kc)
		}
		switch kind {
		case "union":
			return query.Or(kids...), typ, nil
		case "intersect":
			return query.And(kids...), typ, nil
		}
		if len(kids) == 1 {
			return kids[0], typ, nil
		}
		return query.And(kids[0], query.Not(query.Or(kids[1:]...))), typ, nil
	case "static":
		if err := d.wd.count(len(rs.Objects)); err != nil {
			return nil, "", err
		}
		if len(rs.Objects) == 0 {
			return &query.Filter{Op: query.OpNone}, "", nil
		}
		f := &query.Filter{Op: query.OpKeys}
		for _, rid := range rs.Objects {
			typeName, key, ok := parseObjectRID(rid)
			if !ok {
				return nil, "", badSet(fmt.Sprintf("%q is not an object rid of this server (%s<objectType>.<id>)", truncate(rid), objectRIDPrefix))
			}
			if _, err := d.open(typeName, false); err != nil {
				return nil, "", err
			}
			if typ, err = sameType(typ, typeName); err != nil {
				return nil, "", err
			}
			f.Keys = append(f.Keys, key)
		}
		return f, typ, nil
	case "searchAround":
		if isNull(rs.ObjectSet) || rs.Link == "" {
			return nil, "", badSet("searchAround needs objectSet and link")
		}
		inner, typ, err := d.decode(rs.ObjectSet, depth+1)
		if err != nil || typ == "" {
			return inner, "", err // around an empty set
		}
		return d.searchAround(inner, typ, rs.Link)
	}
	return nil, "", badSet(fmt.Sprintf("unknown object set type %q", kind))
}

// setOf reads the keys of an object set from its fields, refusing keys no
// object set type has.
func setOf(head jsonFields) (rawSet, error) {
	var rs rawSet
	for _, kv := range head {
		k, v := kv.key, kv.val
		null := isNull(v)
		var err error
		ok := true
		switch k {
		case "type":
		case "objectType":
			if !null {
				rs.ObjectType, ok = jsonString(v)
			}
		case "objectSet":
			rs.ObjectSet = v
		case "where":
			rs.Where = v
		case "objectSets":
			if !null {
				rs.ObjectSets, ok = jsonArray(v)
			}
		case "objects":
			if !null {
				err = json.Unmarshal(v, &rs.Objects)
			}
		case "link":
			if !null {
				rs.Link, ok = jsonString(v)
			}
		default:
			return rs, fmt.Errorf("json: unknown field %q", k)
		}
		if err != nil || !ok {
			return rs, fmt.Errorf("field %s must be %s, not %s", k, setFieldKind[k], jsonKindOf(v))
		}
	}
	return rs, nil
}

var setFieldKind = map[string]string{"objectType": "a string", "objectSets": "an array of object sets", "objects": "an array of strings", "link": "a string"}

// parseObjectRID splits an object rid into its type and encoded key.
func parseObjectRID(rid string) (typeName string, key []byte, ok bool) {
	rest, ok := strings.CutPrefix(rid, objectRIDPrefix)
	if !ok {
		return "", nil, false
	}
	typeName, docID, ok := strings.Cut(rest, ".")
	if !ok || typeName == "" || docID == "" {
		return "", nil, false
	}
	key, err := objects.KeyFromDocID(docID)
	if err != nil || len(key) == 0 || objects.DocID(key) != docID {
		return "", nil, false
	}
	return typeName, key, true
}

// decodeObjectSet decodes an object set of a request. When it returns a
// decoder with a view, the caller releases it; a nil view means the set
// is empty and has no type.
func (s *Server) decodeObjectSet(r *http.Request, raw json.RawMessage) (*setDecoder, *query.Filter, error) {
	if isNull(raw) {
		return nil, nil, badSet("objectSet is required")
	}
	d := &setDecoder{s: s, r: r, wd: &whereDecoder{maxDepth: s.cfg.MaxWhereDepth, maxClauses: s.cfg.MaxWhereClauses}}
	c, typ, err := d.decode(raw, 1)
	if err != nil {
		d.release()
		return nil, nil, err
	}
	d.view = d.views[typ] // nil for an empty set without a type
	return d, c, nil
}

// loadObjectSetRequest is LoadObjectSetRequestV2.
type loadObjectSetRequest struct {
	ObjectSet              json.RawMessage   `json:"objectSet"`
	OrderBy                *orderByV2        `json:"orderBy"`
	Select                 []string          `json:"select"`
	SelectV2               []json.RawMessage `json:"selectV2"`
	PageToken              string            `json:"pageToken"`
	PageSize               json.RawMessage   `json:"pageSize"`
	ExcludeRid             bool              `json:"excludeRid"`
	LoadPropertySecurities bool              `json:"loadPropertySecurities"`
	Snapshot               bool              `json:"snapshot"`
	IncludeComputeUsage    json.RawMessage   `json:"includeComputeUsage"`
}

// loadObjectSet is POST /objectSets/loadObjects.
func (s *Server) loadObjectSet(r *http.Request) (any, error) {
	if err := s.checkOntology(r); err != nil {
		return nil, err
	}
	var req loadObjectSetRequest
	if err := s.readBody(r, &req); err != nil {
		return nil, err
	}
	size, err := s.bodyPageSize(req.PageSize)
	if err != nil {
		return nil, err
	}
	d, c, err := s.decodeObjectSet(r, req.ObjectSet)
	if err != nil {
		return nil, err
	}
	defer d.release()
	if d.view == nil {
		// The set is empty and has no type: there is nothing to check select
		// and orderBy against.
		return &objectPage{securities: true}, nil
	}
	t := d.view.Type()
	order, sel, err := orderAndSelect(t, req.OrderBy, req.Select, req.SelectV2)
	if err != nil {
		return nil, err
	}
	spec := searchSpec{where: c, sort: order, pageSize: size, pageToken: req.PageToken, sel: sel, excludeRID: req.ExcludeRid,
		fp: fingerprint("objectSet", t.APIName, compact(req.ObjectSet), sortKey(order))}
	page, err := s.runSearch(r.Context(), d.view, spec)
	if err != nil {
		return nil, err
	}
	page.securities = true
	return page, nil
}
