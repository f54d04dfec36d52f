package indexer

import (
	"context"
	"fmt"

	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/indexer/index"
	"github.com/ontoindex/ontoindex/indexer/store"
	"github.com/ontoindex/ontoindex/objects"
)

// incremental applies the baseline diff from the checkpoint to the target
// in one store transaction, and the changed documents to a copy of the
// served index snapshot, staged before the commit and promoted after it.
func (j *buildJob) incremental(ctx context.Context) error {
	name, cp := j.name(), j.cp
	j.ts.mu.RLock()
	gen := j.ts.gen
	j.ts.mu.RUnlock()
	version, err := j.reserveVersion()
	if err != nil {
		return err
	}
	w, err := store.OpenWriter(j.ix.db, name, cp.Generation, false)
	if err != nil {
		return err
	}
	defer w.Rollback()
	if j.mode() == objects.ReadModeAppendOnly {
		w.AppendOnly()
	}
	// base is nil for a type without an index (lean.go): the
	// generation's counter numbers its new documents, and none is marked
	// dirty (there is no index file to catch up).
	var docs *docChanges
	base := gen.snapshot()
	counter := docCounter{}
	if gen.lean != nil {
		counter = gen.nextDocs()
		docs = newDocChanges(&counter, w.Gen().Version()+1, true)
		docs.before = map[uint32][]byte{} // for the commit's watchers (lean_commit.go)
		w.Incremental(docs, docs.version)
		w.Unmarked()
		w.Numbered(func() uint64 { return counter.next })
	} else {
		docs = newDocChanges(base.NewAllocator(), base.Version()+1, j.ix.cluster(&j.ts.spec) != nil)
		w.Incremental(docs, docs.version)
	}
	manifests, in, err := j.diff(ctx, w, w.KnownManifest)
	if err != nil {
		return err
	}
	if j.mor != nil {
		if err := j.applyDeletes(ctx, w, &in); err != nil {
			return err
		}
	}
	if !in.AppendOnly {
		w.Removing(in.Plan.Removed)
	}
	st, err := changelog.Diff(ctx, in, w, w)
	j.record(st)
	if err != nil {
		return err
	}
	if j.mor != nil {
		if err := j.recordDeletes(ctx, w, &in, false); err != nil {
			return err
		}
		j.recordStats()
	}
	if err := w.SetManifests(manifests); err != nil {
		return err
	}
	inv := cp.InvalidRows
	inv.Count += st.Skipped
	inv.Samples = append(append([]changelog.InvalidRow(nil), st.Samples...), inv.Samples...)
	next := j.checkpoint(cp.Generation, inv)
	j.res.Generation = cp.Generation
	// The index of the new version is ready before the commit, so that
	// readers that see the commit find it.
	changes := docs.list()
	if gen.lean != nil {
		if err := counter.check(name); err != nil {
			return err
		}
	}
	// The backend takes the changes first: a failed write fails the build
	// (the store rolled back, the checkpoint and the index unchanged).
	if err := j.writeChanges(ctx, w, cp.Generation, version, changes); err != nil {
		return err
	}
	var idx *index.Snapshot
	if base != nil {
		if idx, err = base.Apply(changes, docs.version); err != nil {
			return fmt.Errorf("object type %s: update index: %w", name, err)
		}
	}
	gen.stage(idx)
	err = j.commit(w, next)
	gen.promote(err == nil, len(changes))
	if err != nil {
		return err
	}
	if gen.lean != nil {
		gen.counted(counter)
	}
	j.ts.mu.Lock()
	j.ts.cp = next
	j.ts.mu.Unlock()
	j.ix.dropPending(name)
	j.ix.saver.poke()
	switch {
	case len(changes) == 0:
	case gen.lean != nil:
		j.publishLean(docs, changes)
	default:
		j.ix.publish(Commit{ObjectType: name, Kind: CommitIncremental, Generation: cp.Generation, Before: base, After: idx, Changes: changes})
	}
	return nil
}
