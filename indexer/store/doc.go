// Package store is the bbolt store of the engine (package indexer): per
// object type, its checkpoint, any full build in progress, and its
// generations of objects with the baseline of files, keys and row hashes
// that package changelog diffs against. It is the source of truth: the
// in-memory search index (package index) can always be rebuilt from it.
//
// Layout of state.db:
//
//	types/<ObjectType>/checkpoint      JSON checkpoint (indexer.Checkpoint): what the index reflects
//	types/<ObjectType>/build           JSON BuildState: a full build in progress
//	types/<ObjectType>/gen-<n>/        one generation:
//	    objects    key -> uvarint file id | uvarint document | 8-byte row hash | object encoding
//	    files      data file path -> uvarint id | uvarint size | uvarint records
//	    fileids    8-byte id -> data file path
//	    filekeys   8-byte file id | key -> (empty)
//	    manifests  manifest path -> uvarint file ids of its live data files
//	    dirty      4-byte document -> uvarint version | key: documents changed
//	               since the generation's index file (key empty: now free)
//	    meta       nextFileID, count, version (of the objects), layout
//
// A generation built with readMode appendOnly (Writer.AppendOnly) keeps a
// cheaper baseline: row hashes are 0, filekeys is empty, and a record's
// file id may name a file a compaction removed since. Only append-only
// reads use it; the checkpoint's readMode makes any other read rebuild.
//
// Keys are the order-preserving primary-key encodings of package objects.
// Documents are the dense numbers the search index (package index) uses;
// the store assigns them, so the index can always be rebuilt from it.
// Generations written before layout 3 have no documents in their records
// and no dirty bucket: they are served read-only (numbered at load) until
// the full build their layout forces replaces them.
//
// A Writer applies a diff to one generation (it is the changelog.Baseline
// and changelog.Sink of a build); a Reader reads the objects of one
// generation in one read transaction; DB holds the rest.
package store
