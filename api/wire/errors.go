package wire

import (
	"fmt"
	"net/http"
)

// Error is an API error in the Conjure shape. Its Name selects the Conjure
// code and HTTP status from the table; Params are returned to the client
// and must not hold internals.
type Error struct {
	Name   Name
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
	if k, ok := table[e.Name]; ok {
		return k.code
	}
	return codeInternal
}

// Status is the HTTP status of the error.
func (e *Error) Status() int { return conjureStatus[e.Code()] }

// Conjure error codes, and one of ontoindex's own: Conjure has no code for
// a method a path does not take, and HTTP requires that to be a 405 with
// an Allow header (the api package's writeError sets it), which no Conjure code maps to.
// Clients read the status and Name; @osdk/client passes unknown codes
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
	codeTooManyRequests  = "TOO_MANY_REQUESTS"  // ontoindex's: 429
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
	codeTooManyRequests:  http.StatusTooManyRequests,
}

// Name is the errorName of an API error, as the wire spells it. Errors
// are made from the constants below, never from string literals
// (TestErrorTable_NoLiteralNames holds this package and api to it), so
// that a misspelt name is a compile error rather than a silent 500
// INTERNAL: Code falls back to INTERNAL for names the table lacks. Each
// constant is its wire name with a Name prefix and has its row in table.
type Name string

// Error names, in the order of the table.
const (
	// Lookups.
	NameOntologyNotFound     Name = "OntologyNotFound"
	NameObjectTypeNotFound   Name = "ObjectTypeNotFound"
	NameObjectNotFound       Name = "ObjectNotFound"
	NamePropertiesNotFound   Name = "PropertiesNotFound"
	NameObjectTypeNotSynced  Name = "ObjectTypeNotSynced"
	NameEmbeddedIndexNotKept Name = "EmbeddedIndexNotKept"
	NameApiNotFound          Name = "ApiNotFound"
	NameMethodNotAllowed     Name = "MethodNotAllowed"

	// Links.
	NameLinkTypeNotFound      Name = "LinkTypeNotFound"
	NameLinkedObjectNotFound  Name = "LinkedObjectNotFound"
	NameLinkTypeNotResolvable Name = "LinkTypeNotResolvable"

	// Interfaces and the ontology's metadata.
	NameInterfaceTypeNotFound      Name = "InterfaceTypeNotFound"
	NameInterfaceLinkTypeNotFound  Name = "InterfaceLinkTypeNotFound"
	NameInterfaceTypeNotResolvable Name = "InterfaceTypeNotResolvable"
	NameActionTypeNotFound         Name = "ActionTypeNotFound"
	NameQueryNotFound              Name = "QueryNotFound"
	// Temporary object sets.
	NameObjectSetNotFound Name = "ObjectSetNotFound"

	// Requests.
	NameMalformedRequestBody        Name = "MalformedRequestBody"
	NameMissingPostBody             Name = "MissingPostBody"
	NameInvalidParameterValue       Name = "InvalidParameterValue"
	NameInvalidPropertyValue        Name = "InvalidPropertyValue"
	NameInvalidPageSize             Name = "InvalidPageSize"
	NameInvalidPageToken            Name = "InvalidPageToken"
	NameListingSnapshotExpired      Name = "ListingSnapshotExpired"
	NameInvalidFields               Name = "InvalidFields"
	NameInvalidSortOrder            Name = "InvalidSortOrder"
	NameInvalidOrderType            Name = "InvalidOrderType"
	NameDuplicateOrderBy            Name = "DuplicateOrderBy"
	NamePropertiesNotSortable       Name = "PropertiesNotSortable"
	NamePropertiesNotSearchable     Name = "PropertiesNotSearchable"
	NameMalformedPropertyFilters    Name = "MalformedPropertyFilters"
	NameInvalidPropertyFilterValue  Name = "InvalidPropertyFilterValue"
	NamePropertyFiltersNotSupported Name = "PropertyFiltersNotSupported"
	NameInvalidRangeQuery           Name = "InvalidRangeQuery"
	NameWhereClauseTooComplex       Name = "WhereClauseTooComplex"
	NameQueryTooExpensive           Name = "QueryTooExpensive"
	NameMalformedObjectSet          Name = "MalformedObjectSet"
	NameUnsupportedObjectSet        Name = "UnsupportedObjectSet"
	// nearestNeighbors object sets (objectset_nearest.go).
	NameInvalidVectorDimension                     Name = "InvalidVectorDimension"
	NamePropertyTypeDoesNotSupportNearestNeighbors Name = "PropertyTypeDoesNotSupportNearestNeighbors"
	NameTooManyNearestNeighborsRequested           Name = "TooManyNearestNeighborsRequested"

	// Subscriptions.
	NameSubscriptionLimitExceeded Name = "SubscriptionLimitExceeded"

	// Aggregations.
	NameAggregationMetricNotSupported       Name = "AggregationMetricNotSupported"
	NameAggregationGroupByNotSupported      Name = "AggregationGroupByNotSupported"
	NameAggregationGroupCountExceededLimit  Name = "AggregationGroupCountExceededLimit"
	NameInvalidAggregationRange             Name = "InvalidAggregationRange"
	NameInvalidAggregationRangeValue        Name = "InvalidAggregationRangeValue"
	NameInvalidAggregationRangePropertyType Name = "InvalidAggregationRangePropertyType"
	NameMultipleGroupByOnFieldNotSupported  Name = "MultipleGroupByOnFieldNotSupported"
	NameInvalidPropertyType                 Name = "InvalidPropertyType"
	NameDefaultAndNullGroupsNotSupported    Name = "DefaultAndNullGroupsNotSupported"
	NameInvalidDurationGroupByPropertyType  Name = "InvalidDurationGroupByPropertyType"
	NameInvalidDurationGroupByValue         Name = "InvalidDurationGroupByValue"

	// Ops endpoints (ops.go).
	NameInvalidConfig         Name = "InvalidConfig"
	NameOperationNotAvailable Name = "OperationNotAvailable"

	// Auth and limits.
	NameMissingCredentials    Name = "MissingCredentials"
	NameInvalidCredentials    Name = "InvalidCredentials"
	NamePermissionDenied      Name = "PermissionDenied"
	NameRequestEntityTooLarge Name = "RequestEntityTooLarge"
	NameRequestTimeout        Name = "RequestTimeout"
	NameInternal              Name = "Internal"
)

type errorKind struct {
	code string
	doc  string
}

// table is the one table of error names the API returns, with their
// Conjure codes. Names that Foundry's Ontology API v2 defines keep its
// code; the others are ontoindex's own.
var table = map[Name]errorKind{
	// Lookups.
	NameOntologyNotFound:     {codeNotFound, "the ontology is not the configured one (apiName or rid)"},
	NameObjectTypeNotFound:   {codeNotFound, "no such object type, or the token may not see it"},
	NameObjectNotFound:       {codeNotFound, "no object with that primary key"},
	NamePropertiesNotFound:   {codeNotFound, "a property named in select, where, orderBy or an aggregation does not exist"},
	NameObjectTypeNotSynced:  {codeConflict, "the object type has never been built"},
	NameEmbeddedIndexNotKept: {codeConflict, "the read needs the embedded index, and the object type's backend keeps none (backends.<name>.embeddedIndex: none); objectType, read and config name them"},
	NameApiNotFound:          {codeNotFound, "no such endpoint"},
	NameMethodNotAllowed:     {codeMethodNotAllowed, "the path does not take this HTTP method: 405, allowedMethods and the Allow header list those it takes"},

	// Links.
	NameLinkTypeNotFound:      {codeNotFound, "the object type has no such outgoing link type, or the token may not see its target"},
	NameLinkedObjectNotFound:  {codeNotFound, "the object is not linked to an object with that primary key"},
	NameLinkTypeNotResolvable: {codeConflict, "the link's keys do not fit the types it joins; the reason names the link and its config field"},

	// Interfaces and the ontology's metadata.
	NameInterfaceTypeNotFound:      {codeNotFound, "no such interface, or the token sees no object type that implements it; the reason suggests the name most likely meant"},
	NameInterfaceLinkTypeNotFound:  {codeNotFound, "the interface has no such link type, or the token may not see its target"},
	NameInterfaceTypeNotResolvable: {codeConflict, "an object type maps an interface property to a property of another data type; the reason names the field"},
	NameActionTypeNotFound:         {codeNotFound, "loadMetadata named an action type; ontoindex serves none"},
	NameQueryNotFound:              {codeNotFound, "loadMetadata named a query type; ontoindex serves none"},
	// Temporary object sets.
	NameObjectSetNotFound: {codeNotFound, "no temporary object set with that rid: it expired, was evicted, or the token may not see a type it reads"},

	// Requests.
	NameMalformedRequestBody:                       {codeInvalidArgument, "the body is not the JSON the endpoint takes"},
	NameMissingPostBody:                            {codeInvalidArgument, "the endpoint needs a JSON body"},
	NameInvalidParameterValue:                      {codeInvalidArgument, "a query parameter has a bad value"},
	NameInvalidPropertyValue:                       {codeInvalidArgument, "a primary key or object rid does not fit its property type"},
	NameInvalidPageSize:                            {codeInvalidArgument, "pageSize is outside 1..server.maxPageSize"},
	NameInvalidPageToken:                           {codeInvalidArgument, "pageToken is not a page token, or was returned for another request"},
	NameListingSnapshotExpired:                     {codeInvalidArgument, "pageToken of a listing with snapshot: true whose snapshot is no longer held (server.snapshotListings); start the listing again"},
	NameInvalidFields:                              {codeInvalidArgument, "orderBy must read properties.<p>[:asc|:desc] or p.<p>[:asc|:desc]"},
	NameInvalidSortOrder:                           {codeInvalidArgument, "sort direction is neither asc nor desc"},
	NameInvalidOrderType:                           {codeInvalidArgument, "orderType other than fields"},
	NameDuplicateOrderBy:                           {codeInvalidArgument, "a property appears twice in orderBy"},
	NamePropertiesNotSortable:                      {codeInvalidArgument, "orderBy names a property without search role, or an array"},
	NamePropertiesNotSearchable:                    {codeInvalidArgument, "a filter names a property with search role none"},
	NameMalformedPropertyFilters:                   {codeInvalidArgument, "a where clause is malformed"},
	NameInvalidPropertyFilterValue:                 {codeInvalidArgument, "a where value does not fit the property type"},
	NamePropertyFiltersNotSupported:                {codeInvalidArgument, "the query type does not apply to the property, or is not supported (geo, vector, interval)"},
	NameInvalidRangeQuery:                          {codeInvalidArgument, "a range query on a property that has no order (boolean)"},
	NameWhereClauseTooComplex:                      {codeInvalidArgument, "where or object set deeper or larger than the server limits, or a body nested deeper than they could be (api/depth.go)"},
	NameQueryTooExpensive:                          {codeInvalidArgument, "a prefix or fuzzy query on a text property expands to more terms than server.maxQueryTerms (wildcard and regex never do)"},
	NameMalformedObjectSet:                         {codeInvalidArgument, "an object set is malformed (shape, missing keys, rids not of this server)"},
	NameUnsupportedObjectSet:                       {codeInvalidArgument, "object set kind not supported (searchAround, reference, ...) or of several object types"},
	NameInvalidVectorDimension:                     {codeInvalidArgument, "a nearestNeighbors query vector's length is not its property's dimension"},
	NamePropertyTypeDoesNotSupportNearestNeighbors: {codeInvalidArgument, "nearestNeighbors names a property that is not a vector, or sends text: no embedding model is configured"},
	NameTooManyNearestNeighborsRequested:           {codeInvalidArgument, "nearestNeighbors numNeighbors is not 1 to 500"},

	// Subscriptions.
	NameSubscriptionLimitExceeded: {codeTooManyRequests, "more subscriptions or subscription connections than server.subscriptions allows"},

	// Aggregations.
	NameAggregationMetricNotSupported:       {codeInvalidArgument, "metric type not supported (approximatePercentile)"},
	NameAggregationGroupByNotSupported:      {codeInvalidArgument, "groupBy type not supported (duration)"},
	NameAggregationGroupCountExceededLimit:  {codeInvalidArgument, "more groups than server.maxAggregationGroups"},
	NameInvalidAggregationRange:             {codeInvalidArgument, "a range of a ranges groupBy is malformed"},
	NameInvalidAggregationRangeValue:        {codeInvalidArgument, "a range bound does not fit the property type"},
	NameInvalidAggregationRangePropertyType: {codeInvalidArgument, "ranges grouping on a property that is neither numeric nor a date"},
	NameMultipleGroupByOnFieldNotSupported:  {codeInvalidArgument, "two groupBys on one property"},
	NameInvalidPropertyType:                 {codeInvalidArgument, "the metric or grouping does not apply to the property type"},
	NameDefaultAndNullGroupsNotSupported:    {codeInvalidArgument, "exact groupBy with both defaultValue and includeNullValues"},
	NameInvalidDurationGroupByPropertyType:  {codeInvalidArgument, "duration groupBy on a property that is neither a date nor a timestamp"},
	NameInvalidDurationGroupByValue:         {codeInvalidArgument, "duration groupBy value: weeks and longer take value 1, dates take days or longer; the reason says which"},

	// Ops endpoints (ops.go).
	NameInvalidConfig:         {codeInvalidArgument, "POST /api/indexer/v1/reload: the config file is invalid; the old config keeps running"},
	NameOperationNotAvailable: {codeConflict, "rebuild or reload on a server that runs without a daemon or without a config file"},

	// Auth and limits.
	NameMissingCredentials:    {codeUnauthorized, "no Authorization: Bearer header"},
	NameInvalidCredentials:    {codeUnauthorized, "the bearer token is not a configured token"},
	NamePermissionDenied:      {codePermissionDenied, "the token may not call this endpoint (admin only)"},
	NameRequestEntityTooLarge: {codeTooLarge, "the body is larger than server.maxBodyBytes"},
	NameRequestTimeout:        {codeTimeout, "the request took longer than server.requestTimeout"},
	NameInternal:              {codeInternal, "an internal error; its errorInstanceId is in the server log"},
}

// Err returns an error of the named kind.
func Err(name Name, params map[string]any) *Error {
	if params == nil {
		params = map[string]any{}
	}
	return &Error{Name: name, Params: params}
}

// Wrap returns an error of the named kind with its cause, which is logged
// with the error instance id and never returned to the client.
func Wrap(name Name, params map[string]any, cause error) *Error {
	e := Err(name, params)
	e.cause = cause
	return e
}

// Message is the message of the error: its name and, when its parameters
// give one, the reason (parameters hold nothing internal, see Error).
func (e *Error) Message() string {
	name, params := e.Name, e.Params
	if reason, ok := params["reason"].(string); ok && reason != "" {
		return string(name) + ": " + reason
	}
	return string(name)
}
