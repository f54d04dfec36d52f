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
	ifaceViews map[viewKey]interfaceView // objectset_interfaces.go
	listing    *listing                  // of a page of a snapshot listing: its views come from there
	derived    *wire.Derived             // of the set decoded; nil: none
}

// open returns the view of an object type the principal may see; internal
// opens a link table, which is no object type and has no scope.
func (d *setDecoder) open(name string, internal bool) (*indexer.View, error) {
	if v, ok := d.views[name]; ok {
		return v, nil
	}
	v, held, err := d.s.listings.view(d.listing, name)
	switch {
	case held && err == nil && !internal:
		_, err = d.s.typeName(d.r, name) // the token may still see it
		if err != nil {
			v.Release()
		}
	case held:
	case internal:
		v, err = d.s.engine.View(name)
		if errors.Is(err, indexer.ErrNotBuilt) {
			err = wire.Err(wire.NameObjectTypeNotSynced, map[string]any{"objectType": name})
		}
	default:
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
// A page of a snapshot listing (l) opens its views there.
func (s *Server) decodeObjectSet(r *http.Request, raw json.RawMessage, l *listing) (*setDecoder, *wire.Set, error) {
	return s.decodeSet(r, raw, "", l)
}

// decodeSet decodes an object set; derivedOK names the endpoint when it
// serves sets with derived properties, which the others refuse.
func (s *Server) decodeSet(r *http.Request, raw json.RawMessage, derivedOK string, l *listing) (*setDecoder, *wire.Set, error) {
	if wire.IsNull(raw) {
		return nil, nil, wire.BadSet("objectSet is required")
	}
	d := &setDecoder{s: s, r: r, wd: s.whereDecoder(nil), listing: l}
	set, err := (&wire.SetDecoder{Resolver: d, Where: d.wd}).Decode(raw, 1)
	if err != nil {
		d.release()
		return nil, nil, err
	}
	if set.Derived != nil && derivedOK == "" {
		d.release()
		return nil, nil, wire.Err(wire.NameUnsupportedObjectSet, map[string]any{"objectSetType": "withProperties",
			"reason": "derived properties are served by loadObjects and aggregate"})
	}
	d.derived = set.Derived
	return d, set, nil
}

// decodeSingleSet decodes an object set that must read one object type
// (or none: an empty static set, whose view is nil), for an endpoint
// that serves one type.
func (s *Server) decodeSingleSet(r *http.Request, raw json.RawMessage, endpoint string, l *listing) (*setDecoder, *query.Filter, error) {
	derivedOK := ""
	if endpoint == "loadObjects" {
		derivedOK = endpoint
	}
	d, set, err := s.decodeSet(r, raw, derivedOK, l)
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
	l, token, err := s.listings.begin(req.Snapshot, req.PageToken)
	if err != nil {
		return nil, err
	}
	d, c, err := s.decodeSingleSet(r, req.ObjectSet, "loadObjects", l)
	if err != nil {
		s.listings.finish(l, nil, nil)
		return nil, err
	}
	defer d.release()
	var next *string // the page's next token once it is computed, for the listing
	defer func() { s.listings.finish(l, d.views, next) }()
	if d.view == nil {
		// The set is empty and has no type: there is nothing to check select
		// and orderBy against.
		page := &objectPage{securities: true}
		next = &page.next
		return page, nil
	}
	if d.derived != nil {
		req.PageToken = token
		page, err := s.loadDerived(r.Context(), d, c, &req, size)
		if err != nil {
			return nil, err
		}
		next = &page.next
		return page, nil
	}
	t := d.view.Type()
	order, sel, err := orderAndSelect(t, req.OrderBy, req.Select, req.SelectV2)
	if err != nil {
		return nil, err
	}
	spec := searchSpec{where: c, sort: order, pageSize: size, pageToken: token, sel: sel, excludeRID: req.ExcludeRid,
		fp: wire.Fingerprint("objectSet", t.APIName, compact(req.ObjectSet), sortKey(order))}
	page, err := s.runSearch(r.Context(), d.view, spec)
	if err != nil {
		return nil, err
	}
	page.securities = true
	next = &page.next
	return page, nil
}
