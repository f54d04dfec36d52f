package changelog

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/ontoindex/ontoindex/objects"
)

// The rows of an added file are converted (decoded into objects, keyed,
// encoded and hashed) on a goroutine of their own while Diff compares the
// rows before them with the baseline and applies them. The two halves
// cost about the same (a one-row edit's rewritten file of 250,000 rows:
// 60% conversion, 40% lookups and writes), and only the second must stay
// on one goroutine in file order: the baseline's answers include the
// changes already applied.

// batchesAhead is how many converted batches the reading goroutine may
// hold ahead of the comparison.
const batchesAhead = 2

// convertedRow is one row of an added file, converted. Its key and
// encoding are offsets into its batch's buf.
type convertedRow struct {
	row               int64 // in the file
	at                int   // in the record batch: where its values are
	keyAt, encAt, end int
	hash              uint64
	reason            string // why the row is invalid; "" when it is not
	invalidKey        string // an invalid row's key, when it was read
}

// rowBatch is the converted rows of one record batch, whose record it
// retains until the rows are applied: the objects' strings may point
// into its buffers.
type rowBatch struct {
	rows   []convertedRow
	buf    []byte
	values []any // width values a row
	width  int
	rec    arrow.RecordBatch
}

func (b *rowBatch) key(i int) []byte {
	r := &b.rows[i]
	return b.buf[r.keyAt:r.encAt]
}

func (b *rowBatch) encoded(i int) []byte {
	r := &b.rows[i]
	return b.buf[r.encAt:r.end]
}

// object points o at the values of the record's row at.
func (b *rowBatch) object(at int, o *objects.Object) {
	o.Values = b.values[at*b.width : (at+1)*b.width : (at+1)*b.width]
}

// rowReader reads and converts the rows of one added file on its own
// goroutine, which it owns: stop cancels and waits for it.
type rowReader struct {
	out    chan *rowBatch
	free   chan *rowBatch // batches to reuse, shared by the files of a diff
	cancel context.CancelFunc
	done   chan struct{}
	err    error // the read's error, once done is closed
	// rowBytes is the most bytes of key and encoding a row of a batch
	// took so far: the next batch's buffer is sized with it.
	rowBytes int
}

// readRows starts reading the rows of f from row skip on.
func readRows(ctx context.Context, in *Input, f DataFile, skip int64, free chan *rowBatch) *rowReader {
	ctx, cancel := context.WithCancel(ctx)
	r := &rowReader{out: make(chan *rowBatch, batchesAhead), free: free, cancel: cancel, done: make(chan struct{}), rowBytes: 64}
	go func() {
		defer close(r.done)
		defer close(r.out)
		r.err = r.read(ctx, in, f, skip)
	}()
	return r
}

// wait returns the read's error once its goroutine is done; every batch
// must have been received.
func (r *rowReader) wait() error {
	<-r.done
	r.cancel()
	return r.err
}

// stop ends the read early, releasing the batches not received.
func (r *rowReader) stop() {
	r.cancel()
	for b := range r.out {
		r.release(b)
	}
	<-r.done
}

// release returns a received batch for reuse.
func (r *rowReader) release(b *rowBatch) {
	if b.rec != nil {
		b.rec.Release()
		b.rec = nil
	}
	select {
	case r.free <- b:
	default:
	}
}

func (r *rowReader) batch() *rowBatch {
	select {
	case b := <-r.free:
		return b
	default:
		return &rowBatch{}
	}
}

func (r *rowReader) read(ctx context.Context, in *Input, f DataFile, skip int64) error {
	t := in.Type
	var (
		conv     *objects.Converter
		row      int64
		obj      objects.Object
		batchErr error
	)
	convert := func(rec arrow.RecordBatch) error {
		if conv == nil {
			var err error
			if conv, err = objects.NewConverter(t, rec.Schema()); err != nil {
				return fmt.Errorf("object type %s: data file %s: %w", t.APIName, f.Path, err)
			}
		}
		n := int64(rec.NumRows())
		if row+n <= skip {
			row += n
			return nil
		}
		batch, err := conv.Bind(rec)
		if err != nil {
			return fmt.Errorf("object type %s: data file %s: %w", t.APIName, f.Path, err)
		}
		b := r.batch()
		b.width = len(t.Properties)
		if need := batch.Len() * b.width; cap(b.values) < need {
			b.values = make([]any, need)
		} else {
			b.values = b.values[:need]
		}
		// Sized for the batch at once: grown by appends, a batch's
		// buffers cost a tenth of a one-row edit's conversion.
		if cap(b.rows) < batch.Len() {
			b.rows = make([]convertedRow, 0, batch.Len())
		}
		if need := batch.Len() * r.rowBytes; cap(b.buf) < need {
			b.buf = make([]byte, 0, need+need/8)
		}
		b.rows, b.buf = b.rows[:0], b.buf[:0]
		for i := 0; i < batch.Len(); i, row = i+1, row+1 {
			if row < skip {
				continue
			}
			cr := convertedRow{row: row, at: i}
			b.object(i, &obj)
			if err := batch.Row(i, &obj); err != nil {
				cr.invalidKey, cr.reason = t.InvalidRowKey(&obj, err), err.Error()
				b.rows = append(b.rows, cr)
				continue
			}
			cr.keyAt = len(b.buf)
			keyed, err := t.AppendKey(b.buf, &obj)
			if err != nil {
				cr.reason = err.Error()
				b.rows = append(b.rows, cr)
				continue
			}
			b.buf = keyed
			cr.encAt = len(b.buf)
			if b.buf, err = obj.Encode(b.buf); err != nil {
				return fmt.Errorf("object type %s: encode row %d of %s: %w", t.APIName, row, f.Path, err)
			}
			cr.end = len(b.buf)
			if !in.AppendOnly {
				cr.hash = objects.Hash(b.buf[cr.encAt:cr.end])
			}
			b.rows = append(b.rows, cr)
		}
		if len(b.rows) > 0 {
			r.rowBytes = max(r.rowBytes, len(b.buf)/len(b.rows)+1)
		}
		rec.Retain()
		b.rec = rec
		select {
		case r.out <- b:
			return nil
		case <-ctx.Done():
			r.release(b)
			return ctx.Err()
		}
	}
	err := in.Reader.ReadFile(ctx, f, func(rec arrow.RecordBatch) error { batchErr = convert(rec); return batchErr })
	if err != nil && batchErr == nil && ctx.Err() == nil {
		// The file could not be read: say which table and snapshot it
		// is of (the errors of its rows name them already).
		err = fmt.Errorf("object type %s: table %s: snapshot %d: %w", t.APIName, in.Table, in.SnapshotID, err)
	}
	return err
}
