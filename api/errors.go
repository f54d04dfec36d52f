package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/ontoindex/ontoindex/indexer"
	"github.com/ontoindex/ontoindex/indexer/query"
)

// Error is an API error in the Conjure shape. Its Name selects the Conjure
// code and HTTP status from errorTable; Params are returned to the client
// and must not hold internals.
type Error struct {
	Name   errorName
	Params map[string]any
	// cause is logged with the error instance id, never returned.
	cause error
}

func (e *Error) Error() string {
	if e.cause != nil {
		return string(e.Name) + ": " + e.cause.Error()
	}
	return fmt.Sprintf("%s %v", e.Name, e.Params)
}

func (e *Error) Unwrap() error { return e.cause }

// Code is the Conjure error code of the error.
func (e *Error) Code() string {
	if k, ok := errorTable[e.Name]; ok {
		return k.code
	}
	return codeInternal
}

// Status is the HTTP status of the error.
func (e *Error) Status() int { return conjureStatus[e.Code()] }

// Conjure error codes, and one of ontoindex's own: Conjure has no code for
// a method a path does not take, and HTTP requires that to be a 405 with
// an Allow header (writeError sets it), which no Conjure code maps to.
// Clients read the status and errorName; @osdk/client passes unknown codes
// through.
const (
	codeUnauthorized     = "UNAUTHORIZED"
	codePermissionDenied = "PERMISSION_DENIED"
	codeInvalidArgument  = "INVALID_ARGUMENT"
	codeNotFound         = "NOT_FOUND"
	codeConflict         = "CONFLICT"
	codeTooLarge         = "REQUEST_ENTITY_TOO_LARGE"
	codeFailedPrecond    = "FAILED_PRECONDITION"
	codeInternal         = "INTERNAL"
	codeTimeout          = "TIMEOUT"

	codeMethodNotAllowed = "METHOD_NOT_ALLOWED" // ontoindex's: 405
)

// conjureStatus is the HTTP status of each error code, as the Conjure
// specification fixes it for its codes.
var conjureStatus = map[string]int{
	codeUnauthorized:     http.StatusUnauthorized,
	codePermissionDenied: http.StatusForbidden,
	codeInvalidArgument:  http.StatusBadRequest,
	codeNotFound:         http.StatusNotFound,
	codeConflict:         http.StatusConflict,
	codeTooLarge:         http.StatusRequestEntityTooLarge,
	codeFailedPrecond:    http.StatusInternalServerError,
	codeInternal:         http.StatusInternalServerError,
	codeTimeout:          http.StatusInternalServerError,
	codeMethodNotAllowed: http.StatusMethodNotAllowed,
}

// errorName is the errorName of an API error, as the wire spells it.
// Errors are made from the constants below, never from string literals
// (TestErrorTable_NoLiteralNames holds the package to it), so that a
// misspelt name is a compile error rather than a silent 500 INTERNAL: Code
// falls back to INTERNAL for names errorTable lacks. Each constant is its
// wire name with a name prefix and has its row in errorTable.
type errorName string

// Error names, in the order of errorTable.
const (
	// Lookups.
	nameOntologyNotFound    errorName = "OntologyNotFound"
	nameObjectTypeNotFound  errorName = "ObjectTypeNotFound"
	nameObjectNotFound      errorName = "ObjectNotFound"
	namePropertiesNotFound  errorName = "PropertiesNotFound"
	nameObjectTypeNotSynced errorName = "ObjectTypeNotSynced"
	nameApiNotFound         errorName = "ApiNotFound"
	nameMethodNotAllowed    errorName = "MethodNotAllowed"

	// Links.
	nameLinkTypeNotFound      errorName = "LinkTypeNotFound"
	nameLinkedObjectNotFound  errorName = "LinkedObjectNotFound"
	nameLinkTypeNotResolvable errorName = "LinkTypeNotResolvable"

	// Requests.
	nameMalformedRequestBody        errorName = "MalformedRequestBody"
	nameMissingPostBody             errorName = "MissingPostBody"
	nameInvalidParameterValue       errorName = "InvalidParameterValue"
	nameInvalidPropertyValue        errorName = "InvalidPropertyValue"
	nameInvalidPageSize             errorName = "InvalidPageSize"
	nameInvalidPageToken            errorName = "InvalidPageToken"
	nameInvalidFields               errorName = "InvalidFields"
	nameInvalidSortOrder            errorName = "InvalidSortOrder"
	nameInvalidOrderType            errorName = "InvalidOrderType"
	nameDuplicateOrderBy            errorName = "DuplicateOrderBy"
	namePropertiesNotSortable       errorName = "PropertiesNotSortable"
	namePropertiesNotSearchable     errorName = "PropertiesNotSearchable"
	nameMalformedPropertyFilters    errorName = "MalformedPropertyFilters"
	nameInvalidPropertyFilterValue  errorName = "InvalidPropertyFilterValue"
	namePropertyFiltersNotSupported errorName = "PropertyFiltersNotSupported"
	nameInvalidRangeQuery           errorName = "InvalidRangeQuery"
	nameWhereClauseTooComplex       errorName = "WhereClauseTooComplex"
	nameQueryTooExpensive           errorName = "QueryTooExpensive"
	nameMalformedObjectSet          errorName = "MalformedObjectSet"
	nameUnsupportedObjectSet        errorName = "UnsupportedObjectSet"

	// Aggregations.
	nameAggregationMetricNotSupported       errorName = "AggregationMetricNotSupported"
	nameAggregationGroupByNotSupported      errorName = "AggregationGroupByNotSupported"
	nameAggregationGroupCountExceededLimit  errorName = "AggregationGroupCountExceededLimit"
	nameInvalidAggregationRange             errorName = "InvalidAggregationRange"
	nameInvalidAggregationRangeValue        errorName = "InvalidAggregationRangeValue"
	nameInvalidAggregationRangePropertyType errorName = "InvalidAggregationRangePropertyType"
	nameMultipleGroupByOnFieldNotSupported  errorName = "MultipleGroupByOnFieldNotSupported"
	nameInvalidPropertyType                 errorName = "InvalidPropertyType"
	nameDefaultAndNullGroupsNotSupported    errorName = "DefaultAndNullGroupsNotSupported"

	// Ops endpoints (ops.go).
	nameInvalidConfig         errorName = "InvalidConfig"
	nameOperationNotAvailable errorName = "OperationNotAvailable"

	// Auth and limits.
	nameMissingCredentials    errorName = "MissingCredentials"
	nameInvalidCredentials    errorName = "InvalidCredentials"
	namePermissionDenied      errorName = "PermissionDenied"
	nameRequestEntityTooLarge errorName = "RequestEntityTooLarge"
	nameRequestTimeout        errorName = "RequestTimeout"
	nameInternal              errorName = "Internal"
)

type errorKind struct {
	code string
	doc  string
}

// errorTable is the one table of error names the API returns, with their
// Conjure codes. Names that Foundry's Ontology API v2 defines keep its
// code; the others are ontoindex's own.
var errorTable = map[errorName]errorKind{
	// Lookups.
	nameOntologyNotFound:    {codeNotFound, "the ontology is not the configured one (apiName or rid)"},
	nameObjectTypeNotFound:  {codeNotFound, "no such object type, or the token may not see it"},
	nameObjectNotFound:      {codeNotFound, "no object with that primary key"},
	namePropertiesNotFound:  {codeNotFound, "a property named in select, where, orderBy or an aggregation does not exist"},
	nameObjectTypeNotSynced: {codeConflict, "the object type has never been built"},
	nameApiNotFound:         {codeNotFound, "no such endpoint"},
	nameMethodNotAllowed:    {codeMethodNotAllowed, "the path does not take this HTTP method: 405, allowedMethods and the Allow header list those it takes"},

	// Links.
	nameLinkTypeNotFound:      {codeNotFound, "the object type has no such outgoing link type, or the token may not see its target"},
	nameLinkedObjectNotFound:  {codeNotFound, "the object is not linked to an object with that primary key"},
	nameLinkTypeNotResolvable: {codeConflict, "the link's keys do not fit the types it joins; the reason names the link and its config field"},

	// Requests.
	nameMalformedRequestBody:        {codeInvalidArgument, "the body is not the JSON the endpoint takes"},
	nameMissingPostBody:             {codeInvalidArgument, "the endpoint needs a JSON body"},
	nameInvalidParameterValue:       {codeInvalidArgument, "a query parameter has a bad value"},
	nameInvalidPropertyValue:        {codeInvalidArgument, "a primary key or object rid does not fit its property type"},
	nameInvalidPageSize:             {codeInvalidArgument, "pageSize is outside 1..server.maxPageSize"},
	nameInvalidPageToken:            {codeInvalidArgument, "pageToken was not returned for this request"},
	nameInvalidFields:               {codeInvalidArgument, "orderBy must read properties.<p>[:asc|:desc] or p.<p>[:asc|:desc]"},
	nameInvalidSortOrder:            {codeInvalidArgument, "sort direction is neither asc nor desc"},
	nameInvalidOrderType:            {codeInvalidArgument, "orderType other than fields"},
	nameDuplicateOrderBy:            {codeInvalidArgument, "a property appears twice in orderBy"},
	namePropertiesNotSortable:       {codeInvalidArgument, "orderBy names a property without search role, or an array"},
	namePropertiesNotSearchable:     {codeInvalidArgument, "a filter names a property with search role none"},
	nameMalformedPropertyFilters:    {codeInvalidArgument, "a where clause is malformed"},
	nameInvalidPropertyFilterValue:  {codeInvalidArgument, "a where value does not fit the property type"},
	namePropertyFiltersNotSupported: {codeInvalidArgument, "the query type does not apply to the property, or is not supported (geo, vector, interval)"},
	nameInvalidRangeQuery:           {codeInvalidArgument, "a range query on a property that has no order (boolean)"},
	nameWhereClauseTooComplex:       {codeInvalidArgument, "where or object set deeper or larger than the server limits, or a body nested deeper than they could be (depth.go)"},
	nameQueryTooExpensive:           {codeInvalidArgument, "a prefix or fuzzy query on a text property expands to more terms than server.maxQueryTerms (wildcard and regex never do)"},
	nameMalformedObjectSet:          {codeInvalidArgument, "an object set is malformed (shape, missing keys, rids not of this server)"},
	nameUnsupportedObjectSet:        {codeInvalidArgument, "object set kind not supported (searchAround, reference, ...) or of several object types"},

	// Aggregations.
	nameAggregationMetricNotSupported:       {codeInvalidArgument, "metric type not supported (approximatePercentile)"},
	nameAggregationGroupByNotSupported:      {codeInvalidArgument, "groupBy type not supported (duration)"},
	nameAggregationGroupCountExceededLimit:  {codeInvalidArgument, "more groups than server.maxAggregationGroups"},
	nameInvalidAggregationRange:             {codeInvalidArgument, "a range of a ranges groupBy is malformed"},
	nameInvalidAggregationRangeValue:        {codeInvalidArgument, "a range bound does not fit the property type"},
	nameInvalidAggregationRangePropertyType: {codeInvalidArgument, "ranges grouping on a property that is neither numeric nor a date"},
	nameMultipleGroupByOnFieldNotSupported:  {codeInvalidArgument, "two groupBys on one property"},
	nameInvalidPropertyType:                 {codeInvalidArgument, "the metric or grouping does not apply to the property type"},
	nameDefaultAndNullGroupsNotSupported:    {codeInvalidArgument, "exact groupBy with both defaultValue and includeNullValues"},

	// Ops endpoints (ops.go).
	nameInvalidConfig:         {codeInvalidArgument, "POST /api/indexer/v1/reload: the config file is invalid; the old config keeps running"},
	nameOperationNotAvailable: {codeConflict, "rebuild or reload on a server that runs without a daemon or without a config file"},

	// Auth and limits.
	nameMissingCredentials:    {codeUnauthorized, "no Authorization: Bearer header"},
	nameInvalidCredentials:    {codeUnauthorized, "the bearer token is not a configured token"},
	namePermissionDenied:      {codePermissionDenied, "the token may not call this endpoint (admin only)"},
	nameRequestEntityTooLarge: {codeTooLarge, "the body is larger than server.maxBodyBytes"},
	nameRequestTimeout:        {codeTimeout, "the request took longer than server.requestTimeout"},
	nameInternal:              {codeInternal, "an internal error; its errorInstanceId is in the server log"},
}

// apiErr returns an error of the named kind.
func apiErr(name errorName, params map[string]any) *Error {
	if params == nil {
		params = map[string]any{}
	}
	return &Error{Name: name, Params: params}
}

// internalErr wraps an unexpected error: the client learns nothing of it.
func internalErr(err error) *Error {
	return &Error{Name: nameInternal, Params: map[string]any{}, cause: err}
}

// conjureError is the wire form. Message is not Conjure's: @osdk/client
// makes it the message of the PalantirApiError it throws, which otherwise
// reads "Failed to fetch 400 Bad Request" whatever the error.
type conjureError struct {
	ErrorCode       string         `json:"errorCode"`
	ErrorName       string         `json:"errorName"`
	ErrorInstanceID string         `json:"errorInstanceId"`
	Parameters      map[string]any `json:"parameters"`
	Message         string         `json:"message"`
}

// message is the message of an error: its name and, when its parameters
// give one, the reason (parameters hold nothing internal, see Error).
func message(name errorName, params map[string]any) string {
	if reason, ok := params["reason"].(string); ok && reason != "" {
		return string(name) + ": " + reason
	}
	return string(name)
}

// toAPIError maps any error a handler returns to an API error.
func toAPIError(ctx context.Context, err error) *Error {
	var ae *Error
	var mbe *http.MaxBytesError
	var te *query.TooExpensiveError
	var tg *query.TooManyGroupsError
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &mbe):
		return apiErr(nameRequestEntityTooLarge, map[string]any{"maxBytes": mbe.Limit})
	case errors.Is(err, context.DeadlineExceeded), ctx.Err() != nil && errors.Is(context.Cause(ctx), errRequestTimeout):
		return &Error{Name: nameRequestTimeout, Params: map[string]any{}, cause: err}
	case errors.Is(err, indexer.ErrNotBuilt):
		return apiErr(nameObjectTypeNotSynced, nil)
	case errors.As(err, &te):
		return &Error{Name: nameQueryTooExpensive, Params: map[string]any{"property": te.Property, "propertyFilter": te.Op.String(), "reason": te.Reason}, cause: err}
	case errors.As(err, &tg):
		return &Error{Name: nameAggregationGroupCountExceededLimit, Params: map[string]any{"groupsCount": tg.Groups, "groupsLimit": tg.Limit}, cause: err}
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

// writeError writes err as a Conjure error and logs it: client errors at
// debug level, server errors with their cause at error level.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
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
	if methods, ok := params["allowedMethods"].([]string); ok && ae.Name == nameMethodNotAllowed {
		w.Header().Set("Allow", strings.Join(methods, ", ")) // a 405 must say what is allowed
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(conjureError{ErrorCode: ae.Code(), ErrorName: string(ae.Name), ErrorInstanceID: id, Parameters: params,
		Message: message(ae.Name, params)})
}
