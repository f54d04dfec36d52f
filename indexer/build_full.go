package indexer

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/indexer/store"
	"github.com/ontoindex/ontoindex/objects"
)

// full reads every live row of the target into a new generation (or
// resumes an interrupted build of it from its last committed chunk),
// builds its index, and switches the checkpoint to it in one transaction.
// Readers keep the old generation until then.
func (j *buildJob) full(ctx context.Context) error {
	if err := j.resumable(ctx); err != nil {
		return err
	}
	ix, name, bs := j.ix, j.name(), j.resume
	resume := bs != nil
	if hold := ix.opts.HoldMemory; hold != nil {
		defer hold()()
	}
	if !resume {
		n, err := ix.nextGeneration(name)
		if err != nil {
			return err
		}
		bs = &store.BuildState{Generation: n, Target: j.snapID(), MappingHash: mappingHash(j.typ),
			ReadMode: string(j.mode()), Type: j.typ, StartedAt: time.Now().UTC()}
		// Files left by an earlier, dropped generation n.
		if err := os.RemoveAll(ix.genDir(name, n)); err != nil {
			return err
		}
	}
	j.res.Generation = bs.Generation
	backend, err := j.startFull(ctx, bs.Generation, resume)
	if err != nil {
		return err
	}
	defer backend.stop()
	w, err := store.OpenWriter(ix.db, name, bs.Generation, true)
	if err != nil {
		return err
	}
	defer w.Rollback()
	if j.mode() == objects.ReadModeAppendOnly {
		w.AppendOnly()
	}
	rows := ix.Config().Build.ChunkRows
	if rows == 0 {
		rows = config.DefaultChunkRows
	}
	// docs indexes the objects; a type without an index only numbers
	// them (lean.go).
	docs, counted := j.fullDocs()
	var sink store.Docs = counted
	if docs != nil {
		sink = docs
	}
	if backend != nil {
		sink = backend.tee(sink)
		w.BeforeCommit(backend.flush)
	}
	w.Full(sink, rows, bs)
	if counted != nil {
		w.Numbered(func() uint64 { return counted.next })
	}
	if resume {
		// The numbers (and index) of an interrupted build start from the
		// chunks it committed.
		if docs != nil {
			docs.next, err = fillBuilder(ctx, w.Gen(), docs.b)
		} else {
			counted.next, _, err = w.Gen().NextDoc(ctx)
		}
		if err != nil {
			return fmt.Errorf("object type %s: resume build: %w", name, err)
		}
	}
	if docs != nil {
		docs.start()
		defer docs.stop()
	}
	// Save the build record before anything else, so a crash can resume.
	if err := w.Commit(nil); err != nil {
		return err
	}
	if err := w.Begin(); err != nil {
		return err
	}
	manifests, in, err := j.diff(ctx, w, nil)
	if err != nil {
		return err
	}
	if bs.PartialFile != "" {
		in.Skip = map[string]int64{bs.PartialFile: bs.PartialRows}
	}
	st, err := changelog.Diff(ctx, in, w, w)
	j.record(st)
	if err != nil {
		w.Rollback()
		if changelog.IsDataError(err) {
			// The target itself is bad: resuming would fail again.
			if aerr := ix.abandonBuild(name, bs); aerr != nil {
				ix.log.Warn("drop failed build", "objectType", name, "error", aerr)
			}
		}
		return err
	}
	if j.mor != nil {
		if err := j.recordDeletes(ctx, w, &in, true); err != nil {
			return err
		}
		j.recordStats()
	}
	bs.Skipped += st.Skipped
	bs.Samples = append(bs.Samples, st.Samples...)
	if err := w.SetManifests(manifests); err != nil {
		return err
	}
	j.ts.mu.RLock()
	oldGen := j.ts.gen
	j.ts.mu.RUnlock()
	next := j.checkpoint(bs.Generation, InvalidRows{Count: bs.Skipped, Samples: bs.Samples})
	if j.cp != nil {
		j.res.FromSnapshotID = j.cp.SnapshotID
	}
	// Every object is indexed before the generation is switched in.
	if docs != nil {
		if err := docs.wait(); err != nil {
			return fmt.Errorf("object type %s: index: %w", name, err)
		}
	} else if err := counted.check(name); err != nil {
		return err
	}
	// The backend holds every object and serves the generation before
	// the switch.
	if err := backend.finish(); err != nil {
		return err
	}
	const firstVersion = 1
	gen := &generation{ix: ix, name: name, n: bs.Generation}
	if docs != nil {
		// No index file yet: the saver writes it.
		gen.cur, gen.noFile = docs.b.Finish(firstVersion), true
	} else {
		gen.lean = &counted.docCounter
	}
	// The switch also drops the build record.
	w.Finish(firstVersion)
	if err := j.commit(w, next); err != nil {
		return err
	}
	j.ts.mu.Lock()
	// The new generation serves: the build is over for readers of status.
	j.ts.cp, j.ts.gen, j.ts.building = next, gen, false
	j.ts.mu.Unlock()
	// The backend's journal was of the old generation.
	ix.dropPending(name)
	if oldGen != nil {
		oldGen.retire()
	}
	ix.saver.collectAfter() // saves the index file, and returns the build's garbage to the OS
	ix.publish(Commit{ObjectType: name, Kind: CommitReplaced, Generation: bs.Generation})
	return nil
}

// fullDocs is where a full build's objects go: the index builder, or
// for a type without an index (lean.go) a counter of their documents.
func (j *buildJob) fullDocs() (*fullDocs, *countedDocs) {
	if j.ix.keepsIndex(&j.ts.spec) {
		return newFullDocs(j.typ), nil
	}
	return nil, &countedDocs{}
}

// nextGeneration is the number of a new generation of an object type.
func (ix *Indexer) nextGeneration(name string) (int, error) {
	gens, err := ix.db.Generations(name)
	n := 0
	for _, g := range gens {
		n = max(n, g)
	}
	return n + 1, err
}
