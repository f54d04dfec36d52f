package indexer

import (
	"sync"

	"github.com/ontoindex/ontoindex/indexer/index"
	"github.com/ontoindex/ontoindex/objects"
)

// fullDocs indexes the objects of a full build, numbering them from next.
//
// The index builder runs on a goroutine of its own, beside the diff and
// the store writer that hand it the objects: at ten million objects a
// build spent about as long in Builder.Add as in reading, converting and
// storing the rows, one after the other on one core. The objects go over
// in batches of docBatchRows, a few batches at most in flight (the free
// list), so the pipeline holds a few thousand objects, not the table.
// The builder still sees the documents in order, one at a time.
type fullDocs struct {
	b    *index.Builder
	next uint32

	started bool
	cur     *docBatch
	work    chan *docBatch
	free    chan *docBatch
	done    chan struct{}
	// failed is the builder's first error, set by the goroutine and read
	// by Changed at each batch (under mu) and after done.
	mu     sync.Mutex
	failed error
}

const (
	docBatchRows = 1024
	docBatches   = 4 // in flight: one filling, the others queued or indexed
)

// docBatch is a run of documents handed to the builder's goroutine: the
// keys packed in one buffer, the values of each object in one slice.
type docBatch struct {
	docs   []uint32
	keys   []byte
	ends   []int // ends[i] is the end of document i's key in keys
	values []any // the object of document i: values[i*width:(i+1)*width]
	width  int
}

func newFullDocs(t *objects.Type) *fullDocs {
	return &fullDocs{b: index.NewBuilder(t)}
}

// start runs the builder's goroutine; until then (a resumed build fills
// the builder from the store first) Changed must not be called.
func (fd *fullDocs) start() {
	fd.started = true
	fd.work, fd.free, fd.done = make(chan *docBatch, docBatches), make(chan *docBatch, docBatches), make(chan struct{})
	for range docBatches - 1 {
		fd.free <- &docBatch{}
	}
	fd.cur = &docBatch{}
	go fd.index()
}

// index adds the batches' documents to the builder until work closes.
// After an error it only hands the batches back.
func (fd *fullDocs) index() {
	defer close(fd.done)
	var o objects.Object
	var err error
	for batch := range fd.work {
		start := 0
		for i, d := range batch.docs {
			if err != nil {
				break
			}
			o.Values = batch.values[i*batch.width : (i+1)*batch.width]
			err = fd.b.Add(d, batch.keys[start:batch.ends[i]], &o)
			start = batch.ends[i]
		}
		if err != nil {
			fd.mu.Lock()
			if fd.failed == nil {
				fd.failed = err
			}
			fd.mu.Unlock()
		}
		batch.reset()
		fd.free <- batch
	}
}

func (b *docBatch) reset() {
	clear(b.values) // the values' strings are the data files' buffers
	b.docs, b.keys, b.ends, b.values = b.docs[:0], b.keys[:0], b.ends[:0], b.values[:0]
}

// New implements store.Docs.
func (fd *fullDocs) New() uint32 {
	fd.next++
	return fd.next - 1
}

// Changed implements store.Docs; a full build never deletes a document.
// The key and the object's slice are the diff's buffers: the batch copies
// them. The values themselves are the row's own, their strings views of
// the data file's Arrow buffers, which outlive the record's Release
// because they come from Go's allocator (the GC frees them): a pooling
// allocator in the read path would need the strings copied here.
func (fd *fullDocs) Changed(doc uint32, key []byte, o *objects.Object) error {
	b := fd.cur
	b.width = len(o.Values)
	b.docs = append(b.docs, doc)
	b.keys = append(b.keys, key...)
	b.ends = append(b.ends, len(b.keys))
	b.values = append(b.values, o.Values...)
	if len(b.docs) == docBatchRows {
		return fd.send()
	}
	return nil
}

// send hands the filling batch to the builder and takes a free one; it
// returns the builder's error, once it has met one.
func (fd *fullDocs) send() error {
	fd.work <- fd.cur
	fd.cur = <-fd.free
	return fd.err()
}

func (fd *fullDocs) err() error {
	fd.mu.Lock()
	defer fd.mu.Unlock()
	return fd.failed
}

// wait hands over the last batch, waits until the builder holds every
// document, and returns its first error. The builder is then the
// caller's again.
func (fd *fullDocs) wait() error {
	if !fd.started {
		return nil
	}
	fd.started = false
	if len(fd.cur.docs) > 0 {
		fd.work <- fd.cur
		fd.cur = nil
	}
	close(fd.work)
	<-fd.done
	return fd.err()
}

// stop ends the builder's goroutine of a build that failed (wait's
// error, if any, is not wanted then).
func (fd *fullDocs) stop() { _ = fd.wait() }
