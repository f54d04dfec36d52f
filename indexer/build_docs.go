package indexer

import (
	"bytes"
	"slices"

	"github.com/ontoindex/ontoindex/indexer/index"
	"github.com/ontoindex/ontoindex/objects"
)

// The index side of a build (store.Docs): where the store writer hands the
// documents it changes.

// docChanges collects, for an incremental build, the new state of every
// document it changes, for index.Snapshot.Apply. The writer marks them
// dirty in the store: the index file of the generation no longer has
// them right.
type docChanges struct {
	// deletedKeys: a deleted document keeps its key (for a search
	// backend).
	deletedKeys bool
	alloc       allocator
	version     uint64 // the version the build commits
	changes     map[uint32]index.Change
	// before, when set (a type without an index: lean_commit.go), holds
	// the stored encoding of each changed document's object before the
	// build (store.PreviousDocs).
	before map[uint32][]byte
}

// allocator numbers new documents: the index's free numbers
// (index.Allocator), or a counter for a type without an index
// (docCounter).
type allocator interface{ Next() uint32 }

// newDocChanges collects the changes of a build that commits version.
func newDocChanges(alloc allocator, version uint64, deletedKeys bool) *docChanges {
	return &docChanges{deletedKeys: deletedKeys, alloc: alloc, version: version, changes: map[uint32]index.Change{}}
}

// New implements store.Docs.
func (dc *docChanges) New() uint32 { return dc.alloc.Next() }

// Changed implements store.Docs. With deletedKeys, a deleted document
// keeps its key (index.Snapshot.Apply does not need it, a search backend
// does).
func (dc *docChanges) Changed(doc uint32, key []byte, o *objects.Object) error {
	ch := index.Change{Doc: doc}
	switch {
	case o != nil:
		// The diff reuses its object and key buffers.
		ch.Key, ch.Object = bytes.Clone(key), &objects.Object{Values: slices.Clone(o.Values)}
	case dc.deletedKeys:
		ch.Key = bytes.Clone(key)
	}
	dc.changes[doc] = ch
	return nil
}

// Previous implements store.PreviousDocs: the state before the build is
// the first one handed over, of a document the build has not changed
// yet (one it numbered has none).
func (dc *docChanges) Previous(doc uint32, encoded []byte) {
	if dc.before == nil {
		return
	}
	if _, changed := dc.changes[doc]; changed {
		return
	}
	if _, ok := dc.before[doc]; !ok {
		dc.before[doc] = bytes.Clone(encoded)
	}
}

// list returns the changes for index.Snapshot.Apply.
func (dc *docChanges) list() []index.Change {
	out := make([]index.Change, 0, len(dc.changes))
	for _, c := range dc.changes {
		out = append(out, c)
	}
	return out
}
