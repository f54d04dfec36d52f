package api

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/ontoindex/ontoindex/api/serverconfig"
	"github.com/ontoindex/ontoindex/api/wire"
)

// Temporary object sets: createTemporary stores an object set's
// definition, not its result, under a rid that a reference object set
// names. A reference is decoded in place of the definition with the
// resolver of the request that uses it (objectset_reference.go), so it
// reads that request's snapshot and the caller's scope: a token that may
// not see a type the set reads gets the error it would get had it sent
// the definition itself.

// objectSetRIDPrefix starts the rid of every temporary object set.
const objectSetRIDPrefix = "ri.ontoindex.main.object-set."

// temporarySets holds the stored definitions of a Server. Sets expire a
// fixed time after they are created, so creation order is expiry order:
// the queue's head is always the next to expire or to be evicted, and
// expired sets are dropped from it on each use, with no goroutine.
type temporarySets struct {
	cfg serverconfig.TemporaryObjectSets
	now func() time.Time // time.Now; tests replace it

	mu    sync.Mutex
	byRID map[string]*temporarySet
	queue []*temporarySet // creation order; a set evicted or expired leaves it at the head
	bytes int64           // of the definitions held
}

// temporarySet is one stored definition.
type temporarySet struct {
	rid        string
	definition json.RawMessage
	types      []string // the object types it read when created, for get
	expires    time.Time
}

func newTemporarySets(cfg serverconfig.TemporaryObjectSets) *temporarySets {
	return &temporarySets{cfg: cfg, now: time.Now, byRID: map[string]*temporarySet{}}
}

// add stores a definition and returns its rid.
func (ts *temporarySets) add(definition json.RawMessage, types []string) string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	now := ts.now()
	ts.sweep(now)
	set := &temporarySet{rid: objectSetRIDPrefix + rand.Text(), definition: definition, types: types, expires: now.Add(ts.cfg.Expiry)}
	ts.byRID[set.rid] = set
	ts.queue = append(ts.queue, set)
	ts.bytes += int64(len(definition))
	for len(ts.queue) > 1 && (len(ts.queue) > ts.cfg.MaxSets || ts.bytes > ts.cfg.MaxBytes) {
		ts.dropHead()
	}
	return set.rid
}

// get returns the stored set of a rid, or ObjectSetNotFound naming it.
func (ts *temporarySets) get(rid string) (*temporarySet, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.sweep(ts.now())
	set, ok := ts.byRID[rid]
	if !ok {
		return nil, wire.Err(wire.NameObjectSetNotFound, map[string]any{"objectSetRid": wire.Truncate(rid)})
	}
	return set, nil
}

// sweep drops the sets expired at now, all at the head of the queue.
func (ts *temporarySets) sweep(now time.Time) {
	for len(ts.queue) > 0 && !now.Before(ts.queue[0].expires) {
		ts.dropHead()
	}
}

// dropHead forgets the oldest set.
func (ts *temporarySets) dropHead() {
	set := ts.queue[0]
	ts.queue[0] = nil
	ts.queue = ts.queue[1:]
	if len(ts.queue) == 0 {
		ts.queue = nil // let append start a fresh array rather than creep along an old one
	}
	delete(ts.byRID, set.rid)
	ts.bytes -= int64(len(set.definition))
}

// len is the number of sets held, expired ones included until a sweep.
func (ts *temporarySets) len() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return len(ts.byRID)
}

// routeTemporaryObjectSets registers createTemporary, get and loadLinks
// (objectset_load_links.go).
func (s *Server) routeTemporaryObjectSets(r chi.Router) {
	api := routes{s: s, r: r, prefix: "/api/v2/ontologies/{ontology}/objectSets"}
	api.handle(http.MethodPost, "/createTemporary", s.createTemporaryObjectSet)
	api.handle(http.MethodPost, "/loadLinks", s.loadObjectSetLinks)
	api.handle(http.MethodGet, "/{objectSetRid}", s.getTemporaryObjectSet)
}

// createTemporaryObjectSet is POST /objectSets/createTemporary:
// CreateTemporaryObjectSetRequestV2 -> CreateTemporaryObjectSetResponseV2.
// The set is decoded once, so that a set the caller could not load is
// refused now, with the error loading it would give.
func (s *Server) createTemporaryObjectSet(r *http.Request) (any, error) {
	if err := s.checkOntology(r); err != nil {
		return nil, err
	}
	var req struct {
		ObjectSet json.RawMessage `json:"objectSet"`
	}
	if err := s.readBody(r, &req); err != nil {
		return nil, err
	}
	d, _, err := s.decodeObjectSet(r, req.ObjectSet, nil)
	if err != nil {
		return nil, err
	}
	var types []string
	for name := range d.views {
		if s.isObjectType(name) { // not the link tables of many-to-many links
			types = append(types, name)
		}
	}
	d.release()
	slices.Sort(types)
	rid := s.temporary.add(json.RawMessage(compact(req.ObjectSet)), types)
	return map[string]any{"objectSetRid": rid}, nil
}

// getTemporaryObjectSet is GET /objectSets/{objectSetRid}: the stored
// definition (an ObjectSet). A token that may not see every type the set
// read gets ObjectSetNotFound, as if it did not exist.
func (s *Server) getTemporaryObjectSet(r *http.Request) (any, error) {
	if err := s.checkOntology(r); err != nil {
		return nil, err
	}
	rid := pathParam(r, "objectSetRid")
	if !strings.HasPrefix(rid, objectSetRIDPrefix) && slices.Contains(allowedMethods(s.mux, r), http.MethodPost) {
		// GET .../objectSets/loadObjects and the like: no rid is a POST
		// endpoint's name.
		return nil, methodNotAllowed(r.Method, []string{http.MethodPost}, fmt.Sprintf("%s %s is not an endpoint; the path takes POST", r.Method, r.URL.Path))
	}
	set, err := s.temporary.get(rid)
	if err != nil {
		return nil, err
	}
	p := PrincipalFrom(r.Context())
	for _, name := range set.types {
		if p == nil || !p.CanSee(name) {
			return nil, wire.Err(wire.NameObjectSetNotFound, map[string]any{"objectSetRid": wire.Truncate(rid)})
		}
	}
	return set.definition, nil
}
