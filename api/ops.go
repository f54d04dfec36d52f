package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"

	"github.com/go-chi/chi/v5"
	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/indexer/daemon"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// The ops endpoints tell operators where every object type stands and let
// them act on it:
//
//	GET  /healthz                                        200 while the process serves (no auth)
//	GET  /readyz                                         200 when every object type has a generation to serve, else 503 (no auth)
//	GET  /metrics                                        Prometheus text format (a token that sees every object type)
//	GET  /api/indexer/v1/status                          daemon.StatusReport
//	GET  /api/indexer/v1/status/{objectType}             daemon.TypeStatus
//	GET  /api/indexer/v1/checks/write-modes              the `indexer check` report, live
//	GET  /api/indexer/v1/whoami                          the token's name and whether it is admin
//	POST /api/indexer/v1/objectTypes/{objectType}/rebuild 202, full rebuild in a new generation (admin)
//	POST /api/indexer/v1/reload                          reload the config file (admin)
//
// The /api/indexer/v1 routes authenticate like the API, and a token sees
// only its object types there too: the others are 404 ObjectTypeNotFound
// and absent from lists.

// Daemon is what the ops endpoints use of the daemon that keeps the object
// types fresh. *daemon.Daemon implements it.
type Daemon interface {
	Report() daemon.StatusReport
	StatusOf(name string) (daemon.TypeStatus, error)
	NotReady() []string
	Rebuild(name string) error
	Reload(ctx context.Context, cfg *config.Config) (*indexer.ConfigChange, error)
}

var _ Daemon = (*daemon.Daemon)(nil)

// statuser is the part of an engine that reports build state without a
// daemon; *indexer.Indexer implements it.
type statuser interface {
	Status(name string) (indexer.Status, error)
}

// opsState is what the ops endpoints were wired with.
type opsState struct {
	daemon  Daemon
	reg     *prometheus.Registry
	cfgPath string
}

// initOps keeps the ops options and registers the HTTP metrics.
func (s *Server) initOps(opts Options) error {
	s.ops = opsState{daemon: opts.Daemon, reg: opts.Registry, cfgPath: opts.ConfigPath}
	if s.ops.reg == nil {
		s.ops.reg = prometheus.NewRegistry()
	}
	hm, err := newHTTPMetrics(s.ops.reg)
	if err != nil {
		return err
	}
	s.hm = hm
	return nil
}

func (s *Server) routeOps(r chi.Router) {
	r.Get("/healthz", s.healthz)
	r.Get("/readyz", s.readyz)
	r.With(s.guard, s.requireAllTypes).Get("/metrics",
		promhttp.HandlerFor(s.ops.reg, promhttp.HandlerOpts{ErrorLog: slogPrinter{s}}).ServeHTTP)
	r.Group(func(r chi.Router) {
		r.Use(s.guard)
		ops := routes{s: s, r: r, prefix: "/api/indexer/v1"}
		ops.handle(http.MethodGet, "/status", s.opsStatus)
		ops.handle(http.MethodGet, "/status/{objectType}", s.opsStatusOf)
		ops.handle(http.MethodGet, "/checks/write-modes", s.opsChecks)
		ops.handle(http.MethodGet, "/whoami", s.opsWhoami)
		r.Group(func(r chi.Router) {
			r.Use(s.requireAdmin)
			r.Post("/api/indexer/v1/objectTypes/{objectType}/rebuild", s.opsRebuild)
			ops.under(r, "").handle(http.MethodPost, "/reload", s.opsReload)
		})
	})
}

// slogPrinter logs promhttp's errors.
type slogPrinter struct{ s *Server }

func (p slogPrinter) Println(v ...any) { p.s.log.Error("metrics", "error", fmt.Sprint(v...)) }

// requireAllTypes refuses tokens that may not see every object type: the
// metrics are labelled with every object type's name.
func (s *Server) requireAllTypes(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := PrincipalFrom(r.Context()); p == nil || !p.all {
			s.writeError(w, r, wire.Err(wire.NamePermissionDenied, map[string]any{"reason": "the metrics cover every object type: this endpoint needs a token with objectTypes [\"*\"]"}))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	s.writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz answers 200 when every object type has a generation to serve. It
// needs no token, so it names no object type: GET /api/indexer/v1/status
// tells which.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	n := len(s.notReady())
	if n == 0 {
		s.writeJSON(w, http.StatusOK, map[string]any{"ready": true})
		return
	}
	s.writeJSON(w, http.StatusServiceUnavailable, map[string]any{"ready": false, "notReady": n,
		"reason": fmt.Sprintf("%d of %d object types have no generation to serve yet; GET /api/indexer/v1/status tells which", n, len(s.engine.Types()))})
}

// notReady lists the object types without a generation to serve.
func (s *Server) notReady() []string {
	if s.ops.daemon != nil {
		return s.ops.daemon.NotReady()
	}
	return s.engine.NotReady()
}

// visible reports whether the request's principal may see an object type
// that the engine serves.
func (s *Server) visible(r *http.Request, name string) bool {
	p := PrincipalFrom(r.Context())
	return p != nil && p.CanSee(name) && slices.Contains(s.engine.Types(), name)
}

func objectTypeNotFound(name string) *wire.Error {
	return wire.Err(wire.NameObjectTypeNotFound, map[string]any{"objectType": name})
}

// opsStatus reports the object types the token may see; ready covers
// those.
func (s *Server) opsStatus(r *http.Request) (any, error) {
	var sts []daemon.TypeStatus
	if s.ops.daemon != nil {
		sts = s.ops.daemon.Report().ObjectTypes
	} else {
		for _, name := range s.engine.Types() {
			sts = append(sts, s.engineStatus(name))
		}
	}
	p := PrincipalFrom(r.Context())
	seen := []daemon.TypeStatus{}
	for _, st := range sts {
		if p != nil && p.CanSee(st.ObjectType) {
			seen = append(seen, st)
		}
	}
	return daemon.NewReport(seen), nil
}

func (s *Server) opsStatusOf(r *http.Request) (any, error) {
	name := pathParam(r, "objectType")
	if !s.visible(r, name) {
		return nil, objectTypeNotFound(name)
	}
	if s.ops.daemon == nil {
		return s.engineStatus(name), nil
	}
	st, err := s.ops.daemon.StatusOf(name)
	if errors.Is(err, indexer.ErrUnknownType) {
		return nil, objectTypeNotFound(name) // removed by a reload just now
	}
	if err != nil {
		return nil, err
	}
	return st, nil
}

// engineStatus is the status of an object type on a server without a
// daemon (see daemon.EngineStatus).
func (s *Server) engineStatus(name string) daemon.TypeStatus {
	es := indexer.Status{ObjectType: name}
	if se, ok := s.engine.(statuser); ok {
		if st, err := se.Status(name); err == nil {
			es = st
		}
	}
	return daemon.EngineStatus(es)
}

// whoami is the body of GET /api/indexer/v1/whoami: who the token is, so
// that a client (the console) offers the ops actions to admin tokens only.
type whoami struct {
	Name  string `json:"name"`
	Admin bool   `json:"admin"`
}

func (s *Server) opsWhoami(r *http.Request) (any, error) {
	p := PrincipalFrom(r.Context())
	return whoami{Name: p.Name, Admin: p.Admin}, nil
}

// opsChecks inspects the table of every object type the token may see,
// as `indexer check` does, and answers the same report.
func (s *Server) opsChecks(r *http.Request) (any, error) {
	c, ok := s.engine.(indexer.Checker)
	if !ok {
		return nil, internalErr(errors.New("the engine does not check write modes"))
	}
	return indexer.CheckWriteModes(r.Context(), c, s.visibleTypes(r))
}

// opsRebuild requests a full rebuild into a new generation and answers 202
// with the type's status; the build runs in the daemon.
func (s *Server) opsRebuild(w http.ResponseWriter, r *http.Request) {
	name := pathParam(r, "objectType")
	if !s.visible(r, name) {
		s.writeError(w, r, objectTypeNotFound(name))
		return
	}
	d := s.ops.daemon
	if d == nil {
		s.writeError(w, r, wire.Err(wire.NameOperationNotAvailable, map[string]any{"reason": "the server runs without a daemon: nothing builds object types"}))
		return
	}
	err := d.Rebuild(name)
	if errors.Is(err, indexer.ErrUnknownType) {
		s.writeError(w, r, objectTypeNotFound(name))
		return
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.log.Info("rebuild requested", "objectType", name, "token", PrincipalFrom(r.Context()).Name)
	st, err := d.StatusOf(name)
	if err != nil {
		st = daemon.TypeStatus{ObjectType: name}
	}
	s.writeJSON(w, http.StatusAccepted, st)
}

// ReloadResult is what a reload changed: the object types added, changed,
// removed and unchanged, and the config sections that changed but take
// effect only at a restart (server, auth).
type ReloadResult struct {
	indexer.ConfigChange
	RestartNeeded []string `json:"restartNeeded"`
}

// Reload reads the config file the server was started with and applies it
// through the daemon: changed object types are rebuilt as needed, added
// ones start, removed ones stop serving. A config that cannot be read or
// is invalid is rejected with an error wrapping indexer.ErrInvalidConfig,
// and the old config keeps running. The server and auth sections and
// memoryLimit are read at start only: when they changed, RestartNeeded
// names them. The files of
// server.tls are read again first (ReloadCertificates); when they do not
// load, the error names the file and nothing is reloaded.
func (s *Server) Reload(ctx context.Context) (*ReloadResult, error) {
	// The TLS files first, daemon or not: a renewed certificate is the
	// usual reason for a SIGHUP.
	if err := s.ReloadCertificates(); err != nil {
		return nil, fmt.Errorf("%w: %w", indexer.ErrInvalidConfig, err)
	}
	if s.ops.daemon == nil {
		return nil, errNoDaemon
	}
	if s.ops.cfgPath == "" {
		return nil, errNoConfigPath
	}
	old := s.engine.Config()
	cfg, err := config.Load(s.ops.cfgPath)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", indexer.ErrInvalidConfig, err)
	}
	ch, err := s.ops.daemon.Reload(ctx, cfg)
	if err != nil {
		return nil, err
	}
	res := &ReloadResult{ConfigChange: *ch, RestartNeeded: []string{}}
	if !reflect.DeepEqual(old.Server, cfg.Server) {
		res.RestartNeeded = append(res.RestartNeeded, "server")
	}
	if !reflect.DeepEqual(old.Auth, cfg.Auth) {
		res.RestartNeeded = append(res.RestartNeeded, "auth")
	}
	if old.MemoryLimit != cfg.MemoryLimit {
		res.RestartNeeded = append(res.RestartNeeded, "memoryLimit")
	}
	if len(res.RestartNeeded) > 0 {
		s.log.Warn("config reloaded, but these sections take effect only at a restart", "sections", res.RestartNeeded)
	}
	return res, nil
}

var (
	errNoDaemon     = errors.New("the server runs without a daemon")
	errNoConfigPath = errors.New("the server was started without a config file")
)

func (s *Server) opsReload(r *http.Request) (any, error) {
	res, err := s.Reload(r.Context())
	switch {
	case errors.Is(err, errNoDaemon), errors.Is(err, errNoConfigPath):
		return nil, wire.Err(wire.NameOperationNotAvailable, map[string]any{"reason": err.Error()})
	case errors.Is(err, indexer.ErrInvalidConfig):
		s.log.Warn("reload rejected, the old config keeps running", "error", err)
		return nil, wire.Wrap(wire.NameInvalidConfig, map[string]any{"reason": err.Error()}, err)
	case err != nil:
		return nil, err
	}
	p := PrincipalFrom(r.Context())
	see := func(names []string) []string {
		out := []string{}
		for _, n := range names {
			if p.CanSee(n) {
				out = append(out, n)
			}
		}
		return out
	}
	s.log.Info("config reloaded", "token", p.Name, "added", res.Added, "changed", res.Changed, "removed", res.Removed)
	return ReloadResult{ConfigChange: indexer.ConfigChange{Added: see(res.Added), Changed: see(res.Changed),
		Removed: see(res.Removed), Unchanged: see(res.Unchanged)}, RestartNeeded: res.RestartNeeded}, nil
}
