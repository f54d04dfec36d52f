// Package changelog computes the row-level changes of an Iceberg table
// between two states.
//
// The baseline diff (PlanDiff, Diff) is what the indexer runs: the data
// files live at a target snapshot minus the files of the baseline are the
// added files, the baseline files no longer live are the removed ones; only
// the added files are read (projected columns only), each row is hashed and
// compared with the baseline by primary key, and the result is one INSERT,
// UPDATE_AFTER or DELETE per key. Rows a copy-on-write rewrite copied
// unchanged (carry-overs) produce no change. Removed files are never opened:
// the baseline holds their keys.
//
// Replay is the snapshot-by-snapshot changelog Spark's
// create_changelog_view produces: raw INSERT and DELETE rows per added and
// removed file with _change_type, _change_ordinal and _commit_snapshot_id,
// carry-over removal, update images paired by identifier columns, net
// changes, and the identifier-latest form. It is what `indexer changelog`
// prints. Both refuse merge-on-read states with *cowguard.MergeOnReadError.
//
// View gives the six views of a range that Foundry's incremental Iceberg
// inputs give (current, previous, added, modified, removed, changelog),
// streamed like Replay's records and built on its plan; it is what
// `indexer view` prints.
package changelog
