package indexer

import (
	"context"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/ontoindex/ontoindex/objects"
)

// docFeeder indexes the documents of a full build in the background, so
// that search indexing (the most expensive step) overlaps with reading
// the next chunk. It holds the documents of at most workers+1 batches.
//
// The generation it feeds is not served until the build's final commit,
// which happens only after close returned without error; a build resumed
// after a crash rebuilds that generation's search index from the store.
type docFeeder struct {
	index bleve.Index
	t     *objects.Type
	batch *bleve.Batch
	n     int

	work   chan *bleve.Batch
	wg     sync.WaitGroup
	mu     sync.Mutex
	err    error
	closed bool
}

// newDocFeeder starts workers that index batches concurrently: each batch
// becomes its own segment, built on its own core. A full build inserts
// every key once, so concurrent batches never touch the same document.
func newDocFeeder(ctx context.Context, index bleve.Index, t *objects.Type, workers int) *docFeeder {
	f := &docFeeder{index: index, t: t, batch: index.NewBatch(), work: make(chan *bleve.Batch)}
	for range max(1, workers) {
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			for b := range f.work {
				if f.failed() != nil {
					continue // drain
				}
				if err := ctx.Err(); err != nil {
					f.fail(err)
					continue
				}
				if err := index.Batch(b); err != nil {
					f.fail(err)
				}
			}
		}()
	}
	return f
}

func (f *docFeeder) fail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = err
	}
}

func (f *docFeeder) failed() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// add queues the document of an object; a full batch is handed over.
func (f *docFeeder) add(key []byte, o *objects.Object) error {
	if err := f.batch.Index(objects.DocID(key), searchDoc(f.t, o)); err != nil {
		return err
	}
	if f.n++; f.n >= syncBatch {
		return f.flush()
	}
	return f.failed()
}

// flush hands the queued documents to the background indexer.
func (f *docFeeder) flush() error {
	if f.n > 0 {
		f.work <- f.batch
		f.batch, f.n = f.index.NewBatch(), 0
	}
	return f.failed()
}

// close indexes what is queued and waits; it returns the first error.
// Calling it again returns the same error.
func (f *docFeeder) close() error {
	if f.closed {
		return f.failed()
	}
	f.closed = true
	err := f.flush()
	close(f.work)
	f.wg.Wait()
	if err != nil {
		return err
	}
	return f.failed()
}
