package objects

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/peterstace/simplefeatures/geom"
)

func TestParseGeoPoint(t *testing.T) {
	tests := []struct {
		in      string
		want    GeoPoint
		wantErr string
	}{
		{in: "37.77,-122.42", want: GeoPoint{Lon: -122.42, Lat: 37.77}},
		{in: " -90 , 180 ", want: GeoPoint{Lon: 180, Lat: -90}},
		{in: `{"type":"Point","coordinates":[-122.42,37.77]}`, want: GeoPoint{Lon: -122.42, Lat: 37.77}},
		{in: `{"type":"Point","coordinates":[1,2,3]}`, want: GeoPoint{Lon: 1, Lat: 2}},
		{in: "91,0", wantErr: "latitude 91"},
		{in: "0,-181", wantErr: "longitude -181"},
		{in: "NaN,0", wantErr: "NaN"},
		{in: "1;2", wantErr: "neither"},
		{in: "a,b", wantErr: "not \"lat,lon\""},
		{in: `{"type":"LineString","coordinates":[[0,0],[1,1]]}`, wantErr: "not a Point"},
		{in: `{"type":"Point"`, wantErr: "GeoJSON"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseGeoPoint(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestParseGeoShape(t *testing.T) {
	square := `POLYGON((0 0,10 0,10 10,0 10,0 0))`
	tests := []struct {
		in      string
		wantWKT string
		wantErr string
	}{
		{in: square, wantWKT: square},
		{in: `{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,10],[0,0]]]}`, wantWKT: square},
		{in: `LINESTRING Z(0 0 1,1 1 2)`, wantWKT: `LINESTRING(0 0,1 1)`},
		{in: `MULTIPOINT((1 2),(3 4))`, wantWKT: `MULTIPOINT((1 2),(3 4))`},
		{in: `POLYGON((0 0,10 10,10 0,0 10,0 0))`, wantErr: "WKT"}, // a bow tie is not a valid polygon
		{in: `POLYGON((0 0,10 0,10 10))`, wantErr: "WKT"},
		{in: `POINT EMPTY`, wantErr: "empty"},
		{in: `POINT(200 0)`, wantErr: "longitude 200"},
		{in: `{"type":"Feature"}`, wantErr: "GeoJSON"},
		{in: `hello`, wantErr: "neither"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseGeoShape(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got.String() != tt.wantWKT {
				t.Fatalf("got %v, %v; want %s", got, err, tt.wantWKT)
			}
			back, err := GeoShapeFromWKB(got.WKB())
			if err != nil || !back.Equal(got) {
				t.Fatalf("WKB round trip: %v, %v", back, err)
			}
		})
	}
}

func TestAppendValue_geo(t *testing.T) {
	shape, err := ParseGeoShape(`POLYGON((0 0,10 0,10 10,0 10,0 0),(2 2,2 4,4 4,4 2,2 2))`)
	if err != nil {
		t.Fatal(err)
	}
	o := Object{Values: []any{GeoPoint{Lon: -0.5, Lat: 51.25}, shape, nil}}
	b, err := o.Encode(nil)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeObject(b)
	if err != nil {
		t.Fatal(err)
	}
	if back.Values[0] != o.Values[0] || !back.Values[1].(GeoShape).Equal(shape) || back.Values[2] != nil {
		t.Errorf("decoded %v", back.Values)
	}
	for i := 1; i < len(b); i++ {
		if _, err := DecodeObject(b[:i]); err == nil {
			t.Errorf("a truncation to %d bytes decodes", i)
		}
	}
}

func TestJSONValue_geo(t *testing.T) {
	shape, _ := ParseGeoShape(`LINESTRING(1 2,3 4)`)
	tests := []struct {
		v    any
		want string
	}{
		{GeoPoint{Lon: -122.5, Lat: 37.25}, `{"coordinates":[-122.5,37.25],"type":"Point"}`},
		{shape, `{"type":"LineString","coordinates":[[1,2],[3,4]]}`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(JSONValue(DataType{}, tt.v))
		if err != nil || string(b) != tt.want {
			t.Errorf("JSONValue(%v) = %s, %v; want %s", tt.v, b, err, tt.want)
		}
	}
}

func TestTypeSpec_Resolve_geo(t *testing.T) {
	columns := []Column{
		{Name: "id", FieldID: 1, Type: DataType{Kind: KindLong}},
		{Name: "loc", FieldID: 2, Type: DataType{Kind: KindStruct}, Fields: []Column{
			{Name: "lat", FieldID: 5, Type: DataType{Kind: KindDouble}}, {Name: "lon", FieldID: 6, Type: DataType{Kind: KindDouble}}}},
		{Name: "text", FieldID: 3, Type: DataType{Kind: KindString}},
		{Name: "wkb", FieldID: 4, Unsupported: UnsupportedBinary},
		{Name: "n", FieldID: 7, Type: DataType{Kind: KindLong}},
		{Name: "xy", FieldID: 8, Type: DataType{Kind: KindStruct}, Fields: []Column{{Name: "x", FieldID: 9, Type: DataType{Kind: KindDouble}}}},
	}
	tests := []struct {
		name    string
		props   map[string]PropertySpec
		want    Kind
		wantErr string
	}{
		{"point from struct", map[string]PropertySpec{"p": {Column: "loc", Type: "geopoint"}}, KindGeoPoint, ""},
		{"point from string", map[string]PropertySpec{"p": {Column: "text", Type: "geopoint"}}, KindGeoPoint, ""},
		{"shape from string", map[string]PropertySpec{"p": {Column: "text", Type: "geoshape"}}, KindGeoShape, ""},
		{"shape from binary", map[string]PropertySpec{"p": {Column: "wkb", Type: "geoshape"}}, KindGeoShape, ""},
		{"point from binary", map[string]PropertySpec{"p": {Column: "wkb", Type: "geopoint"}}, 0, `column "wkb" of table a.b.c is binary; a geopoint is read from`},
		{"point from long", map[string]PropertySpec{"p": {Column: "n", Type: "geopoint"}}, 0, "is of type long"},
		{"point from another struct", map[string]PropertySpec{"p": {Column: "xy", Type: "geopoint"}}, 0, "without a field lat"},
		{"a role", map[string]PropertySpec{"p": {Column: "text", Type: "geoshape", Search: SearchKeyword}}, 0, "search role keyword does not fit a geoshape"},
		{"a vector from a string", map[string]PropertySpec{"p": {Column: "text", Type: "vector", Dimension: 2}}, 0, `column "text" is string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.props["id"] = PropertySpec{Column: "id"}
			spec := TypeSpec{APIName: "X", Table: "a.b.c", PrimaryKey: []string{"id"}, Properties: tt.props}
			typ, err := spec.Resolve(columns, nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p, _ := typ.Property("p")
			if p.Type.Kind != tt.want || p.Search != SearchNone || p.Hidden() {
				t.Errorf("p = %+v", p)
			}
			plain := TypeSpec{APIName: "X", Table: "a.b.c", PrimaryKey: []string{"id"},
				Properties: map[string]PropertySpec{"id": {Column: "id"}, "p": {Column: "text"}}}
			other, _ := plain.Resolve(columns, nil)
			if typ.MappingHash() == other.MappingHash() {
				t.Error("mapping a column as a geo type does not change the mapping hash")
			}
		})
	}
}

func TestConverter_Row_geo(t *testing.T) {
	loc := arrow.StructOf(arrow.Field{Name: "lat", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		arrow.Field{Name: "lon", Type: arrow.PrimitiveTypes.Float32, Nullable: true})
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "loc", Type: loc, Nullable: true},
		{Name: "text", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "shape", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "wkb", Type: arrow.BinaryTypes.Binary, Nullable: true},
	}, nil)
	square, _ := ParseGeoShape(`POLYGON((0 0,1 0,1 1,0 1,0 0))`)
	bld := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer bld.Release()
	rows := []struct {
		loc          *[2]float64
		text, shape  string
		wkb          []byte
		wantErrField string
	}{
		{loc: &[2]float64{51.5, -0.25}, text: "51.5,-0.25", shape: `{"type":"Point","coordinates":[3,4]}`, wkb: square.WKB()},
		{loc: nil, text: "", shape: "", wkb: nil},
		{loc: &[2]float64{95, 0}, text: "1,1", shape: "POINT(1 1)", wkb: square.WKB(), wantErrField: "loc"},
		{loc: &[2]float64{1, 1}, text: "x", shape: "POINT(1 1)", wkb: square.WKB(), wantErrField: "text"},
		{loc: &[2]float64{1, 1}, text: "1,1", shape: "POLYGON((0 0,1 1,1 0,0 1,0 0))", wkb: square.WKB(), wantErrField: "shape"},
		{loc: &[2]float64{1, 1}, text: "1,1", shape: "POINT(1 1)", wkb: []byte{1, 2, 3}, wantErrField: "wkb"},
	}
	for i, r := range rows {
		bld.Field(0).(*array.Int64Builder).Append(int64(i))
		sb := bld.Field(1).(*array.StructBuilder)
		if r.loc == nil {
			sb.AppendNull()
		} else {
			sb.Append(true)
			sb.FieldBuilder(0).(*array.Float64Builder).Append(r.loc[0])
			sb.FieldBuilder(1).(*array.Float32Builder).Append(float32(r.loc[1]))
		}
		for j, s := range []string{r.text, r.shape} {
			if s == "" {
				bld.Field(2 + j).AppendNull()
			} else {
				bld.Field(2 + j).(*array.StringBuilder).Append(s)
			}
		}
		if r.wkb == nil {
			bld.Field(4).AppendNull()
		} else {
			bld.Field(4).(*array.BinaryBuilder).Append(r.wkb)
		}
	}
	rec := bld.NewRecordBatch()
	defer rec.Release()
	typ := NewType(Type{APIName: "T", PrimaryKey: []string{"id"}, Properties: []Property{
		{APIName: "id", Column: "id", Type: DataType{Kind: KindLong}},
		{APIName: "loc", Column: "loc", Type: DataType{Kind: KindGeoPoint}},
		{APIName: "text", Column: "text", Type: DataType{Kind: KindGeoPoint}},
		{APIName: "shape", Column: "shape", Type: DataType{Kind: KindGeoShape}},
		{APIName: "wkb", Column: "wkb", Type: DataType{Kind: KindGeoShape}},
	}})
	c, err := NewConverter(typ, sc)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Bind(rec)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		var o Object
		err := b.Row(i, &o)
		if r.wantErrField != "" {
			var iv *InvalidValueError
			if err == nil || !strings.Contains(err.Error(), "property "+r.wantErrField+" ") {
				t.Errorf("row %d: err = %v, want one about %s (%T)", i, err, r.wantErrField, iv)
			}
			continue
		}
		if err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		if i == 1 {
			if o.Values[1] != nil || o.Values[2] != nil || o.Values[3] != nil || o.Values[4] != nil {
				t.Errorf("nulls read as %v", o.Values)
			}
			continue
		}
		want := GeoPoint{Lon: -0.25, Lat: 51.5}
		if o.Values[1] != want || o.Values[2] != want {
			t.Errorf("points = %v %v", o.Values[1], o.Values[2])
		}
		if s := o.Values[3].(GeoShape); s.String() != "POINT(3 4)" {
			t.Errorf("shape = %v", s)
		}
		if s := o.Values[4].(GeoShape); !s.Equal(square) {
			t.Errorf("wkb = %v", s)
		}
	}
}

func FuzzParseGeo(f *testing.F) {
	for _, s := range []string{"1,2", `{"type":"Point","coordinates":[1,2]}`, "POLYGON((0 0,1 0,1 1,0 0))",
		`{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]]]}`, "GEOMETRYCOLLECTION(POINT(1 2))"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if p, err := ParseGeoPoint(s); err == nil {
			if ValidLonLat(p.Lon, p.Lat) != nil {
				t.Fatalf("%q parsed to an invalid point %v", s, p)
			}
			back, err := ParseGeoPoint(p.String())
			if err != nil || back != p {
				t.Fatalf("%v round trips to %v, %v", p, back, err)
			}
		}
		shape, err := ParseGeoShape(s)
		if err != nil {
			if _, err := GeoShapeFromWKB([]byte(s)); err == nil {
				return // bytes that happen to be WKB are fine
			}
			return
		}
		if shape.Geometry.IsEmpty() || shape.Geometry.CoordinatesType() != geom.DimXY {
			t.Fatalf("%q parsed to %v", s, shape)
		}
		back, err := GeoShapeFromWKB(shape.WKB())
		if err != nil || !back.Equal(shape) {
			t.Fatalf("%v does not round trip through WKB: %v", shape, err)
		}
		if _, err := ParseGeoShape(string(shape.GeoJSON())); err != nil {
			t.Fatalf("%v does not round trip through GeoJSON: %v", shape, err)
		}
	})
}

func TestType_InvalidRowKey(t *testing.T) {
	typ := NewType(Type{APIName: "T", PrimaryKey: []string{"id"}, Properties: []Property{
		{APIName: "id", Column: "id", Type: DataType{Kind: KindString}},
		{APIName: "pin", Column: "pin", Type: DataType{Kind: KindGeoPoint}},
	}})
	o := &Object{Values: []any{"p9", nil}}
	tests := []struct {
		err  error
		want string
	}{
		{&InvalidValueError{Property: "pin", Column: "pin", Reason: "x"}, "p9"},
		{&InvalidValueError{Property: "id", Column: "id", Reason: "x"}, ""},
		{errors.New("other"), ""},
	}
	for _, tt := range tests {
		if got := typ.InvalidRowKey(o, tt.err); got != tt.want {
			t.Errorf("InvalidRowKey(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
