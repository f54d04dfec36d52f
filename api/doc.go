// Package api serves the objects of an ontoindex engine over a subset of
// Foundry's Ontology API v2, so that code written against Foundry's platform
// SDK (@osdk/foundry.ontologies) or its application client (@osdk/client)
// runs unchanged against it.
//
// # Routes
//
// Under /api/v2/ontologies, where {ontology} is the configured ontology's
// apiName or rid:
//
//	GET  /                                             ListOntologiesV2Response
//	GET  /{ontology}                                   OntologyV2
//	GET  /{ontology}/objectTypes                       ListObjectTypesV2Response (pageSize, pageToken)
//	GET  /{ontology}/objectTypes/{objectType}          ObjectTypeV2
//	GET  /{ontology}/objectTypes/{objectType}/fullMetadata ObjectTypeFullMetadata (metadata.go)
//	GET  /{ontology}/objects/{objectType}              ListObjectsResponseV2 (pageSize, pageToken, select, orderBy, excludeRid)
//	GET  /{ontology}/objects/{objectType}/{primaryKey} OntologyObjectV2 (select, excludeRid)
//	POST /{ontology}/objects/{objectType}/search       SearchObjectsResponseV2
//	POST /{ontology}/objects/{objectType}/count        CountObjectsResponseV2
//	POST /{ontology}/objects/{objectType}/aggregate    AggregateObjectsResponseV2
//	POST /{ontology}/objectSets/loadObjects            LoadObjectSetResponseV2
//	POST /{ontology}/objectSets/aggregate              AggregateObjectsResponseV2
//	GET  /{ontology}/objectTypes/{objectType}/outgoingLinkTypes[/{linkType}]
//	                                                   ListOutgoingLinkTypesResponseV2, LinkTypeSideV2
//	GET  /{ontology}/objects/{objectType}/{primaryKey}/links/{linkType}[/{linkedPrimaryKey}]
//	                                                   ListLinkedObjectsResponseV2, OntologyObjectV2
//	POST /{ontology}/objectTypes/getByRidBatch         GetObjectTypeByRidBatchResponse (metadata_ontology.go)
//	GET  /{ontology}/interfaceTypes[/{interfaceType}]  ListInterfaceTypesResponse, InterfaceType (metadata_interfaces.go)
//	GET  /{ontology}/interfaceTypes/{interfaceType}/outgoingLinkTypes[/{interfaceLinkType}]
//	                                                   ListOutgoingInterfaceLinkTypesResponse, InterfaceLinkType
//	GET  /{ontology}/fullMetadata                      OntologyFullMetadata (metadata_ontology.go)
//	POST /{ontology}/metadata                          OntologyFullMetadata of a LoadOntologyMetadataRequest
//
// Objects carry their non-null properties and __apiName, __primaryKey,
// __title and __rid (unless excludeRid). Values are encoded as Foundry's
// PropertyValue says: integers and doubles JSON numbers, longs JSON strings
// of their digits (JavaScript numbers lose longs beyond 2^53), decimals
// strings, dates YYYY-MM-DD, timestamps RFC 3339 in UTC, arrays arrays;
// __primaryKey like its property; totalCount is a string, as Foundry sends
// it. Aggregation values are JSON numbers.
//
// # Primary keys
//
// A single-property key is addressed by its value's text (/objects/Employee/42)
// and returned typed in __primaryKey. A composite key is its components'
// texts in key order joined by ",", with "%" and "," inside a component
// written %25 and %2C; that string is then percent-encoded as a path segment
// like any other (encodeURIComponent does it), and it is also the value of
// __primaryKey. Employee 10 on project "R&D, phase 1" is "10,R&D%2C phase 1",
// requested as /objects/Assignment/10%2CR%26D%252C%20phase%201. ObjectTypeV2
// names the first key property in primaryKey (Foundry keys have one) and
// all of them in primaryKeyProperties.
//
// Object rids are ri.ontoindex.main.object.<objectType>.<id>, where id is
// the search document id of the key; static object sets take them.
//
// # Search
//
// where takes every SearchJsonQueryV2 type except the geo and vector
// ones, which are refused with 400 PropertyFiltersNotSupported and
// a reason (see wire/where.go for how each maps onto the engine's
// query.Filter; wire/where_interval.go for interval; relativeDateRange
// becomes a range from the server's clock, wire/where_relative.go).
// Results are ordered by orderBy (any searchable property that is not an
// array; nulls last), or by relevance (BM25, each object carrying __score;
// search_relevance.go), and then by primary key, so the order is total.
// Page tokens (wire/pagetoken.go) are opaque cursors holding the sort
// values of the last object and its primary key, never offsets: a page
// costs the same at any depth, and while no build runs, paging neither
// skips nor repeats objects. Listings without an order are in primary-key
// order.
//
// Object sets (wire/objectset.go) decode to the same engine filters, one
// object type each. A searchAround follows a link of the config
// (objectset_links.go): it reads the keys its inner set holds from the
// engine (View.Distinct) and becomes an in filter on the target type, via
// the link table's rows for a many-to-many link, so links are resolved at
// query time and each table's build alone moves them.
//
// Aggregations (count, min, max, avg, sum, exactDistinct,
// approximateDistinct; groupBy exact, fixedWidth, ranges) are computed
// exactly by the engine from the index's columns of the matching set.
// Objects are written to JSON directly from the index's columns
// (render.go), byte for byte what encoding/json makes of them.
//
// # Errors, limits and auth
//
// Errors have the Conjure shape {errorCode, errorName, errorInstanceId,
// parameters}, plus a message that @osdk/client shows, and the HTTP status
// of their code; the table in wire/errors.go is the one table of names and
// codes. Internal errors return nothing but their instance id, which the
// log has with the cause. A method a path does not take is 405
// MethodNotAllowed with an Allow header; its code, METHOD_NOT_ALLOWED, is
// ontoindex's own, since Conjure has none that maps to 405.
//
// GET /objects/{objectType}/search (and count, aggregate) is routed as the
// get of the object keyed "search", which a type keyed by strings may
// hold, so it is looked up like any key. When the key cannot be one of the
// type's (an integer or composite key), the answer is the 405 with Allow:
// POST; when no object has it, the 404 ObjectNotFound says to POST.
//
// The server section of the config bounds bodies (413), page sizes, the
// depth and size of where clauses and object sets, the index terms a query
// may expand to, the groups of an aggregation and the time of a request.
// Clients send Authorization: Bearer <token>; the SHA-256 digest of the
// token is compared in constant time with the configured digests. A token
// sees only its object types: the others do not exist for it. Without
// tokens the server is anonymous and serves only on loopback addresses.
//
// # Ops
//
// ops.go serves /healthz, /readyz, /metrics and the /api/indexer/v1 status,
// check, rebuild and reload endpoints over the daemon (Options.Daemon);
// metrics.go counts requests by route pattern. They authenticate like
// the API, and the POST endpoints need an admin token.
package api
