package objects

import (
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestConverter_Row(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "small", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float32},
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 38, Scale: 4}},
		{Name: "s", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32},
		{Name: "tm", Type: arrow.FixedWidthTypes.Time64us},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
		{Name: "tsns", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}},
		{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String)},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean},
	}, nil)
	js := `[{"id": 9223372036854775807, "small": null, "f": 0.1, "dec": "-1234567890123456789012345678901234.5678", "s": "x",
	         "d": "2024-02-29", "tm": "12:34:56.789012", "ts": "2024-01-02T03:04:05.123456Z", "tsns": "2024-01-02T03:04:05.123456789",
	         "tags": ["a", "b"], "b": true}]`
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, sc, strings.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	kinds := map[string]DataType{"id": {Kind: KindLong}, "small": {Kind: KindInteger}, "f": {Kind: KindFloat}, "dec": {Kind: KindDecimal, Precision: 38, Scale: 4},
		"s": {Kind: KindString}, "d": {Kind: KindDate}, "tm": {Kind: KindTime}, "ts": {Kind: KindTimestampTZ}, "tsns": {Kind: KindTimestamp},
		"tags": {Kind: KindList, Elem: &DataType{Kind: KindString}}, "b": {Kind: KindBoolean}}
	var props []Property
	for _, f := range sc.Fields() {
		props = append(props, Property{APIName: f.Name, Column: f.Name, Type: kinds[f.Name]})
	}
	typ := NewType(Type{APIName: "T", PrimaryKey: []string{"id"}, Properties: props})
	c, err := NewConverter(typ, sc)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Bind(rec)
	if err != nil {
		t.Fatal(err)
	}
	var o Object
	if err := b.Row(0, &o); err != nil {
		t.Fatal(err)
	}
	got := typ.JSON(&o)
	want := map[string]string{
		"id": "9223372036854775807", "f": "0.1", "dec": "-1234567890123456789012345678901234.5678", "s": "x",
		"d": "2024-02-29", "tm": "12:34:56.789012", "ts": "2024-01-02T03:04:05.123456Z", "tsns": "2024-01-02T03:04:05.123456789Z",
		"tags": "[a b]", "b": "true", "__primaryKey": "9223372036854775807",
	}
	for k, w := range want {
		if g := TextOfJSON(got[k]); g != w {
			t.Errorf("%s = %q, want %q", k, g, w)
		}
	}
	if _, ok := got["small"]; ok {
		t.Error("null property rendered")
	}
	if ts := o.Values[7].(time.Time); ts.Nanosecond() != 123456000 {
		t.Errorf("timestamp = %v", ts)
	}
}

// TextOfJSON renders a JSON value for comparison in tests.
func TextOfJSON(v any) string {
	if l, ok := v.([]any); ok {
		parts := make([]string, len(l))
		for i, e := range l {
			parts[i] = TextOfJSON(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return strings.TrimSpace(strings.Trim(TextOf(v), `"`))
}

func TestNewConverter_missingColumn(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	typ := NewType(Type{Properties: []Property{{APIName: "id", Column: "id"}, {APIName: "gone", Column: "gone"}}})
	if _, err := NewConverter(typ, sc); err == nil || !strings.Contains(err.Error(), `"gone"`) {
		t.Errorf("err = %v", err)
	}
}
