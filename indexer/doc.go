// Package indexer is the ontoindex engine. It keeps, per object type, a
// store of objects in bbolt (the source of truth, with the baseline of
// files, keys and row hashes) and a bleve search index derived from it, in
// step with the Iceberg table behind the type.
//
// A build moves an object type from its checkpoint to a newer snapshot:
// incrementally, by applying the baseline diff of package changelog in one
// transaction, or fully, into a new generation that is swapped in when
// complete. Merge-on-read snapshots are refused (package cowguard) and the
// index keeps serving its last good state.
//
// Write order, which makes every build safe to kill at any instant:
//
//  1. Incremental: one bbolt transaction writes the changed objects, the
//     new baseline, the new checkpoint and the set of changed keys
//     ("pending"). Full: chunks are committed into a generation nobody
//     reads yet, each with its progress, then one transaction switches the
//     checkpoint to it.
//  2. The pending keys are applied to the search index (upsert from the
//     store, or delete when the store no longer has the key); bleve
//     batches are durable when they return.
//  3. The pending keys are cleared.
//
// Open replays step 2 for any pending keys, so a kill between steps
// converges; a kill inside step 1 loses an uncommitted transaction (or
// resumes a full build from its last chunk).
package indexer
