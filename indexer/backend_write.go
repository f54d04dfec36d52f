package indexer

import (
	"context"
	"fmt"
	"time"

	"github.com/ontoindex/ontoindex/indexer/backend/opensearch"
	"github.com/ontoindex/ontoindex/indexer/index"
	"github.com/ontoindex/ontoindex/indexer/store"
)

// The write side of a type's search backend: its builds send the changes
// they commit, acknowledged before the commit (the checkpoint moves only
// after the backend took the changes), each batch at a version reserved in
// the store before it goes out (store.DB.ReserveVersion).

// reserveVersion reserves the version of the build's backend writes; 0
// for a type without a backend. It commits a store transaction of its
// own, so it runs before the build's store writer opens.
func (j *buildJob) reserveVersion() (int64, error) {
	if j.ix.cluster(&j.ts.spec) == nil {
		return 0, nil
	}
	return j.ix.db.ReserveVersion(j.name())
}

// writeChanges sends an incremental build's changes (and the journaled
// keys of a build that failed after its write: backend_pending.go) to
// generation gen of the type's backend at version, and makes them
// searchable there: the build commits only after, so that readers that
// see the commit find them. sw is the build's store writer.
func (j *buildJob) writeChanges(ctx context.Context, sw *store.Writer, gen int, version int64, changes []index.Change) error {
	c := j.ix.cluster(&j.ts.spec)
	if c == nil {
		return nil
	}
	out, err := j.ix.backendChanges(j.name(), sw, changes)
	if err != nil || len(out) == 0 {
		return err
	}
	if err := j.ix.writePending(j.name(), out); err != nil {
		return err
	}
	w := c.Writer(j.typ)
	if err := j.ix.backendWrite(ctx, j.name(), w, uint64(gen), version, out); err != nil {
		return err
	}
	if err := w.Refresh(ctx, uint64(gen)); err != nil {
		return fmt.Errorf("object type %s: backend %s: %w", j.name(), c.Name(), err)
	}
	return nil
}

// backendWrite is one Write of a type's changes, its error named by the
// type, then the test hook after it.
func (ix *Indexer) backendWrite(ctx context.Context, name string, w *opensearch.Writer, gen uint64, version int64, changes []opensearch.Change) error {
	if ix.beforeBackendWrite != nil {
		if err := ix.beforeBackendWrite(name, len(changes)); err != nil {
			return fmt.Errorf("object type %s: backend write: %w", name, err)
		}
	}
	start := time.Now()
	ws, err := w.Write(ctx, gen, version, changes)
	if st := ix.backendStats(name); st != nil {
		st.wrote(time.Since(start), ws, err)
	}
	if err != nil {
		return fmt.Errorf("object type %s: backend write: %w", name, err)
	}
	return ix.afterBackendStep(name, "write")
}

// afterBackendStep runs the test hook after a step of a build's backend.
func (ix *Indexer) afterBackendStep(name, step string) error {
	if ix.afterBackend != nil {
		return ix.afterBackend(name, step)
	}
	return nil
}

// resumable drops the interrupted full build the job would resume when
// its generation's index is not in the backend: the rows its committed
// chunks hold would be missing there.
func (j *buildJob) resumable(ctx context.Context) error {
	c := j.ix.cluster(&j.ts.spec)
	if c == nil || j.resume == nil {
		return nil
	}
	ok, err := c.Writer(j.typ).Exists(ctx, uint64(j.resume.Generation))
	if err != nil {
		return fmt.Errorf("object type %s: backend %s: %w", j.name(), c.Name(), err)
	}
	if ok {
		return nil
	}
	if err := j.ix.abandonBuild(j.name(), j.resume); err != nil {
		return err
	}
	j.resume = nil
	return nil
}

// startFull readies generation gen's index for a full build (a new
// build's afresh: an index of that number is an earlier, dropped
// generation's) and reserves the build's version; nil for a type without
// a backend.
func (j *buildJob) startFull(ctx context.Context, gen int, resume bool) (*fullBackend, error) {
	c := j.ix.cluster(&j.ts.spec)
	if c == nil {
		return nil, nil
	}
	w := c.Writer(j.typ)
	named := func(err error) error {
		err = fmt.Errorf("object type %s: backend %s: %w", j.name(), c.Name(), err)
		j.ts.backend.failed(err)
		return err
	}
	if !resume {
		if err := w.Drop(ctx, uint64(gen)); err != nil {
			return nil, named(err)
		}
	}
	if err := w.CreateIndex(ctx, uint64(gen)); err != nil {
		return nil, named(err)
	}
	version, err := j.reserveVersion()
	if err != nil {
		return nil, err
	}
	fb := newFullBackend(ctx, j.ix, j.name(), w, uint64(gen), version)
	fb.stats = &j.ts.backend
	return fb, nil
}
