package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/ontoindex/ontoindex/api/wire"
)

type ctxKey int

const keyRequestInfo ctxKey = iota

// requestInfo is what the middleware and the handlers learn about a
// request: the request log line and the metrics report it, and the
// principal is who it runs as. It is the one value the middleware puts in
// the request's context, so that a request costs one context copy for all
// of them (under load, each copy of the request is a measurable share of a
// get by key).
type requestInfo struct {
	status    int
	bytes     int64
	errorName wire.Name
	principal *Principal
	route     *routeMetrics // set by the route's handler; nil for unmatched paths
	slot      chan struct{} // the admission slot held until the response starts (admit.go)
	waiting   sync.Mutex    // held while the slot is given back or taken for waits on a backend
	waits     int           // the waits on a backend under way (admit.go's pause)
	derived   []func()      // give back the weights of derived evaluations, when the response starts (derived_budget.go)
}

func requestInfoFrom(ctx context.Context) *requestInfo {
	info, _ := ctx.Value(keyRequestInfo).(*requestInfo)
	return info
}

// statusWriter records the status and size of a response. When the
// response starts, its request gives back its admission slot: the
// handlers render a response into memory before they start it, so the
// slot is free before the client is sent a byte (admit.go). Unwrap lets
// http.ResponseController reach the connection (deadlines, Hijack).
type statusWriter struct {
	http.ResponseWriter
	info *requestInfo
}

func (w *statusWriter) WriteHeader(code int) {
	if w.info.status == 0 {
		w.info.status = code
		w.info.leave()
		w.info.dropDerived()
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.info.status == 0 {
		w.info.status = http.StatusOK
		w.info.leave()
		w.info.dropDerived()
	}
	n, err := w.ResponseWriter.Write(b)
	w.info.bytes += int64(n)
	return n, err
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// exchange is a request's info and its response writer, allocated once.
type exchange struct {
	info requestInfo
	w    statusWriter
}

// observe wraps every route: it turns a panic in a handler into an
// internal error, counts the request in the metrics (metrics.go) and logs
// one line per request: method, route pattern, path, status, size,
// duration, token name (never the token) and error name.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		x := &exchange{}
		x.w = statusWriter{ResponseWriter: w, info: &x.info}
		r = r.WithContext(context.WithValue(r.Context(), keyRequestInfo, &x.info))
		s.hm.inFlight.Inc()
		completed := false // false while panicking
		defer func() {
			if completed {
				s.done(r, &x.info, start)
				return
			}
			v := recover()
			if v != nil && v != http.ErrAbortHandler {
				s.writeError(&x.w, r, internalErr(fmt.Errorf("panic: %v\n%s", v, debug.Stack())))
			}
			x.info.status = http.StatusInternalServerError // whatever was written before
			s.done(r, &x.info, start)
			if v == http.ErrAbortHandler {
				panic(v) // net/http's way to abort a response
			}
		}()
		next.ServeHTTP(&x.w, r)
		completed = true
	})
}

// done counts and logs a served request.
func (s *Server) done(r *http.Request, info *requestInfo, start time.Time) {
	info.dropDerived() // if the response never started
	elapsed := time.Since(start)
	s.hm.inFlight.Dec()
	route := s.routeOf(r, info)
	s.hm.observe(r, info, route, elapsed)
	if !s.log.Enabled(r.Context(), slog.LevelInfo) {
		return // building the line costs more than the request, under load
	}
	attrs := []any{"method", r.Method, "route", route, "path", r.URL.Path, "status", info.status, "bytes", info.bytes,
		"ms", float64(elapsed.Microseconds()) / 1000}
	if info.principal != nil {
		attrs = append(attrs, "token", info.principal.Name)
	}
	if info.errorName != "" {
		attrs = append(attrs, "errorName", string(info.errorName))
	}
	s.log.Info("request", attrs...)
}

// routeOf is the route pattern of a request, as the metrics and the
// request log name it: its route's; for a request that stopped before its
// route's handler (a 401 from guard) or a route not served by handle, the
// pattern the router finds for it; RouteUnmatched for a path no route
// serves, or one a route answered with ApiNotFound.
func (s *Server) routeOf(r *http.Request, info *requestInfo) string {
	switch {
	case info.errorName == wire.NameApiNotFound:
		return RouteUnmatched
	case info.route != nil:
		return info.route.pattern
	}
	p := chi.RouteContext(r.Context()).RoutePattern() // nil-safe
	if (p == "" || strings.HasSuffix(p, "*")) && s.mux != nil {
		path := r.URL.RawPath
		if path == "" {
			path = r.URL.Path
		}
		p = s.mux.Find(chi.NewRouteContext(), r.Method, path)
	}
	if p == "" {
		return RouteUnmatched
	}
	return p
}

var errRequestTimeout = errors.New("request timeout")

// guard authenticates a request and applies the request limits: a
// missing or unknown bearer token is 401, a body over server.maxBodyBytes
// 413, and the request's context ends after server.requestTimeout.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, aerr := s.auth.check(r.Header.Get("Authorization"))
		if aerr != nil {
			s.writeError(w, r, aerr)
			return
		}
		ctx := r.Context()
		info := requestInfoFrom(ctx)
		if info == nil { // a handler mounted without observe, in tests
			info = &requestInfo{}
			ctx = context.WithValue(ctx, keyRequestInfo, info)
		}
		info.principal = p
		if err := refuseBranches(r); err != nil {
			s.writeError(w, r, err)
			return
		}
		if r.ContentLength > s.cfg.MaxBodyBytes {
			s.writeError(w, r, wire.Err(wire.NameRequestEntityTooLarge, map[string]any{"maxBytes": s.cfg.MaxBodyBytes}))
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes)
		}
		dctx, release := withRequestDeadline(ctx, s.cfg.RequestTimeout)
		defer release()
		next.ServeHTTP(w, r.WithContext(dctx))
	})
}

// writeJSON writes a JSON response.
func (s *Server) writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		s.log.Error("encode response", "error", err)
		ie := internalErr(err)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_ = json.NewEncoder(w).Encode(conjureError{ErrorCode: ie.Code(), ErrorName: string(ie.Name), ErrorInstanceID: newInstanceID(), Parameters: map[string]any{},
			Message: ie.Message()})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// readBody reads a JSON request body into v. Unknown fields are refused so
// that misspelled keys are not silently ignored. A body nested deeper than
// any where clause or object set within server.maxWhereDepth can be is
// refused as too deep before it is decoded (see checkDepth).
func (s *Server) readBody(r *http.Request, v any) error {
	if r.Body == nil {
		return wire.Err(wire.NameMissingPostBody, nil)
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return wire.Err(wire.NameMalformedRequestBody, map[string]any{"reason": "could not read the body"})
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return wire.Err(wire.NameMissingPostBody, nil)
	}
	if err := checkDepth(raw, s.cfg.MaxWhereDepth); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return wire.Err(wire.NameMalformedRequestBody, map[string]any{"reason": jsonReason(err)})
	}
	if len(bytes.TrimSpace(raw[dec.InputOffset():])) != 0 {
		return wire.Err(wire.NameMalformedRequestBody, map[string]any{"reason": "trailing data after the JSON value"})
	}
	return nil
}

// jsonReason describes a JSON decoding error without echoing Go types.
func jsonReason(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("invalid JSON at offset %d", se.Offset)
	case errors.As(err, &te):
		if te.Field != "" {
			return fmt.Sprintf("field %s must be %s, not %s", te.Field, jsonKind(te.Type.Kind().String()), jsonValueOf(te.Value))
		}
		return fmt.Sprintf("a value must be %s, not %s", jsonKind(te.Type.Kind().String()), jsonValueOf(te.Value))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the JSON ends early"
	}
	msg := err.Error()
	if len(msg) > 200 {
		msg = msg[:200]
	}
	return msg
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	case "int", "int64", "int32", "uint", "uint64", "uint32":
		return "an integer" // 1e30 and 1.5 are numbers, and refused
	case "float64", "float32":
		return "a number"
	}
	return "another type"
}

// jsonValueOf describes the value of an UnmarshalTypeError, which is
// "number 1e30" for a number that does not fit and the JSON kind
// ("string", "bool", ...) for the others.
func jsonValueOf(v string) string {
	if n, ok := strings.CutPrefix(v, "number "); ok {
		return n
	}
	switch v {
	case "bool":
		return "a boolean"
	case "array", "object":
		return "an " + v
	}
	return "a " + v
}
