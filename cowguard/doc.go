// Package cowguard keeps merge-on-read out of the index. It reads a table's
// write-mode properties, finds the live delete files of a snapshot
// (position deletes, equality deletes, deletion vectors), refuses such
// snapshots with a *MergeOnReadError that says what to do, and produces the
// write-mode report operators check their tables with.
//
// Live delete files of a snapshot are the ADDED and EXISTING entries of the
// delete manifests in its manifest list. A delete manifest whose entries are
// all DELETED (left behind by compaction) is not live and does not block.
package cowguard
