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
	"time"
)

type ctxKey int

const (
	keyRequestInfo ctxKey = iota
	keyPrincipal
)

// requestInfo collects what the request log line reports; handlers deeper
// in the chain fill it in.
type requestInfo struct {
	status    int
	bytes     int64
	token     string
	errorName errorName
}

func requestInfoFrom(ctx context.Context) *requestInfo {
	info, _ := ctx.Value(keyRequestInfo).(*requestInfo)
	return info
}

// statusWriter records the status and size of a response.
type statusWriter struct {
	http.ResponseWriter
	info *requestInfo
}

func (w *statusWriter) WriteHeader(code int) {
	if w.info.status == 0 {
		w.info.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.info.status == 0 {
		w.info.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.info.bytes += int64(n)
	return n, err
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// logRequests logs one line per request: method, path, status, size,
// duration, token name (never the token) and error name.
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		info := &requestInfo{}
		ctx := context.WithValue(r.Context(), keyRequestInfo, info)
		next.ServeHTTP(&statusWriter{ResponseWriter: w, info: info}, r.WithContext(ctx))
		if !s.log.Enabled(ctx, slog.LevelInfo) {
			return // building the line costs more than the request, under load
		}
		attrs := []any{"method", r.Method, "path", r.URL.Path, "status", info.status, "bytes", info.bytes,
			"ms", float64(time.Since(start).Microseconds()) / 1000}
		if info.token != "" {
			attrs = append(attrs, "token", info.token)
		}
		if info.errorName != "" {
			attrs = append(attrs, "errorName", string(info.errorName))
		}
		s.log.Info("request", attrs...)
	})
}

// recoverPanics turns a panic in a handler into an internal error.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.writeError(w, r, internalErr(fmt.Errorf("panic: %v\n%s", v, debug.Stack())))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

var errRequestTimeout = errors.New("request timeout")

// limit applies the request timeout and the body size limit.
func (s *Server) limit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > s.cfg.MaxBodyBytes {
			s.writeError(w, r, apiErr(nameRequestEntityTooLarge, map[string]any{"maxBytes": s.cfg.MaxBodyBytes}))
			return
		}
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes)
		}
		ctx, cancel := context.WithTimeoutCause(r.Context(), s.cfg.RequestTimeout, errRequestTimeout)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// writeJSON writes a JSON response.
func (s *Server) writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		s.log.Error("encode response", "error", err)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_ = json.NewEncoder(w).Encode(conjureError{ErrorCode: codeInternal, ErrorName: string(nameInternal), ErrorInstanceID: newInstanceID(), Parameters: map[string]any{},
			Message: string(nameInternal)})
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
		return apiErr(nameMissingPostBody, nil)
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return apiErr(nameMalformedRequestBody, map[string]any{"reason": "could not read the body"})
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return apiErr(nameMissingPostBody, nil)
	}
	if err := checkDepth(raw, s.cfg.MaxWhereDepth); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return apiErr(nameMalformedRequestBody, map[string]any{"reason": jsonReason(err)})
	}
	if len(bytes.TrimSpace(raw[dec.InputOffset():])) != 0 {
		return apiErr(nameMalformedRequestBody, map[string]any{"reason": "trailing data after the JSON value"})
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
