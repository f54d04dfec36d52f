package objects

import (
	"fmt"
	"math/big"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// InvalidValueError reports a column value that cannot become a property
// value.
type InvalidValueError struct {
	Property string
	Column   string
	Reason   string
}

func (e *InvalidValueError) Error() string {
	return fmt.Sprintf("property %s (column %s): %s", e.Property, e.Column, e.Reason)
}

// Converter turns rows of Arrow record batches into objects of one type.
// Columns are matched by name; a property whose column is missing from the
// batch is an error (the table no longer has it).
type Converter struct {
	t    *Type
	cols []int // batch column index per property
}

// NewConverter matches the properties of t to the fields of sc.
func NewConverter(t *Type, sc *arrow.Schema) (*Converter, error) {
	c := &Converter{t: t, cols: make([]int, len(t.Properties))}
	for i, p := range t.Properties {
		idx := sc.FieldIndices(p.Column)
		if len(idx) == 0 {
			return nil, fmt.Errorf("column %q of property %s is not in the data", p.Column, p.APIName)
		}
		c.cols[i] = idx[0]
	}
	return c, nil
}

type getter func(i int) (any, error)

// Batch binds the converter to one record batch.
type Batch struct {
	c    *Converter
	gets []getter
	n    int
}

// Bind prepares the conversion of rec's rows.
func (c *Converter) Bind(rec arrow.RecordBatch) (*Batch, error) {
	b := &Batch{c: c, gets: make([]getter, len(c.cols)), n: int(rec.NumRows())}
	for i, ci := range c.cols {
		g, err := propertyGetter(rec.Column(ci), c.t.Properties[i])
		if err != nil {
			p := c.t.Properties[i]
			return nil, &InvalidValueError{Property: p.APIName, Column: p.Column, Reason: err.Error()}
		}
		b.gets[i] = g
	}
	return b, nil
}

// Len is the number of rows in the batch.
func (b *Batch) Len() int { return b.n }

// Row converts row i into o, reusing o's storage.
func (b *Batch) Row(i int, o *Object) error {
	if cap(o.Values) < len(b.gets) {
		o.Values = make([]any, len(b.gets))
	}
	o.Values = o.Values[:len(b.gets)]
	// An invalid value is left null and the rest are read on, so that the
	// error can name the row by its key.
	var first error
	for j, g := range b.gets {
		v, err := g(i)
		if err != nil && first == nil {
			p := b.c.t.Properties[j]
			first = &InvalidValueError{Property: p.APIName, Column: p.Column, Reason: err.Error()}
		}
		o.Values[j] = v
	}
	return first
}

func checkUTF8(s string) (any, error) {
	if !utf8.ValidString(s) {
		return nil, fmt.Errorf("string is not valid UTF-8")
	}
	return s, nil
}

func makeGetter(arr arrow.Array, want DataType) (getter, error) {
	nullable := func(g getter) getter {
		if arr.NullN() == 0 {
			return g
		}
		return func(i int) (any, error) {
			if arr.IsNull(i) {
				return nil, nil
			}
			return g(i)
		}
	}
	switch a := arr.(type) {
	case *array.Boolean:
		return nullable(func(i int) (any, error) { return a.Value(i), nil }), nil
	case *array.Int8:
		return nullable(func(i int) (any, error) { return int64(a.Value(i)), nil }), nil
	case *array.Int16:
		return nullable(func(i int) (any, error) { return int64(a.Value(i)), nil }), nil
	case *array.Int32:
		return nullable(func(i int) (any, error) { return int64(a.Value(i)), nil }), nil
	case *array.Int64:
		return nullable(func(i int) (any, error) { return a.Value(i), nil }), nil
	case *array.Float32:
		return nullable(func(i int) (any, error) { return float64(a.Value(i)), nil }), nil
	case *array.Float64:
		return nullable(func(i int) (any, error) { return a.Value(i), nil }), nil
	case *array.Decimal128:
		scale := int32(a.DataType().(*arrow.Decimal128Type).Scale)
		return nullable(func(i int) (any, error) {
			return Decimal{Unscaled: a.Value(i).BigInt(), Scale: scale}, nil
		}), nil
	case *array.Decimal256:
		scale := int32(a.DataType().(*arrow.Decimal256Type).Scale)
		return nullable(func(i int) (any, error) {
			return Decimal{Unscaled: a.Value(i).BigInt(), Scale: scale}, nil
		}), nil
	case *array.Decimal32:
		scale := int32(a.DataType().(*arrow.Decimal32Type).Scale)
		return nullable(func(i int) (any, error) {
			return Decimal{Unscaled: big.NewInt(int64(a.Value(i))), Scale: scale}, nil
		}), nil
	case *array.Decimal64:
		scale := int32(a.DataType().(*arrow.Decimal64Type).Scale)
		return nullable(func(i int) (any, error) {
			return Decimal{Unscaled: big.NewInt(int64(a.Value(i))), Scale: scale}, nil
		}), nil
	case *array.String:
		return nullable(func(i int) (any, error) { return checkUTF8(a.Value(i)) }), nil
	case *array.LargeString:
		return nullable(func(i int) (any, error) { return checkUTF8(a.Value(i)) }), nil
	case *array.StringView:
		return nullable(func(i int) (any, error) { return checkUTF8(a.Value(i)) }), nil
	case *array.FixedSizeBinary:
		if a.DataType().(*arrow.FixedSizeBinaryType).ByteWidth != 16 || want.Primitive().Kind != KindUUID {
			return nil, fmt.Errorf("unsupported column type %s", a.DataType())
		}
		return nullable(func(i int) (any, error) {
			var u UUID
			copy(u[:], a.Value(i))
			return u, nil
		}), nil
	case array.ExtensionArray:
		return makeGetter(a.Storage(), want)
	case *array.Date32:
		return nullable(func(i int) (any, error) { return Date(a.Value(i)), nil }), nil
	case *array.Date64:
		return nullable(func(i int) (any, error) { return Date(int64(a.Value(i)) / 86_400_000), nil }), nil
	case *array.Time64:
		unit := a.DataType().(*arrow.Time64Type).Unit
		return nullable(func(i int) (any, error) {
			v := int64(a.Value(i))
			if unit == arrow.Nanosecond {
				v /= 1000
			}
			return Time(v), nil
		}), nil
	case *array.Time32:
		unit := a.DataType().(*arrow.Time32Type).Unit
		return nullable(func(i int) (any, error) {
			v := int64(a.Value(i))
			if unit == arrow.Second {
				v *= 1_000_000
			} else {
				v *= 1000
			}
			return Time(v), nil
		}), nil
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return nullable(func(i int) (any, error) {
			v := int64(a.Value(i))
			var t time.Time
			switch unit {
			case arrow.Second:
				t = time.Unix(v, 0)
			case arrow.Millisecond:
				t = time.UnixMilli(v)
			case arrow.Microsecond:
				t = time.UnixMicro(v)
			default:
				t = time.Unix(0, v)
			}
			return t.UTC(), nil
		}), nil
	case array.ListLike:
		elem, err := makeGetter(a.ListValues(), want.Primitive())
		if err != nil {
			return nil, err
		}
		return nullable(func(i int) (any, error) {
			start, end := a.ValueOffsets(i)
			out := make([]any, 0, end-start)
			for j := start; j < end; j++ {
				v, err := elem(int(j))
				if err != nil {
					return nil, err
				}
				out = append(out, v)
			}
			return out, nil
		}), nil
	}
	return nil, fmt.Errorf("unsupported column type %s", arr.DataType())
}
