// Package opensearch is the OpenSearch backend's writer: it keeps one
// OpenSearch index per generation of an object type in step with the
// type's builds, through the official client
// (github.com/opensearch-project/opensearch-go/v4). Reads (the query
// layer) are not here yet, and the daemon does not call it yet: the config
// check refuses a type that names a backend until it does.
//
// # Names
//
// A type's alias is <indexPrefix><apiName in lower case>; generation g of
// the type is the index <alias>-g<g>. The alias always points at one
// index, the published generation: Publish moves it in one _aliases
// request (remove from every index it points at, add to the new one), so
// a reader of the alias sees the old generation or the new one, never a
// mix, and then deletes the generations it left. A generation's index is
// created with refresh_interval -1 (nobody reads it, so a full build's
// writes make no segments for readers); Publish refreshes it before the
// swap, so that the alias shows the whole generation at once, and sets
// the cluster's default interval back for the incremental writes that
// follow.
//
// # Writes
//
// Write sends upserts (index) and deletes through the bulk API with
// version_type external and one version for the whole batch: the
// snapshot's sequence number, which only grows per table, so that
//
//   - a replay of a batch after a crash (same version) changes nothing: the
//     cluster answers 409 for every document, which Write counts as done;
//   - an older batch arriving late never wins (409 too);
//   - a delete leaves a tombstone with its version, so an older upsert of
//     the deleted document is refused as long as the tombstone lives:
//     index.gc_deletes, set on every index to Options.GCDeletes (default
//     24h instead of OpenSearch's 60s), bounds how late an older write may
//     come. Tombstones cost the cluster memory per deleted document for
//     that long.
//
// The version must grow with every batch a type sends: Iceberg's
// sequence numbers do on format 2 tables, but are all 0 on format 1
// tables and go back on a rollback, so the caller that wires builds to
// Write keeps its own per-type version (see the package's issue).
//
// One key appears once in a bulk request: of two changes of a key in one
// batch, the last wins (the second would otherwise meet the first's
// version and be refused). Items the cluster rejects for load (429) are
// sent again with a growing wait; a document the cluster refuses (a value
// its mapping cannot parse) fails the batch with a *RejectedError naming
// the object's primary key and the property; a cluster that does not
// answer fails it with an *UnreachableError naming the cluster. A batch
// has been acknowledged when Write returns nil: the caller moves its
// checkpoint only then.
//
// # Mapping
//
// Each index is created with a strict mapping derived from the type's
// properties (Mapping): a document field per property apiName, plus
// __key, the document id (objects.DocID of the encoded primary key, which
// sorts like the key) as a keyword for the primary-key tie-break. The
// property's search role decides first, then its kind:
//
//	role text                text, with a keyword sub-field "keyword" (ignore_above 8191)
//	role keyword             keyword (numbers, dates, booleans as their text)
//	role none, vector        not indexed: {"type": "object", "enabled": false}, kept in _source
//	boolean                  boolean
//	integer, long            integer, long
//	float, double            float, double
//	decimal                  double (search, sort, aggregations), with a keyword sub-field
//	                         "exact" holding the decimal's exact text
//	uuid, time               keyword (their text)
//	date                     date, format strict_date (YYYY-MM-DD)
//	timestamp, timestamptz   date, format strict_date_optional_time: OpenSearch keeps
//	                         milliseconds, so ranges and order are exact to the
//	                         millisecond; _source keeps the microseconds
//	geopoint                 geo_point (the value as GeoJSON)
//	geoshape                 geo_shape (the value as GeoJSON)
//	list<T>                  the mapping of T (OpenSearch fields hold arrays)
//	struct                   object: "$present" (boolean, the struct's presence) and
//	                         one field per struct field, mapped by its own type
//
// A keyword value longer than Lucene's 32766-byte term is refused (a
// *RejectedError naming the property) rather than left unsearchable; a
// text value keeps its analyzed terms whatever its length, and only its
// exact sub-field skips values over 8191 characters.
//
// Vectors wait for the k-NN plugin, which the test cluster does not load.
// Values are written as objects.JSONValue renders them for the API, so
// _source is what the API returns.
package opensearch
