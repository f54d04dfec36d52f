// Package icebergtest builds real Iceberg tables with iceberg-go for tests:
// a hadoop catalog in a temporary directory, rows as JSON-like maps, and
// the commits the scenarios need (written with internal/icebergwrite) (appends, copy-on-write overwrites and deletes, merge-on-read deletes,
// equality deletes, compaction, snapshot expiry, rollback, schema changes).
// It is for tests only (and the end-to-end test's seed command); nothing in
// the indexer binary imports it.
package icebergtest
