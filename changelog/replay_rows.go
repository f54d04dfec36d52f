package changelog

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go/table"
	"github.com/zeebo/xxh3"
)

// rowHash identifies row values: rows equal in every column (null equal to
// null) have equal hashes. 128 bits make a collision between different
// rows of one replay practically impossible.
type rowHash = xxh3.Uint128

// appendFunc appends the encoding of row i of one column to b. Encodings
// are prefix-free, so the concatenation of a row's columns identifies it.
type appendFunc func(b []byte, i int) []byte

// hasher hashes the rows of one record batch, whole or by identifier
// columns.
type hasher struct {
	cols []appendFunc
	keys []appendFunc
	buf  []byte
}

// bind prepares h for rec; idIdx are the identifier columns.
func (h *hasher) bind(rec arrow.RecordBatch, idIdx []int) {
	h.cols = h.cols[:0]
	for _, col := range rec.Columns() {
		h.cols = append(h.cols, valueEncoder(col))
	}
	h.keys = h.keys[:0]
	for _, i := range idIdx {
		h.keys = append(h.keys, h.cols[i])
	}
}

func (h *hasher) row(i int) rowHash {
	b := h.buf[:0]
	for _, f := range h.cols {
		b = f(b, i)
	}
	h.buf = b
	return xxh3.Hash128(b)
}

func (h *hasher) key(i int) rowHash {
	b := h.buf[:0]
	for _, f := range h.keys {
		b = f(b, i)
	}
	h.buf = b
	return xxh3.Hash128(b)
}

// valueEncoder returns the encoder of one column: a null marker, then the
// value's fixed-width bytes, or its length and bytes.
func valueEncoder(arr arrow.Array) appendFunc {
	if ext, ok := arr.(array.ExtensionArray); ok {
		arr = ext.Storage()
	}
	withNull := func(f appendFunc) appendFunc {
		if arr.NullN() == 0 {
			return func(b []byte, i int) []byte { return f(append(b, 1), i) }
		}
		return func(b []byte, i int) []byte {
			if arr.IsNull(i) {
				return append(b, 0)
			}
			return f(append(b, 1), i)
		}
	}
	switch a := arr.(type) {
	case *array.Boolean:
		return withNull(func(b []byte, i int) []byte {
			if a.Value(i) {
				return append(b, 1)
			}
			return append(b, 0)
		})
	case *array.String:
		return withNull(func(b []byte, i int) []byte { return appendString(b, a.Value(i)) })
	case *array.LargeString:
		return withNull(func(b []byte, i int) []byte { return appendString(b, a.Value(i)) })
	case *array.StringView:
		return withNull(func(b []byte, i int) []byte { return appendString(b, a.Value(i)) })
	case *array.Binary:
		return withNull(func(b []byte, i int) []byte { return appendBytes(b, a.Value(i)) })
	case *array.LargeBinary:
		return withNull(func(b []byte, i int) []byte { return appendBytes(b, a.Value(i)) })
	case *array.BinaryView:
		return withNull(func(b []byte, i int) []byte { return appendBytes(b, a.Value(i)) })
	}
	if fw, ok := arr.DataType().(arrow.FixedWidthDataType); ok && arr.DataType().ID() != arrow.DICTIONARY && fw.BitWidth() >= 8 && fw.BitWidth()%8 == 0 {
		width := fw.BitWidth() / 8
		data := arr.Data()
		if bufs := data.Buffers(); len(bufs) > 1 && bufs[1] != nil {
			raw, off := bufs[1].Bytes(), data.Offset()
			return withNull(func(b []byte, i int) []byte {
				start := (off + i) * width
				return append(b, raw[start:start+width]...)
			})
		}
	}
	// Nested and other types: their canonical text.
	return withNull(func(b []byte, i int) []byte { return appendString(b, arr.ValueStr(i)) })
}

func appendBytes(b, v []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(v))), v...)
}

func appendString(b []byte, v string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(v))), v...)
}

// describeKey renders the identifier values of row i, "id=1, name=a".
func describeKey(rec arrow.RecordBatch, idIdx []int, i int) string {
	parts := make([]string, len(idIdx))
	for j, c := range idIdx {
		col := rec.Column(c)
		v := "null"
		if !col.IsNull(i) {
			v = col.ValueStr(i)
		}
		parts[j] = rec.ColumnName(c) + "=" + v
	}
	return strings.Join(parts, ", ")
}

// readFile streams the record batches of one data file, projected to the
// schema of the end snapshot. Batches are released after fn returns.
func (c *Changelog) readFile(ctx context.Context, f *stepFile, fn func(arrow.RecordBatch) error) error {
	c.stats.FilesRead++
	_, it, err := c.scan.ReadTasks(ctx, []table.FileScanTask{f.task})
	if err != nil {
		return c.fileError(f, err)
	}
	for rec, err := range it {
		if err != nil {
			return c.fileError(f, err)
		}
		c.stats.RowsRead += rec.NumRows()
		err = fn(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

func (c *Changelog) fileError(f *stepFile, err error) error {
	verb := "added"
	if f.deleted {
		verb = "removed"
	}
	return fmt.Errorf("table %s: read data file %s %s by snapshot %d: %w", c.name, f.task.File.FilePath(), verb, c.steps[f.step].snapshotID, err)
}

// selection collects the rows of one input batch that become output rows.
type selection struct {
	rows  []int64
	types []ChangeType
}

func (s *selection) add(row int, t ChangeType) {
	s.rows = append(s.rows, int64(row))
	s.types = append(s.types, t)
}

func (s *selection) reset() {
	s.rows, s.types = s.rows[:0], s.types[:0]
}

// emitSelection turns the selected rows of rec into an output batch of the
// given step and passes it to emit.
func (c *Changelog) emitSelection(ctx context.Context, rec arrow.RecordBatch, sel *selection, st *step, emit func(arrow.RecordBatch) error) error {
	n := len(sel.rows)
	if n == 0 {
		return nil
	}
	mem := memory.DefaultAllocator
	cols := make([]arrow.Array, 0, len(c.out.Fields()))
	defer func() {
		for _, a := range cols {
			a.Release()
		}
	}()
	whole := int64(n) == rec.NumRows()
	for i, r := range sel.rows {
		if r != int64(i) {
			whole = false
			break
		}
	}
	if whole {
		for _, col := range rec.Columns() {
			col.Retain()
			cols = append(cols, col)
		}
	} else {
		ib := array.NewInt64Builder(mem)
		ib.AppendValues(sel.rows, nil)
		idx := ib.NewArray()
		ib.Release()
		defer idx.Release()
		for i, col := range rec.Columns() {
			taken, err := compute.TakeArray(ctx, col, idx)
			if err != nil {
				return fmt.Errorf("table %s: select rows of column %s: %w", c.name, rec.ColumnName(i), err)
			}
			cols = append(cols, taken)
		}
	}
	tb := array.NewStringBuilder(mem)
	ob := array.NewInt32Builder(mem)
	sb := array.NewInt64Builder(mem)
	defer tb.Release()
	defer ob.Release()
	defer sb.Release()
	for _, t := range sel.types {
		tb.Append(string(t))
		ob.Append(int32(st.ordinal))
		sb.Append(st.snapshotID)
		switch t {
		case Insert:
			c.stats.Inserts++
		case Delete:
			c.stats.Deletes++
		case UpdateBefore:
			c.stats.UpdatesBefore++
		case UpdateAfter:
			c.stats.UpdatesAfter++
		}
	}
	cols = append(cols, tb.NewArray(), ob.NewArray(), sb.NewArray())
	out := array.NewRecordBatch(c.out, cols, int64(n))
	defer out.Release()
	return emit(out)
}
