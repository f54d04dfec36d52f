package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// Object sets of one object type: base, filter, union, intersect,
// subtract and static, nested to any depth within the where limits (the
// nodes of an object set and of its where clauses share the depth and
// clause budget). They decode to the same engine filters as where clauses.

// unsupportedSets are ObjectSet kinds ontoindex does not serve.
var unsupportedSets = map[string]string{
	"searchAround":              "links are not supported: ontoindex has no link types",
	"interfaceLinkSearchAround": "links are not supported: ontoindex has no link types",
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
}

// setDecoder decodes an object set. The first object type it meets opens
// the view the whole set is evaluated on; a second type is refused.
type setDecoder struct {
	s    *Server
	r    *http.Request
	view *indexer.View
	wd   *whereDecoder
}

func badSet(reason string) *Error {
	return apiErr(nameMalformedObjectSet, map[string]any{"reason": reason})
}

func (d *setDecoder) useType(name string) (*objects.Type, error) {
	if d.view != nil {
		if t := d.view.Type(); t.APIName == name {
			return t, nil
		}
		if _, err := d.s.typeName(d.r, name); err != nil {
			return nil, err
		}
		return nil, apiErr(nameUnsupportedObjectSet, map[string]any{"reason": fmt.Sprintf("object sets of more than one object type (%s, %s) are not supported", d.view.Type().APIName, name)})
	}
	v, err := d.s.view(d.r, name)
	if err != nil {
		return nil, err
	}
	d.view = v
	d.wd.t = v.Type()
	return v.Type(), nil
}

// release gives back the view the decoder opened.
func (d *setDecoder) release() {
	if d.view != nil {
		d.view.Release()
	}
}

// decode returns the cond of an object set; typed reports whether the set
// names an object type (an empty static set does not).
func (d *setDecoder) decode(raw json.RawMessage, depth int) (f *query.Filter, typed bool, err error) {
	if depth > d.wd.maxDepth {
		return nil, false, apiErr(nameWhereClauseTooComplex, map[string]any{"maxDepth": d.wd.maxDepth, "reason": fmt.Sprintf("nested deeper than %d levels", d.wd.maxDepth)})
	}
	if err := d.wd.count(1); err != nil {
		return nil, false, err
	}
	var head map[string]json.RawMessage
	if err := json.Unmarshal(raw, &head); err != nil || head == nil {
		return nil, false, badSet("an object set must be a JSON object with a type")
	}
	var typ string
	if err := json.Unmarshal(head["type"], &typ); err != nil || typ == "" {
		return nil, false, badSet("an object set needs a string type")
	}
	if reason, ok := unsupportedSets[typ]; ok {
		return nil, false, apiErr(nameUnsupportedObjectSet, map[string]any{"objectSetType": typ, "reason": reason})
	}
	rs, err := setOf(head)
	if err != nil {
		return nil, false, badSet(typ + ": " + err.Error())
	}
	switch typ {
	case "base":
		if rs.ObjectType == "" {
			return nil, false, badSet("base needs objectType")
		}
		if _, err := d.useType(rs.ObjectType); err != nil {
			return nil, false, err
		}
		return &query.Filter{Op: query.OpAll}, true, nil
	case "filter":
		if isNull(rs.ObjectSet) || isNull(rs.Where) {
			return nil, false, badSet("filter needs objectSet and where")
		}
		inner, typed, err := d.decode(rs.ObjectSet, depth+1)
		if err != nil {
			return nil, false, err
		}
		if !typed {
			return inner, false, nil // filtering an empty set
		}
		w, err := d.wd.decode(rs.Where, depth+1)
		if err != nil {
			return nil, false, err
		}
		return query.And(inner, w), true, nil
	case "union", "intersect", "subtract":
		if len(rs.ObjectSets) == 0 {
			return nil, false, badSet(typ + " needs objectSets")
		}
		var kids []*query.Filter
		anyTyped := false
		for _, k := range rs.ObjectSets {
			kc, typed, err := d.decode(k, depth+1)
			if err != nil {
				return nil, false, err
			}
			anyTyped = anyTyped || typed
			kids = append(kids, kc)
		}
		switch typ {
		case "union":
			return query.Or(kids...), anyTyped, nil
		case "intersect":
			return query.And(kids...), anyTyped, nil
		}
		if len(kids) == 1 {
			return kids[0], anyTyped, nil
		}
		return query.And(kids[0], query.Not(query.Or(kids[1:]...))), anyTyped, nil
	case "static":
		if err := d.wd.count(len(rs.Objects)); err != nil {
			return nil, false, err
		}
		if len(rs.Objects) == 0 {
			return &query.Filter{Op: query.OpNone}, false, nil
		}
		f := &query.Filter{Op: query.OpKeys}
		for _, rid := range rs.Objects {
			typeName, key, ok := parseObjectRID(rid)
			if !ok {
				return nil, false, badSet(fmt.Sprintf("%q is not an object rid of this server (%s<objectType>.<id>)", truncate(rid), objectRIDPrefix))
			}
			if _, err := d.useType(typeName); err != nil {
				return nil, false, err
			}
			f.Keys = append(f.Keys, key)
		}
		return f, true, nil
	}
	return nil, false, badSet(fmt.Sprintf("unknown object set type %q", typ))
}

// setOf reads the keys of an object set from its decoded head (one pass
// over its JSON), refusing keys no object set type has.
func setOf(head map[string]json.RawMessage) (rawSet, error) {
	var rs rawSet
	for k, v := range head {
		null := isNull(v)
		var err error
		switch k {
		case "type":
		case "objectType":
			if !null {
				err = json.Unmarshal(v, &rs.ObjectType)
			}
		case "objectSet":
			rs.ObjectSet = v
		case "where":
			rs.Where = v
		case "objectSets":
			if !null {
				err = json.Unmarshal(v, &rs.ObjectSets)
			}
		case "objects":
			if !null {
				err = json.Unmarshal(v, &rs.Objects)
			}
		default:
			return rs, fmt.Errorf("json: unknown field %q", k)
		}
		if err != nil {
			return rs, fmt.Errorf("field %s must be %s, not %s", k, setFieldKind[k], jsonKindOf(v))
		}
	}
	return rs, nil
}

var setFieldKind = map[string]string{"objectType": "a string", "objectSets": "an array of object sets", "objects": "an array of strings"}

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
	c, _, err := d.decode(raw, 1)
	if err != nil {
		d.release()
		return nil, nil, err
	}
	return d, c, nil
}

// loadObjectSetRequest is LoadObjectSetRequestV2.
type loadObjectSetRequest struct {
	ObjectSet              json.RawMessage   `json:"objectSet"`
	OrderBy                *orderByV2        `json:"orderBy"`
	Select                 []string          `json:"select"`
	SelectV2               []json.RawMessage `json:"selectV2"`
	PageToken              string            `json:"pageToken"`
	PageSize               *int              `json:"pageSize"`
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
	if err := readBody(r, &req); err != nil {
		return nil, err
	}
	size := s.cfg.DefaultPageSize
	if req.PageSize != nil {
		var err error
		if size, err = s.checkPageSize(*req.PageSize); err != nil {
			return nil, err
		}
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
