package icebergwrite

import (
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// Rows makes the record batches of one commit in the schema of the table
// it goes to: the table's current schema, which a schema change may have
// extended since the table was created.
type Rows func(sc *iceberg.Schema) (array.RecordReader, error)

// Values are rows of Go values in column order (see the package doc), in
// one record batch.
func Values(rows ...[]any) Rows {
	return Build(func(b *Builder) {
		for _, row := range rows {
			b.Add(row...)
		}
	})
}

// Build is the rows fill adds to a Builder: for many generated rows, with
// Flush ending a record batch where the caller wants one (iceberg-go rolls
// over to a new data file only at a batch boundary).
func Build(fill func(b *Builder)) Rows {
	return func(sc *iceberg.Schema) (array.RecordReader, error) {
		b, err := NewBuilder(sc)
		if err != nil {
			return nil, err
		}
		defer b.Release()
		fill(b)
		return b.Reader()
	}
}

// Builder builds record batches in an Iceberg schema's Arrow schema, a row
// at a time. The first value that does not fit stops it: later rows are
// ignored and Reader returns the error.
type Builder struct {
	schema  *arrow.Schema
	record  *array.RecordBuilder
	batches []arrow.RecordBatch
	rows    int // rows added in all
	pending int // rows of the batch being built
	err     error
}

// NewBuilder returns a builder of rows of sc. Release it when done.
func NewBuilder(sc *iceberg.Schema) (*Builder, error) {
	asc, err := table.SchemaToArrowSchema(sc, nil, false, false)
	if err != nil {
		return nil, fmt.Errorf("arrow schema: %w", err)
	}
	return &Builder{schema: asc, record: array.NewRecordBuilder(memory.DefaultAllocator, asc)}, nil
}

// Add adds one row, one value per column in column order.
func (b *Builder) Add(values ...any) {
	if b.err != nil {
		return
	}
	fields := b.schema.Fields()
	if len(values) != len(fields) {
		b.err = fmt.Errorf("row %d: %d values for %d columns", b.rows, len(values), len(fields))
		return
	}
	for i, v := range values {
		f := fields[i]
		if v == nil && !f.Nullable {
			b.err = fmt.Errorf("row %d, column %s: null in a required column", b.rows, f.Name)
			return
		}
		if err := appendValue(b.record.Field(i), v); err != nil {
			b.err = fmt.Errorf("row %d, column %s (%s): %w", b.rows, f.Name, f.Type, err)
			return
		}
	}
	b.rows++
	b.pending++
}

// Flush ends the current record batch, if it has rows.
func (b *Builder) Flush() {
	if b.pending > 0 && b.err == nil {
		b.batches = append(b.batches, b.record.NewRecordBatch())
		b.pending = 0
	}
}

// Reader returns the rows added, in the batches Flush made and one more
// for the rest (a single empty batch when there are no rows). The reader
// holds its own references: release it, and the builder too.
func (b *Builder) Reader() (array.RecordReader, error) {
	if b.err != nil {
		return nil, b.err
	}
	b.Flush()
	if len(b.batches) == 0 {
		b.batches = append(b.batches, b.record.NewRecordBatch())
	}
	rdr, err := array.NewRecordReader(b.schema, b.batches)
	if err != nil {
		return nil, fmt.Errorf("record reader: %w", err)
	}
	return rdr, nil
}

// Release releases the builder and its batches.
func (b *Builder) Release() {
	b.record.Release()
	for _, r := range b.batches {
		r.Release()
	}
	b.batches = nil
}

// appendValue appends v to a column's builder; v is nil or of a Go type
// the column's type takes (the package doc lists them).
func appendValue(bld array.Builder, v any) error {
	if v == nil {
		bld.AppendNull()
		return nil
	}
	switch b := bld.(type) {
	case *array.Int64Builder:
		n, ok := integer(v)
		if !ok {
			return fmt.Errorf("cannot take %T %v", v, v)
		}
		b.Append(n)
	case *array.Int32Builder:
		n, ok := integer(v)
		if !ok || n < math.MinInt32 || n > math.MaxInt32 {
			return fmt.Errorf("cannot take %T %v", v, v)
		}
		b.Append(int32(n))
	case *array.Float64Builder:
		switch x := v.(type) {
		case float64:
			b.Append(x)
		case float32:
			b.Append(float64(x))
		default:
			return fmt.Errorf("cannot take %T %v", v, v)
		}
	case *array.Float32Builder:
		switch x := v.(type) {
		case float32:
			b.Append(x)
		case float64:
			b.Append(float32(x))
		default:
			return fmt.Errorf("cannot take %T %v", v, v)
		}
	case *array.StringBuilder:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("cannot take %T %v", v, v)
		}
		b.Append(s)
	case *array.BooleanBuilder:
		x, ok := v.(bool)
		if !ok {
			return fmt.Errorf("cannot take %T %v", v, v)
		}
		b.Append(x)
	case *array.Date32Builder:
		switch x := v.(type) {
		case time.Time:
			b.Append(arrow.Date32FromTime(x))
		case arrow.Date32:
			b.Append(x)
		default:
			return fmt.Errorf("cannot take %T %v", v, v)
		}
	case *array.TimestampBuilder:
		switch x := v.(type) {
		case time.Time:
			b.Append(timestamp(x, b.Type().(*arrow.TimestampType).Unit))
		case arrow.Timestamp:
			b.Append(x)
		default:
			return fmt.Errorf("cannot take %T %v", v, v)
		}
	case *array.Decimal128Builder:
		switch x := v.(type) {
		case decimal128.Num:
			b.Append(x)
		case *big.Int:
			b.Append(decimal128.FromBigInt(x))
		default:
			return fmt.Errorf("cannot take %T %v (want the unscaled decimal128.Num or *big.Int)", v, v)
		}
	case *array.ListBuilder:
		return appendList(b, v)
	case *array.StructBuilder:
		return appendStruct(b, v)
	default:
		return fmt.Errorf("no writer for column builder %T", bld)
	}
	return nil
}

func appendList(b *array.ListBuilder, v any) error {
	var elems []any
	switch x := v.(type) {
	case []any:
		elems = x
	case []string:
		elems = make([]any, len(x))
		for i, s := range x {
			elems[i] = s
		}
	default:
		return fmt.Errorf("cannot take %T %v (want []any or []string)", v, v)
	}
	b.Append(true)
	for i, e := range elems {
		if err := appendValue(b.ValueBuilder(), e); err != nil {
			return fmt.Errorf("element %d: %w", i, err)
		}
	}
	return nil
}

// appendStruct appends a struct of field name to value; a field the map
// does not have is null, a name the struct does not have is an error.
func appendStruct(b *array.StructBuilder, v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("cannot take %T %v (want map[string]any)", v, v)
	}
	st := b.Type().(*arrow.StructType)
	for name := range m {
		if _, ok := st.FieldIdx(name); !ok {
			return fmt.Errorf("struct has no field %q", name)
		}
	}
	b.Append(true)
	for i, f := range st.Fields() {
		fv := m[f.Name]
		if fv == nil && !f.Nullable {
			return fmt.Errorf("field %s: null in a required field", f.Name)
		}
		if err := appendValue(b.FieldBuilder(i), fv); err != nil {
			return fmt.Errorf("field %s: %w", f.Name, err)
		}
	}
	return nil
}

func integer(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case int32:
		return int64(x), true
	}
	return 0, false
}

func timestamp(t time.Time, unit arrow.TimeUnit) arrow.Timestamp {
	switch unit {
	case arrow.Second:
		return arrow.Timestamp(t.Unix())
	case arrow.Millisecond:
		return arrow.Timestamp(t.UnixMilli())
	case arrow.Nanosecond:
		return arrow.Timestamp(t.UnixNano())
	}
	return arrow.Timestamp(t.UnixMicro())
}
