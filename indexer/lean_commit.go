package indexer

import (
	"fmt"

	"github.com/ontoindex/ontoindex/indexer/index"
	"github.com/ontoindex/ontoindex/objects"
)

// The commit a type without an index (lean.go) publishes: watchers
// (subscriptions) evaluate their sets on the snapshots before and after a
// build, restricted to the keys it changed. Such a type has no snapshot
// of its own, so the commit carries two snapshots of the changed objects
// alone: their stored state before the build (store.PreviousDocs) and
// their new one, numbered 0.. in the order of the changes. A filter
// matches an object by its own values, so a set evaluated on them is the
// set of the whole type's snapshots restricted to those keys. They cost
// the build's changes, not the type, and are made only while something
// watches.

// publishLean publishes the commit of an incremental build of a type
// without an index, when something watches. A commit that cannot be made
// (a stored object that does not decode) replaces what the type served:
// watchers start over.
func (j *buildJob) publishLean(docs *docChanges, changes []index.Change) {
	if !j.ix.watched() {
		return
	}
	c, err := leanCommit(j.typ, j.name(), j.cp.Generation, docs, changes)
	if err != nil {
		j.ix.log.Warn("the changes of a build for its watchers", "objectType", j.name(), "error", err)
		c = Commit{ObjectType: j.name(), Kind: CommitReplaced, Generation: j.cp.Generation}
	}
	j.ix.publish(c)
}

// leanCommit is the commit of an incremental build of a type without an
// index that changed changes (docs: its document changes, with the state
// before).
func leanCommit(t *objects.Type, name string, gen int, docs *docChanges, changes []index.Change) (Commit, error) {
	before, after := index.NewBuilder(t), index.NewBuilder(t)
	out := make([]index.Change, 0, len(changes))
	for _, ch := range changes {
		d := uint32(len(out))
		enc, existed := docs.before[ch.Doc]
		if !existed && ch.Object == nil {
			continue // numbered and deleted by the build: no change to see
		}
		if existed {
			o, err := objects.DecodeObject(enc)
			if err != nil {
				return Commit{}, fmt.Errorf("object type %s: object %x before the build: %w", name, ch.Key, err)
			}
			if err := before.Add(d, ch.Key, o); err != nil {
				return Commit{}, fmt.Errorf("object type %s: object %x before the build: %w", name, ch.Key, err)
			}
		}
		if ch.Object != nil {
			if err := after.Add(d, ch.Key, ch.Object); err != nil {
				return Commit{}, fmt.Errorf("object type %s: object %x: %w", name, ch.Key, err)
			}
		}
		out = append(out, index.Change{Doc: d, Key: ch.Key, Object: ch.Object})
	}
	return Commit{ObjectType: name, Kind: CommitIncremental, Generation: gen,
		Before: before.Finish(docs.version - 1), After: after.Finish(docs.version), Changes: out}, nil
}
