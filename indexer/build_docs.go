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
	base *index.Snapshot
	// deletedKeys: a deleted document keeps its key (for a search
	// backend).
	deletedKeys bool
	alloc       *index.Allocator
	version     uint64 // the version the build commits
	changes     map[uint32]index.Change
}

func newDocChanges(base *index.Snapshot, deletedKeys bool) *docChanges {
	return &docChanges{base: base, deletedKeys: deletedKeys, alloc: base.NewAllocator(), version: base.Version() + 1, changes: map[uint32]index.Change{}}
}

// New implements store.Docs.
func (dc *docChanges) New() uint32 { return dc.alloc.Next() }

// Changed implements store.Docs. With deletedKeys, a deleted document
// keeps its key, which the store does not hand over (index.Snapshot.Apply
// does not need it, a search backend does).
func (dc *docChanges) Changed(doc uint32, key []byte, o *objects.Object) error {
	ch := index.Change{Doc: doc}
	switch prev, ok := dc.changes[doc]; {
	case o != nil:
		// The diff reuses its object and key buffers.
		ch.Key, ch.Object = bytes.Clone(key), &objects.Object{Values: slices.Clone(o.Values)}
	case !dc.deletedKeys:
	case ok && prev.Key != nil:
		ch.Key = prev.Key
	default:
		ch.Key = dc.base.Key(doc)
	}
	dc.changes[doc] = ch
	return nil
}

// list returns the changes for index.Snapshot.Apply.
func (dc *docChanges) list() []index.Change {
	out := make([]index.Change, 0, len(dc.changes))
	for _, c := range dc.changes {
		out = append(out, c)
	}
	return out
}
