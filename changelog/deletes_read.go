package changelog

import (
	"context"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table/dv"
	"github.com/ontoindex/ontoindex/objects"
)

// Positions reads the deleted positions of a position-delete file or a
// deletion vector, by the data file they delete from; want, when set,
// keeps only the data files it accepts. The bytes count into BytesRead.
// A deletion vector is read with iceberg-go's own reader (package dv); a
// position-delete file, whose reader iceberg-go keeps to its scan, with
// the Parquet reader iceberg-go reads it with, only its file_path and pos
// columns.
func (r *Reader) Positions(ctx context.Context, d DeleteFile, want func(path string) bool) (map[string]*roaring64.Bitmap, error) {
	fs, err := r.counted.FS(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]*roaring64.Bitmap{}
	if d.Kind == DeletionVector {
		if want != nil && !want(d.Referenced) {
			return out, nil
		}
		bm, err := dv.ReadDV(fs, d.Entry)
		if err != nil {
			return nil, fmt.Errorf("read deletion vector %s: %w", d.Path, err)
		}
		b := roaring64.New()
		for p := range bm.Positions() {
			b.Add(p)
		}
		out[d.Referenced] = b
		return out, nil
	}
	if d.Kind != PositionDeletes {
		return nil, fmt.Errorf("delete file %s: a %s has no positions", d.Path, d.Kind)
	}
	if d.Referenced != "" && want != nil && !want(d.Referenced) {
		return out, nil
	}
	f, err := fs.Open(d.Entry.FilePath())
	if err != nil {
		return nil, fmt.Errorf("open position-delete file %s: %w", d.Path, err)
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		return nil, fmt.Errorf("read position-delete file %s: %w", d.Path, err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: DefaultBatchRows}, memory.DefaultAllocator)
	if err != nil {
		return nil, fmt.Errorf("read position-delete file %s: %w", d.Path, err)
	}
	sc := pf.MetaData().Schema
	pathCol, posCol := sc.ColumnIndexByName("file_path"), sc.ColumnIndexByName("pos")
	if pathCol < 0 || posCol < 0 {
		return nil, fmt.Errorf("position-delete file %s has no file_path and pos columns", d.Path)
	}
	rr, err := fr.GetRecordReader(ctx, []int{pathCol, posCol}, nil)
	if err != nil {
		return nil, fmt.Errorf("read position-delete file %s: %w", d.Path, err)
	}
	defer rr.Release()
	for rr.Next() {
		rec := rr.RecordBatch()
		paths, ok1 := rec.Column(0).(*array.String)
		pos, ok2 := rec.Column(1).(*array.Int64)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("position-delete file %s: file_path %s and pos %s, want string and long", d.Path, rec.Column(0).DataType(), rec.Column(1).DataType())
		}
		for i := range int(rec.NumRows()) {
			p := paths.Value(i)
			b := out[p]
			if b == nil {
				if want != nil && !want(p) {
					continue
				}
				b = roaring64.New()
				out[p] = b
			}
			b.Add(uint64(pos.Value(i)))
		}
	}
	if err := rr.Err(); err != nil {
		return nil, fmt.Errorf("read position-delete file %s: %w", d.Path, err)
	}
	return out, nil
}

// KeysAt calls fn with the keys of the rows of data file f at positions,
// read through r, which reads only the key columns of t (Project). A file
// of the baseline has no manifest entry here: the read needs only its
// path, size and row count.
func (r *Reader) KeysAt(ctx context.Context, f DataFile, t *objects.Type, positions *roaring64.Bitmap, fn func(pos int64, key []byte) error) error {
	f, err := withEntry(f)
	if err != nil {
		return err
	}
	f.Deletes = nil // positions are of the file as written
	var (
		row  int64
		conv *objects.Converter
		obj  objects.Object
	)
	return r.ReadFile(ctx, f, func(rec arrow.RecordBatch) error {
		n := rec.NumRows()
		from := row
		row += n
		if positions.Rank(uint64(from+n-1))-rankBefore(positions, from) == 0 {
			return nil // no deleted position in this batch
		}
		if conv == nil {
			var err error
			if conv, err = objects.NewConverter(t, rec.Schema()); err != nil {
				return fmt.Errorf("data file %s: %w", f.Path, err)
			}
		}
		batch, err := conv.Bind(rec)
		if err != nil {
			return fmt.Errorf("data file %s: %w", f.Path, err)
		}
		for i := range int(n) {
			pos := from + int64(i)
			if !positions.Contains(uint64(pos)) {
				continue
			}
			if err := batch.Row(i, &obj); err != nil {
				continue // an invalid row was never indexed
			}
			key, err := t.Key(&obj)
			if err != nil {
				continue
			}
			if err := fn(pos, key); err != nil {
				return err
			}
		}
		return nil
	})
}

// rankBefore is the number of positions below p.
func rankBefore(b *roaring64.Bitmap, p int64) uint64 {
	if p == 0 {
		return 0
	}
	return b.Rank(uint64(p - 1))
}

// Rows calls fn with the key of t of every row of a file read through r,
// with the file's deletes applied: an equality-delete file's rows (t keyed
// by its equality columns), or a data file's.
func (r *Reader) Rows(ctx context.Context, f DataFile, t *objects.Type, fn func(key []byte, o *objects.Object) error) error {
	f, err := withEntry(f)
	if err != nil {
		return err
	}
	var (
		conv *objects.Converter
		obj  objects.Object
	)
	return r.ReadFile(ctx, f, func(rec arrow.RecordBatch) error {
		if conv == nil {
			var err error
			if conv, err = objects.NewConverter(t, rec.Schema()); err != nil {
				return fmt.Errorf("file %s: %w", f.Path, err)
			}
		}
		batch, err := conv.Bind(rec)
		if err != nil {
			return fmt.Errorf("file %s: %w", f.Path, err)
		}
		for i := range batch.Len() {
			if err := batch.Row(i, &obj); err != nil {
				continue
			}
			key, err := t.Key(&obj)
			if err != nil {
				continue // a null in an equality column matches no key
			}
			if err := fn(key, &obj); err != nil {
				return err
			}
		}
		return nil
	})
}

// withEntry gives a file of the baseline, which has no manifest entry in a
// build that did not read its manifest, the entry a read needs: its path,
// size and row count.
func withEntry(f DataFile) (DataFile, error) {
	if f.Entry != nil {
		return f, nil
	}
	b, err := iceberg.NewDataFileBuilder(*iceberg.UnpartitionedSpec, iceberg.EntryContentData, f.Path, iceberg.ParquetFile, nil, nil, nil, f.Records, f.Size)
	if err != nil {
		return f, fmt.Errorf("data file %s: %w", f.Path, err)
	}
	f.Entry = b.Build()
	return f, nil
}
