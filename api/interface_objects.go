package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer/query"
	"github.com/ontoindex/ontoindex/objects"
)

// Reads of sets of several object types and of interfaces:
// loadObjectsMultipleObjectTypes, loadObjectsOrInterfaces and the
// /interfaces/{interfaceType} routes. Their pages are merges
// (objectset_multiple.go).

// shownAs says which properties the objects of a page carry.
type shownAs int

const (
	// shownAsObjects: each object with its own type's properties (what
	// loadObjectsMultipleObjectTypes returns, with the mappings that let
	// the client see them through the interface).
	shownAsObjects shownAs = iota
	// shownAsInterface: objects of a set seen through an interface carry
	// the interface's properties, under its names.
	shownAsInterface
)

// pageRequest is what a page of a set asks besides the set: order,
// selection and paging, in the names of the set's view.
type pageRequest struct {
	orderBy    *orderByV2
	listOrder  string // orderBy of a GET listing (parseOrderBy), when orderBy is nil
	selectOf   []string
	pageSize   int
	pageToken  string
	excludeRID bool
	fpKey      string // what else the page token's fingerprint covers
}

// multiSearchOf plans a page of a set over its types.
func (s *Server) multiSearchOf(d *setDecoder, set *wire.Set, pr pageRequest, shown shownAs) (*multiSearch, error) {
	m := &multiSearch{pageSize: pr.pageSize, pageToken: pr.pageToken}
	var sortText string
	for i, typ := range set.Types {
		v := d.views[typ]
		ts := &typeSearch{view: v, shown: v.Type(), filter: set.Filters[typ]}
		if set.Interface != "" {
			var err error
			if ts.shown, ts.names, err = d.InterfaceView(set.Interface, typ); err != nil {
				return nil, err
			}
			ts.layout = d.ifaceViews[viewKey{set.Interface, typ}].layout
		}
		var order []sortField
		var err error
		if pr.orderBy != nil {
			order, err = sortFields(ts.shown, pr.orderBy)
		} else {
			order, err = parseOrderBy(ts.shown, pr.listOrder)
		}
		if err != nil {
			return nil, err
		}
		for _, f := range order {
			if f.relevance {
				return nil, relevanceOfOneType()
			}
			ts.sort = append(ts.sort, query.Sort{Property: ts.engineName(f.prop.APIName), Desc: f.desc})
		}
		if i == 0 {
			m.order, sortText = order, sortKey(order)
		}
		for _, f := range m.order {
			ts.sortAt = append(ts.sortAt, ts.shown.PropertyIndex(f.prop.APIName))
		}
		if ts.r, err = s.pageRenderer(ts, pr, shown); err != nil {
			return nil, err
		}
		m.types = append(m.types, ts)
	}
	m.fp = wire.Fingerprint("objectSets", strings.Join(set.Types, ","), set.Interface, pr.fpKey+"|"+sortText)
	return m, nil
}

// pageRenderer is the renderer of one type's objects in a page.
func (s *Server) pageRenderer(ts *typeSearch, pr pageRequest, shown shownAs) (*renderer, error) {
	t := ts.view.Type()
	if ts.names == nil || shown == shownAsObjects {
		names := pr.selectOf
		if ts.names != nil { // interface names to the type's
			names = make([]string, 0, len(pr.selectOf))
			for _, n := range splitNames(pr.selectOf) {
				if _, ok := ts.shown.Property(n); !ok {
					return nil, wire.PropertiesNotFound(ts.shown, []string{n})
				}
				names = append(names, ts.engineName(n))
			}
		}
		sel, err := parseSelect(t, names)
		if err != nil {
			return nil, err
		}
		return s.renderer(t, sel, pr.excludeRID), nil
	}
	// Seen through the interface: its properties only, never the hidden
	// ones of the view.
	sel := selection{}
	names := splitNames(pr.selectOf)
	if len(names) == 0 {
		for _, p := range ts.shown.Properties {
			if !strings.HasPrefix(p.APIName, objects.HiddenPrefix) {
				sel[p.APIName] = true
			}
		}
	}
	for _, n := range names {
		if _, ok := ts.shown.Property(n); !ok || strings.HasPrefix(n, objects.HiddenPrefix) {
			return nil, wire.PropertiesNotFound(ts.shown, []string{n})
		}
		sel[n] = true
	}
	return &renderer{layout: ts.layout, sel: sel, excludeRID: pr.excludeRID}, nil
}

// splitNames splits repeated or comma-separated property names.
func splitNames(in []string) []string {
	var out []string
	for _, n := range in {
		for _, name := range strings.Split(n, ",") {
			if name = strings.TrimSpace(name); name != "" {
				out = append(out, name)
			}
		}
	}
	return out
}

// loadSetPage answers a load request of a set of any types.
func (s *Server) loadSetPage(r *http.Request, shown shownAs) (*multiPage, *wire.Set, error) {
	if err := s.checkOntology(r); err != nil {
		return nil, nil, err
	}
	var req loadObjectSetRequest
	if err := s.readBody(r, &req); err != nil {
		return nil, nil, err
	}
	size, err := s.bodyPageSize(req.PageSize)
	if err != nil {
		return nil, nil, err
	}
	l, token, err := s.listings.begin(req.Snapshot, req.PageToken)
	if err != nil {
		return nil, nil, err
	}
	d, set, err := s.decodeObjectSet(r, req.ObjectSet, l)
	if err != nil {
		s.listings.finish(l, nil, nil)
		return nil, nil, err
	}
	defer d.release()
	var page *multiPage
	defer func() { s.listings.finish(l, d.views, page.nextOf()) }()
	v2, err := parseSelectV2(req.SelectV2)
	if err != nil {
		return nil, nil, err
	}
	pr := pageRequest{orderBy: req.OrderBy, selectOf: append(req.Select, v2...), pageSize: size, pageToken: token,
		excludeRID: req.ExcludeRid, fpKey: compact(req.ObjectSet)}
	m, err := s.multiSearchOf(d, set, pr, shown)
	if err != nil {
		return nil, nil, err
	}
	page, err = s.runMultiSearch(r.Context(), m)
	if err != nil {
		page = nil
		return nil, nil, err
	}
	return page, set, nil
}

// loadObjectsMultipleObjectTypes is POST
// /objectSets/loadObjectsMultipleObjectTypes: a page of a set of any
// types, each object with its own properties, and for a set seen through
// an interface the mapping of its properties to each type's.
func (s *Server) loadObjectsMultipleObjectTypes(r *http.Request) (any, error) {
	page, set, err := s.loadSetPage(r, shownAsObjects)
	if err != nil {
		return nil, err
	}
	page.extra = s.interfaceMappings(set) + `,"propertySecurities":[]`
	return page, nil
}

// loadObjectsOrInterfaces is POST /objectSets/loadObjectsOrInterfaces: a
// page of a set of any types; a set seen through an interface returns its
// objects with the interface's properties.
func (s *Server) loadObjectsOrInterfaces(r *http.Request) (any, error) {
	page, _, err := s.loadSetPage(r, shownAsInterface)
	return page, err
}

// interfaceMappings renders interfaceToObjectTypeMappings and its V2 for
// the interface a set is seen through (both empty for a set of object
// types): interface -> object type -> interface property -> property.
func (s *Server) interfaceMappings(set *wire.Set) string {
	// The same for every page of a set: written once per interface set
	// (a config the server reloads brings a new one).
	is := s.interfaceSet()
	key := set.Interface + "\x00" + strings.Join(set.Types, ",")
	if m, ok := s.mappings.Load(key); ok && m.(*interfaceMapping).of == is {
		return m.(*interfaceMapping).json
	}
	m := &interfaceMapping{of: is, json: interfaceMappingsOf(is, set)}
	s.mappings.Store(key, m)
	return m.json
}

// interfaceMapping is the mappings of a set, written for one interface set.
type interfaceMapping struct {
	of   *objects.InterfaceSet
	json string
}

func interfaceMappingsOf(is *objects.InterfaceSet, set *wire.Set) string {
	v1 := map[string]map[string]map[string]string{}
	v2 := map[string]map[string]map[string]any{}
	if set.Interface != "" {
		v1[set.Interface] = map[string]map[string]string{}
		v2[set.Interface] = map[string]map[string]any{}
		for _, typ := range set.Types {
			impl, ok := is.Implementation(typ, set.Interface)
			if !ok {
				continue
			}
			v1[set.Interface][typ] = impl.Properties
			m := map[string]any{}
			for ip, tp := range impl.Properties {
				m[ip] = map[string]string{"type": "localPropertyImplementation", "propertyApiName": tp}
			}
			v2[set.Interface][typ] = m
		}
	}
	b1, _ := json.Marshal(v1)
	b2, _ := json.Marshal(v2)
	return `"interfaceToObjectTypeMappings":` + string(b1) + `,"interfaceToObjectTypeMappingsV2":` + string(b2)
}

// isBadCursor reports whether a search refused its cursor.
func isBadCursor(err error) bool { return errors.Is(err, query.ErrBadCursor) }

// interfaceRouteSet decodes the set of an interface route: interfaceBase of
// the path's interface, filtered by where (wire.SetDecoder.InterfaceSet).
func (s *Server) interfaceRouteSet(r *http.Request, where json.RawMessage, only []string) (*setDecoder, *wire.Set, error) {
	if err := s.checkOntology(r); err != nil {
		return nil, nil, err
	}
	d := &setDecoder{s: s, r: r, wd: s.whereDecoder(nil)}
	set, err := (&wire.SetDecoder{Resolver: d, Where: d.wd}).InterfaceSet(pathParam(r, "interfaceType"), where)
	if err != nil {
		d.release()
		return nil, nil, err
	}
	if len(only) > 0 {
		set.Types = slices.DeleteFunc(set.Types, func(t string) bool { return !slices.Contains(only, t) })
	}
	return d, set, nil
}

// listInterfaceObjects is GET /interfaces/{interfaceType}: the objects of
// every type that implements it, with the interface's properties.
func (s *Server) listInterfaceObjects(r *http.Request) (any, error) {
	d, set, err := s.interfaceRouteSet(r, nil, nil)
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
		pageToken: q.Get("pageToken"), excludeRID: excl, fpKey: "list"}
	m, err := s.multiSearchOf(d, set, pr, shownAsInterface)
	if err != nil {
		return nil, err
	}
	return s.runMultiSearch(r.Context(), m)
}

// searchInterfaceRequest is SearchObjectsForInterfaceRequest.
type searchInterfaceRequest struct {
	Where                           json.RawMessage     `json:"where"`
	OrderBy                         *orderByV2          `json:"orderBy"`
	AugmentedProperties             map[string][]string `json:"augmentedProperties"`
	AugmentedSharedPropertyTypes    map[string][]string `json:"augmentedSharedPropertyTypes"`
	AugmentedInterfacePropertyTypes map[string][]string `json:"augmentedInterfacePropertyTypes"`
	SelectedSharedPropertyTypes     []string            `json:"selectedSharedPropertyTypes"`
	SelectedInterfacePropertyTypes  []string            `json:"selectedInterfacePropertyTypes"`
	SelectedObjectTypes             []string            `json:"selectedObjectTypes"`
	OtherInterfaceTypes             []string            `json:"otherInterfaceTypes"`
	PageSize                        json.RawMessage     `json:"pageSize"`
	PageToken                       string              `json:"pageToken"`
}

// searchInterfaceObjects is POST /interfaces/{interfaceType}/search.
func (s *Server) searchInterfaceObjects(r *http.Request) (any, error) {
	var req searchInterfaceRequest
	if err := s.readBody(r, &req); err != nil {
		return nil, err
	}
	size, err := s.bodyPageSize(req.PageSize)
	if err != nil {
		return nil, err
	}
	d, set, err := s.interfaceRouteSet(r, req.Where, req.SelectedObjectTypes)
	if err != nil {
		return nil, err
	}
	defer d.release()
	pr := pageRequest{orderBy: req.OrderBy, selectOf: req.SelectedInterfacePropertyTypes, pageSize: size, pageToken: req.PageToken,
		fpKey: "search|" + compact(req.Where) + "|" + strings.Join(req.SelectedObjectTypes, ",")}
	m, err := s.multiSearchOf(d, set, pr, shownAsInterface)
	if err != nil {
		return nil, err
	}
	return s.runMultiSearch(r.Context(), m)
}

// aggregateInterfaceObjects is POST /interfaces/{interfaceType}/aggregate.
func (s *Server) aggregateInterfaceObjects(r *http.Request) (any, error) {
	var req aggregateRequest
	if err := s.readBody(r, &req); err != nil {
		return nil, err
	}
	d, set, err := s.interfaceRouteSet(r, req.Where, nil)
	if err != nil {
		return nil, err
	}
	defer d.release()
	return s.aggregateSeveral(r.Context(), d, set, req.aggregationSpec)
}
