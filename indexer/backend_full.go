package indexer

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/ontoindex/ontoindex/indexer/backend/opensearch"
	"github.com/ontoindex/ontoindex/indexer/store"
	"github.com/ontoindex/ontoindex/objects"
)

// fullBackendRows is how many objects of a full build go to the backend
// in one Write (which splits them in bulk requests of Options.BulkBytes).
const fullBackendRows = 4096

// fullBackendInFlight is how many Writes of a full build run at once,
// beside the diff and the store writer that hand them the objects.
const fullBackendInFlight = 2

// fullBackend sends a full build's objects to the index of its
// generation: a store.Docs that hands every object to the embedded
// index's docs too, and sends them in batches on goroutines of their own,
// all of them acknowledged before each store commit (flush, through
// store.Writer.BeforeCommit), since a resumed build skips the rows of the
// committed chunks.
type fullBackend struct {
	store.Docs
	ctx     context.Context
	ix      *Indexer
	name    string
	w       *opensearch.Writer
	gen     uint64
	version int64
	stats   *backendStats
	pending []opensearch.Change

	slots chan struct{} // one per Write in flight
	wg    sync.WaitGroup
	mu    sync.Mutex
	err   error // the first failed Write's
}

func newFullBackend(ctx context.Context, ix *Indexer, name string, w *opensearch.Writer, gen uint64, version int64) *fullBackend {
	return &fullBackend{ctx: ctx, ix: ix, name: name, w: w, gen: gen, version: version, slots: make(chan struct{}, fullBackendInFlight)}
}

// tee makes fb hand the objects to docs too.
func (fb *fullBackend) tee(docs store.Docs) store.Docs {
	fb.Docs = docs
	return fb
}

// Changed implements store.Docs.
func (fb *fullBackend) Changed(doc uint32, key []byte, o *objects.Object) error {
	if err := fb.Docs.Changed(doc, key, o); err != nil {
		return err
	}
	// The diff reuses its key and object buffers.
	fb.pending = append(fb.pending, opensearch.Change{Key: bytes.Clone(key), Object: &objects.Object{Values: slices.Clone(o.Values)}})
	if len(fb.pending) >= fullBackendRows {
		fb.send()
		return fb.failed()
	}
	return nil
}

// send hands the pending objects to a Write of their own, once fewer
// than fullBackendInFlight run.
func (fb *fullBackend) send() {
	if len(fb.pending) == 0 {
		return
	}
	batch := fb.pending
	fb.pending = make([]opensearch.Change, 0, fullBackendRows)
	fb.slots <- struct{}{}
	fb.wg.Go(func() {
		defer func() { <-fb.slots }()
		if fb.failed() != nil {
			return
		}
		if err := fb.ix.backendWrite(fb.ctx, fb.name, fb.w, fb.gen, fb.version, batch); err != nil {
			fb.mu.Lock()
			if fb.err == nil {
				fb.err = err
			}
			fb.mu.Unlock()
		}
	})
}

func (fb *fullBackend) failed() error {
	fb.mu.Lock()
	defer fb.mu.Unlock()
	return fb.err
}

// flush sends the pending objects and waits until every Write ended: nil
// when the backend acknowledged them all.
func (fb *fullBackend) flush() error {
	fb.send()
	fb.wg.Wait()
	return fb.failed()
}

// stop waits for the Writes of a build that failed.
func (fb *fullBackend) stop() {
	if fb != nil {
		fb.wg.Wait()
	}
}

// finish sends the last objects and publishes the generation: the
// backend's readers see it whole, before the build commits.
func (fb *fullBackend) finish() error {
	if fb == nil {
		return nil
	}
	if err := fb.flush(); err != nil {
		return err
	}
	if err := fb.w.Publish(fb.ctx, fb.gen); err != nil {
		err = fmt.Errorf("object type %s: backend: %w", fb.name, err)
		fb.stats.failed(err)
		return err
	}
	return fb.ix.afterBackendStep(fb.name, "publish")
}
