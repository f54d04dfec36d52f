package changelog

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// Reader reads data files of one snapshot with a column projection, and
// counts the bytes it actually fetches from them (fileio.go).
type Reader struct {
	scan  *table.Scan
	bytes *atomic.Int64
	// What Project needs for reads of other columns: the table whose
	// FileIO counts into bytes, and the scan options but the columns.
	counted *table.Table
	opts    []table.ScanOption
}

// DefaultBatchRows is the number of rows per record batch a Reader yields;
// build memory grows with it.
const DefaultBatchRows = 8192

// NewReader prepares reads of data files of snapshot snapID of tbl,
// projected to columns.
func NewReader(tbl *table.Table, snapID int64, columns []string, batchRows int) (*Reader, error) {
	if batchRows <= 0 {
		batchRows = DefaultBatchRows
	}
	r := &Reader{bytes: new(atomic.Int64)}
	fsF := func(ctx context.Context) (iceio.IO, error) {
		fs, err := tbl.FS(ctx)
		if err != nil {
			return nil, err
		}
		return &countingIO{IO: fs, ctx: ctx, n: r.bytes}, nil
	}
	counted := table.New(tbl.Identifier(), tbl.Metadata(), tbl.MetadataLocation(), fsF, nil)
	opts := []table.ScanOption{table.WithArrowBatchSize(batchRows), table.WithMaxConcurrency(1)}
	// Reads of the current snapshot project through the current schema, as
	// Iceberg's live reads do; older snapshots through their own.
	if cur := tbl.CurrentSnapshot(); snapID != 0 && (cur == nil || cur.SnapshotID != snapID) {
		opts = append(opts, table.WithSnapshotID(snapID))
	}
	r.counted, r.opts = counted, opts
	r.scan = counted.Scan(append(opts, table.WithSelectedFields(columns...))...)
	if _, err := r.scan.Projection(); err != nil {
		return nil, fmt.Errorf("project columns %v at snapshot %d: %w", columns, snapID, err)
	}
	return r, nil
}

// Project returns a reader of other columns of the same snapshot whose
// bytes count into r's.
func (r *Reader) Project(columns []string) (*Reader, error) {
	p := &Reader{bytes: r.bytes, counted: r.counted, opts: r.opts}
	p.scan = r.counted.Scan(append(r.opts, table.WithSelectedFields(columns...))...)
	if _, err := p.scan.Projection(); err != nil {
		return nil, fmt.Errorf("project columns %v: %w", columns, err)
	}
	return p, nil
}

// BytesRead is the number of bytes read from data files so far.
func (r *Reader) BytesRead() int64 { return r.bytes.Load() }

// ReadFile streams the record batches of one data file to fn. Batches are
// released after fn returns.
func (r *Reader) ReadFile(ctx context.Context, f DataFile, fn func(arrow.RecordBatch) error) error {
	if f.Entry == nil {
		return fmt.Errorf("read data file %s: no manifest entry", f.Path)
	}
	task := table.FileScanTask{File: f.Entry, Start: 0, Length: f.Entry.FileSizeBytes()}
	if d := f.Deletes; d != nil {
		task.DeleteFiles, task.EqualityDeleteFiles, task.DeletionVectorFiles = d.Position, d.Equality, d.Vectors
	}
	_, it, err := r.scan.ReadTasks(ctx, []table.FileScanTask{task})
	if err != nil {
		return fmt.Errorf("read data file %s: %w", f.Path, err)
	}
	for rec, err := range it {
		if err != nil {
			return fmt.Errorf("read data file %s: %w", f.Path, err)
		}
		err = fn(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return nil
}
