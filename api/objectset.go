package api

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// Object sets are decoded by wire.SetDecoder; this file gives it the
// views of the types a set reads and evaluates its searchArounds
// (objectset_links.go), and serves loadObjects.

// setDecoder resolves the object types of an object set for a request
// (wire.Resolver): it opens a view of each type the set reads
// (searchAround reads several) and keeps them until release; view is the
// one of the set's own type.
type setDecoder struct {
	s          *Server
	r          *http.Request
	views      map[string]*indexer.View
	view       *indexer.View // of a set of one type
	wd         *wire.WhereDecoder
	ifaceViews map[string]interfaceView // objectset_interfaces.go
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
			err = wire.Err(wire.NameObjectTypeNotSynced, map[string]any{"objectType": name})
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

// Type is the object type of a view the principal may see.
func (d *setDecoder) Type(name string) (*objects.Type, error) {
	v, err := d.open(name, false)
	if err != nil {
		return nil, err
	}
	return v.Type(), nil
}

var _ wire.Resolver = (*setDecoder)(nil)

// decodeObjectSet decodes an object set of a request; the caller
// releases the decoder's views.
func (s *Server) decodeObjectSet(r *http.Request, raw json.RawMessage) (*setDecoder, *wire.Set, error) {
	if wire.IsNull(raw) {
		return nil, nil, wire.BadSet("objectSet is required")
	}
	d := &setDecoder{s: s, r: r, wd: s.whereDecoder(nil)}
	set, err := (&wire.SetDecoder{Resolver: d, Where: d.wd}).Decode(raw, 1)
	if err != nil {
		d.release()
		return nil, nil, err
	}
	return d, set, nil
}

// decodeSingleSet decodes an object set that must read one object type
// (or none: an empty static set, whose view is nil), for an endpoint
// that serves one type.
func (s *Server) decodeSingleSet(r *http.Request, raw json.RawMessage, endpoint string) (*setDecoder, *query.Filter, error) {
	d, set, err := s.decodeObjectSet(r, raw)
	if err != nil {
		return nil, nil, err
	}
	if set.Empty() {
		return d, &query.Filter{Op: query.OpNone}, nil
	}
	typ, f, err := set.Single(endpoint)
	if err != nil {
		d.release()
		return nil, nil, err
	}
	d.view = d.views[typ]
	return d, f, nil
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
	d, c, err := s.decodeSingleSet(r, req.ObjectSet, "loadObjects")
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
		fp: wire.Fingerprint("objectSet", t.APIName, compact(req.ObjectSet), sortKey(order))}
	page, err := s.runSearch(r.Context(), d.view, spec)
	if err != nil {
		return nil, err
	}
	page.securities = true
	return page, nil
}
