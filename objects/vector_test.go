package objects

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func vectorColumns() []Column {
	return []Column{
		{Name: "id", Type: DataType{Kind: KindLong}},
		{Name: "emb", Type: DataType{Kind: KindList, Elem: &DataType{Kind: KindFloat}}},
		{Name: "emb64", Type: DataType{Kind: KindList, Elem: &DataType{Kind: KindDouble}}},
		{Name: "tags", Type: DataType{Kind: KindList, Elem: &DataType{Kind: KindString}}},
		{Name: "name", Type: DataType{Kind: KindString}},
	}
}

func TestTypeSpec_Resolve_vector(t *testing.T) {
	tests := []struct {
		name    string
		spec    PropertySpec
		want    DataType
		wantErr string
	}{
		{"list of floats, cosine by default", PropertySpec{Column: "emb", Type: "vector", Dimension: 3},
			DataType{Kind: KindVector, Dimension: 3, Similarity: SimilarityCosine}, ""},
		{"list of doubles", PropertySpec{Column: "emb64", Type: "vector", Dimension: 2, Similarity: SimilarityEuclidean},
			DataType{Kind: KindVector, Dimension: 2, Similarity: SimilarityEuclidean}, ""},
		{"list of strings", PropertySpec{Column: "tags", Type: "vector", Dimension: 2}, DataType{},
			`X.properties.p.column: column "tags" is list<string>; a vector is read from list<float> or list<double>`},
		{"a string", PropertySpec{Column: "name", Type: "vector", Dimension: 2}, DataType{}, `column "name" is string`},
		{"a search role", PropertySpec{Column: "emb", Type: "vector", Dimension: 2, Search: SearchNumeric}, DataType{},
			"X.properties.p.search: search role numeric does not fit a vector"},
		{"a geopoint is no vector", PropertySpec{Column: "emb", Type: "geopoint"}, DataType{}, `X.properties.p.column: column "emb"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := TypeSpec{APIName: "X", Table: "a.b.c", PrimaryKey: []string{"id"},
				Properties: map[string]PropertySpec{"id": {Column: "id"}, "p": tt.spec}}
			typ, err := spec.Resolve(vectorColumns(), nil)
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
			if p.Type.Kind != tt.want.Kind || p.Type.Dimension != tt.want.Dimension || p.Type.Similarity != tt.want.Similarity || p.Search != SearchNone {
				t.Errorf("property = %+v, want type %+v", p, tt.want)
			}
		})
	}
	t.Run("a vector is no primary key", func(t *testing.T) {
		spec := TypeSpec{APIName: "X", Table: "a.b.c", PrimaryKey: []string{"p"},
			Properties: map[string]PropertySpec{"p": {Column: "emb", Type: "vector", Dimension: 2}}}
		if _, err := spec.Resolve(vectorColumns(), nil); err == nil || !strings.Contains(err.Error(), "cannot be part of a primary key") {
			t.Errorf("err = %v", err)
		}
	})
}

func TestTypeSpec_Validate_vector(t *testing.T) {
	tests := []struct {
		spec    PropertySpec
		wantErr string
	}{
		{PropertySpec{Column: "c", Type: "vector", Dimension: 128, Similarity: "dotProduct"}, ""},
		{PropertySpec{Column: "c", Type: "vector"}, "objectTypes[0].properties.p.dimension: 0 must be 1 to 4096"},
		{PropertySpec{Column: "c", Type: "vector", Dimension: 5000}, "objectTypes[0].properties.p.dimension: 5000 must be 1 to 4096"},
		{PropertySpec{Column: "c", Type: "vector", Dimension: 3, Similarity: "manhattan"},
			`objectTypes[0].properties.p.similarity: "manhattan" must be cosine, dotProduct or euclidean`},
		{PropertySpec{Column: "c", Dimension: 3}, "objectTypes[0].properties.p.dimension: applies only to type vector"},
		{PropertySpec{Column: "c", Type: "geopoint", Similarity: "cosine"}, "objectTypes[0].properties.p.similarity: applies only to type vector"},
	}
	for _, tt := range tests {
		t.Run(tt.wantErr, func(t *testing.T) {
			spec := TypeSpec{APIName: "X", Table: "a.b.c", Properties: map[string]PropertySpec{"p": tt.spec}}
			err := spec.Validate("objectTypes[0]")
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestType_MappingHash_vector(t *testing.T) {
	hash := func(dimension int, similarity string) string {
		spec := TypeSpec{APIName: "X", Table: "a.b.c", PrimaryKey: []string{"id"}, Properties: map[string]PropertySpec{
			"id": {Column: "id"}, "p": {Column: "emb", Type: "vector", Dimension: dimension, Similarity: similarity}}}
		typ, err := spec.Resolve(vectorColumns(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return typ.MappingHash()
	}
	if hash(3, "") != hash(3, "cosine") {
		t.Error("the default similarity hashes unlike cosine")
	}
	if hash(3, "") == hash(4, "") || hash(3, "cosine") == hash(3, "euclidean") {
		t.Error("a new dimension or similarity keeps the mapping hash: the index would not be rebuilt")
	}
}

func TestConverter_Row_vector(t *testing.T) {
	for _, element := range []arrow.DataType{arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64} {
		t.Run(element.String(), func(t *testing.T) {
			sc := arrow.NewSchema([]arrow.Field{{Name: "emb", Type: arrow.ListOf(element), Nullable: true}}, nil)
			rows := `[{"emb": [1, 0.5, -2]}, {"emb": null}, {"emb": [1, 2]}, {"emb": [1, null, 2]}]`
			if element == arrow.PrimitiveTypes.Float64 {
				rows = `[{"emb": [1, 0.5, -2]}, {"emb": null}, {"emb": [1, 2]}, {"emb": [1, null, 2]}, {"emb": [1, 1e39, 2]}]` // beyond float32
			}
			rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, sc, strings.NewReader(rows))
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Release()
			typ := NewType(Type{APIName: "X", Properties: []Property{{APIName: "p", Column: "emb",
				Type: DataType{Kind: KindVector, Dimension: 3, Similarity: SimilarityCosine}}}})
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
			if v, ok := o.Values[0].(Vector); !ok || len(v) != 3 || v[0] != 1 || v[1] != 0.5 || v[2] != -2 {
				t.Errorf("row 0 = %#v", o.Values[0])
			}
			if err := b.Row(1, &o); err != nil || o.Values[0] != nil {
				t.Errorf("row 1 = %#v, %v; want null", o.Values[0], err)
			}
			wants := map[int]string{2: "vector has 2 elements, the property's dimension is 3", 3: "element 1 is null"}
			if element == arrow.PrimitiveTypes.Float64 {
				wants[4] = "element 1 is 1e+39, not a finite number" // beyond float32
			}
			for row, want := range wants {
				err := b.Row(row, &o)
				var inv *InvalidValueError
				if !errors.As(err, &inv) || inv.Property != "p" || !strings.Contains(err.Error(), want) {
					t.Errorf("row %d err = %v, want %q", row, err, want)
				}
			}
		})
	}
	t.Run("NaN", func(t *testing.T) {
		mem := memory.DefaultAllocator
		lb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Float64)
		defer lb.Release()
		vb := lb.ValueBuilder().(*array.Float64Builder)
		lb.Append(true)
		vb.AppendValues([]float64{1, math.NaN()}, nil)
		lb.Append(true)
		vb.AppendValues([]float64{math.Inf(-1), 1}, nil)
		arr := lb.NewArray()
		defer arr.Release()
		g, err := vectorGetter(arr, 2)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			if _, err := g(i); err == nil || !strings.Contains(err.Error(), "not a finite number") {
				t.Errorf("row %d err = %v", i, err)
			}
		}
	})
}

func TestVector_encoding(t *testing.T) {
	o := &Object{Values: []any{int64(1), Vector{1.5, -0.25, 3e-8}, Vector{}}}
	b, err := o.Encode(nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeObject(b)
	if err != nil {
		t.Fatal(err)
	}
	v := got.Values[1].(Vector)
	if len(v) != 3 || v[0] != 1.5 || v[1] != -0.25 || v[2] != 3e-8 || len(got.Values[2].(Vector)) != 0 {
		t.Errorf("decoded %#v", got.Values)
	}
	if _, err := DecodeObject(b[:len(b)-2]); err == nil {
		t.Error("a truncated vector decodes")
	}
	js, err := json.Marshal(JSONValue(DataType{Kind: KindVector, Dimension: 3}, v))
	if err != nil {
		t.Fatal(err)
	}
	if string(js) != "[1.5,-0.25,3e-08]" {
		t.Errorf("JSON = %s", js)
	}
}
