package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/daemon"
	"github.com/ontoindex/ontoindex/objects"
)

// view opens the serving view of a visible object type.
func (s *Server) view(r *http.Request, name string) (*indexer.View, error) {
	name, err := s.typeName(r, name)
	if err != nil {
		return nil, err
	}
	v, err := s.engine.View(name)
	if err != nil {
		if errors.Is(err, indexer.ErrNotBuilt) {
			return nil, s.notSynced(name)
		}
		if errors.Is(err, indexer.ErrUnknownType) {
			return nil, wire.Err(wire.NameObjectTypeNotFound, map[string]any{"objectType": name, "objectTypeRid": objectTypeRIDPrefix + name})
		}
		return nil, err
	}
	return v, nil
}

// notSynced is the error of an object type without a generation to serve:
// its reason says why (the table is missing, the first build runs or
// failed) and what happens next, from the type's status.
func (s *Server) notSynced(name string) *wire.Error {
	var st daemon.TypeStatus
	if s.ops.daemon != nil {
		st, _ = s.ops.daemon.StatusOf(name)
	} else {
		st = s.engineStatus(name)
	}
	reason := name + " has no build to serve yet"
	switch problem := st.Problem(); {
	case st.State == daemon.StateBuilding:
		reason += ": its first build is running"
	case problem != "" && s.ops.daemon != nil:
		reason += ": " + problem + "; " + st.Next(s.engine.Config().PollInterval(name), time.Now())
	case problem != "":
		reason += ": " + problem + "; run `indexer build` once it is fixed"
	case s.ops.daemon == nil:
		reason += ": this server runs without a daemon; run `indexer build`"
	default:
		reason += ": its first build starts shortly"
	}
	return wire.Err(wire.NameObjectTypeNotSynced, map[string]any{"objectType": name,
		"reason": reason + " (GET /api/indexer/v1/status/" + name + " has the details)"})
}

// typeView checks the ontology and opens the view of the {objectType}
// path parameter.
func (s *Server) typeView(r *http.Request) (*indexer.View, error) {
	if err := s.checkOntology(r); err != nil {
		return nil, err
	}
	return s.view(r, pathParam(r, "objectType"))
}

func parseBool(name, raw string) (bool, error) {
	if raw == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(raw)
	if err != nil {
		return false, wire.Err(wire.NameInvalidParameterValue, map[string]any{"parameterId": name, "parameterValue": raw, "reason": "must be true or false"})
	}
	return b, nil
}

// listObjects is GET /objects/{objectType}.
func (s *Server) listObjects(r *http.Request) (any, error) {
	v, err := s.typeView(r)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	t := v.Type()
	spec, err := s.listSpec(r, t)
	if err != nil {
		return nil, err
	}
	spec.fp = wire.Fingerprint("list", t.APIName, "", sortKey(spec.sort))
	return s.runSearch(r.Context(), v, spec)
}

// listSpec reads the query parameters of a listing (of a type's objects,
// or of an object's linked objects): pageSize, pageToken, select (or
// properties), orderBy and excludeRid.
func (s *Server) listSpec(r *http.Request, t *objects.Type) (searchSpec, error) {
	q := r.URL.Query()
	size, err := s.pageSize(q.Get("pageSize"))
	if err != nil {
		return searchSpec{}, err
	}
	sel, err := parseSelect(t, append(q["select"], q["properties"]...))
	if err != nil {
		return searchSpec{}, err
	}
	order, err := parseOrderBy(t, q.Get("orderBy"))
	if err != nil {
		return searchSpec{}, err
	}
	excl, err := parseBool("excludeRid", q.Get("excludeRid"))
	if err != nil {
		return searchSpec{}, err
	}
	return searchSpec{sort: order, pageSize: size, pageToken: q.Get("pageToken"), sel: sel, excludeRID: excl}, nil
}

func sortKey(fs []sortField) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.String()
	}
	return strings.Join(parts, ",")
}

// postEndpoints are the POST endpoints /objects/{objectType}/{name} (see
// routes) whose paths GET routes to getObject, as a primary key.
var postEndpoints = map[string]bool{"search": true, "count": true, "aggregate": true}

// getObject is GET /objects/{objectType}/{primaryKey}. Composite keys are
// addressed by their components joined with "," (objects.Type.KeyString).
//
// GET .../objects/T/search is the object of T keyed "search", which a type
// keyed by strings may have, so it is looked up like any key. When the
// key cannot be one of T's (an integer key, a composite key), the path
// names no object and is a 405 that says search is a POST; when no object
// has it, the 404 says so too.
func (s *Server) getObject(r *http.Request) (any, error) {
	v, err := s.typeView(r)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	t := v.Type()
	if pk := pathParam(r, "primaryKey"); postEndpoints[pk] {
		if _, err := t.ParseKey(pk); err != nil {
			return nil, methodNotAllowed(r.Method, []string{http.MethodPost}, fmt.Sprintf("%s is POST %s; %q is not a primary key of %s (%v)", pk, r.URL.Path, pk, t.APIName, err))
		}
	}
	key, pk, sel, excl, err := getParams(r, t, "primaryKey")
	if err != nil {
		return nil, err
	}
	p, err := v.Lookup(key)
	if err != nil {
		return nil, err
	}
	if p.Len() == 0 {
		params := map[string]any{"objectType": t.APIName, "primaryKey": map[string]any{"value": pk}}
		if postEndpoints[pk] {
			params["reason"] = fmt.Sprintf("no %s has primary key %q; to %s %s objects, POST %s", t.APIName, pk, pk, t.APIName, r.URL.Path)
		}
		return nil, wire.Err(wire.NameObjectNotFound, params)
	}
	return atSnapshot{oneObject{r: s.renderer(t, sel, excl), page: p}, v.Checkpoint().SnapshotID}, nil
}

// SnapshotHeader is the response header of a get that names the Iceberg
// snapshot the object was read at: the checkpoint of the generation that
// served it, whose row of the key the object equals.
const SnapshotHeader = "Ontoindex-Snapshot-Id"

// headerSetter is a response that sets headers of its own (see handle).
type headerSetter interface{ setHeaders(h http.Header) }

// atSnapshot is a get's object with the snapshot it was read at.
type atSnapshot struct {
	oneObject
	snapshot int64
}

func (a atSnapshot) setHeaders(h http.Header) {
	h.Set(SnapshotHeader, strconv.FormatInt(a.snapshot, 10))
}

// getParams reads the parameters of a get (of an object, or of a linked
// object): the primary key in path parameter param (encoded, and as
// sent), select and excludeRid.
func getParams(r *http.Request, t *objects.Type, param string) (key []byte, pk string, sel selection, excl bool, err error) {
	var q url.Values // nil, as most gets have no query: parsing one allocates
	if r.URL.RawQuery != "" {
		q = r.URL.Query()
	}
	if sel, err = parseSelect(t, append(q["select"], q["properties"]...)); err != nil {
		return nil, "", nil, false, err
	}
	if excl, err = parseBool("excludeRid", q.Get("excludeRid")); err != nil {
		return nil, "", nil, false, err
	}
	pk = pathParam(r, param)
	if key, err = t.ParseKey(pk); err != nil {
		return nil, "", nil, false, invalidKey(t, pk, err)
	}
	return key, pk, sel, excl, nil
}

// invalidKey is the error of a primary key in a path that does not fit
// the key's type.
func invalidKey(t *objects.Type, pk string, err error) *wire.Error {
	kp, _ := t.Property(t.PrimaryKey[0])
	return wire.Err(wire.NameInvalidPropertyValue, map[string]any{"property": strings.Join(t.PrimaryKey, ","), "propertyValue": wire.Truncate(pk),
		"propertyBaseType": dataType(kp.Type)["type"], "reason": err.Error()})
}

// searchRequest is SearchObjectsRequestV2.
type searchRequest struct {
	Where      json.RawMessage   `json:"where"`
	OrderBy    *orderByV2        `json:"orderBy"`
	PageSize   json.RawMessage   `json:"pageSize"`
	PageToken  string            `json:"pageToken"`
	Select     []string          `json:"select"`
	SelectV2   []json.RawMessage `json:"selectV2"`
	ExcludeRid bool              `json:"excludeRid"`
	Snapshot   bool              `json:"snapshot"`
}

// searchObjects is POST /objects/{objectType}/search.
func (s *Server) searchObjects(r *http.Request) (any, error) {
	if err := s.checkOntology(r); err != nil {
		return nil, err
	}
	var req searchRequest
	if err := s.readBody(r, &req); err != nil {
		return nil, err
	}
	l, token, err := s.listings.begin(req.Snapshot, req.PageToken)
	if err != nil {
		return nil, err
	}
	// The type's view through a decoder, which opens it from the listing's
	// snapshot on a later page of a snapshot listing.
	d := &setDecoder{s: s, r: r, listing: l}
	v, err := d.open(pathParam(r, "objectType"), false)
	if err != nil {
		s.listings.finish(l, nil, nil)
		return nil, err
	}
	defer d.release()
	var page *objectPage
	defer func() { s.listings.finish(l, d.views, page.nextOf()) }()
	t := v.Type()
	size, err := s.bodyPageSize(req.PageSize)
	if err != nil {
		return nil, err
	}
	where, err := s.where(t, req.Where)
	if err != nil {
		return nil, err
	}
	order, sel, err := orderAndSelect(t, req.OrderBy, req.Select, req.SelectV2)
	if err != nil {
		return nil, err
	}
	spec := searchSpec{where: where, sort: order, pageSize: size, pageToken: token, sel: sel, excludeRID: req.ExcludeRid,
		fp: wire.Fingerprint("search", t.APIName, compact(req.Where), sortKey(order))}
	page, err = s.runSearch(r.Context(), v, spec)
	if err != nil {
		return nil, err
	}
	return page, nil
}

// compact is the canonical form of a JSON value for fingerprints.
func compact(raw json.RawMessage) string {
	if wire.IsNull(raw) {
		return ""
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// countObjects is POST /objects/{objectType}/count: {count}. The body is
// optional (the official client sends none).
func (s *Server) countObjects(r *http.Request) (any, error) {
	v, err := s.typeView(r)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	return map[string]any{"count": v.Count()}, nil
}
