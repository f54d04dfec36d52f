package api

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/ontoindex/ontoindex/api/wire"
	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/query"
)

// The API's errors are wire.Errors: their names, Conjure codes and HTTP
// statuses are the one table in wire/errors.go. This file maps what the
// engine returns onto them and writes them.

// conjureError is the JSON of an error. Message is not Conjure's: @osdk/client
// makes it the message of the PalantirApiError it throws, which otherwise
// reads "Failed to fetch 400 Bad Request" whatever the error.
type conjureError struct {
	ErrorCode       string         `json:"errorCode"`
	ErrorName       string         `json:"errorName"`
	ErrorInstanceID string         `json:"errorInstanceId"`
	Parameters      map[string]any `json:"parameters"`
	Message         string         `json:"message"`
}

// internalErr wraps an unexpected error: the client learns nothing of it.
func internalErr(err error) *wire.Error { return wire.Wrap(wire.NameInternal, nil, err) }

// toAPIError maps any error a handler returns to an API error.
func toAPIError(ctx context.Context, err error) *wire.Error {
	var ae *wire.Error
	var mbe *http.MaxBytesError
	var te *query.TooExpensiveError
	var tg *query.TooManyGroupsError
	var ni *indexer.NoIndexError
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &mbe):
		return wire.Err(wire.NameRequestEntityTooLarge, map[string]any{"maxBytes": mbe.Limit})
	case errors.Is(err, context.DeadlineExceeded), ctx.Err() != nil && errors.Is(context.Cause(ctx), errRequestTimeout):
		return wire.Wrap(wire.NameRequestTimeout, map[string]any{}, err)
	case errors.Is(err, indexer.ErrNotBuilt):
		return wire.Err(wire.NameObjectTypeNotSynced, nil)
	case errors.As(err, &ni):
		reason := ni.Read + " needs the embedded index"
		if ni.Why != "" {
			reason += " (the backend does not take it: " + ni.Why + ")"
		}
		return wire.Wrap(wire.NameEmbeddedIndexNotKept, map[string]any{"objectType": ni.ObjectType, "read": ni.Read, "config": ni.Config(),
			"reason": reason + ": set " + ni.Config() + " to full"}, err)
	case errors.As(err, &te):
		return wire.Wrap(wire.NameQueryTooExpensive, map[string]any{"property": te.Property, "propertyFilter": te.Op.String(), "reason": te.Reason}, err)
	case errors.As(err, &tg):
		return wire.Wrap(wire.NameAggregationGroupCountExceededLimit, map[string]any{"groupsCount": tg.Groups, "groupsLimit": tg.Limit}, err)
	}
	return internalErr(err)
}

func newInstanceID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// statusClientClosedRequest is the status the metrics and the request log
// give a request whose client went away before its answer (nginx's 499);
// nothing is sent.
const statusClientClosedRequest = 499

// clientGone reports whether err is the end of the request's context
// because its client went away (the connection closed, the HTTP/2 stream
// was reset), not its deadline.
func clientGone(ctx context.Context, err error) bool {
	return errors.Is(err, context.Canceled) && errors.Is(ctx.Err(), context.Canceled) && !errors.Is(context.Cause(ctx), errRequestTimeout)
}

// writeError writes err as a Conjure error and logs it: client errors at
// debug level, server errors with their cause at error level. The error
// is rendered before the response starts, as every response of the API
// is (admit.go).
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	if clientGone(r.Context(), err) {
		if info := requestInfoFrom(r.Context()); info != nil {
			info.status = statusClientClosedRequest
			info.leave()
		}
		s.log.Debug("client went away", "method", r.Method, "path", r.URL.Path, "error", err)
		return
	}
	ae := toAPIError(r.Context(), err)
	id := newInstanceID()
	status := ae.Status()
	if status == 0 {
		status = http.StatusInternalServerError
	}
	attrs := []any{"errorName", string(ae.Name), "errorInstanceId", id, "method", r.Method, "path", r.URL.Path}
	if info := requestInfoFrom(r.Context()); info != nil {
		info.errorName = ae.Name
		if info.principal != nil {
			attrs = append(attrs, "token", info.principal.Name)
		}
	}
	if status >= 500 {
		s.log.Error("request failed", append(attrs, "error", err)...)
	} else {
		s.log.Debug("request refused", append(attrs, "error", err)...)
	}
	params := ae.Params
	if params == nil {
		params = map[string]any{}
	}
	if methods, ok := params["allowedMethods"].([]string); ok && ae.Name == wire.NameMethodNotAllowed {
		w.Header().Set("Allow", strings.Join(methods, ", ")) // a 405 must say what is allowed
	}
	var buf bytes.Buffer
	_ = json.NewEncoder(&buf).Encode(conjureError{ErrorCode: ae.Code(), ErrorName: string(ae.Name), ErrorInstanceID: id, Parameters: params,
		Message: ae.Message()})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
