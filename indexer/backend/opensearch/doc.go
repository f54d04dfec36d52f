// Package opensearch is the OpenSearch backend: its writer keeps one
// OpenSearch index per generation of an object type in step with the
// type's builds, and its reader answers the engine's queries
// (indexer/query) from the type's alias, both through the official client
// (github.com/opensearch-project/opensearch-go/v4). The indexer calls it
// for every object type that names a backend (indexer/backend*.go).
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
// tables and go back on a rollback, so the indexer keeps its own per-type
// version, a counter in its store bumped before each batch goes out
// (store.DB.ReserveVersion).
//
// One key appears once in a bulk request: of two changes of a key in one
// batch, the last wins (the second would otherwise meet the first's
// version and be refused). Items the cluster rejects for load (429) are
// sent again with a growing wait; a document the cluster refuses (a value
// its mapping cannot parse) fails the batch with a *RejectedError naming
// the object's primary key and the property; writes the cluster could
// not take for want of an active primary (a shard's node gone with no
// in-sync replica, past the bulk's timeout of a minute) fail it with an
// *UnavailableError; a cluster that does not answer fails it with an
// *UnreachableError naming the cluster. A generation's index is created
// waiting for as many copies of its shards as the cluster's data nodes
// hold (wait_for_active_shards), so that its replicas are in sync before
// the first write: one still recovering when its primary's node goes
// could not be promoted. A batch
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
//	role keyword             keyword for strings, uuids and times; numbers, dates and
//	                         booleans are mapped by their kind (below), with a keyword
//	                         sub-field "text" of their text for startsWith and patterns
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
//	geopoint                 geo_point (the value as GeoJSON), whatever the role: the
//	                         engine indexes geo values whatever theirs
//	geoshape                 geo_shape (the value as GeoJSON; the cluster's geo module),
//	                         whatever the role; a polygon wider than 180 degrees of
//	                         longitude is written with its rings counterclockwise
//	                         (planarShape), or OpenSearch would split a clockwise one
//	                         at the antimeridian where the engine takes it as given
//	list<T>                  the mapping of T (OpenSearch fields hold arrays)
//	struct                   object: "$present" (boolean, the struct's presence) and
//	                         one field per struct field, mapped by its own type
//
// A keyword value longer than Lucene's 32766-byte term is refused (a
// *RejectedError naming the property) rather than left unsearchable; a
// text value keeps its analyzed terms whatever its length, and only its
// exact sub-field skips values over 8191 characters.
//
// Beside the properties, a document lists in __nulls (keyword) the
// apiNames of the properties it holds no value for, struct fields among
// them: a null check is a term of it, where exists would take an empty
// list for a null and cannot see a property kept in _source only.
//
// Text properties are analyzed by ontoindex_text, defined in every
// index's settings: the standard tokenizer (Unicode word boundaries, as
// query.Analyze's) with max_token_length 8191, then lowercase, then
// keep_types dropping <EMOJI> terms, which Lucene's tokenizer makes and
// query.Analyze does not.
//
// Vectors wait for the k-NN plugin, which the test cluster does not load.
// Values are written as objects.JSONValue renders them for the API (but
// -0, which is written -0.0: OpenSearch reads -0 as the integer 0), so
// _source is what the API returns.
//
// # Reads
//
// Reader.Search answers query.Search with the keys of one page, the next
// cursor and the total, in the shape of index.Result (Result); Reader.
// Aggregate answers query.Aggregate with a query.AggregateResult. Every
// query reads the alias in filter context (no scores), and each operator
// becomes:
//
//	all, none, and, or, not  match_all, match_none, bool filter / should (minimum 1) / must_not
//	keys                     terms on __key (objects.DocID of each key), 65536 a query
//	isNull                   term (or must_not term) of the apiName on __nulls
//	eq, contains             term on the exact field (a text property's keyword sub-field)
//	in                       terms on the exact field; no values matches all
//	gt, gte, lt, lte         range on the exact field
//	startsWith (keyword)     prefix on the field (a number's text sub-field): bytes,
//	                         case-sensitive
//	containsAllTerms /       bool filter / should of one query per term of
//	containsAnyTerm          query.Analyze(text): term, or with fuzzy, fuzzy with
//	                         fuzziness query.Fuzziness(term), transpositions, prefix
//	                         length 0 and the constant_score rewrite (every term within
//	                         the distance, where the default keeps 50)
//	phrase (all in order)    span_near of span_term, slop 0, in order; one term: term
//	phrase prefix,           the same with the last clause span_multi of a prefix;
//	startsWith (text)        one term: prefix
//	wildcard, regex          regexp on the exact (or text) field, flags NONE, written from the
//	                         RE2 syntax tree the engine compiles: . excludes newlines,
//	                         (?i) becomes classes, every literal is escaped
//	geo (geopoints)          withinDistanceOf: geo_distance on the arc; the box
//	                         relations: geo_bounding_box of each box of Geo.Bounds (two
//	                         across the antimeridian); the polygon relations:
//	                         geo_polygon of the exterior ring and must_not of each
//	                         hole's; doesNotIntersect: exists and must_not of that
//	geo (geoshapes)          the box relations: geo_shape intersects of an envelope per
//	                         box of Geo.Bounds; the polygon relations: geo_shape
//	                         intersects of the polygon, holes included, rewound as
//	                         documents are; doesNotIntersect: exists and must_not of
//	                         that; within and distance refused, as the engine does
//	interval                 intervals of the rule, its terms query.Analyze's (the whitespace
//	                         analyzer for a match's, keyword for a fuzzy term and a
//	                         prefix): match as match (ordered, max_gaps), fuzzy as fuzzy
//	                         (transpositions, prefix length 0), prefixOnLastToken as
//	                         all_of ordered, max_gaps 0, of each term and a prefix, anyOf
//	                         as any_of. allOf is refused: OpenSearch keeps minimal
//	                         intervals only and lets an unordered all_of's intervals
//	                         overlap, the engine does neither, and whether a rule
//	                         matches differs (all_of ordered, max_gaps 0, of match "x"
//	                         and match "a b" misses "x a a b", which the engine
//	                         matches; unordered all_of of match "a b" and match "b c"
//	                         matches "a b c", which the engine does not); match, fuzzy,
//	                         prefixOnLastToken and anyOf yield an interval exactly when
//	                         the engine's do. On a list of text, a match of several
//	                         terms with maxGaps unlimited or over 99 is refused: the
//	                         values are one field 100 positions apart, so it could span
//	                         two values, which the engine's never does
//
// A filter that the engine refuses (an unknown or unsearchable property,
// a value of another type, a text query of no terms, an anchored regular
// expression) is refused the same way, before the cluster sees it.
//
// Order is each sort property's exact field with missing _last, then __key
// ascending (unique, and ordered like the encoded key, so it is the
// engine's primary-key tie-break). missing _last gives a null the sort
// type's extreme value, which a long or integer can hold too: their sorts
// put a script's presence (0 with a value, 1 without) first, so nulls come
// after Long.MAX_VALUE too. The cursor holds the last hit's sort values
// (search_after), and the next page reads the alias as it is then: the
// engine's cursors hold sort values too and stay valid across builds. With
// Reader.KeepAlive set, the first page opens a point in time on the alias
// and the cursor holds its id too: every page of a listing reads the first
// page's snapshot, and the last page closes it; a cursor whose point in
// time has expired continues from the alias. It is off by default: a point
// in time lives its keep-alive unless the listing reaches its last page,
// and a node holds at most search.max_open_pit_context (300), which
// clients that read first pages only use up (BenchmarkReader_search did,
// at 300 first pages in one keep-alive); a refused point in time pages on
// the alias. A page asks for PageSize+1 hits to know whether a next page
// exists, so PageSize is at most index.max_result_window-1 (9999).
// totalCount is exact (track_total_hits: true); NoTotal turns it off.
// Every search is sent with allow_partial_search_results false: a shard
// that no copy answered (a node gone before a replica took over) fails
// the search, where the cluster's default answers with the other shards'
// hits, a wrong answer that looks right. A page's search asks for the
// fields it reads (filter_path: the point in time, the total, each hit's
// _id and sort values, an error).
// Relevance order and Limits.MaxTerms are not supported.
//
// Aggregations walk a composite aggregation of one terms source per exact
// grouping (missing_bucket for the null or default group) page by page to
// its end, so every group is exact, then keep the MaxGroupCount values and
// order the groups as the engine does. A ranges grouping adds a walk per
// range (per combination of ranges, with several), of the objects with a
// value in [Start, End): a range query of the property. A duration
// grouping is a date_histogram source with the engine's buckets (UTC;
// fixed intervals from the epoch up to days, weeks of 7 days from Monday
// 1969-12-29, calendar months, quarters and years, one at a time); a
// fixed-width grouping a histogram source of interval Width (of floats,
// doubles and decimals, over a script that makes -0 +0: the histogram
// would key -0 apart, the engine puts it in [0, Width)).
//
// Per group: Count is the bucket's doc_count; Min and Max the sort value
// of the first object in that order (top_hits, mode min or max over a
// list's elements),
// exact where the min and max aggregations answer doubles; Sum and Avg the
// sum and value_count aggregations; ExactDistinct and ApproximateDistinct
// both exact, from a second composite walk over the groupings and the
// property, whose buckets are the distinct pairs (cardinality is
// HyperLogLog, approximate). Limits.MaxGroups fails as the engine does.
//
// # What differs from the embedded engine
//
//   - Geopoints and the vertices of geoshapes and of query regions are
//     quantized to about 1e-7 degrees (Lucene's LatLonPoint and
//     LatLonShape), so a value that close to a region's edge may fall on
//     the other side, and a shape that only touches a region (a corner on
//     its edge) may not meet it; a point on a hole's edge is outside the
//     polygon (the engine counts edges in).
//   - A geoshape that Lucene cannot tessellate (the engine takes any
//     valid geometry) fails its batch with a *RejectedError.
//   - Timestamps are milliseconds (the date type): values and filter
//     bounds that differ below the millisecond compare equal.
//   - Decimals are doubles for filters, order and sums: exact while a
//     double holds them; Min and Max of decimals are refused.
//   - Sums of integers are refused once they reach 2^53 (OpenSearch sums
//     in doubles); sums of doubles round in the cluster's order of
//     additions, not the engine's.
//   - The text that startsWith and patterns match on a keyword number,
//     date or boolean is the document's: floats as 32-bit numbers (the
//     engine's text of a float is its 64-bit double), -0 as -0.0.
//   - Exact values past 8191 characters (a text property's keyword
//     sub-field's ignore_above) are not found by eq, in, ranges or
//     patterns, and sort as nulls; words past 8191 characters are split.
//   - An emoji between two words leaves a position between their terms
//     (keep_types drops the emoji's term, not its position), where the
//     engine's terms are adjacent: phrases, prefixOnLastToken and interval
//     gaps count it, so "cedar 🌲 delta" does not match the phrase "cedar
//     delta".
//   - A fuzzy or prefix interval rule fails past 128 terms of one segment
//     (Lucene's limit for intervals), where the engine's bound is
//     Limits.MaxTerms.
//   - startsWith, wildcard and regex on a property that is not keyword or
//     text, allOf interval rules, relevance order,
//     percentiles, and durations of several months, quarters or years are
//     refused.
//   - Fixed-width buckets are floor(value/Width) in doubles, where the
//     engine floors exactly: a value within a double's rounding of a
//     bucket's edge may fall in the next one.
//   - Grouping by a list of numbers, dates or booleans is refused: numeric
//     doc values keep duplicate elements, and a composite bucket counts
//     an object once per duplicate.
//   - Prefix and fuzzy expansions are not bounded by Limits.MaxTerms; a
//     phrase prefix fails past indices.query.bool.max_clause_count (1024)
//     expansions of its last term.
//   - With Reader.KeepAlive, the first page of a listing costs two more
//     requests (open the point in time, and close it when the listing has
//     one page).
//
// The differential tests (TestReader, under the integration_opensearch
// tag) write random objects through the Writer and build them into the
// embedded engine, then compare every page of random filters and sorts,
// totals, random aggregations, random geo filters (geopoints and
// geoshapes) and random interval rules.
package opensearch
