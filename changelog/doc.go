// Package changelog computes the row-level changes of an Iceberg table
// between two states.
//
// The baseline diff (Plan, Diff) is what the indexer runs: the data files
// live at a target snapshot minus the files of the baseline are the added
// files, the baseline files no longer live are the removed ones; only the
// added files are read (projected columns only), each row is hashed and
// compared with the baseline by primary key, and the result is one INSERT,
// UPDATE_AFTER or DELETE per key. Rows a copy-on-write rewrite copied
// unchanged (carry-overs) produce no change. Removed files are never opened:
// the baseline holds their keys.
package changelog
