package indexer

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"time"

	"github.com/ontoindex/ontoindex/changelog"
	"github.com/ontoindex/ontoindex/indexer/config"
	"github.com/ontoindex/ontoindex/indexer/index"
	bolt "go.etcd.io/bbolt"
)

// full reads every live row of the target into a new generation (or
// resumes an interrupted build of it from its last committed chunk),
// builds its index, and switches the checkpoint to it in one transaction.
// Readers keep the old generation until then.
func (j *buildJob) full(ctx context.Context) error {
	ix, name, bs := j.ix, j.name(), j.resume
	resume := bs != nil
	if !resume {
		n, err := ix.nextGeneration(name)
		if err != nil {
			return err
		}
		bs = &buildState{Generation: n, Target: j.snapID(), MappingHash: mappingHash(j.typ), Type: j.typ, StartedAt: time.Now().UTC()}
		// Files left by an earlier, dropped generation n.
		if err := os.RemoveAll(ix.genDir(name, n)); err != nil {
			return err
		}
	}
	j.res.Generation = bs.Generation
	w, err := newGenWriter(ix.db, name, bs.Generation, true)
	if err != nil {
		return err
	}
	defer w.rollback()
	w.state, w.chunkRows = bs, ix.Config().Build.ChunkRows
	if w.chunkRows == 0 {
		w.chunkRows = config.DefaultChunkRows
	}
	w.builder = index.NewBuilder(j.typ)
	if resume {
		// The index of an interrupted build starts from the chunks it
		// committed.
		if w.nextDoc, err = fillBuilder(ctx, w.b, w.builder); err != nil {
			return fmt.Errorf("object type %s: resume build: %w", name, err)
		}
	}
	// Save the build record before anything else, so a crash can resume.
	if err := w.commit(nil); err != nil {
		return err
	}
	if err := w.begin(false); err != nil {
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
		w.rollback()
		if changelog.IsDataError(err) {
			// The target itself is bad: resuming would fail again.
			if aerr := ix.abandonBuild(name, bs); aerr != nil {
				ix.log.Warn("drop failed build", "objectType", name, "error", aerr)
			}
		}
		return err
	}
	bs.Skipped += st.Skipped
	bs.Samples = append(bs.Samples, st.Samples...)
	if err := w.setManifests(manifests); err != nil {
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
	const firstVersion = 1
	// dirty -1: no index file yet; the saver writes it.
	gen := &generation{ix: ix, name: name, n: bs.Generation, cur: w.builder.Finish(firstVersion), dirty: -1}
	w.builder = nil
	w.state = nil
	err = j.commit(w, next, func(b *genBuckets, tb *bolt.Bucket) error {
		if err := b.meta.Put(keyVersion, binary.AppendUvarint(nil, firstVersion)); err != nil {
			return err
		}
		return tb.Delete(keyBuild)
	})
	if err != nil {
		return err
	}
	j.ts.mu.Lock()
	// The new generation serves: the build is over for readers of status.
	j.ts.cp, j.ts.gen, j.ts.building = next, gen, false
	j.ts.mu.Unlock()
	if oldGen != nil {
		oldGen.retire()
	}
	ix.saver.poke()
	return nil
}

// nextGeneration is the number of a new generation of an object type.
func (ix *Indexer) nextGeneration(name string) (int, error) {
	n := 0
	err := ix.db.View(func(tx *bolt.Tx) error {
		gens, err := generations(tx, name)
		for _, g := range gens {
			n = max(n, g)
		}
		return err
	})
	return n + 1, err
}
