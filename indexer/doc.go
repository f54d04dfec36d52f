// Package indexer is the ontoindex engine. It keeps, per object type, a
// store of objects in bbolt (package store: the source of truth, with the
// baseline of files, keys and row hashes) and an in-memory search index
// derived from it (package index), in step with the Iceberg table behind
// the type.
//
// A build moves an object type from its checkpoint to a newer snapshot:
// incrementally, by applying the baseline diff of package changelog in one
// transaction, or fully, into a new generation that is swapped in when
// complete. Merge-on-read snapshots are refused (package cowguard) and the
// index keeps serving its last good state, unless the type sets
// mergeOnRead: index: then builds apply their delete files
// (build_mergeonread.go), in the same transaction as the rest.
//
// Write order, which makes every build safe to kill at any instant:
//
//  1. The build computes the index snapshot of the version it is about to
//     commit (index.Snapshot.Apply for incremental builds, an
//     index.Builder for full ones) and stages it in the generation.
//  2. One bbolt transaction writes the changed objects, the new baseline,
//     the new checkpoint, the new store version, and, in the generation's
//     dirty bucket, the documents it changed. A full build commits its
//     chunks into a generation nobody reads yet, each with its progress,
//     then one transaction switches the checkpoint to it.
//  3. The staged snapshot is promoted (or dropped if the commit failed).
//     Readers take the promoted snapshot when it holds every value (it
//     answers alone); otherwise, and whenever they read the store, they
//     open a store transaction, read its version and take the snapshot of
//     that version, so a page's objects always belong to the snapshot that
//     found them.
//  4. Now and then (after a full build, after enough changed documents, on
//     close) a background saver writes the generation's index file and
//     clears the dirty documents it covers.
//
// Open loads each generation's index file and re-reads only the dirty
// documents from the store; a missing, damaged or outdated file is
// rebuilt from the store. A kill anywhere loses at most an uncommitted
// transaction (or resumes a full build from its last chunk), and the index
// always matches the store after the next start.
//
// # Where things are
//
// The root holds the engine's domain types and its public API: Open,
// Build (a buildJob: plan, then incremental or full, then commit; see
// build_job.go, and build_mode.go for what readMode changes), View (read.go), Status, Check and Reload, and the errors
// in errors.go. Generations and their index files are generation.go and
// indexfile.go. Sub-packages hold what the engine is made of:
//
//   - config: the config file (defaults, file with ${ENV}, Validate) and
//     the one way to open a catalog.
//   - store: the bbolt store and its layout.
//   - index and query: the in-memory index and planner, and the query
//     types it answers.
//   - daemon: keeps every object type fresh (scheduling, loops, status,
//     metrics) through the public API above.
package indexer
