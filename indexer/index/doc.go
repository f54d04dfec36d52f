// Package index is the search engine of one object type: immutable
// in-memory snapshots of the objects of a generation, the structures that
// answer searches, counts and aggregations, a planner that picks how, and
// the file a snapshot is saved to.
//
// # Snapshots
//
// A Snapshot is what the store held at one version. It is never modified:
// a build derives the next one with Apply, which copies only the chunks,
// blocks and bitmaps the changes touch and shares the rest, so an
// incremental build costs its changes and readers never lock. Documents
// are the store's document numbers (dense, reused after deletes); a
// snapshot holds, over them:
//
//   - alive, a roaring bitmap of the documents that hold an object;
//   - keys, the encoded primary key of each document, packed per chunk of
//     1024 documents, and keyOrder, the documents in key order (an order,
//     below);
//   - per property, a propertyIndex: nulls (a bitmap) and, as the
//     property's role needs:
//
// a column, one value per document in chunks of 1024: an 8-byte order-
// preserving prefix ("pre") of every value in an array, and the exact
// value where the prefix is not all of it (strings longer than 8 bytes,
// timestamps with nanoseconds, decimals, uuids), packed. A value in this
// form is a valueKey (value.go) and compares as (pre, exact), so sorting
// and ranges are exact for every type: longs and decimals beyond 2^53,
// doubles in IEEE total order (-0 < +0, NaN last). Columns serve sorting,
// range tests, aggregation and rendering objects without decoding them.
// Arrays have a listColumn (the elements).
//
// an order, the documents with a non-null value sorted by (value, primary
// key): the btree of the index. It is a list of orderBlocks of at most 2048
// (pre, document) pairs with the pre inline, so binary searches and walks
// rarely touch the columns, and updates copy only the blocks they change.
// A range filter is a run [lo, hi) of positions; a sorted page walks it.
//
// a dict, for properties with at most 1024 distinct values (keywords,
// booleans, small integers): a bitmap per value. Equality is a bitmap, a
// count a cardinality, a group-by an intersection per value. A property
// that grows past 2048 values on update loses its dict and falls back to
// its order.
//
// pair counts, for two scalar properties that both have a dict: the
// documents of every pair of their values, as running sums over the sorted
// values of the second (pairs.go). A union "a = x or b in a range" is
// counted as |S| + |R| - |R ∩ S| with |R ∩ S| two lookups, and a count
// grouped by a over one value or range of b is a lookup per value. A table
// is made on first use, carried exactly by Apply, and not saved.
//
// terms, for text properties: the analyzed terms (bleve's unicode
// tokenizer and lowercase filter, so text matches as it did when bleve
// held the whole index) in packed sorted termBlocks, with postings as
// sorted slices while small and roaring bitmaps beyond 32 documents. Term and
// prefix lookups are binary searches; fuzzy terms walk the sorted terms
// with a vellum automaton, skipping the prefixes it rules out. Phrases
// and interval rules (plan_interval.go) verify candidates against the
// column; a relevance search (relevance.go, search_relevance.go) scores
// each match by BM25 from the postings' document frequencies and the
// analyzed value, with the total length of each text property kept by
// builds and updates (text_length.go).
//
// # Queries
//
// A query.Filter compiles to a tree of nodes (plan.go): sets (bitmaps:
// dict values, nulls, keys, text terms), runs (positions of an order),
// predicates (a column test), and, or and not. Every node can give its
// matches as a bitmap and test one document, and estimates its matches
// and the cost of either (node.go; costs are rough nanoseconds per
// document). An AND materializes its cheapest kid and tests the others on
// what is left when that is cheaper than materializing them all (and.go).
// Runs list documents in value order, not document order; when many, they
// are set into a dense bitset (pooled per generation) and intersected
// word by word (dense.go). Wildcards and regular expressions match whole
// values (plan_pattern.go): they walk the distinct values of an order with
// their automaton while it skips most of them, and otherwise become a
// predicate over the column (a leading wildcard), so they cost at most a
// scan and are never refused for what they match.
//
// A search then picks one of two plans (Snapshot.choose):
//
//   - walk: go along the order of the sort property (or the primary key),
//     from the cursor, testing each document against the rest of the
//     filter, and stop after pageSize+1 hits; a range on the sort property
//     bounds the walk instead of being tested. Cost follows the page over
//     the filter's selectivity, not the matches: a btree index scan.
//   - collect: materialize the matches and keep the best pageSize+1 in a
//     heap over the columns (topk.go). Cost follows the matches, not the
//     table.
//
// The planner estimates the documents a walk reads (page / selectivity,
// at most the walked range) and compares walk and count against
// materialize and heap. Several sort properties always collect. Every
// plan breaks ties by primary key and puts nulls last; a cursor is the
// last document's sort values and key, so it stays valid across builds.
//
// totalCount is exact: a cardinality when the matches are a bitmap, a
// count along the walked range of a dense bitset, or a count of the
// filter. At ten million documents a count along a range goes through the
// order's bins (order_bins.go: each bin's documents a stretch at a time,
// so the bitset's words tested stay in the first-level cache), and a
// residual that is an intersection of dictionary values (city = X and not
// active) is kept by the snapshot's filter cache (filter_cache.go: at most
// 16 bitsets of maxDoc/8 bytes, least recently used first), with its
// prefix sums over the bins of an order once counted along it twice: a
// repeated filter's count then reads two sums and the range's ends. A
// link from many objects to those holding their primary keys (a
// searchAround) goes through the join of the two snapshots once the links
// between them have read keys worth making it (link_join.go): its count
// is a sum over the source documents and its test a lookup, where value
// by value each key costs a column line and a search of its run.
// Counts and aggregations read columns in document order
// (aggregate*.go) and never decode objects, except metrics over the
// properties the index keeps no values of, which a Loader reads from the
// store.
//
// # Memory and persistence
//
// The index lives in memory: at a million customers of six properties
// about 200 bytes an object. A generation's snapshot is saved to a file
// (persist.go: every structure, then an xxh3 checksum) so that a restart
// loads it instead of rebuilding from the store; the indexer owns when it
// is written and what happens when it is missing, stale or corrupt.
package index
