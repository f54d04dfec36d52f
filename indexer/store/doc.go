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
//	types/<ObjectType>/backendVersion  uvarint: the last version reserved for the type's writes
//	                                   to its search backend (DB.ReserveVersion)
//	types/<ObjectType>/gen-<n>/        one generation:
//	    objects    key -> uvarint file id | uvarint document | 8-byte row hash | object encoding
//	    files      data file path -> uvarint id | uvarint size | uvarint records
//	    fileids    8-byte id -> data file path
//	    filekeys   8-byte file id | key -> (empty)
//	    manifests  manifest path -> uvarint file ids of its live data files
//	    dirty      4-byte document -> uvarint version | key: documents changed
//	               since the generation's index file (key empty: now free)
//	    meta       nextFileID, count, version (of the objects), layout, and for a
//	               generation no index numbers, nextDoc: uvarint version | uvarint
//	               next document (next_doc.go)
//	    aliases    8-byte file id | 8-byte id aliased to it -> (empty); made when
//	               first written (writer_alias.go)
//
// fileids maps an id to the file its records' rows live in: a file's own id,
// or the id of a file a copy-on-write rewrite replaced, whose carried-over
// rows kept their records (an alias, writer_alias.go). files and manifests
// name a file by its own id; FileKeys of a file reads the keys under its id
// and its aliases. A generation without the aliases bucket (every
// generation written before it) has no aliases, so it loads as it is; a
// binary older than the aliases must not open a generation that has some
// (it would miss their keys when their file leaves).
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
