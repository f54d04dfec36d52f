package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/ontoindex/ontoindex/api/serverconfig"
	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/objects"
	"github.com/prometheus/client_golang/prometheus"
)

// Engine is what the API reads from the indexer. *indexer.Indexer
// implements it.
type Engine interface {
	// Config is the config the engine runs with: ontology, object types,
	// server and auth sections.
	Config() *config.Config
	// Types lists the object types in config order.
	Types() []string
	// NotReady lists the object types without a generation to serve.
	NotReady() []string
	// ObjectType resolves an object type (from its checkpoint, or from its
	// table when it was never built).
	ObjectType(ctx context.Context, name string) (*objects.Type, error)
	// View opens a read handle on the serving generation of a type.
	View(name string) (*indexer.View, error)
	// Watch calls fn after every commit the engine serves, until stop;
	// fn must not block (indexer.Indexer.Watch).
	Watch(fn func(indexer.Commit)) (stop func())
}

var _ Engine = (*indexer.Indexer)(nil)

// Options wire a Server.
type Options struct {
	// Logger receives request logs and errors (default: discard).
	Logger *slog.Logger
	// Daemon serves the status, rebuild and reload ops endpoints
	// (*daemon.Daemon). Without one, status is derived from the engine and
	// rebuild and reload answer 409 OperationNotAvailable (see ops.go).
	Daemon Daemon
	// Registry receives the HTTP metrics and is served at /metrics; pass
	// the one the daemon registers on (default: a registry of the server's
	// own, holding the HTTP metrics only).
	Registry *prometheus.Registry
	// ConfigPath is the config file that POST /api/indexer/v1/reload and
	// Server.Reload read.
	ConfigPath string
	// Console, when set, serves the web console (package console): GET /
	// and GET /console/*. It reads only the HTTP API.
	Console http.Handler
	// Clock is "now" for relativeDateRange filters (default time.Now);
	// tests fix it.
	Clock func() time.Time
}

// Server serves the Ontology API v2 subset over an Engine.
type Server struct {
	engine   Engine
	cfg      serverconfig.Server
	auth     *authenticator
	log      *slog.Logger
	handler  http.Handler
	mux      *chi.Mux       // the router of handler, for routeOf (middleware.go)
	ops      opsState       // ops.go
	hm       *httpMetrics   // metrics.go
	layouts  sync.Map       // type name -> *layout, render.go
	mappings sync.Map       // interface and types -> *interfaceMapping, interface_objects.go
	views    sync.Map       // viewKey -> *cachedView, objectset_interfaces.go
	console  http.Handler   // Options.Console
	slots    chan struct{}  // admit.go; nil: no bound
	pauses   bool           // a type has a search backend: slots are given back while it answers (admit.go)
	derived  *derivedBudget // derived_budget.go; nil: no bound
	certs    *certificates  // tls.go; nil without server.tls
	stream   *streamHub     // stream_hub.go
	// temporary holds the object sets of createTemporary (temporary_sets.go).
	temporary *temporarySets
	// listings holds the snapshots of listings with snapshot: true
	// (snapshot_listings.go).
	listings *snapshotListings
	now      func() time.Time // Options.Clock (where_clock.go)
}

// New returns a server over engine, configured by the server and auth
// sections of engine.Config() (validated, with defaults filled in).
func New(engine Engine, opts Options) (*Server, error) {
	cfg := engine.Config()
	if cfg == nil {
		return nil, errors.New("api: engine has no config")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	auth, err := newAuthenticator(cfg.Auth)
	if err != nil {
		return nil, err
	}
	s := &Server{engine: engine, cfg: cfg.Server, auth: auth, log: opts.Logger, console: opts.Console, now: clockOf(opts)}
	if n := s.cfg.MaxConcurrentRequests; n > 0 {
		s.slots = make(chan struct{}, n)
		s.pauses = len(cfg.Backends) > 0
	}
	s.derived = newDerivedBudget(s.cfg.MaxDerivedObjects)
	if t := s.cfg.TLS; t.Enabled() {
		t.CertFile, t.KeyFile = cfg.Path(t.CertFile), cfg.Path(t.KeyFile)
		if t.ClientCAFile != "" {
			t.ClientCAFile = cfg.Path(t.ClientCAFile)
		}
		if s.certs, err = newCertificates(t, s.log); err != nil {
			return nil, err
		}
	}
	if err := s.initOps(opts); err != nil {
		return nil, err
	}
	sm, err := newStreamMetrics(s.ops.reg)
	if err != nil {
		return nil, err
	}
	s.stream = newStreamHub(s, s.cfg.Subscriptions, sm)
	s.temporary = newTemporarySets(s.cfg.TemporaryObjectSets)
	s.listings = newSnapshotListings(s.cfg.SnapshotListings)
	s.handler = s.routes()
	return s, nil
}

// Handler is the HTTP handler of every route.
func (s *Server) Handler() http.Handler { return s.handler }

// routes builds the router. Middleware that applies to every route goes
// before the route groups; the API group authenticates and applies the
// request limits.
func (s *Server) routes() http.Handler {
	r := chi.NewRouter()
	s.mux = r
	r.Use(s.observe) // recovery, metrics (metrics.go) and the request log
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, wire.Err(wire.NameApiNotFound, map[string]any{"path": r.URL.Path}))
	})
	root := r
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		// chi hands a custom handler no list of the methods the path
		// takes: ask the router for each.
		allowed := allowedMethods(root, r)
		if len(allowed) == 0 { // a method chi does not know, on no path
			s.writeError(w, r, wire.Err(wire.NameApiNotFound, map[string]any{"path": r.URL.Path}))
			return
		}
		s.writeError(w, r, methodNotAllowed(r.Method, allowed, fmt.Sprintf("%s %s is not an endpoint; the path takes %s", r.Method, r.URL.Path, strings.Join(allowed, ", "))))
	})
	s.routeOps(r)           // /healthz, /readyz, /metrics, /api/indexer/v1/..., in ops.go
	s.routeSubscriptions(r) // the websocket, in stream.go
	if c := s.console; c != nil {
		r.Get("/", c.ServeHTTP)
		r.Get("/console/*", c.ServeHTTP)
	}
	// A long-lived route (a websocket) registers here, outside the group
	// below: observe applies, not the request deadline nor a slot. Its
	// handler clears the server's read and write deadlines of the
	// connection (http.NewResponseController(w), through statusWriter's
	// Unwrap) before it upgrades, since net/http leaves them on a
	// hijacked one.
	// One flat tree, not a mounted sub-router: each request is routed once.
	r.Group(func(r chi.Router) {
		r.Use(s.guard, s.admit)
		api := routes{s: s, r: r, prefix: "/api/v2/ontologies"}
		api.handle(http.MethodGet, "", s.listOntologies)
		api.handle(http.MethodGet, "/", s.listOntologies)
		api = api.under(r, "/{ontology}")
		api.handle(http.MethodGet, "", s.getOntology)
		api.handle(http.MethodGet, "/", s.getOntology)
		api.handle(http.MethodGet, "/objectTypes", s.listObjectTypes)
		api.handle(http.MethodGet, "/objectTypes/{objectType}", s.getObjectType)
		api.handle(http.MethodGet, "/objectTypes/{objectType}/fullMetadata", s.getObjectTypeFullMetadata)
		api.handle(http.MethodGet, "/objectTypes/{objectType}/outgoingLinkTypes", s.listOutgoingLinkTypes)
		api.handle(http.MethodGet, "/objectTypes/{objectType}/outgoingLinkTypes/{linkType}", s.getOutgoingLinkType)
		api.handle(http.MethodGet, "/objects/{objectType}", s.listObjects)
		api.handle(http.MethodGet, "/objects/{objectType}/{primaryKey}", s.getObject)
		api.handle(http.MethodGet, "/objects/{objectType}/{primaryKey}/links/{linkType}", s.listLinkedObjects)
		api.handle(http.MethodGet, "/objects/{objectType}/{primaryKey}/links/{linkType}/{linkedObjectPrimaryKey}", s.getLinkedObject)
		api.handle(http.MethodPost, "/objects/{objectType}/search", s.searchObjects)
		api.handle(http.MethodPost, "/objects/{objectType}/count", s.countObjects)
		api.handle(http.MethodPost, "/objects/{objectType}/aggregate", s.aggregateObjects)
		api.handle(http.MethodPost, "/objectSets/loadObjects", s.loadObjectSet)
		api.handle(http.MethodPost, "/objectSets/aggregate", s.aggregateObjectSet)
		api.handle(http.MethodPost, "/objectSets/loadObjectsMultipleObjectTypes", s.loadObjectsMultipleObjectTypes)
		api.handle(http.MethodPost, "/objectSets/loadObjectsOrInterfaces", s.loadObjectsOrInterfaces)
		api.handle(http.MethodGet, "/interfaces/{interfaceType}", s.listInterfaceObjects)
		api.handle(http.MethodPost, "/interfaces/{interfaceType}/search", s.searchInterfaceObjects)
		api.handle(http.MethodPost, "/interfaces/{interfaceType}/aggregate", s.aggregateInterfaceObjects)
		api.handle(http.MethodGet, "/interfaces/{interfaceType}/{objectType}/{primaryKey}/links/{interfaceLinkType}", s.listInterfaceLinkedObjects)
		s.routeMetadata(api)          // interfaceTypes, fullMetadata, metadata, getByRidBatch: metadata_ontology.go
		s.routeTemporaryObjectSets(r) // createTemporary, get and loadLinks, in temporary_sets.go
	})
	return r
}

// probedMethods are the methods allowedMethods asks the router about.
var probedMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions}

// allowedMethods lists the methods the router routes the request's path
// for, as chi matches it (the raw path when there is one).
func allowedMethods(root chi.Routes, r *http.Request) []string {
	path := r.URL.RawPath
	if path == "" {
		path = r.URL.Path
	}
	var out []string
	for _, m := range probedMethods {
		if root.Match(chi.NewRouteContext(), m, path) {
			out = append(out, m)
		}
	}
	return out
}

// methodNotAllowed is the 405 of a method the path does not take;
// writeError sets the Allow header from allowedMethods.
func methodNotAllowed(method string, allowed []string, reason string) *wire.Error {
	return wire.Err(wire.NameMethodNotAllowed, map[string]any{"method": method, "allowedMethods": allowed, "reason": reason})
}

// routes registers routes under one prefix of their patterns.
type routes struct {
	s      *Server
	r      chi.Router
	prefix string
}

// under is the routes of r under a longer prefix.
func (rs routes) under(r chi.Router, pattern string) routes {
	return routes{s: rs.s, r: r, prefix: rs.prefix + pattern}
}

// handle registers a handler that returns its response value or an
// error; its requests count under the route's pattern.
func (rs routes) handle(method, pattern string, fn func(r *http.Request) (any, error)) {
	p := rs.prefix + pattern
	rs.r.Method(method, p, rs.s.handle(rs.s.hm.route(method, p), fn))
}

// contentTypeJSON is the Content-Type header of JSON responses, set
// without canonicalizing the key on every response.
var contentTypeJSON = []string{"application/json"}

// handle adapts a handler that returns its response value or an error.
func (s *Server) handle(rm *routeMetrics, fn func(r *http.Request) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if info := requestInfoFrom(r.Context()); info != nil {
			info.route = rm
		}
		v, err := fn(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if ja, ok := v.(jsonAppender); ok {
			bp := bufPool.Get().(*[]byte)
			b := append(ja.appendJSON((*bp)[:0]), '\n')
			h := w.Header()
			if hs, ok := v.(headerSetter); ok {
				hs.setHeaders(h)
			}
			h["Content-Type"] = contentTypeJSON
			// A length up front spares the response chunked encoding.
			h["Content-Length"] = []string{strconv.Itoa(len(b))}
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write(b)
			if cap(b) <= 1<<20 { // keep small buffers only
				*bp = b
				bufPool.Put(bp)
			}
			return
		}
		s.writeJSON(w, http.StatusOK, v)
	}
}
